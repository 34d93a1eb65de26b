"""The comparison of ops whose every result is a sum of products (matmul,
convolution), where two correct implementations differ by their summation order.

CPU's BLAS (MKL) and npu-emu's GEMM add a row-by-column product's k terms in
different orders, and MKL itself picks its kernels by ISA and size, so on a
sample whose products cancel the two float32 results can differ by more than
assert_close's default tolerance (1e-5 absolute) while both are as accurate
as float32 allows. Neither is "the" right answer; matching MKL bit for bit
would mean reproducing every MKL kernel of every machine.

What both must satisfy is the forward error bound of a sum of products
computed in any order (Higham, Accuracy and Stability of Numerical
Algorithms, eq. 3.5): |fl(s) - s| <= gamma_n * S with gamma_n = n*u/(1 - n*u),
u the unit roundoff, n the number of terms and S the same sum over the terms'
magnitudes. Two such results differ by at most 2 * gamma_n * S. For a
sample that fails the default comparison, S and n are computed exactly (in
float64 on CPU) by running the op itself on the sample with every tensor and
floating-point scalar replaced by its magnitude (S) or by 1 (n; an `addmm`'s
beta term counts as one term), and each element must satisfy

    |npu - cpu| <= atol + rtol * |cpu| + 2 * gamma_(n + 2) * S

(complex64: 2n + 4 real terms and a factor sqrt(2) for a complex product's
rounding). A wrong result — a missed term, a swapped operand, a wrong index —
is off by about one term's magnitude, orders of magnitude above this bound,
so the check still catches it; a test plants such errors. Gradients of these
ops are sums of products too (A @ B's gradients are G @ B^T and A^T @ G):
their bounds come from the same autograd call on the magnitudes.

Only the ops below, and only float32 and complex64 (whose default tolerance
is tighter than their summation error); everything else is compared as
before."""

from __future__ import annotations

import math
from typing import Any, Callable

import torch
from torch.testing._internal.opinfo.core import SampleInput
from torch.utils._pytree import tree_flatten

SUM_OF_PRODUCTS_OPS = frozenset({
    "__rmatmul__", "matmul", "mm", "bmm", "mv", "dot", "vdot", "inner",
    "addmm", "addmm.decomposed", "addmv", "addbmm", "baddbmm",
    "linalg.multi_dot", "linalg.matmul", "linalg.vecdot", "tensordot", "einsum",
    "nn.functional.linear", "nn.functional.bilinear",
    "nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
    "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d",
})
BOUNDED_DTYPES = frozenset({torch.float32, torch.complex64})


def applies(op_name: str, dtype: torch.dtype) -> bool:
    return op_name in SUM_OF_PRODUCTS_OPS and dtype in BOUNDED_DTYPES


def _map_sample(sample: SampleInput, on_tensor: Callable[[torch.Tensor], torch.Tensor],
                on_scalar: Callable[[float | complex], float]) -> SampleInput:
    """The sample with tensors and floating-point scalars replaced; integers
    (dims, strides, paddings) and everything else kept."""

    def visit(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return on_tensor(v)
        if isinstance(v, (float, complex)) and not isinstance(v, bool):
            return on_scalar(v)
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return type(v)(*(visit(x) for x in v))
        if isinstance(v, (list, tuple)):
            return type(v)(visit(x) for x in v)
        if isinstance(v, dict):
            return {k: visit(x) for k, x in v.items()}
        return v

    return SampleInput(visit(sample.input), args=tuple(visit(a) for a in sample.args),
                       kwargs=visit(sample.kwargs), output_process_fn_grad=sample.output_process_fn_grad,
                       broadcasts_input=sample.broadcasts_input, name=sample.name)


def _real_float64(t: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    out = values.to(torch.float64) if values.dtype.is_floating_point or values.dtype.is_complex else values
    return out.detach().requires_grad_(t.requires_grad and out.dtype.is_floating_point)


def magnitudes(sample: SampleInput) -> SampleInput:
    return _map_sample(sample, lambda t: _real_float64(t, t.detach().abs()), lambda s: float(abs(s)))


def term_counts(sample: SampleInput) -> SampleInput:
    return _map_sample(sample, lambda t: _real_float64(t, torch.ones_like(t.detach(), dtype=torch.float64)
                                                       if t.dtype.is_floating_point or t.dtype.is_complex
                                                       else t.detach()),
                       lambda s: 1.0)


def _allowance(magnitude: torch.Tensor, terms: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    u = torch.finfo(dtype).eps / 2
    if dtype.is_complex:
        n = 2 * terms + 4
        factor = 2 * math.sqrt(2)
    else:
        n = terms + 2
        factor = 2.0
    nu = n * u
    return factor * nu / (1 - nu).clamp_min(0.5) * magnitude


def _check(actual: list[torch.Tensor], expected: list[torch.Tensor], allowance: list[torch.Tensor],
           rtol: float, atol: float, what: str) -> None:
    if not (len(actual) == len(expected) == len(allowance)):
        raise AssertionError(f"{what}: {len(actual)} npu results, {len(expected)} CPU results, "
                             f"{len(allowance)} bounds")
    for i, (a, e, b) in enumerate(zip(actual, expected, allowance)):
        a64, e64 = a.to(torch.complex128 if a.is_complex() else torch.float64), \
            e.to(torch.complex128 if e.is_complex() else torch.float64)
        limit = atol + rtol * e64.abs() + b.to(torch.float64).abs()
        diff = (a64 - e64).abs()
        both_nan = a64.isnan() & e64.isnan()
        bad = ~(diff <= limit) & ~both_nan
        if bad.any():
            j = int(bad.flatten().nonzero()[0])
            raise AssertionError(
                f"{what} {i}: {int(bad.sum())} of {bad.numel()} elements off by more than the summation-order "
                f"bound; first at flat index {j}: npu {a.flatten()[j].item()}, CPU {e.flatten()[j].item()}, "
                f"difference {diff.flatten()[j].item():.3g} > allowed {limit.flatten()[j].item():.3g}")


def _tensors(value: Any) -> list[torch.Tensor]:
    return [v for v in tree_flatten(value)[0] if isinstance(v, torch.Tensor)]


def assert_forward_within_bound(op: Any, sample: SampleInput, actual: Any, expected: Any,
                                dtype: torch.dtype, rtol: float, atol: float) -> None:
    """Raises AssertionError unless every floating-point result of the npu is
    within the summation-order bound of CPU's."""
    with torch.no_grad():
        magnitude = _tensors(_run(op, magnitudes(sample)))
        terms = _tensors(_run(op, term_counts(sample)))
    pairs = [(a, e, _allowance(m, n, dtype))
             for a, e, m, n in zip(_tensors(actual), _tensors(expected), magnitude, terms)
             if e.dtype.is_floating_point or e.dtype.is_complex]
    _check(*map(list, zip(*pairs)) if pairs else ([], [], []), rtol=rtol, atol=atol, what="result")


def assert_grads_within_bound(op: Any, sample: SampleInput, grad_outputs: list[torch.Tensor],
                              actual: list[torch.Tensor | None], expected: list[torch.Tensor | None],
                              dtype: torch.dtype, rtol: float, atol: float) -> None:
    """The same for the gradients of `sample`'s inputs that require grad, for
    `grad_outputs` (the samples' gradients as the caller computed them)."""
    from npu_emu.conformance.samples import differentiable_outputs, grad_inputs

    def grads(bound_sample: SampleInput, outputs_grad: list[torch.Tensor]) -> list[torch.Tensor | None]:
        inputs = grad_inputs(bound_sample)
        outputs = differentiable_outputs(bound_sample.output_process_fn_grad(_run(op, bound_sample)))
        return list(torch.autograd.grad(outputs, inputs, outputs_grad, allow_unused=True))

    magnitude = grads(magnitudes(sample), [g.detach().abs().to(torch.float64) for g in grad_outputs])
    terms = grads(term_counts(sample), [torch.ones_like(g, dtype=torch.float64) for g in grad_outputs])
    pairs = []
    for a, e, m, n in zip(actual, expected, magnitude, terms):
        if a is None or e is None:
            if (a is None) != (e is None):
                raise AssertionError("a gradient is None on one side only")
            continue
        pairs.append((a, e, _allowance(m, n, dtype) if m is not None else torch.zeros(())))
    _check(*map(list, zip(*pairs)) if pairs else ([], [], []), rtol=rtol, atol=atol, what="gradient")


def _run(op: Any, sample: SampleInput) -> Any:
    return op(sample.input, *sample.args, **sample.kwargs)
