"""Fuzz target (issue 20): storage-shape inference and format transforms.

Random shapes (rank 0-5, empty dims included), dtypes, layouts of the input
(contiguous, transposed, sliced) and formats (every aclFormat id and invalid
ones) through npu_format_cast, then into a second format and back to a base
format. Each cast either raises one clear error naming the format, or gives a
tensor whose storage descriptor is the shape FORMATS.md gives
(npu_emu.debug.layout, the spec's own arithmetic), whose bytes hold every
logical element where the spec puts it, and whose values equal the CPU
input exactly, after every cast. Settings: tests/python/fuzz_settings.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

from fuzz_settings import fuzz_settings, hypothesis
from conftest import make_tensor

import npu_emu
from npu_emu.debug.layout import BASE_FORMATS, Layout
from npu_emu.formats import Format, get_npu_format, npu_format_cast

st = hypothesis.strategies

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.uint8, torch.int16,
          torch.int32, torch.int64, torch.bool]
KNOWN = [int(f) for f in Format]
FORMAT_IDS = st.one_of(st.sampled_from(KNOWN), st.integers(-3, 80))
MAX_NUMEL = 6000


@st.composite
def shapes(draw) -> tuple[int, ...]:
    rank = draw(st.integers(0, 5))
    # Mostly small dims, sometimes 0 or a size just past a block edge (16, 32).
    dim = st.one_of(st.integers(1, 6), st.sampled_from([0, 15, 16, 17, 31, 33]))
    shape = tuple(draw(st.lists(dim, min_size=rank, max_size=rank)))
    hypothesis.assume(math.prod(shape) <= MAX_NUMEL)
    return shape


def npu_input(cpu: torch.Tensor, layout: str) -> torch.Tensor:
    """`cpu`'s values on npu, contiguous or as a non-contiguous view."""
    if layout == "transposed" and cpu.dim() >= 2:
        return cpu.transpose(-1, -2).contiguous().npu().transpose(-1, -2)
    if layout == "sliced" and cpu.dim() >= 1:
        wide = torch.zeros(*cpu.shape[:-1], 2 * cpu.shape[-1], dtype=cpu.dtype)
        wide[..., ::2] = cpu
        return wide.npu()[..., ::2]
    return cpu.npu()


def format_name(fmt: int) -> str:
    return Format(fmt).name if fmt in KNOWN else str(fmt)


def cast_or_clear_error(t: torch.Tensor, fmt: int) -> torch.Tensor | None:
    """The cast, or None after checking the error names the format."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a rank fallback to ND warns; checked below through the result
            return npu_format_cast(t, fmt)
    except (ValueError, RuntimeError) as e:
        message = str(e)
        assert f"({fmt})" in message or str(fmt) in message, f"error does not name format {fmt}: {message}"
        assert "Internal" not in message and "internal error" not in message, message
        return None


def check_storage(t: torch.Tensor, cpu: torch.Tensor) -> None:
    """Descriptor, bytes and values of `t` against the spec and the CPU values."""
    fmt = Format(get_npu_format(t))
    assert torch.equal(t.cpu(), cpu), f"values changed in {fmt.name}"
    if fmt in BASE_FORMATS:
        return
    layout = Layout(tuple(cpu.shape), fmt, cpu.element_size())
    desc = npu_emu.storage_desc(t)
    assert desc.storage_sizes == layout.storage_shape, (fmt.name, tuple(cpu.shape), desc)
    if cpu.numel():
        storage = npu_emu.storage_data(t).flatten()
        where = torch.from_numpy(np.asarray(layout.logical_to_storage_map())).flatten()
        assert torch.equal(storage[where], cpu.flatten()), f"{fmt.name}: an element is not where FORMATS.md puts it"


@fuzz_settings(ci_examples=800)
@hypothesis.given(shape=shapes(), dtype=st.sampled_from(DTYPES), layout=st.sampled_from(["contiguous", "transposed", "sliced"]),
                  first=FORMAT_IDS, second=FORMAT_IDS, seed=st.integers(0, 1000))
def test_format_casts_round_trip_exactly_or_raise_one_clear_error(shape, dtype, layout, first, second, seed):
    cpu = make_tensor(shape, dtype, seed=seed)
    source = npu_input(cpu, layout)
    once = cast_or_clear_error(source, first)
    if once is None:
        return
    check_storage(once, cpu)
    twice = cast_or_clear_error(once, second)  # private to private, or back
    if twice is not None:
        check_storage(twice, cpu)
    base = Format.NCHW if cpu.dim() == 4 else Format.ND
    back = cast_or_clear_error(twice if twice is not None else once, int(base))
    assert back is not None, f"cast back to {base.name} refused"
    assert get_npu_format(back) == base and torch.equal(back.cpu(), cpu)
    assert torch.equal(source.cpu(), cpu), "the input changed"


@fuzz_settings(ci_examples=200)
@hypothesis.given(shape=shapes(), dtype=st.sampled_from(DTYPES), fmt=st.sampled_from(KNOWN), seed=st.integers(0, 1000))
# What the fuzz found: empty private tensors could not be cloned.
@hypothesis.example(shape=(1, 1, 1, 1, 0), dtype=torch.float32, fmt=27, seed=0)
@hypothesis.example(shape=(1, 1, 1, 2, 0), dtype=torch.float32, fmt=27, seed=0)
@hypothesis.example(shape=(2, 0, 3, 3), dtype=torch.float16, fmt=3, seed=0)
@hypothesis.example(shape=(1, 0), dtype=torch.float32, fmt=50, seed=0)
def test_ops_on_a_private_tensor_match_cpu(shape, dtype, fmt, seed):
    """A clone, an in-place fill of part of it and a reduction on a cast tensor: as on CPU."""
    cpu = make_tensor(shape, dtype, seed=seed)
    t = cast_or_clear_error(cpu.npu(), fmt)
    if t is None:
        return
    clone = t.clone()
    check_storage(clone, cpu)
    if cpu.dim() >= 1 and cpu.shape[0] > 0:
        expected = cpu.clone()
        expected[0] = 1
        clone[0] = 1
        assert torch.equal(clone.cpu(), expected)
    if dtype.is_floating_point:
        assert torch.allclose(t.double().sum().cpu(), cpu.double().sum(), rtol=1e-12, atol=1e-9)


# Also found by it: a [1, 0] tensor's strides [1, 1] read as either dim order;
# the emulator took the permuted one and refused the caller's storage dims.
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("shape", [(1, 0), (1, 1, 0, 1), (0, 1)], ids=str)
def test_sum_of_an_empty_private_tensor(dtype, shape):
    t = npu_format_cast(torch.zeros(*shape, dtype=dtype).npu(), int(Format.NC1HWC0))
    assert float(t.sum().cpu()) == 0.0
    assert t.sum(-1).cpu().shape == torch.zeros(*shape).sum(-1).shape
