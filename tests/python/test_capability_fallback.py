"""Capability-based fallback: whether an op runs natively is decided before
anything is launched, from what its aclnn entry supports (dtypes) and whether
the loaded ACL library has it (symbols); the rest runs through the one boxed
CPU fallback (dispatch/fallback/fallback_call.h), which returns multi-output
results as tuples and mutated arguments as the caller's own tensors. A launch
that falls back is never counted as native.

Ops used: atan2 with uint16 operands (its entry computes in the real pointwise
dtypes, uint16 is not one, CPU has it), and, under NPU=acl, the reduced
stand-in vendor library set (tests/vendor_standin/CMakeLists.txt,
STANDIN_OMITTED_OPS) whose libopapi.so lacks aclnnAtan2, aclnnMaximum,
aclnnSort and aclnnTopk; aclnnMinimum is present there."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

import npu_emu
from conftest import REPO
from npu_subprocess import run_python

REDUCED_STANDIN = Path(os.environ.get("NPU_EMU_BUILD_DIR", REPO / "build")) / "vendor_standin_reduced"


@pytest.fixture(autouse=True)
def _allow_and_reset_counters(fallback_mode):
    fallback_mode("allow")
    npu_emu._C._reset_op_counters()


def uint16_operands() -> tuple[torch.Tensor, torch.Tensor]:
    a = torch.tensor([[0, 1, 7], [300, 65535, 2]], dtype=torch.uint16)
    b = torch.tensor([[1, 0, 7], [2, 9, 40000]], dtype=torch.uint16)
    return a, b


# ---- emulator: a dtype the entry lacks -----------------------------------------


def test_dtype_the_entry_lacks_runs_on_cpu_and_is_not_counted_native():
    a, b = uint16_operands()
    result = torch.atan2(a.npu(), b.npu())
    assert result.device.type == "npu"
    torch.testing.assert_close(result.cpu(), torch.atan2(a, b), rtol=0, atol=0)
    assert "aclnnAtan2" not in npu_emu._C._native_counts()
    assert npu_emu._C._fallback_counts().get("aten::atan2") == 1


def test_out_form_returns_the_given_out_tensor_written():
    a, b = uint16_operands()
    out = torch.full((2, 3), 5.0).npu()
    returned = torch.atan2(a.npu(), b.npu(), out=out)
    assert returned is out
    torch.testing.assert_close(out.cpu(), torch.atan2(a, b), rtol=0, atol=0)
    assert "aclnnAtan2" not in npu_emu._C._native_counts()
    assert npu_emu._C._fallback_counts().get("aten::atan2.out") == 1


def test_supported_dtypes_still_run_natively():
    a, b = uint16_operands()
    for dtype in (torch.int32, torch.float32, torch.bool):
        torch.testing.assert_close(torch.atan2(a.to(dtype).npu(), b.to(dtype).npu()).cpu(),
                                   torch.atan2(a.to(dtype), b.to(dtype)), rtol=0, atol=0)
    assert npu_emu._C._native_counts().get("aclnnAtan2") == 3
    assert npu_emu._C._fallback_counts() == {}


@pytest.mark.parametrize("op, aclnn", [
    (torch.exp, "aclnnExp"),
    (lambda z: z * z, "aclnnMul"),
    (lambda z: torch.pow(z, z), "aclnnPowTensorTensor"),
])
def test_entry_refusing_a_dtype_is_not_counted_as_a_native_launch(op, aclnn):
    # Ops not yet described by a capability still learn of the gap from the
    # entry; the refused launch must not count as native.
    z = torch.tensor([1 + 2j, -0.5 + 0.25j, 3 - 1j], dtype=torch.complex128)
    torch.testing.assert_close(op(z.npu()).cpu(), op(z), rtol=0, atol=0)
    assert aclnn not in npu_emu._C._native_counts()
    assert sum(npu_emu._C._fallback_counts().values()) == 1


def test_error_mode_names_schema_op_dtype_and_supported_dtypes(fallback_mode):
    fallback_mode("error")
    a, b = uint16_operands()
    with pytest.raises(NotImplementedError) as functional:
        torch.atan2(a.npu(), b.npu())
    message = str(functional.value).splitlines()[0]
    assert message.startswith("atan2 cannot run natively on npu: aclnnAtan2 does not support dtype uint16 (supported: ")
    supported = message.split("(supported: ")[1].split(")")[0].split(", ")
    assert "uint16" not in supported and {"bool", "int64", "float16", "bfloat16", "float32"} <= set(supported)
    assert "NPU_EMU_FALLBACK=error" in message
    with pytest.raises(NotImplementedError, match=r"^atan2\.out cannot run natively on npu: aclnnAtan2 does not "):
        torch.atan2(a.npu(), b.npu(), out=torch.empty(2, 3).npu())
    assert npu_emu._C._fallback_counts() == {} and npu_emu._C._native_counts() == {}


# ---- hand-written impls (factories, fills) decide from the table too ---------------


def test_range_factory_dtype_the_entry_lacks_runs_on_cpu_and_is_not_counted_native():
    for dtype in (torch.complex64, torch.complex128):
        result = torch.linspace(-1 + 2j, 3 - 1j, 7, dtype=dtype, device="npu")
        assert result.device.type == "npu"
        torch.testing.assert_close(result.cpu(), torch.linspace(-1 + 2j, 3 - 1j, 7, dtype=dtype), rtol=0, atol=0)
    assert "aclnnLinspace" not in npu_emu._C._native_counts()
    assert npu_emu._C._fallback_counts().get("aten::linspace.out") == 2
    torch.testing.assert_close(torch.linspace(0, 1, 5, device="npu").cpu(), torch.linspace(0, 1, 5), rtol=0, atol=0)
    assert npu_emu._C._native_counts().get("aclnnLinspace") == 1


@pytest.mark.parametrize("schema, aclnn, call", [
    ("linspace.out", "aclnnLinspace", lambda: torch.linspace(0, 1, 5, dtype=torch.complex64, device="npu")),
    ("arange.start_out", "aclnnArange", lambda: torch.arange(5, dtype=torch.complex64, device="npu")),
    ("arange.start_out", "aclnnArange", lambda: torch.arange(5, dtype=torch.bool, device="npu")),
])
def test_error_mode_names_the_factory_schema_op_and_dtype(fallback_mode, schema, aclnn, call):
    assert_refused_before_launch(fallback_mode, call, f"{schema} cannot run natively on npu: {aclnn} does not "
                                 "support dtype ")


def assert_refused_before_launch(fallback_mode, call, message_start: str) -> None:
    """Under NPU_EMU_FALLBACK=error, `call()` raises one error starting with
    `message_start`, having neither launched nor fallen back."""
    fallback_mode("error")
    with pytest.raises(NotImplementedError) as info:
        call()
    assert str(info.value).startswith(message_start)
    assert npu_emu._C._fallback_counts() == {} and npu_emu._C._native_counts() == {}


def ints(*shape: int, start: int = 1) -> torch.Tensor:
    """An int64 npu tensor: no pooling, padding-backward or loss-backward entry computes in int64."""
    return torch.arange(start, start + torch.Size(shape).numel()).reshape(shape).npu()


A = torch.ops.aten


# One hand-written body serves several schemas (ops/table rows whose `impl:` is a call
# with the schema's name): each form decides and falls back under its own schema.
@pytest.mark.parametrize("schema, aclnn, call", [
    ("_adaptive_avg_pool3d", "aclnnAdaptiveAvgPool3d", lambda: A._adaptive_avg_pool3d(ints(2, 3, 4, 4, 4), [2, 2, 2])),
    ("adaptive_avg_pool3d.out", "aclnnAdaptiveAvgPool3d",
     lambda: A.adaptive_avg_pool3d.out(ints(2, 3, 4, 4, 4), [2, 2, 2], out=ints(0))),
    ("_adaptive_avg_pool3d_backward", "aclnnAdaptiveAvgPool3dBackward",
     lambda: A._adaptive_avg_pool3d_backward(ints(2, 3, 2, 2, 2), ints(2, 3, 4, 4, 4))),
    ("adaptive_avg_pool3d_backward.grad_input", "aclnnAdaptiveAvgPool3dBackward",
     lambda: A.adaptive_avg_pool3d_backward.grad_input(ints(2, 3, 2, 2, 2), ints(2, 3, 4, 4, 4), grad_input=ints(0))),
    ("_adaptive_avg_pool2d", "aclnnAdaptiveAvgPool2d", lambda: A._adaptive_avg_pool2d(ints(2, 3, 4, 4), [2, 2])),
    ("max_unpool3d", "aclnnMaxUnpool3d",
     lambda: A.max_unpool3d(ints(1, 2, 2, 2), ints(1, 2, 2, 2, start=0), [4, 4, 4], [2, 2, 2], [0, 0, 0])),
    ("max_unpool2d.out", "aclnnMaxUnpool2d",
     lambda: A.max_unpool2d.out(ints(1, 2, 2), ints(1, 2, 2, start=0), [4, 4], out=ints(0))),
    ("replication_pad3d_backward", "aclnnReplicationPad3dBackward",
     lambda: A.replication_pad3d_backward(ints(1, 4, 4, 4), ints(1, 2, 2, 2), [1, 1, 1, 1, 1, 1])),
    ("reflection_pad2d_backward.grad_input", "aclnnReflectionPad2dBackward",
     lambda: A.reflection_pad2d_backward.grad_input(ints(1, 5, 5), ints(1, 3, 3), [1, 1, 1, 1], grad_input=ints(0))),
    ("mse_loss_backward", "aclnnMseLossBackward", lambda: A.mse_loss_backward(ints(3), ints(3), ints(3), 0)),
    ("huber_loss_backward.out", "aclnnHuberLossBackward",
     lambda: A.huber_loss_backward.out(ints(3), ints(3), ints(3), 0, 1.0, grad_input=ints(0))),
])
def test_error_mode_names_the_schema_a_shared_body_serves(fallback_mode, schema, aclnn, call):
    assert_refused_before_launch(fallback_mode, call, f"{schema} cannot run natively on npu: {aclnn} does not "
                                 "support dtype int64")


def test_fill_with_a_device_value_reads_it_on_the_device():
    """fill_(value) with a 0-dim npu value is one aclnnInplaceFillTensor (the
    value is not read back to the host first), also when the value is an
    element of self, as on CPU."""
    x = torch.arange(12.0).reshape(3, 4)
    dev = x.npu()
    value = torch.tensor(-2.5).npu()
    npu_emu._C._reset_op_counters()
    dev.fill_(value)
    assert npu_emu._C._native_counts() == {"aclnnInplaceFillTensor": 1}
    assert torch.equal(dev.cpu(), torch.full((3, 4), -2.5))
    dev = x.npu().to(torch.int32)
    dev[1:].fill_(dev[0, 3])
    expected = x.to(torch.int32)
    expected[1:].fill_(expected[0, 3])
    assert torch.equal(dev.cpu(), expected)


# ---- NPU=acl: an op the ACL library lacks --------------------------------------

_MISSING_OPS_SCRIPT = r"""
import json, torch, npu_emu
x = torch.tensor([[3., 1., 2., 1.], [0., 5., -1., 5.]])
y = torch.tensor([[1., -2., 2., 0.5], [4., 5., 0., -3.]])
same = lambda npu, cpu: bool(torch.equal(npu.cpu(), cpu))
r = {}

values, indices = torch.sort(x.npu(), dim=1, stable=True)
cv, ci = torch.sort(x, dim=1, stable=True)
r["sort"] = same(values, cv) and same(indices, ci) and values.device.type == "npu"
vo, io = torch.empty(0).npu(), torch.empty(0, dtype=torch.long).npu()
ret = torch.sort(x.npu(), dim=1, descending=True, stable=True, out=(vo, io))
cv, ci = torch.sort(x, dim=1, descending=True, stable=True)
r["sort_out_identity"] = ret[0] is vo and ret[1] is io
r["sort_out_values"] = same(vo, cv) and same(io, ci)

values, indices = torch.topk(x.npu(), 2, dim=1)
cv, ci = torch.topk(x, 2, dim=1)
r["topk"] = same(values, cv) and same(indices, ci)
vo, io = torch.empty(0).npu(), torch.empty(0, dtype=torch.long).npu()
ret = torch.topk(x.npu(), 3, dim=1, largest=False, out=(vo, io))
cv, ci = torch.topk(x, 3, dim=1, largest=False)
r["topk_out_identity"] = ret[0] is vo and ret[1] is io
r["topk_out_values"] = same(vo, cv) and same(io, ci)

base = x.clone().npu()
view = base[:, 1:3]
ret = view.atan2_(y[:, 1:3].npu())
expected = x.clone(); expected[:, 1:3].atan2_(y[:, 1:3])
r["atan2_inplace_identity"] = ret is view and view.data_ptr() == base.data_ptr() + base.element_size()
r["atan2_inplace_values"] = same(base, expected)
out = torch.empty(0).npu()
ret = torch.atan2(x.npu(), y.npu(), out=out)
r["atan2_out"] = ret is out and same(out, torch.atan2(x, y))
r["maximum"] = same(torch.maximum(x.npu(), y.npu()), torch.maximum(x, y))
out = torch.empty(2, 4).npu()
r["maximum_out"] = torch.maximum(x.npu(), y.npu(), out=out) is out and same(out, torch.maximum(x, y))
r["minimum"] = same(torch.minimum(x.npu(), y.npu()), torch.minimum(x, y))
r["native"] = npu_emu._C._native_counts()
r["fallback"] = npu_emu._C._fallback_counts()
r["has_op"] = {op: npu_emu._C._driver_has_op(op) for op in ("aclnnAtan2", "aclnnMaximum", "aclnnSort", "aclnnTopk", "aclnnMinimum")}
print(json.dumps(r))
"""

def _error_mode_script(calls: str) -> str:
    """A script running `calls` (name, lambda pairs over a 2x2 npu tensor x)
    and printing, per call, the first line of its NotImplementedError (None
    when it ran), then the fallback counts."""
    return r"""
import json, torch, npu_emu
x = torch.tensor([[3., 1.], [0., 5.]]).npu()
r = {}
for name, call in [""" + calls + r"""]:
    try:
        call()
        r[name] = None
    except NotImplementedError as e:
        r[name] = str(e).splitlines()[0]
r["fallback"] = npu_emu._C._fallback_counts()
print(json.dumps(r))
"""


_ERROR_MODE_SCRIPT = _error_mode_script("""("atan2", lambda: torch.atan2(x, x)), ("atan2_", lambda: x.clone().atan2_(x)),
                   ("sort.values_stable", lambda: torch.sort(x, out=(torch.empty(0).npu(), torch.empty(0, dtype=torch.long).npu()))),
                   ("topk", lambda: torch.topk(x, 1)), ("maximum", lambda: torch.maximum(x, x))""")


def run_on_reduced_standin(script: str, fallback: str) -> dict:
    if not (REDUCED_STANDIN / "lib64" / "libopapi.so").exists():
        pytest.fail(f"the reduced stand-in vendor libraries were not built at {REDUCED_STANDIN}")
    proc = run_python(script, {"NPU": "acl", "ASCEND_HOME_PATH": str(REDUCED_STANDIN),
                               "NPU_EMU_FALLBACK": fallback})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def missing_ops_run() -> dict:
    return run_on_reduced_standin(_MISSING_OPS_SCRIPT, "allow")


def test_driver_reports_which_ops_the_acl_library_has(missing_ops_run):
    assert missing_ops_run["has_op"] == {"aclnnAtan2": False, "aclnnMaximum": False, "aclnnSort": False,
                                         "aclnnTopk": False, "aclnnMinimum": True}


def test_multi_output_op_missing_from_acl_library_falls_back(missing_ops_run):
    assert missing_ops_run["sort"] and missing_ops_run["topk"]
    # out=: the given tensors are returned, written.
    assert missing_ops_run["sort_out_identity"] and missing_ops_run["sort_out_values"]
    assert missing_ops_run["topk_out_identity"] and missing_ops_run["topk_out_values"]


def test_mutating_op_missing_from_acl_library_falls_back(missing_ops_run):
    assert missing_ops_run["atan2_inplace_identity"] and missing_ops_run["atan2_inplace_values"]
    assert missing_ops_run["atan2_out"] and missing_ops_run["maximum"] and missing_ops_run["maximum_out"]


def test_missing_ops_are_counted_as_fallbacks_only(missing_ops_run):
    native, fallback = missing_ops_run["native"], missing_ops_run["fallback"]
    assert not {"aclnnAtan2", "aclnnMaximum", "aclnnSort", "aclnnTopk"} & set(native)
    assert native.get("aclnnMinimum") == 1  # present in the library: still native
    assert fallback == {"aten::sort.stable": 1, "aten::sort.values_stable": 1, "aten::topk": 1,
                        "aten::topk.values": 1, "aten::atan2_": 1, "aten::atan2.out": 1, "aten::maximum": 1,
                        "aten::maximum.out": 1}


def test_missing_op_under_error_mode_is_one_clear_error_naming_the_symbol():
    r = run_on_reduced_standin(_ERROR_MODE_SCRIPT, "error")
    for schema, symbol in [("atan2", "aclnnAtan2"), ("atan2_", "aclnnAtan2"), ("sort.values_stable", "aclnnSort"),
                           ("topk", "aclnnTopk"), ("maximum", "aclnnMaximum")]:
        assert r[schema] is not None, f"{schema} did not raise"
        assert r[schema].startswith(f"{schema} cannot run natively on npu: the ACL library has no symbol {symbol} "
                                    "(NPU=acl, loaded: "), r[schema]
        assert "NPU_EMU_FALLBACK=error forbids the CPU fallback" in r[schema]
    assert r["fallback"] == {}


# ---- fallback_call's other return types ------------------------------------------


def test_fallback_call_returns_lists_nothing_and_scalars():
    x = torch.tensor([[1.5, -2.0], [3.0, 0.25]])
    y = torch.tensor([[0.5, 4.0], [-1.0, 2.0]])
    sums, scaled, equal, first, joined = npu_emu._C._test_fallback_call_returns(x.npu(), y.npu())
    expected_sums = torch._foreach_add([x, y], [y, x], alpha=2)
    assert [t.device.type for t in sums + scaled] == ["npu"] * 4
    for got, want in zip(sums, expected_sums):
        torch.testing.assert_close(got.cpu(), want, rtol=0, atol=0)
    # The in-place list op (no return value) wrote the npu tensors it was given.
    for got, want in zip(scaled, [x * y, y * x]):
        torch.testing.assert_close(got.cpu(), want, rtol=0, atol=0)
    assert equal is False and first == x[0, 0].item()
    torch.testing.assert_close(joined.cpu(), torch.cat([x * y, y * x]), rtol=0, atol=0)
    assert npu_emu._C._fallback_counts() == {"aten::_foreach_add.List": 1, "aten::_foreach_mul_.List": 1,
                                             "aten::equal": 1, "aten::_local_scalar_dense": 1, "aten::cat": 1}
    assert npu_emu._C._test_fallback_call_returns(y.npu(), y.npu())[2] is True


# ---- NPU=acl: hand-written and generated indexing kernels decide before launching ----------------

# The reduced stand-in also lacks aclnnIndexSelect and aclnnMaskedSelect
# (served by hand-written kernels, one with a data-dependent result) and
# aclnnScatterAdd (generated from scatter_add's meta function); aclnnGather is
# present.
_MISSING_INDEX_OPS_SCRIPT = r"""
import json, torch, npu_emu
x = torch.tensor([[3., 1., 2., 1.], [0., 5., -1., 5.]])
idx = torch.tensor([2, 0, 2])
mask = x > 1
index = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]])
src = torch.tensor([[1., 2., 3., 4.], [5., 6., 7., 8.]])
same = lambda npu, cpu: bool(torch.equal(npu.cpu(), cpu))
r = {}
r["index_select"] = same(x.npu().index_select(1, idx.npu()), x.index_select(1, idx))
out = torch.empty(0).npu()
rows = torch.tensor([1, 0, 1])
ret = torch.index_select(x.npu(), 0, rows.npu(), out=out)
r["index_select_out"] = ret is out and same(out, torch.index_select(x, 0, rows))
r["masked_select"] = same(torch.masked_select(x.npu(), mask.npu()), torch.masked_select(x, mask))
base = x.clone().npu()
view = base[:, 1:]
ret = view.scatter_add_(0, index[:, 1:].npu(), src[:, 1:].npu())
expected = x.clone(); expected[:, 1:].scatter_add_(0, index[:, 1:], src[:, 1:])
r["scatter_add_"] = ret is view and same(base, expected)
r["gather"] = same(torch.gather(x.npu(), 1, index.npu()), torch.gather(x, 1, index))
r["native"] = npu_emu._C._native_counts()
r["fallback"] = npu_emu._C._fallback_counts()
print(json.dumps(r))
"""

_INDEX_ERROR_MODE_SCRIPT = _error_mode_script("""("index_select", lambda: x.index_select(0, torch.tensor([1]).npu())),
                   ("masked_select", lambda: torch.masked_select(x, x > 1)),
                   ("scatter_add", lambda: torch.scatter_add(x, 0, torch.tensor([[1, 0]]).npu(), x))""")


def test_indexing_ops_missing_from_acl_library_fall_back_before_launching():
    r = run_on_reduced_standin(_MISSING_INDEX_OPS_SCRIPT, "allow")
    assert r["index_select"] and r["index_select_out"] and r["masked_select"] and r["scatter_add_"] and r["gather"]
    assert not {"aclnnIndexSelect", "aclnnMaskedSelect", "aclnnScatterAdd"} & set(r["native"])
    assert r["native"].get("aclnnGather") == 1
    assert r["fallback"] == {"aten::index_select": 1, "aten::index_select.out": 1, "aten::masked_select": 1,
                             "aten::scatter_add_": 1}


def test_indexing_op_missing_under_error_mode_names_the_symbol():
    r = run_on_reduced_standin(_INDEX_ERROR_MODE_SCRIPT, "error")
    for schema, symbol in [("index_select", "aclnnIndexSelect"), ("masked_select", "aclnnMaskedSelect"),
                           ("scatter_add", "aclnnScatterAdd")]:
        assert r[schema] is not None, f"{schema} did not raise"
        assert r[schema].startswith(f"{schema} cannot run natively on npu: the ACL library has no symbol {symbol} "), \
            r[schema]
    assert r["fallback"] == {}
