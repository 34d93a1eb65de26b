"""One rank of a 2-rank job for test_distributed.py (run as a script, env://
rendezvous). Prints one JSON line: what this rank checked or the error."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

import npu_emu

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
LOCAL_RANK = int(os.environ["LOCAL_RANK"])
RedOp = dist.ReduceOp


def rank_input(rank: int, shape=(4, 3), dtype=torch.float32) -> torch.Tensor:
    """Every rank's input, known to all ranks so each can compute the result."""
    g = torch.Generator().manual_seed(100 + rank)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    return torch.randint(1, 8, shape, generator=g).to(dtype)


def check(name: str, got: torch.Tensor | list, want: torch.Tensor | list, failures: list[str]) -> None:
    got = got if isinstance(got, list) else [got]
    want = want if isinstance(want, list) else [want]
    for g, w in zip(got, want, strict=True):
        if g.device.type != "cpu":
            g = g.cpu()
        if g.dtype != w.dtype or g.shape != w.shape or not torch.allclose(g.double(), w.double(), rtol=1e-6, atol=1e-6):
            failures.append(f"{name}: got {g.tolist()} want {w.tolist()}")


def collectives(device: torch.device) -> list[str]:
    """Each collective on `device` tensors against the same computation done
    locally on CPU from every rank's inputs."""
    failures: list[str] = []
    inputs = [rank_input(r) for r in range(WORLD)]
    ints = [rank_input(r, dtype=torch.int64) for r in range(WORLD)]
    mine = inputs[RANK]
    stack = torch.stack(inputs)
    expected = {RedOp.SUM: stack.sum(0), RedOp.AVG: stack.sum(0) / WORLD, RedOp.PRODUCT: stack.prod(0),
                RedOp.MIN: stack.min(0).values, RedOp.MAX: stack.max(0).values}
    for op, want in expected.items():
        t = mine.to(device, copy=True)
        dist.all_reduce(t, op=op)
        check(f"all_reduce {op}", t, want, failures)
    istack = torch.stack(ints)
    for op, fold in ((RedOp.BAND, torch.bitwise_and), (RedOp.BOR, torch.bitwise_or), (RedOp.BXOR, torch.bitwise_xor)):
        t = ints[RANK].to(device, copy=True)
        dist.all_reduce(t, op=op)
        check(f"all_reduce {op}", t, fold(istack[0], istack[1]), failures)
    t = ints[RANK].to(device, copy=True)
    dist.all_reduce(t, op=RedOp.AVG)
    check("all_reduce AVG int", t, torch.div(istack.sum(0), WORLD, rounding_mode="trunc"), failures)
    for dtype in (torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.uint8):
        per_rank = [rank_input(r, dtype=dtype) for r in range(WORLD)]
        t = per_rank[RANK].to(device, copy=True)
        dist.all_reduce(t, op=RedOp.SUM)
        check(f"all_reduce SUM {dtype}", t, per_rank[0] + per_rank[1], failures)
    t = mine.to(device, copy=True)
    dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.5))
    check("all_reduce PREMUL_SUM", t, stack.sum(0) * 0.5, failures)

    t = mine.to(device, copy=True)
    dist.broadcast(t, src=1)
    check("broadcast", t, inputs[1], failures)
    t = mine.to(device, copy=True)
    dist.reduce(t, dst=0, op=RedOp.MAX)
    if RANK == 0:
        check("reduce", t, stack.max(0).values, failures)

    outs = [torch.empty_like(mine, device=device) for _ in range(WORLD)]
    dist.all_gather(outs, mine.to(device, copy=True))
    check("all_gather", outs, inputs, failures)
    out = torch.empty((WORLD * 4, 3), device=device)
    dist.all_gather_into_tensor(out, mine.to(device, copy=True))
    check("all_gather_into_tensor", out, torch.cat(inputs), failures)

    # reduce_scatter: rank r gets the sum over ranks of their r-th chunk.
    chunks = [list(x.chunk(WORLD)) for x in inputs]
    want_chunk = sum(c[RANK] for c in chunks)
    out = torch.empty((4 // WORLD, 3), device=device)
    dist.reduce_scatter(out, [c.to(device, copy=True) for c in chunks[RANK]], op=RedOp.SUM)
    check("reduce_scatter", out, want_chunk, failures)
    out = torch.empty((4 // WORLD, 3), device=device)
    dist.reduce_scatter_tensor(out, mine.to(device, copy=True), op=RedOp.AVG)
    check("reduce_scatter_tensor AVG", out, want_chunk / WORLD, failures)

    # Coalesced (the path of _coalescing_manager with a device, as FSDP uses).
    small = [x[:2].clone() for x in inputs]
    outs = [torch.empty((WORLD * 4, 3), device=device), torch.empty((WORLD * 2, 3), device=device)]
    with dist._coalescing_manager(device=device):
        dist.all_gather_into_tensor(outs[0], mine.to(device, copy=True))
        dist.all_gather_into_tensor(outs[1], small[RANK].to(device, copy=True))
    check("coalesced all_gather_into_tensor", outs, [torch.cat(inputs), torch.cat(small)], failures)
    outs = [torch.empty((2, 3), device=device), torch.empty((1, 3), device=device)]
    with dist._coalescing_manager(device=device):
        dist.reduce_scatter_tensor(outs[0], mine.to(device, copy=True), op=RedOp.MAX)
        dist.reduce_scatter_tensor(outs[1], small[RANK].to(device, copy=True), op=RedOp.MAX)
    check("coalesced reduce_scatter_tensor", outs,
          [stack.max(0).values.chunk(WORLD)[RANK], torch.stack(small).max(0).values.chunk(WORLD)[RANK]], failures)

    # Functional collectives (what FSDP2 and DTensor call).
    t = funcol.all_reduce(mine.to(device, copy=True), "sum", dist.group.WORLD)
    check("functional all_reduce", funcol.wait_tensor(t), stack.sum(0), failures)
    t = funcol.all_gather_tensor(mine.to(device, copy=True), 0, dist.group.WORLD)
    check("functional all_gather_tensor", funcol.wait_tensor(t), torch.cat(inputs), failures)
    t = funcol.reduce_scatter_tensor(mine.to(device, copy=True), "sum", 0, dist.group.WORLD)
    check("functional reduce_scatter_tensor", funcol.wait_tensor(t), want_chunk, failures)

    # all_to_all: rank r's j-th piece goes to rank j at position r.
    outs = [torch.empty((2, 3), device=device) for _ in range(WORLD)]
    dist.all_to_all(outs, [c.to(device, copy=True) for c in chunks[RANK]])
    check("all_to_all", outs, [chunks[r][RANK] for r in range(WORLD)], failures)
    out = torch.empty((4, 3), device=device)
    dist.all_to_all_single(out, mine.to(device, copy=True))
    check("all_to_all_single", out, torch.cat([chunks[r][RANK] for r in range(WORLD)]), failures)

    if RANK == 0:
        gathered = [torch.empty_like(mine, device=device) for _ in range(WORLD)]
        dist.gather(mine.to(device, copy=True), gather_list=gathered, dst=0)
        check("gather", gathered, inputs, failures)
        out = torch.empty_like(mine, device=device)
        dist.scatter(out, scatter_list=[x.to(device, copy=True) for x in inputs], src=0)
        check("scatter", out, inputs[0], failures)
    else:
        dist.gather(mine.to(device, copy=True), dst=0)
        out = torch.empty_like(mine, device=device)
        dist.scatter(out, src=0)
        check("scatter", out, inputs[RANK], failures)

    dist.barrier()
    peer = 1 - RANK
    got = torch.empty_like(mine, device=device)
    if RANK == 0:
        dist.send(mine.to(device, copy=True), dst=peer)
        dist.recv(got, src=peer)
    else:
        dist.recv(got, src=peer)
        dist.send(mine.to(device, copy=True), dst=peer)
    check("send/recv", got, inputs[peer], failures)
    # Both ranks post isend before irecv: the sends must not block.
    got = torch.empty_like(mine, device=device)
    works = [dist.isend(mine.to(device, copy=True), dst=peer), dist.irecv(got, src=peer)]
    for w in works:
        w.wait()
    check("isend/irecv", got, inputs[peer], failures)
    got = torch.empty_like(mine, device=device)
    ops = [dist.P2POp(dist.isend, mine.to(device, copy=True), peer), dist.P2POp(dist.irecv, got, peer)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    check("batch_isend_irecv", got, inputs[peer], failures)
    return failures


def ordered_with_stream(device: torch.device) -> list[str]:
    """With slow kernels, the input is still being computed when all_reduce
    is called; the collective must wait for it."""
    failures: list[str] = []
    mine = rank_input(RANK)
    want = sum(rank_input(r) for r in range(WORLD)) * 2 + WORLD
    npu_emu._C._set_kernel_delay_us(20000)
    try:
        src = mine.to(device, copy=True)
        t = src * 2 + 1
        work = dist.all_reduce(t, async_op=True)
        work.wait()
        after = t.clone()
    finally:
        npu_emu._C._set_kernel_delay_us(0)
    check("all_reduce after a slow kernel", after, want, failures)
    return failures


def two_devices() -> list[str]:
    """A rank driving both npus it sees (ASCEND_RT_VISIBLE_DEVICES lists two
    per rank): collectives on the device that is not current, with its
    stream still computing the input, and outputs spread over both."""
    failures: list[str] = []
    if torch.npu.device_count() != 2:
        return [f"rank {RANK} sees {torch.npu.device_count()} devices, not the 2 of ASCEND_RT_VISIBLE_DEVICES"]
    second = torch.device("npu", 1)
    inputs = [rank_input(r) for r in range(WORLD)]
    npu_emu._C._set_kernel_delay_us(20000)
    try:
        t = inputs[RANK].to(second) * 2  # slow, on npu:1's stream
        work = dist.all_reduce(t, async_op=True)
        work.wait()
        with torch.npu.device(1):
            after = t + 1
    finally:
        npu_emu._C._set_kernel_delay_us(0)
    check("all_reduce on npu:1", after, sum(inputs) * 2 + 1, failures)
    outs = [torch.empty(4, 3, device=f"npu:{r % 2}") for r in range(WORLD)]
    dist.all_gather(outs, inputs[RANK].to(second))
    check("all_gather onto npu:0 and npu:1", outs, inputs, failures)
    if [o.device.index for o in outs] != [r % 2 for r in range(WORLD)]:
        failures.append(f"all_gather moved its outputs: {[str(o.device) for o in outs]}")
    return failures


def peer_dies(device: torch.device) -> dict:
    t = torch.ones(3, device=device)
    dist.all_reduce(t)
    if RANK == 1:
        os._exit(3)
    try:
        dist.all_reduce(t)
        dist.all_reduce(t)
    except RuntimeError as err:
        return {"error": str(err), "type": type(err).__name__}
    return {"error": None}


def main() -> None:
    scenario, backend = sys.argv[1], sys.argv[2]
    # A rank with several devices of its own (ASCEND_RT_VISIBLE_DEVICES) starts on its first.
    torch.npu.set_device(0 if scenario == "two_devices" else LOCAL_RANK)
    dist.init_process_group(backend, timeout=timedelta(seconds=int(os.environ.get("JOB_TIMEOUT_S", "30"))))
    device = torch.device("npu", torch.npu.current_device())
    if scenario == "collectives":
        result = {"npu": collectives(device), "cpu": collectives(torch.device("cpu")),
                  "stream": ordered_with_stream(device), "device": str(device)}
    elif scenario == "two_devices":
        result = {"failures": two_devices(), "current": str(device)}
    elif scenario == "peer_dies":
        result = peer_dies(device)
    else:
        raise ValueError(f"scenario must be collectives, two_devices or peer_dies; got {scenario}")
    print(json.dumps(result), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
