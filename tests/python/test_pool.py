"""Pooling (ops/table/pool.yaml) runs natively on npu and matches CPU.

Max pooling moves values, so its values and indices must equal CPU's exactly
(float16/bfloat16 included). Average pooling sums in float (float64 for
float64), in CPU's order; it is compared with assert_close at the dtype's
default tolerance, since a vectorized CPU path may round differently on
another ISA. Backward is checked against CPU and with gradcheck in float64.
Every test forbids the CPU fallback (native_only), so a schema the table
does not serve fails here.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def layouts(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """x as contiguous, channels-last (batched 4-d/5-d only) and a strided slice."""
    out = {"contiguous": x, "sliced": x[..., 1:, ::2]}
    if x.dim() == 4:
        out["channels_last"] = x.to(memory_format=torch.channels_last)
    if x.dim() == 5:
        out["channels_last"] = x.to(memory_format=torch.channels_last_3d)
    return out


def check(fn, x: torch.Tensor, exact: bool, backward: bool = True) -> None:
    """fn on npu matches fn on CPU, forward (all results) and backward of the first result."""
    grad = backward and x.dtype.is_floating_point
    xc = x.detach().clone().requires_grad_(grad)
    xn = x.detach().to("npu").requires_grad_(grad)
    expected, got = fn(xc), fn(xn)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    for e, g in zip(expected, got):
        assert g.device.type == "npu"
        assert g.dtype == e.dtype and g.shape == e.shape
        if exact or not e.dtype.is_floating_point:
            assert torch.equal(g.cpu(), e)
        else:
            torch.testing.assert_close(g.cpu(), e)
    if grad:
        seed = torch.Generator().manual_seed(3)
        g_out = torch.randn(expected[0].shape, generator=seed, dtype=torch.float32).to(x.dtype)
        expected[0].backward(g_out)
        got[0].backward(g_out.to("npu"))
        torch.testing.assert_close(xn.grad.cpu(), xc.grad)


def sample(shape, dtype, seed=0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    return torch.randint(-50, 50, shape, generator=g).to(dtype)


MAX_POOL_2D = {
    "k2": lambda t: F.max_pool2d(t, 2, return_indices=True),
    "k3s2p1": lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True),
    "rect_ceil": lambda t: F.max_pool2d(t, (3, 2), (2, 1), (1, 0), ceil_mode=True, return_indices=True),
    "dilation": lambda t: F.max_pool2d(t, (2, 3), 1, (1, 1), dilation=(2, 2), return_indices=True),
    "dilation_ceil": lambda t: F.max_pool2d(t, 3, 2, 1, dilation=2, ceil_mode=True, return_indices=True),
    "global": lambda t: F.max_pool2d(t, t.shape[-2:], return_indices=True),
    "module": lambda t: torch.nn.MaxPool2d(3, 2, 1)(t),
}

AVG_POOL_2D = {
    "k2": lambda t: F.avg_pool2d(t, 2),
    "k3s2p1": lambda t: F.avg_pool2d(t, 3, 2, 1),
    "no_pad_count": lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
    "ceil": lambda t: F.avg_pool2d(t, (3, 2), (2, 2), (1, 1), ceil_mode=True),
    "ceil_no_pad_count": lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "divisor": lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, divisor_override=4),
    "module": lambda t: torch.nn.AvgPool2d(2, 1)(t),
}

ADAPTIVE_2D = {
    "avg_4x5": lambda t: F.adaptive_avg_pool2d(t, (4, 5)),
    "avg_up": lambda t: F.adaptive_avg_pool2d(t, (11, 13)),
    "avg_none": lambda t: F.adaptive_avg_pool2d(t, (None, 3)),
    "avg_1x1": lambda t: torch.nn.AdaptiveAvgPool2d((1, 1))(t),
    "max_3x4": lambda t: F.adaptive_max_pool2d(t, (3, 4), return_indices=True),
    "max_1x1": lambda t: F.adaptive_max_pool2d(t, 1, return_indices=True),
}


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.int32, torch.uint8], ids=str)
@pytest.mark.parametrize("op", list(MAX_POOL_2D), ids=str)
def test_max_pool2d(op, dtype):
    x = sample((2, 3, 9, 11), dtype)
    for name, v in layouts(x).items():
        check(MAX_POOL_2D[op], v, exact=True)
    check(MAX_POOL_2D[op], x[0], exact=True)  # unbatched (C, H, W)


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64], ids=str)
@pytest.mark.parametrize("op", list(AVG_POOL_2D), ids=str)
def test_avg_pool2d(op, dtype):
    x = sample((2, 3, 9, 11), dtype, seed=1)
    for v in layouts(x).values():
        check(AVG_POOL_2D[op], v, exact=dtype == torch.int64)
    check(AVG_POOL_2D[op], x[0], exact=dtype == torch.int64)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op", list(ADAPTIVE_2D), ids=str)
def test_adaptive_pool2d(op, dtype):
    x = sample((2, 3, 9, 11), dtype, seed=2)
    exact = op.startswith("max")
    for v in layouts(x).values():
        check(ADAPTIVE_2D[op], v, exact=exact)
    check(ADAPTIVE_2D[op], x[0], exact=exact)


POOL_1D = {
    "max": lambda t: F.max_pool1d(t, 3, 2, 1, return_indices=True),
    "max_ceil_dilation": lambda t: F.max_pool1d(t, 2, 2, 1, dilation=2, ceil_mode=True),
    "avg": lambda t: F.avg_pool1d(t, 3, 2, 1, count_include_pad=False),
    "adaptive_avg": lambda t: F.adaptive_avg_pool1d(t, 4),
    "adaptive_max": lambda t: F.adaptive_max_pool1d(t, 4, return_indices=True),
}

POOL_3D = {
    "max": lambda t: F.max_pool3d(t, 3, 2, 1, return_indices=True),
    "max_dilation_ceil": lambda t: F.max_pool3d(t, (2, 3, 2), (1, 2, 2), (1, 1, 0), dilation=(1, 2, 2),
                                                ceil_mode=True, return_indices=True),
    "avg": lambda t: F.avg_pool3d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_divisor": lambda t: F.avg_pool3d(t, 2, 1, 1, divisor_override=3),
    "adaptive_avg": lambda t: F.adaptive_avg_pool3d(t, (2, 3, 4)),
    "adaptive_max": lambda t: F.adaptive_max_pool3d(t, (2, 3, 4), return_indices=True),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("op", list(POOL_1D), ids=str)
def test_pool1d(op, dtype):
    x = sample((2, 3, 13), dtype, seed=4)
    exact = "max" in op
    check(POOL_1D[op], x, exact=exact)
    check(POOL_1D[op], x[..., ::2], exact=exact)
    check(POOL_1D[op], x[0], exact=exact)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
@pytest.mark.parametrize("op", list(POOL_3D), ids=str)
def test_pool3d(op, dtype):
    if dtype == torch.float16 and op.startswith("avg"):
        pytest.skip("CPU has no float16 avg_pool3d (npu raises as CPU does: test_avg_pool3d_half_like_cpu)")
    x = sample((2, 3, 5, 7, 6), dtype, seed=5)
    exact = "max" in op
    for v in layouts(x).values():
        check(POOL_3D[op], v, exact=exact)
    check(POOL_3D[op], x[0], exact=exact)


def test_avg_pool3d_half_like_cpu(fallback_mode):
    x = torch.randn(1, 2, 4, 4, 4, dtype=torch.float16)
    with pytest.raises(NotImplementedError):
        F.avg_pool3d(x, 2)
    with pytest.raises(NotImplementedError, match="avg_pool3d"):
        F.avg_pool3d(x.npu(), 2)


def test_max_pool3d_int64():
    check(POOL_3D["max"], sample((1, 2, 5, 6, 7), torch.int64), exact=True)


@pytest.mark.parametrize("op", ["max2d", "avg2d", "adaptive_avg2d", "adaptive_max2d", "max3d", "avg3d",
                                "adaptive_avg3d"])
def test_empty_batch_and_tiny_planes(op):
    fns = {
        "max2d": lambda t: F.max_pool2d(t, 1, return_indices=True),
        "avg2d": lambda t: F.avg_pool2d(t, 1),
        "adaptive_avg2d": lambda t: F.adaptive_avg_pool2d(t, 2),
        "adaptive_max2d": lambda t: F.adaptive_max_pool2d(t, 2, return_indices=True),
        "max3d": lambda t: F.max_pool3d(t, 1, return_indices=True),
        "avg3d": lambda t: F.avg_pool3d(t, 1),
        "adaptive_avg3d": lambda t: F.adaptive_avg_pool3d(t, 2),
    }
    spatial = (1, 1) if op.endswith("2d") else (1, 1, 1)
    check(fns[op], torch.randn(0, 3, *spatial), exact=True)  # 0-size batch
    check(fns[op], torch.randn(2, 3, *spatial), exact=True)  # 1x1 planes


@pytest.mark.parametrize("op", ["max", "avg", "adaptive_avg", "adaptive_max"])
def test_gradcheck_float64(op):
    fns = {
        "max": lambda t: F.max_pool2d(t, 3, 2, 1, dilation=1, ceil_mode=True),
        "avg": lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        "adaptive_avg": lambda t: F.adaptive_avg_pool2d(t, (3, 2)),
        "adaptive_max": lambda t: F.adaptive_max_pool2d(t, (3, 2)),
    }
    # Distinct values, so max pooling's choice is stable under gradcheck's perturbation.
    x = torch.randperm(2 * 2 * 7 * 5, dtype=torch.float64).reshape(2, 2, 7, 5).div(10).npu().requires_grad_()
    assert torch.autograd.gradcheck(fns[op], (x,))


@pytest.mark.parametrize("op", ["max3d", "avg3d", "adaptive_avg3d", "adaptive_max3d"])
def test_gradcheck_float64_3d(op):
    fns = {
        "max3d": lambda t: F.max_pool3d(t, 2, 1, 1),
        "avg3d": lambda t: F.avg_pool3d(t, 2, 2, 1, ceil_mode=True),
        "adaptive_avg3d": lambda t: F.adaptive_avg_pool3d(t, (2, 3, 2)),
        "adaptive_max3d": lambda t: F.adaptive_max_pool3d(t, (2, 3, 2)),
    }
    x = torch.randperm(2 * 3 * 4 * 3, dtype=torch.float64).reshape(1, 2, 3, 4, 3).div(10).npu().requires_grad_()
    assert torch.autograd.gradcheck(fns[op], (x,))


def test_out_variants():
    x = sample((2, 3, 8, 7), torch.float32)
    xn = x.npu()
    out, idx = torch.empty(0, device="npu"), torch.empty(0, dtype=torch.int64, device="npu")
    torch._C._nn.max_pool2d_with_indices(xn, 3, 2, 1, out=(out, idx))
    ref, ref_idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    assert torch.equal(out.cpu(), ref) and torch.equal(idx.cpu(), ref_idx)
    avg = torch.empty(0, device="npu")
    torch._C._nn.avg_pool2d(xn, 3, 2, 1, out=avg)
    torch.testing.assert_close(avg.cpu(), F.avg_pool2d(x, 3, 2, 1))
    adaptive = torch.empty(0, device="npu")
    torch._C._nn.adaptive_avg_pool2d(xn, (3, 5), out=adaptive)
    torch.testing.assert_close(adaptive.cpu(), F.adaptive_avg_pool2d(x, (3, 5)))
    x5 = sample((1, 2, 5, 6, 4), torch.float32)
    out3, idx3 = torch.empty(0, device="npu"), torch.empty(0, dtype=torch.int64, device="npu")
    torch._C._nn.max_pool3d_with_indices(x5.npu(), 2, 2, 1, out=(out3, idx3))
    ref3, ref_idx3 = F.max_pool3d(x5, 2, 2, 1, return_indices=True)
    assert torch.equal(out3.cpu(), ref3) and torch.equal(idx3.cpu(), ref_idx3)


def test_nan_wins_max_pool():
    """A NaN is the maximum of every window holding it, and its index is its own position."""
    x = torch.arange(36, dtype=torch.float32).reshape(1, 1, 6, 6)
    x[0, 0, 2, 3] = math.nan
    values, indices = F.max_pool2d(x.npu(), 2, 2, return_indices=True)
    values, indices = values.cpu(), indices.cpu()
    assert math.isnan(values[0, 0, 1, 1]) and indices[0, 0, 1, 1] == 2 * 6 + 3
    others = torch.ones(3, 3, dtype=torch.bool)
    others[1, 1] = False
    assert not values[0, 0][others].isnan().any()
    adaptive, adaptive_idx = F.adaptive_max_pool2d(x.npu(), 2, return_indices=True)
    assert math.isnan(adaptive.cpu()[0, 0, 0, 1]) and adaptive_idx.cpu()[0, 0, 0, 1] == 2 * 6 + 3


def test_ties_pick_first_position():
    x = torch.zeros(1, 1, 4, 4)
    values, indices = F.max_pool2d(x.npu(), 2, return_indices=True)
    assert torch.equal(indices.cpu(), torch.tensor([[[[0, 2], [8, 10]]]]))


def test_parallel_over_planes_matches_cpu():
    """Enough planes to split across workers; overlapping windows accumulate in backward."""
    check(lambda t: F.max_pool2d(t, 3, 1, 1), sample((8, 64, 17, 17), torch.float32), exact=True)
    check(lambda t: F.avg_pool2d(t, 3, 1, 1), sample((8, 64, 17, 17), torch.float32), exact=False)


BAD_ARGS = {
    "kernel_larger_than_input": lambda t: F.max_pool2d(t, 5),
    "avg_kernel_larger_than_input": lambda t: F.avg_pool2d(t, 5),
    "padding_over_half_kernel": lambda t: F.max_pool2d(t, 2, padding=2),
    "avg_padding_over_half_kernel": lambda t: F.avg_pool2d(t, 2, padding=2),
    "negative_padding": lambda t: F.max_pool2d(t, 2, padding=-1),
    "zero_stride": lambda t: F.max_pool2d(t, 2, stride=0),
    "zero_kernel": lambda t: F.avg_pool2d(t, 0),
    "kernel_three_ints": lambda t: F.max_pool2d(t, (2, 2, 2)),
    "zero_divisor": lambda t: F.avg_pool2d(t, 2, divisor_override=0),
    "adaptive_negative": lambda t: F.adaptive_avg_pool2d(t, (-1, 2)),
    "adaptive_wrong_rank": lambda t: F.adaptive_avg_pool2d(t[0, 0], 2),
    "max3d_on_4d_of_2d": lambda t: F.max_pool3d(t[0, 0], 2),
    "avg3d_kernel_larger": lambda t: F.avg_pool3d(t.unsqueeze(0), 5),
}


@pytest.mark.parametrize("case", list(BAD_ARGS), ids=str)
def test_bad_arguments_raise_like_cpu(case):
    x = torch.randn(1, 2, 4, 4)
    with pytest.raises(Exception) as cpu_error:
        BAD_ARGS[case](x)
    with pytest.raises(type(cpu_error.value)):
        BAD_ARGS[case](x.npu())


def test_empty_plane_raises():
    x = torch.randn(1, 2, 0, 4)
    for fn in (lambda t: F.max_pool2d(t, 1), lambda t: F.avg_pool2d(t, 1), lambda t: F.adaptive_avg_pool2d(t, 2)):
        with pytest.raises(RuntimeError):
            fn(x)
        with pytest.raises(RuntimeError):
            fn(x.npu())


def test_negative_divisor_override():
    """PyTorch divides by any non-zero divisor_override, a negative one too."""
    x = sample((1, 2, 5, 6), torch.float32)
    check(lambda t: F.avg_pool2d(t, 2, divisor_override=-2), x, exact=False)
    check(lambda t: F.avg_pool3d(t.unsqueeze(0), (1, 2, 2), divisor_override=-3), x, exact=False)


NC1HWC0 = 3

FORWARD_2D = {
    "max": lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True),
    "max_dilation_ceil": lambda t: F.max_pool2d(t, 2, 2, 1, dilation=2, ceil_mode=True, return_indices=True),
    "avg": lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "adaptive_avg": lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
    "adaptive_max": lambda t: F.adaptive_max_pool2d(t, (3, 4), return_indices=True),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("op", list(FORWARD_2D), ids=str)
def test_nc1hwc0_input_read_in_place(op, dtype):
    """An NC1HWC0 self (channels 19: one full block and a padded one) pools as its NCHW values do."""
    import torch_npu

    for shape in ((2, 19, 9, 7), (19, 9, 7)):
        x = sample(shape, dtype, seed=6)
        x5 = torch_npu.npu_format_cast(x.npu(), NC1HWC0)
        assert torch_npu.get_npu_format(x5) == NC1HWC0
        expected = FORWARD_2D[op](x)
        got = FORWARD_2D[op](x5)
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        for e, g in zip(expected, got):
            if "avg" in op:
                torch.testing.assert_close(g.cpu(), e)
            else:
                assert torch.equal(g.cpu(), e)


def test_backward_with_nc1hwc0_self():
    """Backward entries read only self's shape: an NC1HWC0 self is accepted as it is."""
    import torch_npu

    x = sample((2, 19, 9, 7), torch.float32, seed=7)
    x5 = torch_npu.npu_format_cast(x.npu(), NC1HWC0)
    out, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    g = sample(out.shape, torch.float32, seed=8)
    expected = torch.ops.aten.max_pool2d_with_indices_backward(g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx)
    got = torch.ops.aten.max_pool2d_with_indices_backward(g.npu(), x5, [3, 3], [2, 2], [1, 1], [1, 1], False,
                                                          idx.npu())
    torch.testing.assert_close(got.cpu(), expected)
    g_avg = sample(F.avg_pool2d(x, 2).shape, torch.float32, seed=9)
    expected = torch.ops.aten.avg_pool2d_backward(g_avg, x, [2, 2], [2, 2], [0, 0], False, True, None)
    got = torch.ops.aten.avg_pool2d_backward(g_avg.npu(), x5, [2, 2], [2, 2], [0, 0], False, True, None)
    torch.testing.assert_close(got.cpu(), expected)
    g_ad = sample((2, 19, 3, 4), torch.float32, seed=10)
    torch.testing.assert_close(torch.ops.aten._adaptive_avg_pool2d_backward(g_ad.npu(), x5).cpu(),
                               torch.ops.aten._adaptive_avg_pool2d_backward(g_ad, x))


def test_backward_index_out_of_range_raises():
    """An index outside its input plane is an error the kernel reports (at the next synchronization)."""
    x = torch.randn(1, 1, 4, 4)
    g = torch.ones(1, 1, 2, 2)
    bad = torch.tensor([[[[0, 2], [8, 16]]]])  # 16 is past the 4x4 plane (CPU does not check: not compared)
    with pytest.raises(RuntimeError, match="out of range"):
        torch.ops.aten.max_pool2d_with_indices_backward(g.npu(), x.npu(), [2, 2], [2, 2], [0, 0], [1, 1], False,
                                                        bad.npu())
        torch.npu.synchronize()
    # The stream stays usable.
    torch.testing.assert_close(F.avg_pool2d(x.npu(), 2).cpu(), F.avg_pool2d(x, 2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_channels_last_groups_of_channels(dtype):
    """Channels-innermost operands pool 64 channels per task: 70 channels make a full and a partial group."""
    x = sample((2, 70, 9, 8), dtype, seed=11).to(memory_format=torch.channels_last)
    check(lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True), x, exact=True)
    check(lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False), x, exact=False)
    check(lambda t: F.adaptive_avg_pool2d(t, (4, 3)), x, exact=False)
    check(lambda t: F.adaptive_max_pool2d(t, (4, 3), return_indices=True), x, exact=True)
    x3 = sample((1, 70, 4, 5, 6), dtype, seed=12).to(memory_format=torch.channels_last_3d)
    check(lambda t: F.max_pool3d(t, 2, 2, 1, return_indices=True), x3, exact=True)
    check(lambda t: F.adaptive_avg_pool3d(t, (2, 3, 2)), x3, exact=False)


ROW_POOLS = {
    "max_s1": lambda t: F.max_pool2d(t, 3, 1, 1, return_indices=True),
    "max_s2_ceil": lambda t: F.max_pool2d(t, (2, 3), 2, (1, 1), ceil_mode=True, return_indices=True),
    "max_s3_dilation": lambda t: F.max_pool2d(t, (2, 3), 3, (1, 1), dilation=(1, 2), return_indices=True),
    "max_1d": lambda t: F.max_pool1d(t.flatten(1, 2), 4, 2, 2, return_indices=True),
    "avg_s1": lambda t: F.avg_pool2d(t, 3, 1, 1),
    "avg_s2_ceil_no_pad_count": lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_s3_divisor": lambda t: F.avg_pool2d(t, (2, 4), 3, (1, 2), divisor_override=3),
    "avg_1d": lambda t: F.avg_pool1d(t.flatten(1, 2), 5, 2, 2, ceil_mode=True),
    "adaptive_avg_1x1": lambda t: F.adaptive_avg_pool2d(t, 1),
    "adaptive_avg_rows": lambda t: F.adaptive_avg_pool2d(t, (3, 70)),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("op", list(ROW_POOLS), ids=str)
def test_contiguous_rows_wide_planes(op, dtype):
    """NCHW planes pool by output rows, windows inside the row in vector passes of 64 outputs and the
    clipped ones at both ends one by one: rows of 150 give several passes, a partial one and both edges."""
    x = sample((2, 3, 7, 150), dtype, seed=13)
    check(ROW_POOLS[op], x, exact=op.startswith("max"))
    check(ROW_POOLS[op], x[:, :, 1:], exact=op.startswith("max"))  # rows a plane apart, planes not dense
    check(ROW_POOLS[op], x[1], exact=op.startswith("max"))  # unbatched (C, H, W)


@pytest.mark.parametrize("op", ["max_s1", "max_s2_ceil", "max_s3_dilation"])
def test_contiguous_rows_nan(op):
    """A NaN wins every window holding it, in the vector passes and at the clipped edges: its value and
    index come back there (checked against the NaN positions, not CPU), elsewhere CPU's results."""
    x = sample((1, 2, 5, 150), torch.float32, seed=14)
    for h, w in ((0, 0), (2, 1), (2, 75), (4, 149), (1, 148)):
        x[0, 1, h, w] = math.nan
    values, indices = ROW_POOLS[op](x.npu())
    values, indices = values.cpu(), indices.cpu()
    holds_nan = ROW_POOLS[op](x.isnan().double())[0] > 0
    assert torch.equal(values.isnan(), holds_nan) and holds_nan.any()
    assert x.flatten(2).gather(2, indices.flatten(2))[holds_nan.flatten(2)].isnan().all()
    expected, expected_idx = ROW_POOLS[op](x.nan_to_num(0.0))
    assert torch.equal(values[~holds_nan], expected[~holds_nan])
    assert torch.equal(indices[~holds_nan], expected_idx[~holds_nan])
