"""npu-emu against PyTorch's CPU backend, side by side in one run.

Prints per-op latency for small tensors (dispatch + launch overhead),
per-step time of small recurrent models (chains of small ops), throughput
for large tensors (GB/s), mid-size (180K-element) optimizer-style updates
and GEMM speed (GFLOP/s; float32 also against Eigen's all-core peak from
build/bench_gemm), each with its ratio to CPU, plus the machine's memcpy
bandwidth as the ceiling. `--json FILE` writes the numbers.
Not part of the tests: timings never decide pass/fail.

    python bench/run.py [--json out.json] [--quick] [--only-mid | --only-train | --only-latency | --only-conv]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

import npu_emu  # noqa: F401  (activates the npu backend)
from resnet import train_step as resnet18_train_step
from train_steps import lstm_train_step, transformer_train_step

LATENCY_TARGET = 1.5  # npu time / CPU time, small ops
THROUGHPUT_TARGET = 0.8  # npu GB/s / CPU GB/s, large elementwise and reductions
TRAIN_TARGET = 1.3  # npu time / CPU time, small transformer and LSTM training steps (issue 15)
CONV_TARGET = 0.7  # npu GFLOP/s / CPU GFLOP/s, conv2d forward + backward on resnet18's layers
RESNET_TARGET = 1.3  # npu time / CPU time, a ResNet-18 training step


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


MID_N = 180_000  # a typical model parameter: L2/L3-resident, split across threads


def _mid_ops(device: str) -> dict[str, Callable[[], object]]:
    """What an optimizer step does to each parameter: in-place elementwise
    updates of mid-size contiguous tensors (float32, and bfloat16 weights)."""
    a = torch.randn(MID_N, device=device)
    b = torch.randn(MID_N, device=device)
    ah, bh = a.bfloat16(), b.bfloat16()
    return {
        "add_alpha_": lambda: a.add_(b, alpha=-0.01),
        "add_": lambda: a.add_(b),
        "sub": lambda: a - b,
        "mul_scalar_": lambda: a.mul_(0.9999),
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "bf16_add_a_": lambda: ah.add_(bh, alpha=-0.01),
        "bf16_mul": lambda: ah * bh,
    }


def mid_rows(quick: bool) -> list[Row]:
    cpu_mid, npu_mid = _mid_ops("cpu"), _mid_ops("npu")
    iters = 50 if quick else 300
    rows = []
    for name in cpu_mid:
        c = _time(cpu_mid[name], "cpu", iters) * 1e6
        d = _time(npu_mid[name], "npu", iters) * 1e6
        rows.append(Row("mid", name, c, d, "us/op", d / c, f"<= {LATENCY_TARGET}x"))
    return rows


GEMM_TARGETS = {torch.float32: 0.9, torch.float16: 1.0, torch.bfloat16: 1.0}  # npu GFLOP/s / CPU GFLOP/s
GEMM_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
GEMM_PEAK_FACTOR = 1.3  # float32 GEMM within this factor of Eigen's all-core peak


def _gemm_gflops(device: str, dtype: torch.dtype, n: int, iters: int) -> float:
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    return 2 * n**3 / _time(lambda: a @ b, device, iters) / 1e9


def _eigen_peak_gflops(n: int) -> float | None:
    """Eigen's sgemm on all cores (build/bench_gemm), if it was built."""
    exe = Path(__file__).resolve().parent.parent / "build" / "bench_gemm"
    if not exe.exists():
        return None
    done = subprocess.run([str(exe), "--size", str(n), "--json"], capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout)["eigen_allcores"])


def _gemm_rows(quick: bool) -> list[Row]:
    """n x n x n matrix products, GFLOP/s, and float32 against Eigen's peak."""
    n, iters = (512, 3) if quick else (1024, 5)
    rows = []
    for dtype, target in GEMM_TARGETS.items():
        name = f"gemm {GEMM_NAMES[dtype]} {n}"
        c, d = _gemm_gflops("cpu", dtype, n, iters), _gemm_gflops("npu", dtype, n, iters)
        rows.append(Row("gemm", name, c, d, "GFLOP/s", d / c, f">= {target}x"))
        if dtype == torch.float32:
            peak = _eigen_peak_gflops(n)
            if peak is not None:
                rows.append(Row("gemm", "f32 vs peak", peak, d, "GFLOP/s", d / peak,
                                f">= {1 / GEMM_PEAK_FACTOR:.2f}x (cpu column: Eigen, all cores)"))
    return rows


# ---- conv (issue 14): resnet18's conv2d layers, batch 8, forward + backward ----
# name -> (input shape, weight shape, stride, padding, input needs a gradient)
RESNET18_CONVS = {
    "stem7x7": ((8, 3, 64, 64), (64, 3, 7, 7), 2, 3, False),
    "l1_3x3": ((8, 64, 56, 56), (64, 64, 3, 3), 1, 1, True),
    "l2_3x3_s2": ((8, 64, 56, 56), (128, 64, 3, 3), 2, 1, True),
    "l2_1x1_s2": ((8, 64, 56, 56), (128, 64, 1, 1), 2, 0, True),
    "l2_3x3": ((8, 128, 28, 28), (128, 128, 3, 3), 1, 1, True),
    "l3_3x3_s2": ((8, 128, 28, 28), (256, 128, 3, 3), 2, 1, True),
    "l3_1x1_s2": ((8, 128, 28, 28), (256, 128, 1, 1), 2, 0, True),
    "l3_3x3": ((8, 256, 14, 14), (256, 256, 3, 3), 1, 1, True),
    "l4_3x3_s2": ((8, 256, 14, 14), (512, 256, 3, 3), 2, 1, True),
    "l4_1x1_s2": ((8, 256, 14, 14), (512, 256, 1, 1), 2, 0, True),
    "l4_3x3": ((8, 512, 7, 7), (512, 512, 3, 3), 1, 1, True),
}


def _conv_step(device: str, name: str) -> tuple[Callable[[], object], float]:
    """One conv2d forward + backward (input, weight and bias gradients) and its FLOPs."""
    xs, ws, stride, padding, input_grad = RESNET18_CONVS[name]
    torch.manual_seed(0)
    x = torch.randn(xs, device=device).requires_grad_(input_grad)
    w = torch.randn(ws, device=device).requires_grad_()
    b = torch.randn(ws[0], device=device).requires_grad_()
    out = torch.nn.functional.conv2d(x.detach(), w.detach(), stride=stride, padding=padding)
    grad = torch.randn_like(out)
    # 2 FLOPs per multiply-add: forward, weight gradient, input gradient.
    gemm = 2 * out.numel() * ws[1] * ws[2] * ws[3]
    flops = gemm * (3 if input_grad else 2)

    def step() -> object:
        y = torch.nn.functional.conv2d(x, w, b, stride=stride, padding=padding)
        return torch.autograd.grad(y, [x, w, b] if input_grad else [w, b], grad)

    return step, flops


def conv_rows(quick: bool) -> list[Row]:
    rows = []
    for name in RESNET18_CONVS:
        (cpu_step, flops), (npu_step, _) = _conv_step("cpu", name), _conv_step("npu", name)
        c = flops / _time(cpu_step, "cpu", 1 if quick else 3) / 1e9
        d = flops / _time(npu_step, "npu", 1 if quick else 3) / 1e9
        rows.append(Row("conv", name, c, d, "GFLOP/s", d / c, f">= {CONV_TARGET}x"))
    return rows


def resnet18_row(quick: bool) -> Row:
    """A ResNet-18 training step (batch 8, 3x64x64, SGD with momentum)."""
    cpu_step, npu_step = resnet18_train_step("cpu"), resnet18_train_step("npu")
    c = _time(cpu_step, "cpu", 1 if quick else 3) * 1e3
    d = _time(npu_step, "npu", 1 if quick else 3) * 1e3
    return Row("model", "resnet18_train", c, d, "ms/step", d / c, f"<= {RESNET_TARGET}x")

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


def _optim_steps(device: str) -> dict[str, Callable[[], object]]:
    """An optimizer step over a small transformer's 39 parameter tensors
    (2.9M elements): AdamW with foreach=True and fused=True (issue 15)."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
    model = torch.nn.ModuleList([torch.nn.Embedding(1000, 256), torch.nn.TransformerEncoder(layer, 3),
                                 torch.nn.Linear(256, 1000)]).to(device)
    steps = {}
    for impl in ("foreach", "fused"):
        params = [p.detach().clone().requires_grad_() for p in model.parameters()]
        for p in params:
            p.grad = torch.randn_like(p)
        steps[f"adamw_{impl}"] = torch.optim.AdamW(params, lr=1e-3, **{impl: True}).step
    return steps


def train_rows(quick: bool) -> list[Row]:
    """A small transformer's and an LSTM's AdamW training step (bench/train_steps.py)."""
    rows = []
    for name, make in (("transformer_train", transformer_train_step), ("lstm_train", lstm_train_step)):
        cpu_step, npu_step = make("cpu"), make("npu")
        c = _time(cpu_step, "cpu", 2 if quick else 10) * 1e3
        d = _time(npu_step, "npu", 2 if quick else 10) * 1e3
        rows.append(Row("model", name, c, d, "ms/step", d / c, f"<= {TRAIN_TARGET}x"))
    return rows


def memcpy_bandwidth(n: int) -> float:
    src = torch.randn(n)
    dst = torch.empty(n)
    seconds = _time(lambda: dst.copy_(src), "cpu", 5)
    return 2 * n * 4 / seconds / 1e9


def latency_rows(quick: bool) -> list[Row]:
    """One op on a 64-element tensor (launch overhead), and the cores a loop of them keeps busy."""
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
    return rows


def run(quick: bool) -> tuple[list[Row], float]:
    iters = 300 if quick else 2000
    rows = latency_rows(quick)
    with warnings.catch_warnings():
        # Whatever a cell still runs through the CPU fallback would warn on
        # every step (its matmuls are native since issue 14).
        warnings.simplefilter("ignore")
        cpu_model, npu_model = _model_steps("cpu"), _model_steps("npu")
        for name in cpu_model:
            c = _time(cpu_model[name], "cpu", iters // 4) * 1e6
            d = _time(npu_model[name], "npu", iters // 4) * 1e6
            rows.append(Row("model", name, c, d, "us/step", d / c, "-"))
    rows.append(resnet18_row(quick))
    rows += train_rows(quick)
    n = (1 << 22) if quick else (1 << 24)
    cpu_large, npu_large = _large_ops("cpu", n), _large_ops("npu", n)
    for name, (fn, nbytes) in cpu_large.items():
        c = nbytes / _time(fn, "cpu", 3 if quick else 10) / 1e9
        d = nbytes / _time(npu_large[name][0], "npu", 3 if quick else 10) / 1e9
        target = f">= {THROUGHPUT_TARGET}x" if name in ("add", "mul", "sum", "sum_dim") else "-"
        rows.append(Row("throughput", name, c, d, "GB/s", d / c, target))
    rows += mid_rows(quick)  # 180K-element in-place updates (optimizer steps)
    rows += _gemm_rows(quick)  # matmul (issue 14)

    rows += conv_rows(quick)

    # pooling (wave 3, pool): forward + backward per step
    cpu_pool, npu_pool = _pool_steps("cpu"), _pool_steps("npu")
    for name in cpu_pool:
        c = _time(cpu_pool[name], "cpu", iters // 20) * 1e6
        d = _time(npu_pool[name], "npu", iters // 20) * 1e6
        rows.append(Row("pool", name, c, d, "us/step", d / c, "-"))

    # optimizer steps (issue 15, optim15): one launch per parameter list
    cpu_optim, npu_optim = _optim_steps("cpu"), _optim_steps("npu")
    for name in cpu_optim:
        c = _time(cpu_optim[name], "cpu", 2 if quick else 10) * 1e3
        d = _time(npu_optim[name], "npu", 2 if quick else 10) * 1e3
        rows.append(Row("optim", name, c, d, "ms/step", d / c, "-"))
    return rows, memcpy_bandwidth(n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer iterations, smaller tensors")
    parser.add_argument("--only-mid", action="store_true", help="only the mid-size (180K-element) rows")
    parser.add_argument("--only-train", action="store_true", help="only the transformer and LSTM training rows")
    parser.add_argument("--only-latency", action="store_true", help="only the small-op latency rows")
    parser.add_argument("--only-conv", action="store_true",
                        help="only the conv rows (resnet18's conv2d layers) and the ResNet-18 training step")
    args = parser.parse_args(argv)
    torch.set_num_threads(torch.get_num_threads())
    if args.only_mid:
        rows, memcpy = mid_rows(args.quick), memcpy_bandwidth(MID_N)
    elif args.only_train:
        rows, memcpy = train_rows(args.quick), memcpy_bandwidth(MID_N)
    elif args.only_latency:
        rows, memcpy = latency_rows(args.quick), memcpy_bandwidth(MID_N)
    elif args.only_conv:
        rows, memcpy = conv_rows(args.quick) + [resnet18_row(args.quick)], memcpy_bandwidth(MID_N)
    else:
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
