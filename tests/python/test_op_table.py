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
    assert "op.meta(self, npu::table::optional_scalar_ref(p), dim, keepdim);" in code
