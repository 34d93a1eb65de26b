"""The conformance sweep's comparison of sum-of-products ops (summation_bound.py):
another correct summation order passes, a wrong result does not.

Both sides are computed here term by term in float32 (each product and each
addition rounded on its own, no BLAS), so the samples behave the same on
every machine."""

from __future__ import annotations

import pytest
import torch
from torch.testing import make_tensor
from torch.testing._internal.opinfo.core import SampleInput

from npu_emu.conformance import summation_bound
from npu_emu.conformance.tolerances import DEFAULT_TOLERANCES


def ordered_mm(a: torch.Tensor, b: torch.Tensor, reverse: bool) -> torch.Tensor:
    """a @ b adding the k products one at a time, first to last or last to first."""
    order = range(a.shape[-1] - 1, -1, -1) if reverse else range(a.shape[-1])
    acc = torch.zeros(a.shape[:-1] + b.shape[-1:], dtype=a.dtype)
    for k in order:
        acc = acc + a[..., k:k + 1] * b[..., k:k + 1, :]
    return acc


def mm(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x @ y


def cancelling_sample(dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """The first seeded (10x10, 10x5) pair whose two summation orders differ
    by more than assert_close's default tolerance."""
    rtol, atol = DEFAULT_TOLERANCES[dtype]
    for seed in range(200):
        torch.manual_seed(seed)
        a = make_tensor((10, 10), dtype=dtype, device="cpu")
        b = make_tensor((10, 5), dtype=dtype, device="cpu")
        forward, backward = ordered_mm(a, b, False), ordered_mm(a, b, True)
        if not torch.allclose(backward, forward, rtol=rtol, atol=atol):
            return a, b
    raise AssertionError("no cancelling sample among 200 seeds")


def test_another_summation_order_fails_the_default_but_passes_the_bound() -> None:
    a, b = cancelling_sample()
    expected, actual = ordered_mm(a, b, False), ordered_mm(a, b, True)
    with pytest.raises(AssertionError):
        torch.testing.assert_close(actual, expected)
    summation_bound.assert_forward_within_bound(mm, SampleInput(a, args=(b,)), actual, expected,
                                                torch.float32, *DEFAULT_TOLERANCES[torch.float32])


@pytest.mark.parametrize("wrong", ["missing_term", "transposed_operand", "one_element_off_by_a_term"])
def test_a_wrong_result_exceeds_the_bound(wrong: str) -> None:
    a, b = cancelling_sample()
    expected = ordered_mm(a, b, False)
    if wrong == "missing_term":
        actual = ordered_mm(a[:, :-1], b[:-1], False)
    elif wrong == "transposed_operand":
        actual = ordered_mm(a.t().contiguous(), b, False)
    else:
        actual = expected.clone()
        actual[3, 2] += (a[3, 0] * b[0, 2]).abs()
    with pytest.raises(AssertionError, match="summation-order bound"):
        summation_bound.assert_forward_within_bound(mm, SampleInput(a, args=(b,)), actual, expected,
                                                    torch.float32, *DEFAULT_TOLERANCES[torch.float32])


def test_gradients_use_the_bound_of_their_own_sums() -> None:
    a, b = cancelling_sample()
    a.requires_grad_(True)
    b.requires_grad_(True)
    g = make_tensor((10, 5), dtype=torch.float32, device="cpu")
    expected = [ordered_mm(g, b.detach().t(), False), ordered_mm(a.detach().t(), g, False)]
    reordered = [ordered_mm(g, b.detach().t(), True), ordered_mm(a.detach().t(), g, True)]
    sample = SampleInput(a, args=(b,))
    summation_bound.assert_grads_within_bound(mm, sample, [g], reordered, expected, torch.float32,
                                              *DEFAULT_TOLERANCES[torch.float32])
    wrong = [reordered[0], ordered_mm(a.detach().t()[:, :-1], g[:-1], False)]
    with pytest.raises(AssertionError, match="summation-order bound"):
        summation_bound.assert_grads_within_bound(mm, sample, [g], wrong, expected, torch.float32,
                                                  *DEFAULT_TOLERANCES[torch.float32])


def test_complex_scalars_count_by_magnitude() -> None:
    torch.manual_seed(0)
    bias = make_tensor((4, 5), dtype=torch.complex64, device="cpu")
    a = make_tensor((4, 10), dtype=torch.complex64, device="cpu")
    b = make_tensor((10, 5), dtype=torch.complex64, device="cpu")
    beta, alpha = 1 + 2j, 2 - 3j

    def addmm(s: torch.Tensor, x: torch.Tensor, y: torch.Tensor, *, beta: complex, alpha: complex) -> torch.Tensor:
        return beta * s + alpha * (x @ y)

    sample = SampleInput(bias, args=(a, b), kwargs={"beta": beta, "alpha": alpha})
    expected = beta * bias + alpha * ordered_mm(a, b, False)
    reordered = beta * bias + alpha * ordered_mm(a, b, True)
    summation_bound.assert_forward_within_bound(addmm, sample, reordered, expected, torch.complex64,
                                                *DEFAULT_TOLERANCES[torch.complex64])
    conjugated = beta.conjugate() * bias + alpha * ordered_mm(a, b, True)
    with pytest.raises(AssertionError, match="summation-order bound"):
        summation_bound.assert_forward_within_bound(addmm, sample, conjugated, expected, torch.complex64,
                                                    *DEFAULT_TOLERANCES[torch.complex64])


def test_the_bound_applies_to_sum_of_products_ops_in_float32_and_complex64_only() -> None:
    assert summation_bound.applies("matmul", torch.float32)
    assert summation_bound.applies("nn.functional.conv2d", torch.complex64)
    assert not summation_bound.applies("matmul", torch.float16)
    assert not summation_bound.applies("sum", torch.float32)
    assert not summation_bound.applies("add", torch.float32)
