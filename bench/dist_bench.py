"""all_reduce bus bandwidth: npu tensors over npu-emu's `hccl` group beside
plain gloo on CPU tensors, both in the same 2-rank run, 1 KB to 64 MB.

    NPU=emu .venv/bin/python bench/dist_bench.py [--world 2] [--max-mb 64]
    NPU=emu torchrun --nproc_per_node 2 bench/dist_bench.py

Bus bandwidth is NCCL's figure: bytes / time * 2 (n - 1) / n for an
all_reduce over n ranks, what each rank's link carries. hccl's time includes
the staging of npu tensors through host memory (npu -> host, gloo, host ->
npu). Not part of the tests: timings never decide pass/fail.
"""

from __future__ import annotations

import argparse
import os
import socket
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import npu_emu  # noqa: F401  (activates the npu backend)

SIZES = [1 << k for k in range(10, 27, 2)]  # 1 KB .. 64 MB, powers of 4
# Per size: about this many bytes moved, at least MIN_ITERS all_reduces.
BYTES_PER_SIZE = 256 << 20
MIN_ITERS, MAX_ITERS, WARMUP = 3, 200, 2


def timed_all_reduce(tensor: torch.Tensor, group: dist.ProcessGroup, iters: int) -> float:
    """Seconds per all_reduce on this rank: the slowest rank's time decides
    the start of the next size, so ranks start each size together."""
    for _ in range(WARMUP):
        dist.all_reduce(tensor, group=group)
    if tensor.device.type == "npu":
        torch.npu.synchronize()
    dist.barrier(group=group)
    start = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(tensor, group=group)
    if tensor.device.type == "npu":
        torch.npu.synchronize()
    elapsed = (time.perf_counter() - start) / iters
    # The slowest rank's time: what the collective took.
    slowest = torch.tensor([elapsed], dtype=torch.float64)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX, group=group)
    return slowest.item()


def bus_gbps(nbytes: int, seconds: float, world: int) -> float:
    return nbytes / seconds * 2 * (world - 1) / world / 1e9


def run(rank: int, world: int, max_bytes: int) -> None:
    torch.npu.set_device(rank)
    npu_group = dist.group.WORLD  # hccl: npu tensors
    cpu_group = dist.new_group(backend="gloo")  # plain gloo: CPU tensors
    rows = []
    for nbytes in (s for s in SIZES if s <= max_bytes):
        iters = max(MIN_ITERS, min(MAX_ITERS, BYTES_PER_SIZE // nbytes))
        cpu = torch.ones(nbytes // 4, dtype=torch.float32)
        npu = torch.ones(nbytes // 4, dtype=torch.float32, device="npu")
        cpu_s = timed_all_reduce(cpu, cpu_group, iters)
        npu_s = timed_all_reduce(npu, npu_group, iters)
        rows.append((nbytes, iters, cpu_s, npu_s))
    if rank == 0:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"all_reduce, {world} ranks, float32; bus bandwidth GB/s (load average {load})")
        header = ("size", "iters", "gloo cpu", "hccl npu", "npu/cpu", "cpu us", "npu us")
        print(" ".join(f"{h:>{w}}" for h, w in zip(header, (8, 6, 10, 10, 8, 10, 10))))
        for nbytes, iters, cpu_s, npu_s in rows:
            size = f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"
            cpu_bw, npu_bw = bus_gbps(nbytes, cpu_s, world), bus_gbps(nbytes, npu_s, world)
            print(f"{size:>8} {iters:>6} {cpu_bw:>10.3f} {npu_bw:>10.3f} {npu_bw / cpu_bw:>8.2f} "
                  f"{cpu_s * 1e6:>10.1f} {npu_s * 1e6:>10.1f}")


def spawned_rank(rank: int, world: int, port: int, max_bytes: int) -> None:
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    dist.init_process_group("hccl", timeout=timedelta(minutes=5))
    try:
        run(rank, world, max_bytes)
    finally:
        dist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", type=int, default=2, help="ranks to spawn without torchrun (default 2)")
    parser.add_argument("--max-mb", type=int, default=64, help="largest size in MB (default 64)")
    args = parser.parse_args()
    max_bytes = args.max_mb << 20
    if "RANK" in os.environ:  # under torchrun
        dist.init_process_group("hccl")
        try:
            run(dist.get_rank(), dist.get_world_size(), max_bytes)
        finally:
            dist.destroy_process_group()
        return
    # One emulated npu per rank: read by each spawned rank's emulator.
    os.environ["LOCAL_WORLD_SIZE"] = str(args.world)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(spawned_rank, args=(args.world, port, max_bytes), nprocs=args.world)


if __name__ == "__main__":
    main()
