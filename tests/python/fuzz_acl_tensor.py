"""The aclCreateTensor fuzz target's body (run by test_fuzz_acl_tensor.py in a
fresh interpreter, so that a crash is a failed test, not a dead test run).

Random view dims, strides, offsets, dtypes, formats, storage dims and data
pointers, including invalid ones, through the emulator's C API (ctypes, as
tests/python/test_inplace_ops.py calls it). aclCreateTensor gives a handle or
null with a message; aclGetViewShape/aclGetStorageShape give back what was
described; aclnnInplaceCopy from the described tensor into a plain one
either refuses with an ACL error code and a message, or copies exactly the
elements CPU's as_strided reads over the same buffer (only when the view
lies inside its declared storage). Never a crash.
"""

from __future__ import annotations

import ctypes
import math
import sys

import torch

import npu_emu  # noqa: F401  (activates the npu backend)
from npu_emu import _backend
from fuzz_settings import fuzz_settings, hypothesis

st = hypothesis.strategies
i64p = ctypes.POINTER(ctypes.c_int64)
LIB = ctypes.CDLL(str(_backend._EMULATOR_LIBRARY))
LIB.aclCreateTensor.argtypes = [i64p, ctypes.c_uint64, ctypes.c_int, i64p, ctypes.c_int64, ctypes.c_int, i64p,
                                ctypes.c_uint64, ctypes.c_void_p]
LIB.aclCreateTensor.restype = ctypes.c_void_p
LIB.aclDestroyTensor.argtypes = [ctypes.c_void_p]
LIB.aclGetRecentErrMsg.restype = ctypes.c_char_p
LIB.aclGetViewShape.argtypes = [ctypes.c_void_p, ctypes.POINTER(i64p), ctypes.POINTER(ctypes.c_uint64)]
LIB.aclGetStorageShape.argtypes = [ctypes.c_void_p, ctypes.POINTER(i64p), ctypes.POINTER(ctypes.c_uint64)]
LIB.aclnnInplaceCopyGetWorkspaceSize.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                                 ctypes.POINTER(ctypes.c_void_p)]
LIB.aclnnInplaceCopy.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]

# aclDataType -> torch dtype, for the ones both sides have.
ACL_DTYPES = {0: torch.float32, 1: torch.float16, 2: torch.int8, 3: torch.int32, 4: torch.uint8, 6: torch.int16,
              9: torch.int64, 11: torch.float64, 12: torch.bool, 27: torch.bfloat16}
BASE_FORMATS = (0, 1, 2, 30, 35, 47)  # NCHW NHWC ND NCDHW NC NCL: bytes laid out as the view says
BUFFER_ELEMENTS = 2048


def as_c(values: list[int] | None) -> i64p | None:
    return None if values is None else (ctypes.c_int64 * max(len(values), 1))(*values)


def recent_error() -> str:
    return (LIB.aclGetRecentErrMsg() or b"").decode(errors="replace")


def read_back(getter, handle: int) -> list[int]:
    out, count = i64p(), ctypes.c_uint64(0)
    assert getter(ctypes.c_void_p(handle), ctypes.byref(out), ctypes.byref(count)) == 0, recent_error()
    return [out[i] for i in range(count.value)]  # the array itself is the caller's (delete[]); left to the process


def extent(dims: list[int], strides: list[int], offset: int) -> int:
    """One past the last element the view reads; 0 for an empty view."""
    if any(d == 0 for d in dims):
        return 0
    return offset + sum((d - 1) * s for d, s in zip(dims, strides)) + 1


def contiguous(dims: list[int]) -> list[int]:
    strides, step = [], 1
    for d in reversed(dims):
        strides.insert(0, step)
        step *= max(d, 1)
    return strides


small = st.integers(0, 6)
negative = st.one_of(st.integers(-3, -1), st.just(-(2**62)))
overflowing = st.just([1 << 40, 1 << 40])  # each size fine, their product beyond 64 bits


@st.composite
def descriptions(draw):
    """Sizes, strides and offsets either invalid (negative, overflowing) or
    small enough that the view stays inside the physical buffer: the
    emulator trusts storageDims, so a view past the memory behind them would
    read memory nobody described (as on hardware)."""
    rank = draw(st.integers(0, 5))
    dims = draw(st.one_of(st.lists(st.one_of(small, negative), min_size=rank, max_size=rank),
                          overflowing.map(lambda o: o + [2] * max(rank - 2, 0))))
    rank = len(dims)
    strides = draw(st.one_of(st.none(), st.lists(st.one_of(st.integers(0, 40), negative), min_size=rank, max_size=rank)))
    offset = draw(st.one_of(st.integers(0, 40), negative))
    dtype = draw(st.one_of(st.sampled_from(sorted(ACL_DTYPES)), st.integers(-2, 40)))
    fmt = draw(st.one_of(st.sampled_from(BASE_FORMATS), st.integers(-2, 60)))
    storage = draw(st.one_of(st.just([BUFFER_ELEMENTS]), st.lists(st.one_of(small, st.integers(0, 600), negative),
                                                                  max_size=5), overflowing))
    data = draw(st.sampled_from(["buffer", "null"]))
    dims_num = draw(st.one_of(st.just(rank), st.integers(0, rank), st.integers(65, 1 << 40)))
    return dims, strides, offset, dtype, fmt, storage, data, dims_num


@fuzz_settings(ci_examples=1500)
@hypothesis.given(desc=descriptions(), seed=st.integers(0, 100))
# What the fuzz found: a copy from a null address crashed the process.
@hypothesis.example(desc=([], None, 0, 0, 0, [512], "null", 0), seed=0)
@hypothesis.example(desc=([3, 2], None, 0, 0, 2, [512], "null", 2), seed=0)
def fuzz_create_tensor_and_copy(desc, seed):
    print("example:", desc, file=sys.stderr, flush=True)  # the last one names what crashed, if anything does
    dims, strides, offset, acl_dtype, fmt, storage, data, dims_num = desc
    # A count beyond the arrays (above 64) must be refused before anything reads them.
    dims = dims[:dims_num]
    strides = None if strides is None else strides[:dims_num]
    dtype = ACL_DTYPES.get(acl_dtype, torch.float32)
    g = torch.Generator().manual_seed(seed)
    buffer_cpu = (torch.randn(BUFFER_ELEMENTS, generator=g) * 10).to(dtype)
    buffer = buffer_cpu.npu()
    pointer = ctypes.c_void_p(buffer.data_ptr() if data == "buffer" else None)
    handle = LIB.aclCreateTensor(as_c(dims), dims_num, acl_dtype, as_c(strides), offset, fmt, as_c(storage),
                                 len(storage), pointer)
    if not handle:
        assert recent_error(), f"aclCreateTensor returned null without a message for {desc}"
        return
    try:
        assert read_back(LIB.aclGetViewShape, handle) == dims
        assert read_back(LIB.aclGetStorageShape, handle) == storage
        copy_into_plain(handle, dims, strides, offset, acl_dtype, fmt, storage, data, buffer_cpu, dtype)
    finally:
        LIB.aclDestroyTensor(ctypes.c_void_p(handle))


def copy_into_plain(handle, dims, strides, offset, acl_dtype, fmt, storage, data, buffer_cpu, dtype) -> None:
    strides = contiguous(dims) if strides is None else strides
    valid_view = (all(0 <= d <= 64 for d in dims) and all(0 <= s <= 1 << 20 for s in strides) and 0 <= offset <= 1 << 20
                  and all(0 <= d <= 1 << 20 for d in storage))
    if not valid_view:
        dst = torch.zeros(1, dtype=torch.float32, device="npu")
        out_dims = [1]
    else:
        dst = torch.zeros(dims, dtype=torch.float32, device="npu")
        out_dims = dims
    out_handle = LIB.aclCreateTensor(as_c(out_dims), len(out_dims), 0, as_c(list(dst.stride())), 0, 2,
                                     as_c([max(dst.numel(), 1)]), 1, ctypes.c_void_p(dst.data_ptr()))
    assert out_handle, recent_error()
    try:
        torch.npu.synchronize()
        workspace, executor = ctypes.c_uint64(0), ctypes.c_void_p(None)
        status = LIB.aclnnInplaceCopyGetWorkspaceSize(ctypes.c_void_p(out_handle), ctypes.c_void_p(handle),
                                                      ctypes.byref(workspace), ctypes.byref(executor))
        if status == 0:
            status = LIB.aclnnInplaceCopy(None, workspace, executor, None)
        if status == 0:
            torch.npu.synchronize()
    finally:
        LIB.aclDestroyTensor(ctypes.c_void_p(out_handle))
    if status != 0:
        assert recent_error(), f"status {status} without a message"
        return
    readable = valid_view and (data == "buffer" or 0 in dims) and extent(dims, strides, offset) <= BUFFER_ELEMENTS
    assert readable, (f"aclnnInplaceCopy accepted a source it cannot read: dims {dims}, strides {strides}, "
                      f"offset {offset}, dtype {acl_dtype}, format {fmt}, storage {storage}, data {data}")
    if acl_dtype not in ACL_DTYPES or fmt not in BASE_FORMATS:
        return  # another element type or a private layout over the same bytes: read, values not modelled here
    expected = torch.as_strided(buffer_cpu, dims, strides, offset).to(torch.float32)
    assert torch.equal(dst.cpu(), expected), (dims, strides, offset, acl_dtype)
