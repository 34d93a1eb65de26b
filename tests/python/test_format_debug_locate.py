"""npu_emu.debug.locate / locate_offset / describe / compare against an
independent reading of FORMATS.md (its element-offset formulas, written out
here) and against the device's own bytes, for every storable private format
and every element size, exhaustively on small shapes."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

import npu_emu
from npu_emu import debug
from npu_emu.formats import Format, npu_format_cast

DTYPES = {1: torch.int8, 2: torch.float16, 4: torch.float32, 8: torch.int64}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def spec_c0(fmt: Format, itemsize: int) -> int:
    # FORMATS.md "C0 by dtype".
    explicit = {Format.FRACTAL_NZ_C0_16: 16, Format.FRACTAL_NZ_C0_32: 32, Format.FRACTAL_NZ_C0_2: 2,
                Format.FRACTAL_NZ_C0_4: 4, Format.FRACTAL_NZ_C0_8: 8, Format.NC1HWC0_C04: 4}
    if fmt in explicit:
        return explicit[fmt]
    return 32 // min(itemsize, 2) if fmt == Format.FRACTAL_NZ else 16


def spec_pad4(shape):
    # FORMATS.md: [] -> [1,1,1,1], [a] -> [1,a,1,1], [a,b] -> [1,a,b,1], [a,b,c] -> [1,a,b,c].
    return {0: lambda: (1, 1, 1, 1), 1: lambda: (1, shape[0], 1, 1), 2: lambda: (1, shape[0], shape[1], 1),
            3: lambda: (1, *shape), 4: lambda: tuple(shape)}[len(shape)]()


def spec_pad_index(shape, idx):
    return {0: lambda: (0, 0, 0, 0), 1: lambda: (0, idx[0], 0, 0), 2: lambda: (0, idx[0], idx[1], 0),
            3: lambda: (0, *idx), 4: lambda: tuple(idx)}[len(shape)]()


def spec(fmt: Format, shape: tuple[int, ...], itemsize: int):
    """(storage element count, offset(idx)) from FORMATS.md's index maps."""
    c0 = spec_c0(fmt, itemsize)
    if fmt in (Format.NC1HWC0, Format.NC1HWC0_C04, Format.FRACTAL_Z):
        N, C, H, W = spec_pad4(shape)
        C1, N1 = cdiv(C, c0), cdiv(N, 16)
        if fmt == Format.FRACTAL_Z:
            def off(idx):
                n, c, h, w = spec_pad_index(shape, idx)
                return (((c // c0) * H + h) * W + w) * (N1 * 16 * c0) + n * c0 + c % c0
            return C1 * H * W * N1 * 16 * c0, off

        def off(idx):
            n, c, h, w = spec_pad_index(shape, idx)
            return (((n * C1 + c // c0) * H + h) * W + w) * c0 + c % c0
        return N * C1 * H * W * c0, off
    if fmt in (Format.NDC1HWC0, Format.FRACTAL_Z_3D, Format.NDHWC):
        N, C, D, H, W = shape
        C1, N1 = cdiv(C, c0), cdiv(N, 16)
        if fmt == Format.NDHWC:
            return N * C * D * H * W, lambda i: (((i[0] * D + i[2]) * H + i[3]) * W + i[4]) * C + i[1]
        if fmt == Format.NDC1HWC0:
            return (N * D * C1 * H * W * c0,
                    lambda i: ((((i[0] * D + i[2]) * C1 + i[1] // c0) * H + i[3]) * W + i[4]) * c0 + i[1] % c0)
        return (D * C1 * H * W * N1 * 16 * c0,
                lambda i: ((((i[2] * C1 + i[1] // c0) * H + i[3]) * W + i[4]) * N1 * 16 + i[0]) * c0 + i[1] % c0)
    # FRACTAL_NZ family: b over the leading dims.
    *lead, M, K = shape
    M1, K1 = cdiv(M, 16), cdiv(K, c0)
    B = math.prod(lead)

    def off(idx):
        b = 0
        for i, n in zip(idx[:-2], lead):
            b = b * n + i
        m, k = idx[-2:]
        return b * (K1 * M1 * 16 * c0) + (k // c0) * (M1 * 16 * c0) + m * c0 + k % c0
    return B * K1 * M1 * 16 * c0, off


CASES = [
    *((f, s) for f in (Format.NC1HWC0, Format.FRACTAL_Z)
      for s in [(), (3,), (17, 2), (2, 3, 2), (3, 17, 2, 3), (17, 5, 1, 2)]),
    (Format.NC1HWC0_C04, (2, 5, 2, 3)), (Format.NC1HWC0_C04, (3,)),
    *((f, s) for f in (Format.NDC1HWC0, Format.FRACTAL_Z_3D, Format.NDHWC)
      for s in [(2, 17, 2, 2, 3), (17, 3, 1, 2, 1)]),
    *((Format.FRACTAL_NZ, s) for s in [(1, 1), (3, 17), (2, 18, 33), (2, 1, 5, 40)]),
    *((f, (5, 19)) for f in (Format.FRACTAL_NZ_C0_16, Format.FRACTAL_NZ_C0_32, Format.FRACTAL_NZ_C0_2,
                             Format.FRACTAL_NZ_C0_4, Format.FRACTAL_NZ_C0_8)),
]


def _device_tensor(shape, fmt, dtype):
    numel = math.prod(shape)
    values = (torch.arange(numel) % 127 if dtype == torch.int8 else torch.arange(numel)).to(dtype).reshape(shape)
    return values, npu_format_cast(values.npu(), fmt)


@pytest.mark.parametrize("itemsize", sorted(DTYPES))
@pytest.mark.parametrize("fmt,shape", CASES, ids=lambda v: v.name if isinstance(v, Format) else str(list(v)))
def test_locate_matches_spec_and_device(fmt, shape, itemsize):
    dtype = DTYPES[itemsize]
    cpu, t = _device_tensor(shape, fmt, dtype)
    assert npu_emu.storage_desc(t).npu_format == fmt
    count, off = spec(fmt, shape, itemsize)
    desc = debug.describe(t)
    assert math.prod(desc.storage_shape) == count
    assert desc.storage_bytes == count * itemsize
    assert desc.padding_bytes == (count - math.prod(shape)) * itemsize
    raw = npu_emu.storage_data(t).reshape(-1)
    assert raw.numel() == count
    used = set()
    for idx in itertools.product(*(range(n) for n in shape)):
        loc = debug.locate(t, idx)
        expected = off(idx)
        assert loc.element_offset == expected, (idx, loc)
        assert loc.byte_offset == expected * itemsize
        assert raw[expected] == cpu[idx]
        used.add(expected)
        # The reverse, from the first and the last byte of the element.
        for byte in (expected * itemsize, expected * itemsize + itemsize - 1):
            back = debug.locate_offset(t, byte)
            assert not back.padding and back.index == tuple(idx), (byte, back)
    assert len(used) == math.prod(shape)
    for element in set(range(count)) - used:
        back = debug.locate_offset(t, element * itemsize)
        assert back.padding and back.index is None, back
        assert raw[element] == 0  # padding is zero
    with pytest.raises(IndexError, match="byte_offset"):
        debug.locate_offset(t, count * itemsize)


def test_locate_views_of_private_storage():
    cpu, t = _device_tensor((2, 19, 3, 33), Format.FRACTAL_NZ, torch.float32)
    view = t[1, 4:, :, 2:30:3].transpose(0, 2)
    whole = debug.locate(t, (1, 7, 2, 5))
    assert debug.locate(view, (1, 2, 3)).element_offset == whole.element_offset
    assert debug.locate(view, (1, 2, 3)).base_index == (1, 7, 2, 5)
    back = debug.locate_offset(view, whole.byte_offset)
    assert back.index == (1, 2, 3) and back.base_index == (1, 7, 2, 5)
    outside = debug.locate_offset(view, debug.locate(t, (0, 0, 0, 0)).byte_offset)
    assert outside.index is None and not outside.padding and outside.base_index == (0, 0, 0, 0)


def test_locate_base_format_view_is_strided_offset():
    t = torch.arange(60.0).reshape(3, 4, 5).npu()
    view = t[1:, ::2, 3]
    loc = debug.locate(view, (1, 1))
    assert loc.element_offset == view.storage_offset() + view.stride(0) + view.stride(1)
    assert debug.locate_offset(view, loc.byte_offset).index == (1, 1)
    assert debug.describe(t).padding_bytes == 0


def test_locate_rejects_bad_index():
    _, t = _device_tensor((3, 17), Format.FRACTAL_NZ, torch.float16)
    with pytest.raises(IndexError, match="outside shape"):
        debug.locate(t, (3, 0))
    with pytest.raises(IndexError, match="coordinates"):
        debug.locate(t, (1,))


def test_describe_nc1hwc0_padding_share():
    _, t = _device_tensor((2, 17, 5, 5), Format.NC1HWC0, torch.float16)
    d = debug.describe(t)
    assert (d.format, d.base_format, d.c0) == ("NC1HWC0", "NCHW", 16)
    assert d.storage_shape == (2, 2, 5, 5, 16)
    assert d.padding_bytes == 2 * 15 * 25 * 2
    assert d.padding_share == pytest.approx(15 / 32)
    assert "padding" in str(d)


@pytest.mark.parametrize("fmt_a,fmt_b", [(Format.NC1HWC0, Format.NCHW), (Format.FRACTAL_Z, Format.NC1HWC0)])
def test_compare_reports_first_mismatch_with_both_locations(fmt_a, fmt_b):
    cpu = torch.randn(3, 18, 2, 3)
    a = npu_format_cast(cpu.npu(), fmt_a)
    b = npu_format_cast(cpu.npu(), fmt_b)
    assert debug.compare(a, b).equal and debug.compare(a, cpu).equal
    changed = cpu.clone()
    changed[2, 17, 1, 0] += 1
    changed[0, 3, 0, 2] = float("nan")
    b = npu_format_cast(changed.npu(), fmt_b)
    result = debug.compare(a, b)
    assert result.mismatched == 2
    assert [m.index for m in result.first] == [(0, 3, 0, 2), (2, 17, 1, 0)]
    m = result.first[1]
    assert m.a_location.element_offset == debug.locate(a, m.index).element_offset
    assert m.b_location.element_offset == debug.locate(b, m.index).element_offset
    assert m.a == cpu[2, 17, 1, 0].item() and m.b == changed[2, 17, 1, 0].item()
    assert "[2, 17, 1, 0]" in str(result)
    assert len(debug.compare(a, b, max_mismatches=1).first) == 1


def test_explain_names_the_rule():
    _, t = _device_tensor((4, 20), Format.FRACTAL_NZ, torch.float32)
    e = debug.explain(t)
    assert e.format == "FRACTAL_NZ" and e.op == "npu_format_cast"
    assert "explicit" in e.rule
    assert e.allow_internal_format == torch.npu.config.allow_internal_format
    plain = debug.explain(torch.ones(2, 3, 4, 5).npu())
    assert plain.format == "NCHW" and plain.op is None
    assert "guessed from its rank" in str(plain)
    clone = t.clone()
    assert debug.explain(clone).op == "aten::clone"


def test_explain_conv_output_format_rule():
    previous = torch.npu.config.allow_internal_format
    torch.npu.config.allow_internal_format = True
    try:
        x = npu_format_cast(torch.randn(1, 3, 6, 6).npu(), Format.NC1HWC0)
        y = torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3).npu())
        e = debug.explain(y)
        assert (e.format, e.op) == ("NC1HWC0", "aten::convolution")
        assert e.allow_internal_format and "allow_internal_format" in e.rule
    finally:
        torch.npu.config.allow_internal_format = previous


# Every dtype a private format can hold, not only one per element size:
# the format arithmetic must not depend on more than the element size, and
# the device's bytes must agree for each (bool and the unsigned, 16-bit
# integer, bfloat16, float64 and complex types included).
ONE_SHAPE_PER_FORMAT = [
    (Format.NC1HWC0, (3, 17, 2, 3)), (Format.FRACTAL_Z, (17, 5, 1, 2)), (Format.NC1HWC0_C04, (2, 5, 2, 3)),
    (Format.NDC1HWC0, (2, 17, 2, 2, 3)), (Format.FRACTAL_Z_3D, (17, 3, 1, 2, 1)), (Format.NDHWC, (2, 17, 2, 2, 3)),
    (Format.FRACTAL_NZ, (2, 18, 33)), *((f, (5, 19)) for f in (Format.FRACTAL_NZ_C0_16, Format.FRACTAL_NZ_C0_32,
                                                               Format.FRACTAL_NZ_C0_2, Format.FRACTAL_NZ_C0_4,
                                                               Format.FRACTAL_NZ_C0_8)),
]
EVERY_DTYPE = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
               torch.bfloat16, torch.float32, torch.float64, torch.complex64]


def _values(shape, dtype):
    numel = math.prod(shape)
    if dtype == torch.bool:
        return (torch.arange(numel) % 3 == 1).reshape(shape)
    values = torch.arange(1, numel + 1) % (100 if dtype in (torch.int8, torch.uint8) else 1 << 30)
    if dtype == torch.complex64:
        return torch.complex(values.float(), -values.float()).reshape(shape)
    return values.to(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
@pytest.mark.parametrize("fmt,shape", ONE_SHAPE_PER_FORMAT, ids=lambda v: v.name if isinstance(v, Format) else None)
def test_locate_matches_spec_and_device_for_every_dtype(fmt, shape, dtype):
    cpu = _values(shape, dtype)
    t = npu_format_cast(cpu.npu(), fmt)
    assert npu_emu.storage_desc(t).npu_format == fmt
    itemsize = cpu.element_size()
    count, off = spec(fmt, shape, itemsize)
    assert debug.describe(t).storage_bytes == count * itemsize
    raw = npu_emu.storage_data(t).reshape(-1)
    assert raw.dtype == dtype and raw.numel() == count
    used = set()
    for idx in itertools.product(*(range(n) for n in shape)):
        loc = debug.locate(t, idx)
        assert loc.element_offset == off(idx), (idx, loc)
        assert raw[loc.element_offset] == cpu[idx]
        back = debug.locate_offset(t, loc.byte_offset + itemsize - 1)
        assert not back.padding and back.index == tuple(idx)
        used.add(loc.element_offset)
    padding = sorted(set(range(count)) - used)
    for element in padding[:64] + padding[-64:]:
        assert debug.locate_offset(t, element * itemsize).padding
        assert raw[element] == 0
    torch.testing.assert_close(t.cpu(), cpu, rtol=0, atol=0)
