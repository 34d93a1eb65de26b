"""What examples/train_cnn.py and train_gpt.py print: per training step the
npu loss beside CPU's, the step time, the share of launches that ran
natively and the format casts made (npu-emu's npu_emu.debug counters; on
real Ascend hardware, without npu_emu, those two columns are left out).
"""

from __future__ import annotations

import argparse
import copy
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import torch

try:
    from npu_emu import debug
except ImportError:  # torch_npu on real hardware: no emulator counters
    debug = None

FORMAT_CAST = "aclnnNpuFormatCast"
# How close the npu losses must be to CPU's float32 run (see
# tests/python/test_training_models.py): reduced-precision matmuls move them.
LOSS_RTOL = {"off": 1e-4, "float16": 1e-2, "bfloat16": 3e-2}


def parse_args(description: str, steps: int) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=steps, help="training steps (default %(default)s)")
    parser.add_argument("--amp", choices=["float16", "bfloat16", "off"], default="float16",
                        help="autocast dtype on npu; float16 uses a GradScaler (default %(default)s)")
    parser.add_argument("--compare", action="store_true",
                        help="also train on CPU in float32 from the same weights and batches and compare losses")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    return args


def reset_counters() -> None:
    if debug is not None:
        debug.reset_reports()


@dataclass
class Step:
    loss: float
    seconds: float
    native: int = 0
    fallback: dict[str, int] = field(default_factory=dict)
    format_casts: int = 0


def timed_steps(step: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], batches: list, device: str
                ) -> Iterator[Step]:
    """Runs `step(x, y) -> loss` per batch, timing each to its end on the device."""
    for x, y in batches:
        reset_counters()
        start = time.perf_counter()
        loss = step(x.to(device), y.to(device)).item()  # .item() waits for the step's last kernel
        if device == "npu":
            torch.npu.synchronize()
        seconds = time.perf_counter() - start
        result = Step(loss, seconds)
        if debug is not None and device == "npu":
            native = debug.native_report()
            result.native = sum(native.values())
            result.fallback = debug.fallback_report()
            result.format_casts = native.get(FORMAT_CAST, 0)
        yield result


def cpu_reference(trainer: Callable[[torch.nn.Module, str, str], Callable], initial: torch.nn.Module,
                  batches: list, compare: bool) -> list[Step] | None:
    """With --compare, the steps of a copy of `initial` trained on CPU in float32 on the same batches; else None.

    `trainer(model, device, amp)` returns the step function timed_steps runs.
    """
    if not compare:
        return None
    return list(timed_steps(trainer(copy.deepcopy(initial), "cpu", "off"), batches, "cpu"))


def print_table(title: str, npu_steps: list[Step], cpu_steps: list[Step] | None, amp: str,
                setup_casts: int) -> bool:
    """Prints one line per step and a summary; returns whether the losses match CPU's."""
    print(f"\n== {title}")
    if debug is not None:
        print(f"format casts before training (weights/inputs to private formats): {setup_casts}")
    header = f"{'step':>4}  {'npu loss':>9}"
    if cpu_steps:
        header += f"  {'cpu loss':>9}  {'rel diff':>8}"
    header += f"  {'npu ms':>7}"
    if cpu_steps:
        header += f"  {'cpu ms':>7}"
    if debug is not None:
        header += f"  {'native':>7}  {'casts':>5}"
    print(header)
    worst = 0.0
    fallbacks: dict[str, int] = {}
    for i, s in enumerate(npu_steps):
        line = f"{i:>4}  {s.loss:>9.5f}"
        if cpu_steps:
            c = cpu_steps[i]
            rel = abs(s.loss - c.loss) / max(abs(c.loss), 1e-12)
            worst = max(worst, rel)
            line += f"  {c.loss:>9.5f}  {rel:>8.1e}"
        line += f"  {s.seconds * 1e3:>7.1f}"
        if cpu_steps:
            line += f"  {cpu_steps[i].seconds * 1e3:>7.1f}"
        if debug is not None:
            launches = s.native + sum(s.fallback.values())
            line += f"  {100.0 * s.native / max(launches, 1):>6.1f}%  {s.format_casts:>5}"
            for op, n in s.fallback.items():
                fallbacks[op] = fallbacks.get(op, 0) + n
        print(line)
    if debug is not None:
        print("ops on the CPU fallback: " + (", ".join(f"{op} x{n}" for op, n in sorted(fallbacks.items()))
                                              or "none (every launch native)"))
    if not cpu_steps:
        return True
    ok = worst <= LOSS_RTOL[amp]
    print(f"largest loss difference from CPU float32: {worst:.1e} (tolerance {LOSS_RTOL[amp]:.0e} for amp={amp}): "
          + ("match" if ok else "MISMATCH"))
    return ok
