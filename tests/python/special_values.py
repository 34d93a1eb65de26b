"""The mathematical results of pointwise functions at special inputs (NaN,
+inf, -inf, +0.0, -0.0), written out as a table.

Tests compare npu results at these inputs with this table, never with
PyTorch's CPU output: CPU's answer there depends on the machine. Its
vectorised kernels (and oneDNN's, which it uses for some ops) are picked at
run time by the CPU's ISA (ATEN_CPU_CAPABILITY default/avx2/avx512, oneDNN's
own dispatch), and their polynomial approximations do not all keep the
special values: float32 gelu(+inf) is nan on some machines, inf on others.
Away from the special inputs the ISAs differ by rounding only, which the
tests' tolerances cover.

A value that is a limit (gelu(-inf) = lim x->-inf of x*Phi(x) = 0) is the
limit, even where evaluating the textbook formula in IEEE arithmetic gives
NaN (-inf * 0)."""

from __future__ import annotations

import math

import torch

nan, inf = math.nan, math.inf

# Inputs, in the order of every row of MATHEMATICAL.
SPECIAL_INPUTS = (nan, inf, -inf, 0.0, -0.0)

# op -> its value at each of SPECIAL_INPUTS.
MATHEMATICAL: dict[str, tuple[float, float, float, float, float]] = {
    "exp": (nan, inf, 0.0, 1.0, 1.0),
    "expm1": (nan, inf, -1.0, 0.0, -0.0),
    "log": (nan, inf, nan, -inf, -inf),
    "log1p": (nan, inf, nan, 0.0, -0.0),
    "log2": (nan, inf, nan, -inf, -inf),
    "sqrt": (nan, inf, nan, 0.0, -0.0),
    "rsqrt": (nan, 0.0, nan, inf, -inf),
    "sin": (nan, nan, nan, 0.0, -0.0),
    "cos": (nan, nan, nan, 1.0, 1.0),
    "tan": (nan, nan, nan, 0.0, -0.0),
    "tanh": (nan, 1.0, -1.0, 0.0, -0.0),
    "sigmoid": (nan, 1.0, 0.0, 0.5, 0.5),
    "gelu": (nan, inf, -0.0, 0.0, -0.0),
    "gelu_tanh": (nan, inf, -0.0, 0.0, -0.0),
    "silu": (nan, inf, -0.0, 0.0, -0.0),
    "erf": (nan, 1.0, -1.0, 0.0, -0.0),
    "reciprocal": (nan, 0.0, -0.0, inf, -inf),
}


def is_special(x: torch.Tensor) -> torch.Tensor:
    """Where x holds one of SPECIAL_INPUTS (NaN, +-inf, +-0)."""
    return ~torch.isfinite(x) | (x == 0)


def mathematical(op: str, x: torch.Tensor) -> torch.Tensor:
    """op's mathematical value at each element of x, which must all be special,
    in x's dtype."""
    assert bool(is_special(x).all()), "mathematical() covers the special inputs only"
    row = MATHEMATICAL[op]
    x64 = x.double()
    out = torch.empty_like(x64)
    out[x64.isnan()] = row[0]
    out[x64 == inf] = row[1]
    out[x64 == -inf] = row[2]
    zero = x64 == 0
    out[zero & ~x64.signbit()] = row[3]
    out[zero & x64.signbit()] = row[4]
    return out.to(x.dtype)


def with_mathematical_specials(op: str, x: torch.Tensor, cpu_result: torch.Tensor) -> torch.Tensor:
    """CPU's result of op on x, with the elements at special inputs replaced by
    their mathematical value: a reference that is the same on every ISA."""
    if not x.dtype.is_floating_point:
        return cpu_result
    special = is_special(x)
    expected = cpu_result.clone()
    expected[special] = mathematical(op, x[special]).to(cpu_result.dtype)
    return expected
