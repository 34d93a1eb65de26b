"""Allocator benchmark: allocation/free pairs per second for a mix of sizes on
npu (the caching allocator) vs PyTorch's CPU allocator in the same run, and
the reserved/allocated memory after a training-like allocation pattern.

    python bench/allocator.py [--iterations N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import torch

import npu_emu  # noqa: F401  (activates the npu backend)

KiB, MiB = 1 << 10, 1 << 20
# A mix of request sizes, small-pool heavy as in real models.
SIZE_MIX = [256, 4 * KiB, 64 * KiB, 512 * KiB, 2 * MiB, 8 * MiB, 24 * MiB]


def pairs_per_second(alloc_free: Callable[[int], None], sizes: list[int]) -> float:
    alloc_free(sizes[0])  # warm-up: the first call may create segments
    start = time.perf_counter()
    for size in sizes:
        alloc_free(size)
    return len(sizes) / (time.perf_counter() - start)


def tensor_pair(device: str) -> Callable[[int], None]:
    def run(size: int) -> None:
        t = torch.empty(size, dtype=torch.uint8, device=device)
        del t
    return run


def raw_pair(size: int) -> None:
    torch.npu.caching_allocator_delete(torch.npu.caching_allocator_alloc(size))


def training_pattern(steps: int, layers: int, width: int, batch: int) -> dict[str, int]:
    """Forward activations kept until backward, gradients freed in reverse,
    persistent parameters and optimizer state: the shape of a training step."""
    torch.npu.empty_cache()
    torch.npu.reset_peak_memory_stats()
    torch.npu.reset_accumulated_memory_stats()
    params = [torch.empty(width * width * 4, dtype=torch.uint8, device="npu") for _ in range(layers)]
    optim_state = [torch.empty_like(p) for p in params for _ in range(2)]
    rng = random.Random(0)
    for _ in range(steps):
        seq = rng.choice([batch // 2, batch, batch * 3 // 4])  # variable-length batches fragment the cache
        activations = [torch.empty(seq * width * 4, dtype=torch.uint8, device="npu") for _ in range(layers)]
        workspace = [torch.empty(rng.randint(1, 64) * KiB, dtype=torch.uint8, device="npu") for _ in range(layers)]
        del workspace
        grads = []
        for act in reversed(activations):
            grads.append(torch.empty_like(act))
            del act
        activations.clear()
        del grads
    stats = torch.npu.memory_stats()
    result = {
        "allocated_bytes": stats["allocated_bytes.all.current"],
        "reserved_bytes": stats["reserved_bytes.all.current"],
        "peak_allocated_bytes": stats["allocated_bytes.all.peak"],
        "peak_reserved_bytes": stats["reserved_bytes.all.peak"],
        "segments": stats["segment.all.current"],
        "device_mallocs": stats["num_device_alloc"],
        "allocations": stats["allocation.all.allocated"],
    }
    del params, optim_state
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20000, help="alloc/free pairs per measurement")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args()

    rng = random.Random(42)
    sizes = [rng.choice(SIZE_MIX) for _ in range(args.iterations)]
    npu_rate = pairs_per_second(tensor_pair("npu"), sizes)
    cpu_rate = pairs_per_second(tensor_pair("cpu"), sizes)
    raw_rate = pairs_per_second(raw_pair, sizes)
    pattern = training_pattern(steps=50, layers=12, width=512, batch=64)

    results = {
        "iterations": args.iterations,
        "size_mix_bytes": SIZE_MIX,
        "npu_tensor_pairs_per_s": round(npu_rate),
        "cpu_tensor_pairs_per_s": round(cpu_rate),
        "npu_over_cpu": round(npu_rate / cpu_rate, 3),
        "npu_raw_alloc_pairs_per_s": round(raw_rate),
        "training_pattern": pattern,
        "training_reserved_over_allocated_peak": round(
            pattern["peak_reserved_bytes"] / max(pattern["peak_allocated_bytes"], 1), 3),
    }
    print(f"alloc/free pairs per second ({args.iterations} pairs, sizes {SIZE_MIX})")
    print(f"  npu tensors (caching allocator): {npu_rate:12,.0f}")
    print(f"  cpu tensors (PyTorch CPU):       {cpu_rate:12,.0f}")
    print(f"  npu / cpu ratio:                 {npu_rate / cpu_rate:12.3f}")
    print(f"  npu raw caching_allocator_alloc: {raw_rate:12,.0f}")
    print("training-like pattern (50 steps, 12 layers):")
    for key, value in pattern.items():
        print(f"  {key:22s} {value:14,d}")
    print(f"  peak reserved / peak allocated: {results['training_reserved_over_allocated_peak']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
