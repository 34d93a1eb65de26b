"""npu-emu against PyTorch's CPU backend, side by side in one run.

Prints per-op latency for small tensors (dispatch + launch overhead),
per-step time of small recurrent models (chains of small ops) and throughput
for large tensors (GB/s), each with its ratio to CPU, plus the machine's
memcpy bandwidth as the ceiling. `--json FILE` writes the numbers.
Not part of the tests: timings never decide pass/fail.

    python bench/run.py [--json out.json] [--quick]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch

import npu_emu  # noqa: F401  (activates the npu backend)

LATENCY_TARGET = 1.5  # npu time / CPU time, small ops
THROUGHPUT_TARGET = 0.8  # npu GB/s / CPU GB/s, large elementwise and reductions


@dataclass
class Row:
    kind: str
    op: str
    cpu: float
    npu: float
    unit: str
    ratio: float
    target: str


def _sync(device: str) -> None:
    if device == "npu":
        torch.npu.synchronize()


def _time(fn: Callable[[], object], device: str, iters: int, repeats: int = 3) -> float:
    """Best-of-`repeats` seconds per call; npu work is synchronized at the end."""
    fn()
    _sync(device)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        _sync(device)
        best = min(best, (time.perf_counter() - start) / iters)
    return best


def _small_ops(device: str) -> dict[str, Callable[[], object]]:
    a = torch.randn(64, device=device)
    b = torch.randn(64, device=device)
    idx = torch.randint(0, 64, (16,), device=device)
    return {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "sum": lambda: a.sum(),
        "index_select": lambda: a.index_select(0, idx),
    }


def _model_steps(device: str) -> dict[str, Callable[[], object]]:
    """One time step of small recurrent models: many small ops in a row."""
    torch.manual_seed(0)
    batch, features, hidden = 4, 16, 32
    x = torch.randn(batch, features, device=device)
    gru = torch.nn.GRUCell(features, hidden).to(device)
    lstm = torch.nn.LSTMCell(features, hidden).to(device)
    h = torch.zeros(batch, hidden, device=device)
    c = torch.zeros(batch, hidden, device=device)
    gates = torch.randn(batch, 4 * hidden, device=device)

    def lstm_pointwise() -> object:
        # An LSTM cell's pointwise part with the gate pre-activations given:
        # only small native ops (chunk, sigmoid, tanh, mul, add).
        i, f, g, o = gates.chunk(4, 1)
        c_next = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c_next)

    def gru_step() -> object:
        with torch.no_grad():
            return gru(x, h)

    def lstm_step() -> object:
        with torch.no_grad():
            return lstm(x, (h, c))

    return {"lstm_pointwise": lstm_pointwise, "gru_cell": gru_step, "lstm_cell": lstm_step}


def _large_ops(device: str, n: int) -> dict[str, tuple[Callable[[], object], int]]:
    """op -> (callable, bytes it moves)."""
    a = torch.randn(n, device=device)
    b = torch.randn(n, device=device)
    idx = torch.randint(0, n, (n // 4,), device=device)
    f4 = 4
    return {
        "add": (lambda: a + b, 3 * n * f4),
        "mul": (lambda: a * b, 3 * n * f4),
        "sum": (lambda: a.sum(), n * f4),
        "sum_dim": (lambda: a.view(-1, 1024).sum(1), n * f4),
        "index_select": (lambda: a.index_select(0, idx), (n // 4) * (f4 + 8 + f4)),
        "cast_to_half": (lambda: a.half(), n * (f4 + 2)),
    }


# ---- pooling (wave 3, pool) ------------------------------------------------------------

def _pool_steps(device: str) -> dict[str, Callable[[], object]]:
    """Forward + backward of resnet18's pools at batch 8, 3x64x64 inputs
    (max 3x3/2 on 64x32x32, global average on 512x2x2), NCHW and channels_last."""
    torch.manual_seed(0)
    steps: dict[str, Callable[[], object]] = {}
    for layout, fmt in (("", torch.contiguous_format), ("_cl", torch.channels_last)):
        x = torch.randn(8, 64, 32, 32, device=device).to(memory_format=fmt).requires_grad_()
        g = torch.randn(8, 64, 16, 16, device=device).to(memory_format=fmt)
        feat = torch.randn(8, 512, 2, 2, device=device).to(memory_format=fmt).requires_grad_()

        def maxpool(x=x, g=g) -> object:
            return torch.autograd.grad(torch.nn.functional.max_pool2d(x, 3, 2, 1), x, g)

        def avgpool(x=x) -> object:
            y = torch.nn.functional.avg_pool2d(x, 2)
            return torch.autograd.grad(y, x, torch.ones_like(y))

        def adaptive(feat=feat) -> object:
            y = torch.nn.functional.adaptive_avg_pool2d(feat, (1, 1))
            return torch.autograd.grad(y, feat, torch.ones_like(y))

        steps.update({f"maxpool{layout}": maxpool, f"avgpool{layout}": avgpool, f"adaptive{layout}": adaptive})
    return steps


def memcpy_bandwidth(n: int) -> float:
    src = torch.randn(n)
    dst = torch.empty(n)
    seconds = _time(lambda: dst.copy_(src), "cpu", 5)
    return 2 * n * 4 / seconds / 1e9


def run(quick: bool) -> tuple[list[Row], float]:
    rows: list[Row] = []
    iters = 300 if quick else 2000
    cpu_small, npu_small = _small_ops("cpu"), _small_ops("npu")
    for name in cpu_small:
        c = _time(cpu_small[name], "cpu", iters) * 1e6
        d = _time(npu_small[name], "npu", iters) * 1e6
        rows.append(Row("latency", name, c, d, "us/op", d / c, f"<= {LATENCY_TARGET}x"))
    # Cores a loop of small ops keeps busy (CPU seconds per wall second):
    # 1.0 is the host thread alone; a worker polling for every launch adds ~1.
    for device, ops in (("cpu", cpu_small), ("npu", npu_small)):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(iters * 5):
            ops["add"]()
        _sync(device)
        busy = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        if device == "cpu":
            cpu_busy = busy
    rows.append(Row("host_cpu", "add loop", cpu_busy, busy, "cores", busy / cpu_busy, "-"))
    with warnings.catch_warnings():
        # The cells' matmuls run through the CPU fallback today (no native
        # mm yet): its warning would repeat on every step.
        warnings.simplefilter("ignore")
        cpu_model, npu_model = _model_steps("cpu"), _model_steps("npu")
        for name in cpu_model:
            c = _time(cpu_model[name], "cpu", iters // 4) * 1e6
            d = _time(npu_model[name], "npu", iters // 4) * 1e6
            rows.append(Row("model", name, c, d, "us/step", d / c, "-"))
    n = (1 << 22) if quick else (1 << 24)
    cpu_large, npu_large = _large_ops("cpu", n), _large_ops("npu", n)
    for name, (fn, nbytes) in cpu_large.items():
        c = nbytes / _time(fn, "cpu", 3 if quick else 10) / 1e9
        d = nbytes / _time(npu_large[name][0], "npu", 3 if quick else 10) / 1e9
        target = f">= {THROUGHPUT_TARGET}x" if name in ("add", "mul", "sum", "sum_dim") else "-"
        rows.append(Row("throughput", name, c, d, "GB/s", d / c, target))
    # pooling (wave 3, pool): forward + backward per step
    cpu_pool, npu_pool = _pool_steps("cpu"), _pool_steps("npu")
    for name in cpu_pool:
        c = _time(cpu_pool[name], "cpu", iters // 20) * 1e6
        d = _time(npu_pool[name], "npu", iters // 20) * 1e6
        rows.append(Row("pool", name, c, d, "us/step", d / c, "-"))
    return rows, memcpy_bandwidth(n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer iterations, smaller tensors")
    args = parser.parse_args(argv)
    torch.set_num_threads(torch.get_num_threads())
    rows, memcpy = run(args.quick)
    print(f"{'kind':<11}{'op':<14}{'cpu':>10}{'npu':>10}  {'unit':<6}{'npu/cpu':>9}  target")
    for r in rows:
        print(f"{r.kind:<11}{r.op:<14}{r.cpu:>10.2f}{r.npu:>10.2f}  {r.unit:<6}{r.ratio:>9.2f}  {r.target}")
    print(f"memcpy bandwidth (ceiling): {memcpy:.2f} GB/s, threads: {torch.get_num_threads()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": [asdict(r) for r in rows], "memcpy_gbps": memcpy,
                       "threads": torch.get_num_threads(), "torch": torch.__version__}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
