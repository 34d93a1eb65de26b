"""Upsampling (interpolate), reflection/replication padding and max unpooling on npu against CPU.

Every test runs with the CPU fallback forbidden (native_only): forward and backward must be
npu kernels. Reduced floats compute in float32 as CPU does; results are compared with CPU in the
same dtype at that dtype's tolerance, copies (padding, nearest, unpooling) exactly.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")

TOL = {torch.float64: (1e-12, 1e-12), torch.float32: (1e-5, 1.3e-6), torch.float16: (2e-3, 2e-3),
       torch.bfloat16: (1.6e-2, 1.6e-2)}


def rand(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def close(actual, expected, dtype, scale=1.0):
    atol, rtol = TOL[dtype]
    torch.testing.assert_close(actual.cpu(), expected, atol=atol * scale, rtol=rtol * scale)


def forward_backward(fn, x, seed=1):
    """fn(x) and d(sum(fn(x) * g))/dx for one random g, on x's device."""
    x = x.detach().requires_grad_()
    y = fn(x)
    g = rand(y.shape, y.dtype, seed).to(y.device)
    (gx,) = torch.autograd.grad(y, x, g)
    return y.detach(), gx


# (mode, spatial rank, antialias)
MODES = [("nearest", 1, False), ("nearest", 2, False), ("nearest", 3, False),
         ("nearest-exact", 1, False), ("nearest-exact", 2, False), ("nearest-exact", 3, False),
         ("linear", 1, False), ("bilinear", 2, False), ("bicubic", 2, False), ("trilinear", 3, False),
         ("bilinear", 2, True), ("bicubic", 2, True)]
SIZES = {1: (2, 3, 7), 2: (2, 3, 5, 7), 3: (2, 3, 4, 5, 6)}


def resize_kwargs(mode, rank, how, align_corners, antialias):
    kw = {"mode": mode}
    if mode not in ("nearest", "nearest-exact"):
        kw["align_corners"] = align_corners
    if antialias:
        kw["antialias"] = True
    if how == "size":
        kw["size"] = {1: (11,), 2: (9, 4), 3: (7, 3, 9)}[rank]
    elif how == "up2":
        kw["scale_factor"] = 2.0
    elif how == "down":
        kw["scale_factor"] = 0.5
    else:  # a non-integer scale, used as given (not recomputed from the sizes)
        kw["scale_factor"] = {1: (1.7,), 2: (1.7, 0.6), 3: (1.7, 0.6, 1.3)}[rank]
        kw["recompute_scale_factor"] = False
    return kw


@pytest.mark.parametrize("mode,rank,antialias", MODES)
@pytest.mark.parametrize("how", ["size", "up2", "down", "scale"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_matches_cpu(mode, rank, antialias, how, align_corners):
    if align_corners and mode in ("nearest", "nearest-exact"):
        pytest.skip("align_corners applies to the interpolating modes only")
    kw = resize_kwargs(mode, rank, how, align_corners, antialias)
    # CPU antialiases float32/float64 only.
    dtypes = (torch.float32, torch.float64) if antialias else (torch.float32, torch.float16, torch.bfloat16,
                                                               torch.float64)
    for dtype in dtypes:
        x = rand(SIZES[rank], dtype)
        y_cpu, g_cpu = forward_backward(lambda t: F.interpolate(t, **kw), x)
        y_npu, g_npu = forward_backward(lambda t: F.interpolate(t, **kw), x.to("npu"))
        if mode.startswith("nearest"):
            assert torch.equal(y_npu.cpu(), y_cpu), (mode, dtype)
        else:
            close(y_npu, y_cpu, dtype)
        # Gradients sum several products: allow a few more roundings than one op.
        close(g_npu, g_cpu, dtype, scale=4.0)


@pytest.mark.parametrize("mode,rank,antialias", [m for m in MODES if m[1] >= 2])
def test_interpolate_channels_last(mode, rank, antialias):
    memory_format = torch.channels_last if rank == 2 else torch.channels_last_3d
    shape = (2, 80, *SIZES[rank][2:])  # more channels than one channel group
    x = rand(shape, torch.float32).contiguous(memory_format=memory_format)
    kw = resize_kwargs(mode, rank, "scale", False, antialias)
    y_cpu, g_cpu = forward_backward(lambda t: F.interpolate(t, **kw), x)
    y_npu, g_npu = forward_backward(lambda t: F.interpolate(t, **kw), x.to("npu"))
    close(y_npu, y_cpu, torch.float32)
    close(g_npu, g_cpu, torch.float32, scale=4.0)
    # A strided (sliced) input reads the same values.
    xs = rand((2, 3, *[2 * s for s in SIZES[rank][2:]]), torch.float32)[..., ::2]
    if rank == 3:
        xs = xs[:, :, ::2, ::2]
    else:
        xs = xs[:, :, ::2]
    close(F.interpolate(xs.to("npu"), **kw), F.interpolate(xs, **kw), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("mode,shape,size", [("bilinear", (1, 2, 40, 50), (90, 70)),  # CPU's generic kernel
                                             ("bilinear", (1, 2, 10, 12), (17, 9)),  # its vectorized one
                                             ("bicubic", (1, 2, 40, 50), (90, 70)),
                                             ("trilinear", (1, 2, 6, 7, 8), (9, 5, 11))])
@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_reduced_float_weights(dtype, mode, shape, size, align_corners):
    """Reduced floats: CPU's kernels keep their weights in float or in the dtype depending on the path."""
    x = rand(shape, dtype)
    for memory_format in (torch.contiguous_format, torch.channels_last):
        if len(shape) == 5 and memory_format == torch.channels_last:
            continue
        xm = x.contiguous(memory_format=memory_format)
        kw = {"size": size, "mode": mode, "align_corners": align_corners}
        close(F.interpolate(xm.to("npu"), **kw), F.interpolate(xm, **kw), dtype)


@pytest.mark.parametrize("mode,rank,antialias", MODES)
def test_interpolate_gradcheck(mode, rank, antialias):
    shape = {1: (1, 2, 4), 2: (1, 2, 4, 3), 3: (1, 1, 3, 2, 3)}[rank]
    x = rand(shape, torch.float64).to("npu").requires_grad_()
    for how in ("up2", "scale", "down"):
        kw = resize_kwargs(mode, rank, how, mode not in ("nearest", "nearest-exact"), antialias)
        assert torch.autograd.gradcheck(lambda t: F.interpolate(t, **kw), (x,))


def test_upsample_aten_ops_with_and_without_scales():
    """The aten ops themselves: output_size with scales given (which win for the index arithmetic)."""
    x = rand((1, 2, 5, 6), torch.float32)
    for op, args in ((torch.ops.aten.upsample_bilinear2d, ((8, 9), False, 1.5, 1.4)),
                     (torch.ops.aten.upsample_bicubic2d, ((8, 9), True, None, None)),
                     (torch.ops.aten.upsample_nearest2d, ((8, 9), 1.5, 1.4)),
                     (torch.ops.aten._upsample_nearest_exact2d, ((3, 4), 0.6, None))):
        close(op(x.to("npu"), *args), op(x, *args), torch.float32)
    out = torch.empty(0, device="npu")
    torch.ops.aten.upsample_bilinear2d.out(x.to("npu"), (8, 9), False, None, None, out=out)
    close(out, torch.ops.aten.upsample_bilinear2d(x, (8, 9), False, None, None), torch.float32)


def test_upsample_nearest_uint8_and_errors():
    x = torch.randint(0, 255, (1, 3, 4, 5), dtype=torch.uint8)
    assert torch.equal(F.interpolate(x.to("npu"), scale_factor=1.5).cpu(), F.interpolate(x, scale_factor=1.5))
    with pytest.raises(RuntimeError, match="output"):
        torch.ops.aten.upsample_bilinear2d(torch.randn(1, 1, 4, 4, device="npu"), (0, 3), False)


# ---- padding ------------------------------------------------------------------------------------------------------

PADS = {1: [(2, 1), (0, 3), (-1, 2)], 2: [(1, 2, 2, 0), (3, -1, 1, 1)], 3: [(1, 0, 2, 1, 1, 2), (0, 1, -1, 2, 1, 0)]}


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("batched", [True, False])
def test_pad_matches_cpu(mode, rank, batched):
    shape = (2, 3, *(4, 5, 6)[:rank]) if batched else (3, *(4, 5, 6)[:rank])
    for pad in PADS[rank]:
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            x = rand(shape, dtype)
            y_cpu, g_cpu = forward_backward(lambda t: F.pad(t, pad, mode=mode), x)
            y_npu, g_npu = forward_backward(lambda t: F.pad(t, pad, mode=mode), x.to("npu"))
            assert torch.equal(y_npu.cpu(), y_cpu), (pad, dtype)
            close(g_npu, g_cpu, dtype)
        xi = torch.arange(torch.Size(shape).numel(), dtype=torch.int32).reshape(shape)
        assert torch.equal(F.pad(xi.to("npu"), pad, mode=mode).cpu(), F.pad(xi, pad, mode=mode))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_channels_last_and_gradcheck(mode):
    x = rand((2, 70, 5, 6), torch.float32).contiguous(memory_format=torch.channels_last)
    pad = (2, 1, 1, 3)
    y_cpu, g_cpu = forward_backward(lambda t: F.pad(t, pad, mode=mode), x)
    y_npu, g_npu = forward_backward(lambda t: F.pad(t, pad, mode=mode), x.to("npu"))
    assert torch.equal(y_npu.cpu(), y_cpu)
    close(g_npu, g_cpu, torch.float32)
    for shape, p in (((1, 2, 5), (2, 3)), ((1, 2, 3, 4), (1, 2, 2, 1)), ((1, 1, 3, 3, 4), (1, 2, 0, 2, 1, 1))):
        xd = rand(shape, torch.float64).to("npu").requires_grad_()
        assert torch.autograd.gradcheck(lambda t: F.pad(t, p, mode=mode), (xd,))


def test_pad_bad_arguments():
    x = torch.randn(1, 2, 3, 3, device="npu")
    with pytest.raises(RuntimeError, match="padding"):
        F.pad(x, (3, 0, 0, 0), mode="reflect")  # a reflection pad must be below the dim's size
    with pytest.raises(RuntimeError):
        torch.ops.aten.replication_pad2d(x, (1, 1, 1))


# ---- max unpooling ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_max_unpool_matches_cpu(rank, dtype):
    shape = (2, 3, 8, 6) if rank == 2 else (2, 3, 4, 6, 4)
    x = rand(shape, torch.float32)
    pool = F.max_pool2d if rank == 2 else F.max_pool3d
    unpool = F.max_unpool2d if rank == 2 else F.max_unpool3d
    y, idx = pool(x, 2, return_indices=True)
    y = (y * 10).to(dtype)
    out_cpu = unpool(y, idx, 2, output_size=shape)
    out_npu = unpool(y.to("npu"), idx.to("npu"), 2, output_size=shape)
    assert torch.equal(out_npu.cpu(), out_cpu)
    ref = forward_backward(lambda t: unpool(t, idx, 2, output_size=shape), y)
    got = forward_backward(lambda t: unpool(t, idx.to("npu"), 2, output_size=shape), y.to("npu"))
    assert torch.equal(got[0].cpu(), ref[0]) and torch.equal(got[1].cpu(), ref[1])


def test_max_unpool_unbatched_and_bad_index():
    x = rand((3, 4, 4), torch.float32)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    assert torch.equal(F.max_unpool2d(y.to("npu"), idx.to("npu"), 2).cpu(), F.max_unpool2d(y, idx, 2))
    bad = idx.clone()
    bad[0, 0, 0] = 16
    with pytest.raises(RuntimeError, match="out of range"):
        F.max_unpool2d(y.to("npu"), bad.to("npu"), 2).cpu()


# ---- grid sampling (forward) --------------------------------------------------------------------------------------

@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_cpu(rank, mode, padding_mode, align_corners):
    if rank == 3 and mode == "bicubic":
        pytest.skip("bicubic grid sampling is 2-d only")
    shape = (2, 3, 5, 7) if rank == 2 else (2, 3, 4, 5, 6)
    grid_shape = (2, 6, 4, 2) if rank == 2 else (2, 3, 4, 2, 3)
    for dtype in (torch.float32, torch.float64):
        x = rand(shape, dtype)
        grid = rand(grid_shape, dtype, seed=3) * 0.8  # some locations fall outside [-1, 1]
        kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
        expected = F.grid_sample(x, grid, **kw)
        close(F.grid_sample(x.to("npu"), grid.to("npu"), **kw), expected, dtype, scale=4.0)


def test_grid_sample_reduced_float_is_not_native():
    """CPU rounds every step of float16 grid sampling to float16: the npu leaves it to the fallback, by name."""
    x, grid = torch.randn(1, 1, 3, 3, dtype=torch.float16), torch.zeros(1, 2, 2, 2, dtype=torch.float16)
    with pytest.raises(NotImplementedError, match="grid_sampler_2d"):
        F.grid_sample(x.to("npu"), grid.to("npu"), align_corners=False)


# ---- torch.use_deterministic_algorithms: max_unpool alerts as on CPU -------------

UNPOOL_ALERT_CASES = {
    "max_unpool1d": (lambda x, i: F.max_unpool1d(x, i, 3, 1), (1, 1, 7), "max_unpooling2d_forward_out"),
    "max_unpool2d": (lambda x, i: F.max_unpool2d(x, i, 3, 1), (1, 1, 7, 7), "max_unpooling2d_forward_out"),
    "max_unpool3d": (lambda x, i: F.max_unpool3d(x, i, 3, 1), (1, 1, 4, 4, 4), "max_unpooling3d_forward_out"),
}


@pytest.mark.parametrize("warn_only", [False, True], ids=["error", "warn_only"])
@pytest.mark.parametrize("case", sorted(UNPOOL_ALERT_CASES))
def test_max_unpool_alerts_under_deterministic_algorithms_as_cpu(case, warn_only):
    # Duplicate indices make the scatter order-dependent: CPU alerts, npu must too.
    fn, shape, name = UNPOOL_ALERT_CASES[case]
    previous = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(True, warn_only=warn_only)
    try:
        for device in ("cpu", "npu"):
            x = torch.randn(shape, device=device)
            indices = torch.zeros_like(x, dtype=torch.long)
            if warn_only:
                with pytest.warns(UserWarning, match=name):
                    fn(x, indices)
            else:
                with pytest.raises(RuntimeError, match=name):
                    fn(x, indices)
    finally:
        torch.use_deterministic_algorithms(previous[0], warn_only=previous[1])
