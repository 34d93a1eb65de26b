"""The op table generator (ops/gen): a malformed row is a clear build error
naming the file, the op and what is allowed; a good table generates exactly
what it describes, and the built backend serves what the table lists."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from conftest import REPO

sys.path.insert(0, str(REPO))
from ops.gen import emit_acl  # noqa: E402
from ops.gen.table import TableError, load_family, load_table  # noqa: E402

GOOD_ROW = """
  - aclnn: aclnnFrob
    params: const aclTensor* self, const aclScalar* other, aclTensor* out
    doc: out = frob(self, other)
    entry: frob_task(self, other, out)
    dtypes: [floating, int32]
    aten: [add.Tensor]
"""


def write_family(tmp_path: Path, rows: str, name: str = "frob", extra: str = "") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"doc: test family\nemulator: emulator/ops/frob.h\n{extra}ops:\n" + textwrap.dedent(rows))
    return path


def error_of(tmp_path: Path, rows: str) -> str:
    with pytest.raises(TableError) as info:
        load_family(write_family(tmp_path, rows))
    return str(info.value)


def test_good_row_generates_declaration_entry_and_symbol(tmp_path):
    fam = load_family(write_family(tmp_path, GOOD_ROW))
    op = fam.ops[0]
    assert [p.name for p in op.inputs] == ["self"] and [p.name for p in op.outputs] == ["out"]
    assert op.dtypes == ["float16", "bfloat16", "float32", "float64", "int32"]
    header = emit_acl.acl_header(fam)
    assert ("aclnnFrobGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out, "
            "uint64_t* workspaceSize, aclOpExecutor** executor);") in header
    assert "ACLNN_LAUNCH_SIGNATURE(aclnnFrob);" in header
    entries = emit_acl.emulator_entries(fam)
    assert "return frob_task(self, other, out);" in entries
    assert '#include "emulator/ops/frob.h"' in entries
    assert "X(aclnnFrob)" in emit_acl.driver_op_list([fam])


@pytest.mark.parametrize("params, expected", [
    ("const aclTensor* self, aclTensr* out", "type 'aclTensr*'"),
    ("const aclTensor* self, aclTensor*", "cannot read parameter"),
    ("const aclTensor* self, const aclTensor* self, aclTensor* out", "repeat"),
    ("const aclTensor* self, aclTensor* out, uint64_t* workspaceSize", "type 'uint64_t*'"),
])
def test_bad_signature_is_a_clear_error(tmp_path, params, expected):
    msg = error_of(tmp_path, GOOD_ROW.replace("const aclTensor* self, const aclScalar* other, aclTensor* out", params))
    assert expected in msg and "aclnnFrob" in msg and "frob.yaml" in msg


def test_unknown_dtype_is_a_clear_error(tmp_path):
    msg = error_of(tmp_path, GOOD_ROW.replace("[floating, int32]", "[floating, float8]"))
    assert "unknown dtype 'float8'" in msg and "aclnnFrob" in msg and "float32" in msg


def test_unknown_key_and_missing_key_are_clear_errors(tmp_path):
    assert "unknown key 'dtype'" in error_of(tmp_path, GOOD_ROW.replace("dtypes:", "dtype:"))
    assert "missing 'entry'" in error_of(tmp_path, GOOD_ROW.replace("    entry: frob_task(self, other, out)\n", ""))


def test_hand_written_impl_must_say_why_it_has_no_meta(tmp_path):
    msg = error_of(tmp_path, GOOD_ROW.replace("aten: [add.Tensor]", "aten: [{add.Tensor: {impl: frob}}]"))
    assert "meta:" in msg


def test_op_described_twice_is_an_error(tmp_path):
    a = write_family(tmp_path, GOOD_ROW, "a")
    b = write_family(tmp_path, GOOD_ROW, "b")
    with pytest.raises(TableError, match="aclnnFrob is described twice"):
        load_table([a, b])


def test_generator_command_fails_the_build_with_the_message(tmp_path):
    write_family(tmp_path, GOOD_ROW.replace("[floating, int32]", "[floatt]"))
    result = subprocess.run([sys.executable, "-m", "ops.gen", "--table-dir", str(tmp_path), "--out-dir",
                             str(tmp_path / "out"), "--part", "acl"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode != 0
    assert "op table error" in result.stderr and "unknown dtype 'floatt'" in result.stderr


def test_dispatch_mapping_errors_name_the_parameter(tmp_path):
    from ops.gen import emit_dispatch

    aten = emit_dispatch.Aten()
    fam = load_family(write_family(tmp_path, GOOD_ROW.replace("const aclScalar* other", "const aclScalar* gamma")))
    with pytest.raises(TableError, match="parameter 'gamma' has no argument of that name in add.Tensor"):
        emit_dispatch.registrations(aten, fam)
    fam = load_family(write_family(tmp_path, GOOD_ROW.replace("[add.Tensor]", "[add.Tensro]")))
    with pytest.raises(TableError, match="'add.Tensro' is not an aten schema"):
        emit_dispatch.registrations(aten, fam)


def test_const_value_parameters_keep_cann_spelling(tmp_path):
    """CANN declares some value parameters const (aclnnGather's dim,
    aclnnIndexPutImpl's flags): the generated declaration keeps them so."""
    fam = load_family(write_family(tmp_path, GOOD_ROW.replace(
        "const aclScalar* other, aclTensor* out", "const int64_t dim, const bool flag, aclTensor* out")))
    assert [p.kind for p in fam.ops[0].params] == ["tensor", "value", "value", "tensor"]
    assert "aclnnFrobGetWorkspaceSize(const aclTensor* self, const int64_t dim, const bool flag, aclTensor* out," \
        in emit_acl.acl_header(fam)


def test_map_naming_no_parameter_is_a_clear_error(tmp_path):
    # An unquoted flow mapping splits `f(a, b)` at the comma into two keys.
    rows = GOOD_ROW.replace("aten: [add.Tensor]", "aten: [{add.Tensor: {map: {other: f(other, self)}}}]")
    msg = error_of(tmp_path, rows)
    assert "map names 'self)'" in msg and "aclnnFrob" in msg and "quote" in msg
    quoted = rows.replace("f(other, self)", '"f(other, self)"')
    assert load_family(write_family(tmp_path, quoted)).ops[0].aten[0].map == {"other": "f(other, self)"}


def test_dispatch_include_reaches_the_generated_registrations(tmp_path):
    from ops.gen import emit_dispatch

    fam = load_family(write_family(tmp_path, GOOD_ROW, extra="dispatch_include: dispatch/ops/frob_args.h\n"))
    code = emit_dispatch.registrations(emit_dispatch.Aten(), fam)
    assert '#include "dispatch/ops/frob_args.h"' in code
    with pytest.raises(TableError, match="dispatch_include must name a header under dispatch/"):
        load_family(write_family(tmp_path, GOOD_ROW, extra="dispatch_include: frob_args.cpp\n"))


def test_every_table_op_is_in_the_built_driver_and_registered():
    """What the table lists is what the build serves: every aten schema it
    names has an npu kernel, and the native list ships with the package."""
    import npu_emu

    native = json.loads((Path(npu_emu.__file__).parent / "native_ops.json").read_text())
    families = load_table(sorted((REPO / "ops" / "table").glob("*.yaml")))
    schemas = {u.schema for f in families for op in f.ops for u in op.aten}
    assert schemas and schemas <= set(native)
    for schema in schemas:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{schema}", "PrivateUse1"), schema


def test_optional_arguments_reach_the_meta_function_as_optional_refs(tmp_path):
    """clamp's meta() takes OptionalScalarRef/OptionalTensorRef where the
    dispatcher passes std::optional: the wrapper converts them (an absent or
    undefined bound is an empty ref); the launch gets them as they are."""
    from ops.gen import emit_dispatch

    rows = """
      - aclnn: aclnnFrob
        params: const aclTensor* self, const aclScalar* lo, const aclScalar* hi, aclTensor* out
        doc: out = frob(self, lo, hi)
        entry: frob_task(self, lo, hi, out)
        dtypes: [floating]
        aten: [clamp.out: {map: {lo: min, hi: max}}]
      - aclnn: aclnnFrobT
        params: const aclTensor* self, const aclTensor* lo, aclTensor* out
        doc: out = frob(self, lo)
        entry: frob_task(self, lo, out)
        dtypes: [floating]
        aten: [clamp_.Tensor: {map: {lo: "*min"}}]
    """
    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, rows)))
    assert ("op.meta(self, (min.has_value() ? at::OptionalScalarRef(&(min.value())) : at::OptionalScalarRef()), "
            "(max.has_value() ? at::OptionalScalarRef(&(max.value())) : at::OptionalScalarRef()));") in code
    assert ("((min.has_value() && (*min).defined()) ? at::OptionalTensorRef(*min) : at::OptionalTensorRef())"
            in code)
    assert "min, max, out);" in code
    assert "const at::Tensor map_lo = *min;" in code and "(map_lo, device, compute), self);" in code


def test_inplace_op_const_self_is_staged_as_written(tmp_path):
    """CANN's aclnnInplace* ops declare the tensor they write `const aclTensor*`:
    the generated entry stages it as an output (its scratch is laid back into
    its private storage) while keeping CANN's exact signature."""
    rows = """
  - aclnn: aclnnInplaceFrob
    params: const aclTensor* selfRef, const aclTensor* other, double p
    doc: selfRef = frob(selfRef, other, p)
    entry: frob_task(selfRef, other, p)
    dtypes: [floating]
  - aclnn: aclnnFrobRead
    params: const aclTensor* self, aclTensor* out
    doc: out = frob(self)
    entry: frob_task(self, out)
    dtypes: [floating]
"""
    fam = load_family(write_family(tmp_path, rows))
    assert "aclnnInplaceFrobGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other, double p," \
        in emit_acl.acl_header(fam)
    entries = emit_acl.emulator_entries(fam)
    # Read and written: its scratch is filled from private storage first.
    assert ('FormatArgs{TensorOut{const_cast<aclTensor*>(selfRef), "selfRef", false, true}, '
            'TensorIn{other, "other", false}}') in entries
    # The task maker receives it writable, to pass it as its output.
    assert "[&](aclTensor* selfRef, const aclTensor* other)" in entries
    # Only an aclnnInplace* op's first tensor: a const self elsewhere is read.
    assert 'FormatArgs{TensorIn{self, "self", false}, TensorOut{out, "out", false}}' in entries


def test_non_const_self_ref_is_filled_before_a_partial_write(tmp_path):
    """A non-const selfRef (aclnnInplaceMaskedFillScalar, aclnnIndexPutImpl)
    is updated in place: the elements the op leaves alone keep their values,
    so its private-format scratch is filled first (read and written)."""
    rows = """
  - aclnn: aclnnInplaceMaskedFrob
    params: aclTensor* selfRef, const aclTensor* mask
    doc: selfRef[mask] = frob
    entry: frob_task(selfRef, mask)
    dtypes: [floating]
"""
    entries = emit_acl.emulator_entries(load_family(write_family(tmp_path, rows)))
    assert 'FormatArgs{TensorOut{selfRef, "selfRef", false, true}, TensorIn{mask, "mask", false}}' in entries


def test_inplace_ops_first_tensor_is_read_and_written_whatever_its_name(tmp_path):
    """Some aclnnInplace* ops declare the tensor they update `aclTensor* self`
    (aclnnInplaceSqrt): read and written like a selfRef; a non-const tensor of
    another op is only written."""
    rows = """
  - aclnn: aclnnInplaceFrob
    params: aclTensor* self
    doc: self = frob(self)
    entry: frob_task(self, self)
    dtypes: [floating]
  - aclnn: aclnnFrob
    params: const aclTensor* self, aclTensor* out
    doc: out = frob(self)
    entry: frob_task(self, out)
    dtypes: [floating]
"""
    entries = emit_acl.emulator_entries(load_family(write_family(tmp_path, rows)))
    assert 'FormatArgs{TensorOut{self, "self", false, true}}' in entries
    assert 'FormatArgs{TensorIn{self, "self", false}, TensorOut{out, "out", false}}' in entries


def test_const_outputs_named_in_writes_are_staged_as_written(tmp_path):
    """Some CANN ops declare their outputs `const aclTensor*` (aclnnRmsNorm's
    yOut, rstdOut): the row's `writes:` keeps CANN's signature and stages them
    as outputs; naming a parameter that is not a const tensor is an error."""
    rows = """
  - aclnn: aclnnFrobNorm
    params: const aclTensor* x, double eps, const aclTensor* yOut, const aclTensor* gradOut
    doc: yOut = frob(x, eps)
    entry: frob_task(x, eps, yOut)
    dtypes: [floating]
    writes: [yOut]
"""
    fam = load_family(write_family(tmp_path, rows))
    assert "aclnnFrobNormGetWorkspaceSize(const aclTensor* x, double eps, const aclTensor* yOut," \
        in emit_acl.acl_header(fam)
    assert [p.name for p in fam.ops[0].outputs] == ["yOut"]
    entries = emit_acl.emulator_entries(fam)
    assert ('FormatArgs{TensorIn{x, "x", false}, TensorOut{const_cast<aclTensor*>(yOut), "yOut", false}, '
            'TensorIn{gradOut, "gradOut", false}}') in entries
    assert "writes names 'eps'" in error_of(tmp_path, rows.replace("writes: [yOut]", "writes: [eps]"))


def test_non_const_inputs_named_in_reads_are_staged_as_read(tmp_path):
    """Some CANN ops declare an input `aclTensor*` (aclnnInplaceAtan2's
    other): the row's `reads:` keeps CANN's signature and stages it as an
    input the task maker receives const; naming a parameter that is not a
    non-const tensor is an error."""
    rows = """
  - aclnn: aclnnInplaceFrob2
    params: aclTensor* selfRef, aclTensor* other
    doc: selfRef = frob2(selfRef, other)
    entry: frob2_task(selfRef, other, selfRef)
    dtypes: [floating]
    reads: [other]
"""
    fam = load_family(write_family(tmp_path, rows))
    assert "aclnnInplaceFrob2GetWorkspaceSize(aclTensor* selfRef, aclTensor* other," in emit_acl.acl_header(fam)
    assert [p.name for p in fam.ops[0].outputs] == ["selfRef"]
    entries = emit_acl.emulator_entries(fam)
    assert 'FormatArgs{TensorOut{selfRef, "selfRef", false, true}, TensorIn{other, "other", false}}' in entries
    assert "[&](aclTensor* selfRef, const aclTensor* other)" in entries
    assert "reads names 'selfRefX'" in error_of(tmp_path, rows.replace("reads: [other]", "reads: [selfRefX]"))


def test_family_functions_are_declared_and_checked(tmp_path):
    extra = """functions:
  - name: aclnnFrobCalculateSize
    params: const aclTensor* src, const int dstFormat, int64_t** dstShape, uint64_t* dstShapeSize
    doc: the storage shape a frob would have
"""
    fam = load_family(write_family(tmp_path, GOOD_ROW, extra=extra))
    assert ("ACL_FUNC_VISIBILITY aclnnStatus aclnnFrobCalculateSize(const aclTensor* src, const int dstFormat, "
            "int64_t** dstShape, uint64_t* dstShapeSize);") in emit_acl.acl_header(fam)
    # Not an op pair: no entry, no driver symbol.
    assert "aclnnFrobCalculateSize" not in emit_acl.emulator_entries(fam)
    assert "aclnnFrobCalculateSize" not in emit_acl.driver_op_list([fam])
    with pytest.raises(TableError, match="functions\\[0\\].*parameter 'dstShape' has type 'int64_t\\*\\*\\*'"):
        load_family(write_family(tmp_path, GOOD_ROW, extra=extra.replace("int64_t**", "int64_t***")))
    with pytest.raises(TableError, match="functions\\[0\\]: missing 'doc'"):
        load_family(write_family(tmp_path, GOOD_ROW, extra=extra.replace("    doc: the storage shape a frob would have\n", "")))


def test_structured_wrapper_takes_symints_as_ints_and_checks_devices(tmp_path):
    """A schema with SymInt arguments (topk's k) hands the meta function and
    the aclnn op concrete ints; a non-TensorIterator meta gets PyTorch's device
    check of every tensor argument, outs included."""
    from ops.gen import emit_dispatch

    rows = """
  - aclnn: aclnnFrobTopk
    params: const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted, aclTensor* v, aclTensor* i
    doc: topk
    entry: frob_task(self, k, dim, largest, sorted, v, i)
    dtypes: [floating]
    aten: [topk.values]
"""
    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, rows)))
    assert "op.meta(self, k.guard_int(__FILE__, __LINE__), dim, largest, sorted);" in code
    assert "NPU_RUN(aclnnFrobTopk, self, k.guard_int(__FILE__, __LINE__), dim, largest, sorted, values, indices);" \
        in code
    for arg in ("self", "values", "indices"):
        assert f'check_and_update_common_device(common_device, {arg}, "wrapper_topk_values", "{arg}");' in code
    # The fallback gets the arguments as the dispatcher passed them.
    assert 'fallback_call<::std::tuple<at::Tensor &,at::Tensor &>>("topk.values", self, k, dim' in code

REGISTRATIONS = """registrations:
  - schema: view
    impl: at::native::view
    why: a view
  - schema: _thnn_fused_gru_cell
    impl: fused_gru
    keys: [PrivateUse1, AutogradPrivateUse1]
    why: composed of other ops
"""


def test_registrations_name_their_dispatch_keys_and_native_headers(tmp_path):
    """A registration is made for each of its `keys` (default PrivateUse1);
    an at::native impl is registered as it is, with its native header; any
    other impl is declared in npu::ops with the dispatcher's signature."""
    from ops.gen import emit_dispatch

    path = tmp_path / "regs.yaml"
    path.write_text("doc: registrations only\n" + REGISTRATIONS)
    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(path))
    private, autograd = code.split("TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {")[1].split(
        "TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {")
    assert 'm.impl("view", TORCH_FN(at::native::view));' in private
    assert 'm.impl("_thnn_fused_gru_cell", TORCH_FN(npu::ops::fused_gru));' in private
    assert 'm.impl("_thnn_fused_gru_cell", TORCH_FN(npu::ops::fused_gru));' in autograd
    assert "view" not in autograd
    assert "#include <ATen/ops/view_native.h>" in code
    assert ("::std::tuple<at::Tensor,at::Tensor> fused_gru(const at::Tensor & input_gates, const at::Tensor & "
            "hidden_gates, const at::Tensor & hx") in code


def test_registration_with_an_unknown_dispatch_key_is_a_clear_error(tmp_path):
    path = tmp_path / "regs.yaml"
    path.write_text("doc: x\n" + REGISTRATIONS.replace("AutogradPrivateUse1", "AutogradCUDA"))
    with pytest.raises(TableError) as info:
        load_family(path)
    assert "unknown dispatch key 'AutogradCUDA'" in str(info.value) and "_thnn_fused_gru_cell" in str(info.value)
    assert "AutogradPrivateUse1" in str(info.value) and "regs.yaml" in str(info.value)


def test_every_registration_is_registered_for_its_keys():
    """The table's `registrations:` are what the build serves, for each key."""
    families = load_table(sorted((REPO / "ops" / "table").glob("*.yaml")))
    regs = [r for f in families for r in f.registrations]
    assert regs
    for reg in regs:
        for key in reg.keys:
            assert torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{reg.schema}", key), (reg.schema, key)

def test_iterator_may_be_a_config_chain_and_checks_come_before_it(tmp_path):
    """`iterator:` takes CPU's TensorIteratorConfig chain as well as a named
    builder; a row's `check:` runs before the iterator is built, as CPU checks
    arguments before building its iterator."""
    from ops.gen import emit_dispatch

    rows = GOOD_ROW.replace("const aclTensor* self, const aclScalar* other, aclTensor* out",
                            "const aclTensor* self, aclTensor* out")
    config = "TensorIteratorConfig().check_all_same_dtype(false).add_output(OUT).add_const_input(self)"
    rows = rows.replace("aten: [add.Tensor]", textwrap.dedent(f"""\
        aten:
          - logical_not: {{iterator: "{config}", result: "make_bool(self)"}}
          - logical_not.out: {{iterator: "{config}", check: "frob_check(out)"}}
          - relu_: {{iterator: "unary_op(OUT, self)"}}""").replace("\n", "\n    "))
    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, rows)))
    built = ("at::TensorIterator op = at::TensorIteratorConfig().check_all_same_dtype(false).add_output({})"
             ".add_const_input(self).build();")
    assert built.format("result") in code
    assert code.index("frob_check(out);") < code.index(built.format("out"))
    assert "at::TensorIterator op = at::TensorIterator::unary_op(self, self);" in code

MAPPED_ROW = """
  - aclnn: aclnnFrobDim
    params: const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out
    doc: out = frob(self, dim)
    entry: frob_task(self, dim, keepdim, out)
    dtypes: [floating]
    aten:
      - argmax: {map: {self: "flat(self, dim)", dim: "dim.value_or(0)", out: "scalar_view(op.output(0), dim)"}}
"""


def test_mapped_output_stands_for_the_schemas_output(tmp_path):
    """A `map:` of an output parameter (a view of the meta's result) counts
    as that output: the op writes one output and the wrapper returns the result."""
    from ops.gen import emit_dispatch

    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, MAPPED_ROW)))
    assert "scalar_view(op.output(0), dim))" in code
    assert "return std::move(op.output(0));" in code


def test_mapped_input_is_evaluated_once_and_checked_as_launched(tmp_path):
    """A mapped input tensor (e.g. a reshape or |z| of a complex self) is made
    once, and the capability check sees that tensor, not the schema's."""
    from ops.gen import emit_dispatch

    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, MAPPED_ROW)))
    assert code.count("flat(self, dim)") == 1
    assert "const at::Tensor map_self = flat(self, dim);" in code
    assert "operand_dtypes(compute, map_self)" in code
    assert "NPU_RUN(aclnnFrobDim, map_self," in code


def test_optional_scalar_reaches_meta_as_a_ref(tmp_path):
    from ops.gen import emit_dispatch

    row = MAPPED_ROW.replace("- argmax: {map: {self: \"flat(self, dim)\", dim: \"dim.value_or(0)\", "
                             "out: \"scalar_view(op.output(0), dim)\"}}",
                             "- norm.ScalarOpt_dim: {map: {dim: \"dim[0]\"}}")
    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, row)))
    assert ("op.meta(self, (p.has_value() ? at::OptionalScalarRef(&(p.value())) : at::OptionalScalarRef()), "
            "dim, keepdim);") in code


SCHEMA_ROWS = """schemas:
  - schema: npu_frob(Tensor input, int dim=-1, SymInt[]? sizes=None) -> (Tensor, Tensor)
    kernels: {PrivateUse1: frob_kernel, AutogradPrivateUse1: npu::frob::frob_autograd}
    doc: frobs input along dim
  - schema: npu_frob_(Tensor(a!) input, str mode='a') -> Tensor(a!)
    kernels: {CompositeImplicitAutograd: frob_}
    doc: frobs input in place
  - schema: npu_frob_py(Tensor[] x) -> Tensor[]
    python: npu_emu.fused.composites
    doc: a composition written in Python
"""


def schema_family(tmp_path: Path, rows: str = SCHEMA_ROWS) -> Path:
    path = tmp_path / "frobs.yaml"
    path.write_text("doc: torch_npu's frob ops\n" + rows)
    return path


def test_schema_rows_define_npu_ops_and_bind_their_kernels_per_key(tmp_path):
    """A `schemas:` row is one npu:: op: its schema (m.def, as written), and
    per dispatch key the hand-written kernel, declared with the dispatcher's
    signature (an unqualified name in npu::ops), so a drifting kernel fails
    to link; a Python-registered op gets its schema only."""
    from ops.gen import emit_dispatch

    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(schema_family(tmp_path)))
    lib = code.split("TORCH_LIBRARY_FRAGMENT(npu, m) {")[1].split("}")[0]
    assert ('m.def("npu_frob(Tensor input, int dim=-1, SymInt[]? sizes=None) -> (Tensor, Tensor)");' in lib)
    assert "m.def(\"npu_frob_(Tensor(a!) input, str mode='a') -> Tensor(a!)\");" in lib
    assert 'm.def("npu_frob_py(Tensor[] x) -> Tensor[]");' in lib
    private = code.split("TORCH_LIBRARY_IMPL(npu, PrivateUse1, m) {")[1].split("}")[0]
    autograd = code.split("TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {")[1].split("}")[0]
    composite = code.split("TORCH_LIBRARY_IMPL(npu, CompositeImplicitAutograd, m) {")[1].split("}")[0]
    assert private.strip() == 'm.impl("npu_frob", TORCH_FN(npu::ops::frob_kernel));'
    assert autograd.strip() == 'm.impl("npu_frob", TORCH_FN(npu::frob::frob_autograd));'
    assert composite.strip() == 'm.impl("npu_frob_", TORCH_FN(npu::ops::frob_));'
    assert "npu_frob_py" not in private + autograd + composite
    sig = "(const at::Tensor & input, int64_t dim, at::OptionalSymIntArrayRef sizes);"
    assert f"namespace npu::ops {{\n::std::tuple<at::Tensor,at::Tensor> frob_kernel{sig}" in code
    assert f"namespace npu::frob {{\n::std::tuple<at::Tensor,at::Tensor> frob_autograd{sig}" in code
    assert "at::Tensor & frob_(at::Tensor & input, c10::string_view mode);" in code
    native = emit_dispatch.native_list([load_family(schema_family(tmp_path))])
    assert native["npu::npu_frob"] == "frob_kernel" and native["npu::npu_frob_py"] == "npu_emu.fused.composites"


@pytest.mark.parametrize("schema, expected", [
    ("npu_frob(Tensr input) -> Tensor", "unrecognized type Tensr"),
    ("npu_frob(Tensor input -> Tensor", "expected 'name[.overload](arguments) -> returns'"),
    ("npu::npu_frob(Tensor input) -> Tensor", "no namespace"),
    ("npu_frob(Tensor input, int dim=) -> Tensor", "cannot read schema"),
])
def test_schema_row_with_a_bad_schema_is_a_clear_error(tmp_path, schema, expected):
    with pytest.raises(TableError) as info:
        load_family(schema_family(tmp_path, SCHEMA_ROWS.replace(
            "npu_frob(Tensor input, int dim=-1, SymInt[]? sizes=None) -> (Tensor, Tensor)", schema)))
    msg = str(info.value)
    assert expected in msg and "frobs.yaml: schemas[0]" in msg and "cannot read schema" in msg


def test_schema_row_with_an_unknown_key_or_no_kernel_is_a_clear_error(tmp_path):
    with pytest.raises(TableError) as info:
        load_family(schema_family(tmp_path, SCHEMA_ROWS.replace("AutogradPrivateUse1:", "AutogradCUDA:")))
    assert ("frobs.yaml: schemas[0] (npu_frob): unknown dispatch key 'AutogradCUDA'" in str(info.value)
            and "CompositeImplicitAutograd" in str(info.value))
    with pytest.raises(TableError) as info:
        load_family(schema_family(tmp_path, SCHEMA_ROWS.replace("    kernels: {CompositeImplicitAutograd: frob_}\n",
                                                                "")))
    assert "schemas[1] (npu_frob_): missing 'kernels'" in str(info.value) and "'python'" in str(info.value)
    with pytest.raises(TableError, match=r"schemas\[1\] \(npu_frob_\): the CompositeImplicitAutograd kernel must be "
                                         r"a C\+\+ function name, got None"):
        load_family(schema_family(tmp_path, SCHEMA_ROWS.replace("{CompositeImplicitAutograd: frob_}",
                                                                "{CompositeImplicitAutograd: }")))
    with pytest.raises(TableError, match=r"schemas\[2\]: missing 'doc'"):
        load_family(schema_family(tmp_path, SCHEMA_ROWS.replace("    doc: a composition written in Python\n", "")))


def test_npu_op_defined_twice_is_an_error(tmp_path):
    schema_family(tmp_path)
    (tmp_path / "more.yaml").write_text("doc: again\n" + SCHEMA_ROWS.split("  - schema: npu_frob_(")[0])
    with pytest.raises(TableError, match=r"npu::npu_frob is defined twice \(frobs and more\)"):
        load_table(sorted(tmp_path.glob("*.yaml")))


def test_every_schema_row_is_defined_and_registered_for_its_keys():
    """The built backend defines each row's npu:: schema exactly as written
    and has its kernel for every key the row names."""
    import npu_emu  # noqa: F401  (loads the backend)

    families = load_table(sorted((REPO / "ops" / "table").glob("*.yaml")))
    rows = [s for f in families for s in f.schemas]
    assert len(rows) >= 60
    for row in rows:
        name, _, overload = row.name.partition(".")
        assert str(torch._C._get_schema(f"npu::{name}", overload)) == \
            str(torch._C.parse_schema(f"npu::{row.schema}")), row.name
        for key in row.kernels:
            assert torch._C._dispatch_has_kernel_for_dispatch_key(f"npu::{row.name}", key), (row.name, key)


def test_no_hand_written_op_registrations_in_dispatch():
    """Every op registration (a schema -> a kernel) comes from the op table:
    the only m.impl / m.def left in dispatch/ are the infrastructure ones
    docs/op_table.md lists (boxed fallbacks and the autocast rules)."""
    import re

    allowed = {"dispatch/fallback/fallback_arguments.cpp": 1, "dispatch/autocast/autocast_kernel.cpp": 1}
    found = {}
    for path in sorted((REPO / "dispatch").rglob("*.cpp")):
        rel = path.relative_to(REPO).as_posix()
        text = path.read_text()
        # m.def counts in a TORCH_LIBRARY file only (pybind11 modules also say m.def).
        n = len(re.findall(r"\bm\.impl\(" if "TORCH_LIBRARY" not in text else r"\bm\.(?:impl|def)\(", text))
        if n:
            found[rel] = n
    assert found == allowed


def test_impl_may_be_a_call_the_generated_wrapper_returns(tmp_path):
    """Schemas sharing one dispatch function name it with a call over their
    arguments: the generator writes the wrapper (dispatcher signature) that
    returns it, and registers the wrapper; no npu::ops function is declared."""
    from ops.gen import emit_dispatch

    rows = GOOD_ROW.replace("aten: [add.Tensor]", """aten:
      - add.Tensor: {impl: 'npu::ops::frob_any("add.Tensor", self, other, alpha.toDouble())', meta: none}
      - sub.Tensor: {impl: 'npu::ops::frob_any("sub.Tensor", self, other, -alpha.toDouble())', meta: none}""")
    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, rows)))
    assert ("at::Tensor wrapper_sub_Tensor(const at::Tensor & self, const at::Tensor & other, const at::Scalar & "
            'alpha) {\n  return npu::ops::frob_any("sub.Tensor", self, other, -alpha.toDouble());\n}') in code
    assert 'm.impl("add.Tensor", TORCH_FN(wrapper_add_Tensor));' in code
    assert "namespace npu::ops" not in code


FOREACH_ROW = """
  - aclnn: aclnnFrobList
    params: const aclTensorList* x1, const aclTensorList* x2, const aclScalar* alpha, aclTensorList* out
    doc: out[i] = frob(x1[i], alpha * x2[i])
    entry: frob_list_task(x1, x2, alpha, out)
    dtypes: [floating]
    aten:
      - _foreach_add.List: {foreach: {fast: "npu::ops::real_scalar(alpha)", slow: foreach_tensor_add_list_kernel_slow}}
      - _foreach_add_.List: {foreach: {slow: foreach_tensor_add_list_kernel_slow_}}
"""


def test_foreach_schemas_launch_one_op_per_list_or_take_pytorchs_loop(tmp_path):
    """A `foreach:` use: the generated wrapper passes the schema's lists (in
    order onto the row's list parameters) to the fast-route check and the
    launch, and calls PyTorch's per-tensor loop otherwise; functional forms
    return new lists, in-place forms write self."""
    from ops.gen import emit_dispatch

    code = emit_dispatch.registrations(emit_dispatch.Aten(), load_family(write_family(tmp_path, FOREACH_ROW)))
    assert ("::std::vector<at::Tensor> wrapper__foreach_add_List(at::TensorList self, at::TensorList other, "
            "const at::Scalar & alpha) {\n  return npu::ops::foreach_functional(\n"
            '      npu::table::caps::aclnnFrobList, "_foreach_add.List", {self, other}, '
            "npu::ops::real_scalar(alpha),\n      [&](const at::ITensorListRef& out) { NPU_RUN(aclnnFrobList, "
            "at::ITensorListRef(self), at::ITensorListRef(other), alpha, out); },\n"
            "      [&] { return at::native::foreach_tensor_add_list_kernel_slow(self, other, alpha); });\n}") in code
    assert ('npu::ops::foreach_in_place(\n      npu::table::caps::aclnnFrobList, "_foreach_add_.List", '
            "{self, other}, true,") in code
    assert "[&] { at::native::foreach_tensor_add_list_kernel_slow_(self, other, alpha); });" in code
    assert "#include <ATen/ops/_foreach_add_native.h>" in code
    with pytest.raises(TableError, match=r"_foreach_add_.List: foreach is \{fast: <C\+\+ condition>, slow: "):
        load_family(write_family(tmp_path, FOREACH_ROW.replace("{slow: foreach_tensor_add_list_kernel_slow_}",
                                                               "{fast: x}")))
