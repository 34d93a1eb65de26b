"""One rank of a test job of the real torch_npu's ProcessGroupHCCL on the CANN
stand-in (launched by hccl_ranks.run_ranks with torchrun's environment).

    python hccl_worker.py SCENARIO

Every rank builds every rank's input deterministically, so it computes the
expected result of each collective on CPU itself and compares it with what
the hccl group returned on npu. Prints one `ok NAME` line per check and exits
1 listing the mismatches, if any.
"""

from __future__ import annotations

import datetime
import os
import sys

import torch
import torch_npu  # noqa: F401  (the real package on the stand-in)
import torch.distributed as dist

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
DEVICE = torch.device("npu", int(os.environ["LOCAL_RANK"]))
failures: list[str] = []


def check(name: str, got: torch.Tensor, expected: torch.Tensor) -> None:
    got = got.cpu()
    if got.dtype != expected.dtype or got.shape != expected.shape or not torch.equal(got, expected):
        failures.append(f"{name}: got {got.tolist()} ({got.dtype}), expected {expected.tolist()} ({expected.dtype})")
    else:
        print("ok", name, flush=True)


def data(rank: int, dtype: torch.dtype, n: int = 6) -> torch.Tensor:
    """Rank `rank`'s input: distinct per rank, exact in every dtype used."""
    if dtype.is_floating_point:
        return (torch.arange(n, dtype=torch.float64) * (rank + 1) - 2 * rank + 0.5).to(dtype)
    return (torch.arange(n, dtype=torch.int64) * (rank + 2) - 3 * rank - 1).to(dtype)


def every(dtype: torch.dtype, n: int = 6) -> torch.Tensor:
    return torch.stack([data(r, dtype, n) for r in range(WORLD)])


def all_reduce_cases() -> None:
    ops = {"sum": (dist.ReduceOp.SUM, lambda s: s.sum(0)),
           "avg": (dist.ReduceOp.AVG, lambda s: s.sum(0) / WORLD),
           "min": (dist.ReduceOp.MIN, lambda s: s.amin(0)),
           "max": (dist.ReduceOp.MAX, lambda s: s.amax(0)),
           "product": (dist.ReduceOp.PRODUCT, lambda s: s.prod(0))}
    cases = [(torch.float32, ["sum", "avg", "min", "max", "product"]),
             (torch.int32, ["sum", "min", "max", "product"]),
             (torch.int64, ["sum", "max"]),
             (torch.float16, ["sum", "max"]),
             (torch.bfloat16, ["sum", "min"]),
             (torch.int8, ["sum", "max"])]
    # float64 is refused by torch_npu itself for reducing collectives.
    for dtype, names in cases:
        for name in names:
            op, reference = ops[name]
            t = data(RANK, dtype).to(DEVICE)
            dist.all_reduce(t, op=op)
            check(f"all_reduce {name} {dtype}", t, reference(every(dtype)).to(dtype))
    t = data(RANK, torch.float32).to(DEVICE)
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    check("all_reduce async_op + wait", t, every(torch.float32).sum(0))


def data_movement_cases() -> None:
    for root in range(WORLD):
        t = data(RANK, torch.float32).to(DEVICE)
        dist.broadcast(t, src=root)
        check(f"broadcast src={root}", t, data(root, torch.float32))

    # torch_npu pads all_gather's list tensors to a multiple of 512 bytes
    # (aclnnConstantPadNd): 6 elements need padding, 128 int32s none.
    for n in (6, 128):
        outs = [torch.empty(n, dtype=torch.int32, device=DEVICE) for _ in range(WORLD)]
        dist.all_gather(outs, data(RANK, torch.int32, n).to(DEVICE))
        for r, out in enumerate(outs):
            check(f"all_gather n={n} [{r}]", out, data(r, torch.int32, n))
    out = torch.empty(6 * WORLD, dtype=torch.bfloat16, device=DEVICE)
    dist.all_gather_into_tensor(out, data(RANK, torch.bfloat16).to(DEVICE))
    check("all_gather_into_tensor", out, every(torch.bfloat16).reshape(-1))

    def pieces(rank: int) -> list[torch.Tensor]:
        return [data(rank, torch.float32) + 10 * j for j in range(WORLD)]

    out = torch.empty(6, device=DEVICE)
    dist.reduce_scatter(out, [p.to(DEVICE) for p in pieces(RANK)])
    check("reduce_scatter sum", out, torch.stack([pieces(r)[RANK] for r in range(WORLD)]).sum(0))
    out = torch.empty(6, device=DEVICE)
    dist.reduce_scatter_tensor(out, torch.cat(pieces(RANK)).to(DEVICE), op=dist.ReduceOp.MAX)
    check("reduce_scatter_tensor max", out, torch.stack([pieces(r)[RANK] for r in range(WORLD)]).amax(0))

    src = data(RANK, torch.float32, 3 * WORLD).to(DEVICE)
    out = torch.empty(3 * WORLD, device=DEVICE)
    dist.all_to_all_single(out, src)
    check("all_to_all_single", out, torch.cat([data(r, torch.float32, 3 * WORLD)[3 * RANK:3 * RANK + 3]
                                               for r in range(WORLD)]))

    def split(sender: int, receiver: int) -> int:  # elements `sender` sends `receiver`
        return sender + 2 * receiver + 1

    def uneven(rank: int) -> list[torch.Tensor]:
        whole = data(rank, torch.int64, sum(split(rank, j) for j in range(WORLD)))
        return list(whole.split([split(rank, j) for j in range(WORLD)]))

    out = torch.empty(sum(split(j, RANK) for j in range(WORLD)), dtype=torch.int64, device=DEVICE)
    dist.all_to_all_single(out, torch.cat(uneven(RANK)).to(DEVICE),
                           output_split_sizes=[split(j, RANK) for j in range(WORLD)],
                           input_split_sizes=[split(RANK, j) for j in range(WORLD)])
    check("all_to_all_single uneven splits", out, torch.cat([uneven(j)[RANK] for j in range(WORLD)]))
    outs = [torch.empty(split(j, RANK), dtype=torch.int64, device=DEVICE) for j in range(WORLD)]
    dist.all_to_all(outs, [t.to(DEVICE) for t in uneven(RANK)])
    for j, out in enumerate(outs):
        check(f"all_to_all [{j}]", out, uneven(j)[RANK])

    t = data(RANK, torch.float32).to(DEVICE)
    dist.reduce(t, dst=WORLD - 1)
    if RANK == WORLD - 1:
        check("reduce dst=last", t, every(torch.float32).sum(0))
    dist.barrier()
    print("ok barrier", flush=True)


def point_to_point_cases() -> None:
    # A ring: every rank sends to the next and receives from the previous,
    # in both orders of the blocking calls, then with isend/irecv.
    nxt, prev = (RANK + 1) % WORLD, (RANK - 1) % WORLD
    got = torch.empty(6, device=DEVICE)
    if RANK % 2 == 0:
        dist.send(data(RANK, torch.float32).to(DEVICE) * 7, dst=nxt)
        dist.recv(got, src=prev)
    else:
        dist.recv(got, src=prev)
        dist.send(data(RANK, torch.float32).to(DEVICE) * 7, dst=nxt)
    check("send/recv ring", got, data(prev, torch.float32) * 7)
    got = torch.empty(5, dtype=torch.int32, device=DEVICE)
    works = [dist.isend(data(RANK, torch.int32, 5).to(DEVICE), dst=nxt), dist.irecv(got, src=prev)]
    for work in works:
        work.wait()
    check("isend/irecv ring", got, data(prev, torch.int32, 5))


def ordering_case() -> None:
    # The collective reads its input only after the kernels that produce it
    # (NPU_EMU_KERNEL_DELAY_US makes every kernel slow, so reading early
    # would see the old values).
    t = data(RANK, torch.float32).to(DEVICE)
    torch.npu.synchronize()
    t.mul_(3).add_(1)
    dist.all_reduce(t)
    check("all_reduce after queued kernels", t, (every(torch.float32) * 3 + 1).sum(0))
    out = t * 2  # and the next kernel sees the collective's result
    check("kernel after all_reduce", out, (every(torch.float32) * 3 + 1).sum(0) * 2)


def ddp_case() -> None:
    from torch.nn.parallel import DistributedDataParallel

    def model() -> torch.nn.Module:
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))

    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(8 * WORLD, 8, generator=gen), torch.randn(8 * WORLD, 4, generator=gen)

    def train(net: torch.nn.Module, xs: torch.Tensor, ys: torch.Tensor) -> list[float]:
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(xs), ys)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    reference = model()
    reference_losses = train(reference, x, y)  # one process, CPU, the whole batch
    ddp = DistributedDataParallel(model().to(DEVICE), device_ids=[DEVICE.index])
    losses = train(ddp, x[RANK::WORLD].to(DEVICE), y[RANK::WORLD].to(DEVICE))
    print("losses", [round(v, 5) for v in losses], "single-process", [round(v, 5) for v in reference_losses],
          flush=True)
    for (name, p), q in zip(ddp.module.named_parameters(), reference.parameters()):
        if not torch.allclose(p.detach().cpu(), q.detach(), rtol=1e-5, atol=1e-6):
            diff = (p.detach().cpu() - q.detach()).abs().max().item()
            failures.append(f"DDP parameter {name} differs from single-process training by {diff}")
        else:
            print("ok ddp", name, flush=True)
    if losses[-1] >= losses[0]:
        failures.append(f"DDP did not train: losses {losses}")


def lost_peer_case(how: str) -> None:
    t = data(RANK, torch.float32).to(DEVICE)
    dist.all_reduce(t)
    check("all_reduce before losing a peer", t, every(torch.float32).sum(0))
    store = dist.distributed_c10d._get_default_store()
    if RANK == 1:
        if how == "dies":
            torch.npu.synchronize()
            os._exit(3)
        store.wait(["rank0-done"])  # stays alive but never joins the next collective
        print("ok rank 1 released", flush=True)
        return
    try:
        dist.all_reduce(t)
        t.cpu()
        failures.append("all_reduce with a lost peer returned")
    except Exception as error:  # noqa: BLE001  (whatever torch_npu raises, its text is checked)
        print("RAISED", type(error).__name__, str(error).replace("\n", " | ")[:2000], flush=True)
    store.set("rank0-done", "1")


SCENARIOS = {
    "collectives": lambda: (all_reduce_cases(), data_movement_cases(), point_to_point_cases()),
    "ordering": ordering_case,
    "ddp": ddp_case,
    "peer_dies": lambda: lost_peer_case("dies"),
    "peer_hangs": lambda: lost_peer_case("hangs"),
}


def main() -> int:
    scenario = sys.argv[1]
    torch.npu.set_device(DEVICE)
    # A rank that fails before joining makes the others fail in a minute.
    dist.init_process_group("hccl", timeout=datetime.timedelta(seconds=60))
    SCENARIOS[scenario]()
    if failures:
        print("FAILED\n" + "\n".join(failures), flush=True)
        os._exit(1)
    print("done", scenario, flush=True)
    if scenario not in ("peer_dies", "peer_hangs"):
        dist.destroy_process_group()
    # Leave without torch_npu's exit-time teardown of a group whose peer is gone.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
