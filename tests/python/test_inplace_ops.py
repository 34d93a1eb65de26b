"""CANN's aclnnInplace* entries (ops/table/inplace.yaml), called through the
ACL C API as the real torch_npu calls them: each updates its tensor exactly
as its out-of-place entry writes `out` for the same arguments, also when the
tensor is a strided view (the elements outside the view keep their values).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import pytest
import torch

import npu_emu  # noqa: F401
from conftest import REPO
from native_guard import native_only  # noqa: F401
from npu_emu import _backend

sys.path.insert(0, str(REPO))
from ops.gen.table import Op, load_family  # noqa: E402

pytestmark = pytest.mark.usefixtures("native_only")

ACL_DTYPE = {torch.float32: 0, torch.int32: 3, torch.int64: 9, torch.float64: 11, torch.bool: 12}
ACL_FORMAT_ND = 2

INPLACE = {op.aclnn: op for op in load_family(REPO / "ops" / "table" / "inplace.yaml").ops}
# CANN's in-place ops without an out-of-place twin, beside their families' rows.
OWN_ROWS = {op.aclnn: op for name in ("copy", "index") for op in load_family(REPO / "ops" / "table" / f"{name}.yaml").ops
            if op.aclnn in ("aclnnInplaceOne", "aclnnInplaceMaskedFillTensor")}
# Every out-of-place op, for the reference call.
OUT_OF_PLACE = {op.aclnn: op for path in sorted((REPO / "ops" / "table").glob("*.yaml")) if path.stem != "inplace"
                for op in load_family(path).ops}
# In-place op -> (its out-of-place op, values of base parameters the in-place signature fixes).
BASE = {"aclnnInplaceFloorDivide": ("aclnnDivMod", {"mode": 2}),
        "aclnnInplaceFloorDivides": ("aclnnDivMods", {"mode": 2})}

SCALAR_VALUES = {"alpha": 0.5, "other": 0.7, "value": 0.3, "clipValueMax": 0.6, "negativeSlope": 0.1,
                 "clipValueMin": 0.3, "threshold": 0.5, "lower": 0.1, "upper": 0.3, "scale": 1.0, "inputScale": 1.0, "dim": 1,
                 "weight": 0.25, "exponent": 2.0}
INT_VALUES = {"dim": 1, "diagonal": 0, "reduce": 0, "decimals": 1, "seed": 0, "offset": 0, "mode": 2}
C_TYPES = {"int64_t": ctypes.c_int64, "int": ctypes.c_int, "bool": ctypes.c_bool, "float": ctypes.c_float,
           "double": ctypes.c_double, "int8_t": ctypes.c_int8, "aclDataType": ctypes.c_int}
SHAPE = (4, 6)


def library() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(_backend._EMULATOR_LIBRARY))  # the process's already loaded emulator
    i64p = ctypes.POINTER(ctypes.c_int64)
    lib.aclCreateTensor.argtypes = [i64p, ctypes.c_uint64, ctypes.c_int, i64p, ctypes.c_int64, ctypes.c_int, i64p,
                                    ctypes.c_uint64, ctypes.c_void_p]
    lib.aclCreateTensor.restype = ctypes.c_void_p
    lib.aclCreateScalar.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.aclCreateScalar.restype = ctypes.c_void_p
    lib.aclDestroyTensor.argtypes = [ctypes.c_void_p]
    lib.aclDestroyScalar.argtypes = [ctypes.c_void_p]
    lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
    return lib


LIB = library()


def base_of(name: str) -> tuple[Op, dict[str, int]]:
    base, fixed = BASE.get(name, ("aclnn" + name.removeprefix("aclnnInplace"), {}))
    return OUT_OF_PLACE[base], fixed


def self_dtype(name: str) -> torch.dtype:
    return torch.int32 if "Bitwise" in name or "Logical" in name else torch.float32


class Args:
    """The C arguments of one call; owns the aclTensor/aclScalar objects it made."""

    def __init__(self) -> None:
        self.tensors: list[int] = []
        self.scalars: list[int] = []
        self.keep: list[Any] = []

    def tensor(self, t: torch.Tensor) -> ctypes.c_void_p:
        dims = (ctypes.c_int64 * t.dim())(*t.shape)
        strides = (ctypes.c_int64 * t.dim())(*t.stride())
        storage = (ctypes.c_int64 * 1)(t.untyped_storage().nbytes() // t.element_size())
        handle = LIB.aclCreateTensor(dims, t.dim(), ACL_DTYPE[t.dtype], strides, t.storage_offset(), ACL_FORMAT_ND,
                                     storage, 1, ctypes.c_void_p(t.untyped_storage().data_ptr()))
        assert handle
        self.tensors.append(handle)
        self.keep.append(t)  # its memory must outlive the call
        return ctypes.c_void_p(handle)

    def scalar(self, value: float | int) -> ctypes.c_void_p:
        box = ctypes.c_int64(value) if isinstance(value, int) else ctypes.c_double(value)
        self.keep.append(box)
        handle = LIB.aclCreateScalar(ctypes.byref(box), ACL_DTYPE[torch.int64 if isinstance(value, int) else torch.float64])
        assert handle
        self.scalars.append(handle)
        return ctypes.c_void_p(handle)

    def release(self) -> None:
        for h in self.tensors:
            LIB.aclDestroyTensor(ctypes.c_void_p(h))
        for h in self.scalars:
            LIB.aclDestroyScalar(ctypes.c_void_p(h))


def run(name: str, args: list[Any]) -> None:
    """GetWorkspaceSize + launch on the default stream, then synchronize."""
    torch.npu.synchronize()
    workspace = ctypes.c_uint64(0)
    executor = ctypes.c_void_p(None)
    status = getattr(LIB, f"{name}GetWorkspaceSize")(*args, ctypes.byref(workspace), ctypes.byref(executor))
    assert status == 0, f"{name}GetWorkspaceSize returned {status}: {LIB.aclGetRecentErrMsg()}"
    assert workspace.value == 0
    assert getattr(LIB, name)(None, workspace, executor, None) == 0
    assert LIB.aclrtSynchronizeDevice() == 0


def operand(param_name: str, like: torch.Tensor, seed: int) -> torch.Tensor:
    """A tensor argument other than the updated one, of the view's shape."""
    g = torch.Generator().manual_seed(seed)
    if param_name == "index":  # scatter along dim 1: a valid column per element
        return torch.randint(0, like.shape[1], like.shape, generator=g).to("npu")
    if like.dtype == torch.int32:
        return torch.randint(0, 8, like.shape, generator=g, dtype=torch.int32).to("npu")
    return (torch.rand(like.shape, generator=g) * 0.8 + 0.1).to("npu")  # (0.1, 0.9): in every op's domain


def c_args(op: Op, holder: Args, tensors: dict[str, torch.Tensor], values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for p, value in zip(op.params, values):
        if "aclTensor" in p.ctype:
            out.append(holder.tensor(tensors[value]))
        elif "aclScalar" in p.ctype:
            out.append(holder.scalar(value))
        else:
            out.append(C_TYPES[p.ctype](value))
    return out


def compare_with_out_of_place(name: str, self_value: torch.Tensor, self_view) -> None:
    """Runs the in-place entry on self_view(storage) and the out-of-place one
    on a contiguous copy of the view; both results must be identical."""
    op = INPLACE[name]
    base, fixed = base_of(name)
    first, *rest = op.params
    base_inputs = [p for p in base.params if p.ctype != "aclTensor*" and p.name not in fixed
                   and p.ctype != "aclDataType"]
    assert len(base_inputs) == len(op.params), f"{name}: parameters do not line up with {base.aclnn}"

    storage = self_value.to("npu")
    view = self_view(storage)
    untouched = storage.cpu()
    tensors = {"self": view.clone().contiguous()}
    values: list[Any] = []
    for i, p in enumerate(rest):
        if "aclTensor" in p.ctype:
            tensors[p.name] = operand(p.name, view, seed=i)
            values.append(p.name)
        elif "aclScalar" in p.ctype:
            value = SCALAR_VALUES[p.name]
            values.append(round(value * 10) if view.dtype == torch.int32 else value)
        else:
            values.append(INT_VALUES.get(p.name, 0.0 if p.ctype in ("float", "double") else 0))

    # The out-of-place entry: self (a contiguous copy), the same operands, a fresh out.
    sentinel = -12345
    tensors["out"] = torch.full(view.shape, sentinel, dtype=view.dtype, device="npu")
    base_values: list[Any] = []
    it = iter(["self", *values])
    for p in base.params:
        if p.ctype == "aclTensor*":
            base_values.append("out")
        elif p.name in fixed:
            base_values.append(fixed[p.name])
        elif p.ctype == "aclDataType":
            base_values.append(ACL_DTYPE[view.dtype])
        else:
            base_values.append(next(it))
    holder = Args()
    try:
        run(base.aclnn, c_args(base, holder, tensors, base_values))
        tensors["self"] = view
        run(name, c_args(op, holder, tensors, ["self", *values]))
    finally:
        holder.release()
    expected = tensors["out"].cpu()
    assert (expected != sentinel).any(), f"{base.aclnn} wrote nothing"
    torch.testing.assert_close(view.cpu(), expected, rtol=0, atol=0, equal_nan=True)
    # Outside the view, the storage keeps its values.
    outside = torch.ones_like(untouched, dtype=torch.bool)
    self_view(outside).fill_(False)
    assert torch.equal(storage.cpu()[outside], untouched[outside])


def start_values(name: str, numel: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(1)
    if self_dtype(name) == torch.int32:
        return torch.randint(0, 8, (numel,), generator=g, dtype=torch.int32)
    return torch.rand(numel, generator=g) * 0.8 + 0.1


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_entry_matches_out_of_place(name):
    compare_with_out_of_place(name, start_values(name, SHAPE[0] * SHAPE[1]), lambda s: s.view(SHAPE))


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_entry_updates_a_strided_view_only(name):
    # Every other column of a transposed [12, 4] storage: a [4, 6] view with strides (1, 8).
    compare_with_out_of_place(name, start_values(name, 48), lambda s: s.view(12, 4)[::2].t())


def test_every_inplace_row_runs_its_out_of_place_kernel():
    # The updated tensor comes first, and the row's task maker is its
    # out-of-place op's: one kernel per op, whichever entry launched it.
    for name, op in INPLACE.items():
        base, _ = base_of(name)
        assert op.params[0].kind == "tensor", name
        assert base.entry.split("(")[0] == op.entry.split("(")[0], (name, base.entry, op.entry)


@pytest.mark.parametrize("numel, view", [(24, lambda s: s.view(SHAPE)), (48, lambda s: s.view(12, 4)[::2].t())],
                         ids=["dense", "strided"])
def test_inplace_one_and_masked_fill_tensor_match_cpu(numel, view):
    assert sorted(OWN_ROWS) == ["aclnnInplaceMaskedFillTensor", "aclnnInplaceOne"]
    start = start_values("", numel)
    for name in sorted(OWN_ROWS):
        storage = start.to("npu")
        target = view(storage)
        want_storage = start.clone()
        want = view(want_storage)
        holder = Args()
        try:
            if name == "aclnnInplaceOne":
                want.fill_(1)
                run(name, [holder.tensor(target)])
            else:
                mask = torch.rand(SHAPE[1], generator=torch.Generator().manual_seed(3)) > 0.5  # broadcast over rows
                value = torch.tensor(-2.5)
                want.masked_fill_(mask, value)
                run(name, [holder.tensor(target), holder.tensor(mask.to("npu")), holder.tensor(value.to("npu"))])
        finally:
            holder.release()
        assert torch.equal(storage.cpu(), want_storage), name


# CANN's *Tensor forms of the random fills (a captured graph's form): the
# generator's seed and base offset live in one-element int64 device tensors.
RANDOM_ROWS = {op.aclnn: op for op in load_family(REPO / "ops" / "table" / "random.yaml").ops}
RANDOM_VALUES = {"from": 3, "to": 40, "mean": 0.5, "std": 2.0}
RANDOM_C_TYPES = {**C_TYPES, "uint64_t": ctypes.c_uint64}


def random_args(holder: Args, op: Op, target: torch.Tensor, values: dict[str, Any]) -> list[Any]:
    args: list[Any] = []
    for p in op.params:
        if p.kind == "tensor":
            args.append(holder.tensor(values.get(p.name, target)))
        else:
            value = values.get(p.name, RANDOM_VALUES.get(p.name))
            if p.name in ("from", "to") and p.ctype == "double":
                value = value / 10  # uniform's [0.3, 4.0)
            args.append(RANDOM_C_TYPES[p.ctype](value))
    return args


@pytest.mark.parametrize("name", ["aclnnInplaceUniformTensor", "aclnnInplaceNormalTensor", "aclnnInplaceRandomTensor"])
def test_random_tensor_form_reads_the_generator_state_when_it_runs(name, delay_us):
    """Same numbers as the host form with seed = seedTensor[0] and offset =
    offsetTensor[0] + offset, read when the task runs: the tensors are
    written by launches still queued (delayed) when the entry is called."""
    seed, base, extra = 1234, 64, 8
    eager = RANDOM_ROWS[name.removesuffix("Tensor")]
    expected = torch.zeros(5, 7, device="npu")
    got = torch.zeros(5, 7, device="npu")
    seed_t = torch.zeros(1, dtype=torch.int64, device="npu")
    offset_t = torch.zeros(1, dtype=torch.int64, device="npu")
    holder = Args()
    try:
        run(eager.aclnn, random_args(holder, eager, expected, {"seed": seed, "offset": base + extra}))
        delay_us(20_000)
        seed_t.fill_(seed)
        offset_t.fill_(base)
        workspace, executor = ctypes.c_uint64(0), ctypes.c_void_p(None)
        args = random_args(holder, RANDOM_ROWS[name], got,
                           {"seedTensor": seed_t, "offsetTensor": offset_t, "offset": extra})
        assert getattr(LIB, f"{name}GetWorkspaceSize")(*args, ctypes.byref(workspace), ctypes.byref(executor)) == 0
        stream = ctypes.c_void_p(torch.npu.current_stream().npu_stream)  # the fills' stream
        assert getattr(LIB, name)(None, workspace, executor, stream) == 0
        torch.npu.synchronize()
    finally:
        holder.release()
    assert expected.abs().sum() > 0
    assert torch.equal(got.cpu(), expected.cpu())


def test_random_tensor_form_refuses_a_seed_that_is_not_one_int64():
    name = "aclnnInplaceNormalTensor"
    target = torch.zeros(3, device="npu")
    holder = Args()
    try:
        args = random_args(holder, RANDOM_ROWS[name], target,
                           {"seedTensor": torch.zeros(2, dtype=torch.int64, device="npu"),
                            "offsetTensor": torch.zeros(1, dtype=torch.int64, device="npu"), "offset": 0})
        workspace, executor = ctypes.c_uint64(0), ctypes.c_void_p(None)
        status = getattr(LIB, f"{name}GetWorkspaceSize")(*args, ctypes.byref(workspace), ctypes.byref(executor))
    finally:
        holder.release()
    assert status != 0
    assert "seedTensor must be a one-element int64 tensor" in LIB.aclGetRecentErrMsg().decode()
