"""The op table: reading and checking ops/table/*.yaml.

Each YAML file is one op family (its name names the generated header
include/acl/aclnn_<family>.h). Its top level is a mapping:

    doc:      the header's opening comment (what the family computes)
    emulator: the emulator header declaring the family's task makers
    dispatch_include: a dispatch header declaring the C++ helpers the rows'
              map/check/when expressions call (included by the generated
              registrations), when the shared ones do not serve
    ops:      the rows, one per aclnn op (see ROW_KEYS)
    registrations: aten schemas served by hand-written dispatch functions
              that launch no aclnn op of their own (views, copy_, empty)
    functions: C functions of the family besides the op pairs (CANN's
              aclnnNpuFormatCastCalculateSizeAndFormat), declared in the
              family's header and defined by hand in its emulator file
    schemas:  torch_npu's own ops (the `npu::` library, op-plugin's schemas):
              each row's schema is defined (m.def) and bound, per dispatch
              key, to a hand-written kernel (see SCHEMA_KEYS)

A mistake in a row (an unknown key, dtype or parameter type, a malformed
signature) is a TableError naming the file, the op and what is allowed: the
build stops there instead of compiling something half-described.
"""
from __future__ import annotations

import dataclasses
import pathlib
import re
from collections.abc import Callable, Iterable

import yaml


class TableError(Exception):
    pass


# CANN's parameter types. A non-const aclTensor* / aclTensorList* is written
# by the op (an output); everything else is read.
PARAM_TYPES = {
    "const aclTensor*": "tensor",
    "aclTensor*": "tensor",
    "const aclTensorList*": "tensor_list",
    "aclTensorList*": "tensor_list",
    "const aclScalar*": "scalar",
    "const aclScalarList*": "scalar_list",
    "const aclIntArray*": "int_array",
    "const aclBoolArray*": "bool_array",
    "aclDataType": "value",
    "bool": "value",
    "const bool": "value",
    "int": "value",
    "int8_t": "value",
    "int32_t": "value",
    "int64_t": "value",
    "const int64_t": "value",
    "uint64_t": "value",
    "float": "value",
    "double": "value",
    "const char*": "value",
    "char*": "value",  # CANN declares some string attributes non-const (aclnnGeluBackwardV2)
}

# dtype names (torch's) -> at::ScalarType enumerators.
DTYPES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "float32": "Float",
    "float64": "Double",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}
DTYPE_GROUPS = {
    "floating": ["float16", "bfloat16", "float32", "float64"],
    "integral": ["uint8", "int8", "int16", "int32", "int64"],
    "complex": ["complex64", "complex128"],
    "all": list(DTYPES),
}

# The private formats an argument may arrive in natively (see FORMATS.md).
FORMATS = {"NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ", "NDC1HWC0", "FRACTAL_Z_3D", "any"}

ROW_KEYS = {
    "aclnn": "the CANN op name (aclnnAdd); the pair is <name>GetWorkspaceSize + <name>",
    "params": "the C parameters before workspaceSize/executor, CANN's exact signature",
    "doc": "one line: what the op computes",
    "entry": "the emulator's task maker call (C++, in npu::emu), given the parameters by name",
    "dtypes": "the compute dtypes the kernel supports (names or groups: floating, integral, complex, all)",
    "formats": "parameters that take private formats natively: {param: [formats]}",
    "writes": "const aclTensor* parameters CANN declares const but the op writes (outputs all the same)",
    "reads": "aclTensor* parameters CANN declares non-const but the op only reads (inputs all the same)",
    "aten": "the aten schemas this op serves: a list of names or {name: options}",
}
ATEN_KEYS = {
    "impl": "a hand-written dispatch function (npu::ops::<impl>) instead of the generated structured call, or a "
            "C++ call over the schema's arguments the generated wrapper returns (a function shared by several "
            "schemas, e.g. npu::ops::fused_adam(\"_fused_adamw_\", true, self, ...))",
    "map": "aclnn parameter -> C++ expression over the aten arguments, where names differ",
    "when": "a C++ condition choosing this op among several serving the schema (first true wins)",
    "compute_dtype": "C++ expression of the dtype checked against `dtypes` (default: the meta's common dtype)",
    "check": "a C++ statement run before the launch (extra argument checks; with iterator, before it is built)",
    "meta": "why the schema has no structured meta function (required with impl)",
    "result": "with iterator, functional form: C++ making the (empty) output the iterator fills, when its "
              "dtype is not the common one, e.g. npu::table::new_output(at::kBool, self, other)",
    "foreach": "for a _foreach_* schema (no meta function): {fast: <C++ condition on the arguments for one launch "
               "per list, besides the lists' own checks>, slow: <PyTorch's per-tensor loop, at::native::<slow>>}; the "
               "wrapper launches the row's op when the lists can take it (dispatch/ops/foreach_args.h), else the loop",
    "iterator": "for a schema without a structured meta function: the TensorIterator builder CPU uses, "
                "e.g. comparison_op(OUT, self, other) (OUT: the output, or self in-place), or the "
                "TensorIteratorConfig chain CPU builds, e.g. TensorIteratorConfig().add_output(OUT).add_const_input(self)",
}
# Further parameter types a family's `functions` may take: pointers the
# function writes its results through.
FUNCTION_PARAM_TYPES = {
    **PARAM_TYPES,
    "const int": "value",
    "int*": "result",
    "uint64_t*": "result",
    "int64_t*": "result",
    "int64_t**": "result",
}
FUNCTION_KEYS = {
    "name": "the C function's name (aclnnNpuFormatCastCalculateSizeAndFormat)",
    "params": "its C parameters, CANN's exact signature",
    "doc": "what it computes",
}
REGISTRATION_KEYS = {
    "schema": "the aten schema name (as_strided, copy_)",
    "impl": "the dispatch function (a qualified C++ name)",
    "why": "what it is and why it launches no aclnn op of its own",
    "keys": "the dispatch keys it is registered for (default [PrivateUse1]), e.g. [PrivateUse1, AutogradPrivateUse1]",
}
REQUIRED_REGISTRATION_KEYS = ("schema", "impl", "why")
# Dispatch keys a registration or schema row may name: the backend's own and
# its autograd key (an op whose composition autograd must differentiate, e.g.
# a fused cell PyTorch implements only for CUDA); the keys of npu tensors with
# other layouts (nested, sparse COO, sparse compressed); the composite keys
# (an op composed of other ops, for every backend: torch_npu's npu:: ops that
# are views or compositions of native ops); CPU (an npu:: op torch_npu also
# serves on CPU tensors, npu_format_cast).
DISPATCH_KEYS = ("PrivateUse1", "AutogradPrivateUse1", "NestedTensorPrivateUse1", "SparsePrivateUse1",
                 "SparseCsrPrivateUse1", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "CPU")
SCHEMA_KEYS = {
    "schema": "the op's full schema in the npu:: library, as torch_npu defines it (op-plugin's "
              "op_plugin_functions.yaml spelling, defaults included), e.g. 'npu_swiglu(Tensor input, int dim=-1) -> Tensor'",
    "kernels": "dispatch key -> the hand-written kernel (a function in npu::ops, declared by the generator with "
               "the schema's dispatcher signature), e.g. {PrivateUse1: npu_swiglu}",
    "python": "instead of kernels: the Python module registering the op's kernels (torch.library), when they are "
              "compositions written in Python",
    "doc": "what the op computes and what it launches (the aclnn ops of this table it calls)",
}


@dataclasses.dataclass(frozen=True)
class Param:
    ctype: str
    name: str
    # A `const aclTensor*` CANN's declaration marks const although the op
    # writes it (the row's `writes:`, e.g. aclnnRmsNorm's yOut).
    written: bool = False
    # An `aclTensor*` CANN's declaration leaves non-const although the op
    # only reads it (the row's `reads:`, e.g. aclnnInplaceAtan2's other).
    read_only: bool = False

    @property
    def kind(self) -> str:
        return FUNCTION_PARAM_TYPES[self.ctype]

    @property
    def is_output(self) -> bool:
        return (self.ctype in ("aclTensor*", "aclTensorList*") and not self.read_only) or self.written

    def decl(self) -> str:
        return f"{self.ctype} {self.name}"


@dataclasses.dataclass
class AtenUse:
    schema: str
    impl: str | None = None
    map: dict[str, str] = dataclasses.field(default_factory=dict)
    when: str | None = None
    compute_dtype: str | None = None
    check: str | None = None
    meta: str | None = None
    iterator: str | None = None
    result: str | None = None
    foreach: dict[str, str] | None = None


@dataclasses.dataclass
class Op:
    family: str
    aclnn: str
    params: list[Param]
    doc: str
    entry: str
    dtypes: list[str]
    formats: dict[str, list[str]]
    aten: list[AtenUse]

    @property
    def inputs(self) -> list[Param]:
        return [p for p in self.params if p.kind in ("tensor", "tensor_list") and not p.is_output]

    @property
    def outputs(self) -> list[Param]:
        return [p for p in self.params if p.is_output]


@dataclasses.dataclass
class Registration:
    family: str
    schema: str
    impl: str
    why: str
    keys: list[str] = dataclasses.field(default_factory=lambda: ["PrivateUse1"])


@dataclasses.dataclass
class Schema:
    """One op of torch_npu's npu:: library: its schema and its kernels."""
    family: str
    schema: str
    name: str  # name.overload, as m.impl names it
    kernels: dict[str, str]
    python: str | None
    doc: str
    returns: str = ""  # the dispatcher's C++ return type
    arguments: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (C++ type, name)

    def decl(self, fn: str) -> str:
        return f"{self.returns} {fn}({', '.join(f'{t} {n}' for t, n in self.arguments)})"


@dataclasses.dataclass
class Function:
    """A C function of a family that is not an op pair (returns aclnnStatus)."""
    name: str
    params: list[Param]
    doc: str

    def decl(self) -> str:
        return f"aclnnStatus {self.name}({', '.join(p.decl() for p in self.params)})"


@dataclasses.dataclass
class Family:
    name: str
    doc: str
    emulator: str | None
    ops: list[Op]
    registrations: list[Registration]
    functions: list[Function] = dataclasses.field(default_factory=list)
    dispatch_include: str | None = None
    schemas: list[Schema] = dataclasses.field(default_factory=list)


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def parse_params(text: str, where: str, types: dict[str, str] = PARAM_TYPES) -> list[Param]:
    """'const aclTensor* self, aclTensor* out' -> Params, each type checked against `types`."""
    params = []
    for piece in text.split(","):
        piece = " ".join(piece.replace("*", "* ").split())
        m = re.fullmatch(r"(.+?)\s*([A-Za-z_][A-Za-z0-9_]*)", piece)
        if not m:
            raise TableError(f"{where}: cannot read parameter '{piece}' (expected '<type> <name>')")
        ctype = m.group(1).replace(" *", "*").strip()
        if ctype not in types:
            raise TableError(f"{where}: parameter '{m.group(2)}' has type '{ctype}'; allowed: "
                             + ", ".join(types))
        params.append(Param(ctype, m.group(2)))
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise TableError(f"{where}: parameter names repeat: {names}")
    if names and names[-1] in ("workspaceSize", "executor"):
        raise TableError(f"{where}: list the parameters before workspaceSize/executor only")
    return params


def expand_dtypes(names: list[str], where: str) -> list[str]:
    out: list[str] = []
    for n in names:
        group = DTYPE_GROUPS.get(n, [n])
        for d in group:
            if d not in DTYPES:
                raise TableError(f"{where}: unknown dtype '{d}'; allowed: {', '.join(DTYPES)} "
                                 f"or groups {', '.join(DTYPE_GROUPS)}")
            if d not in out:
                out.append(d)
    return out


def _check_keys(mapping: dict, allowed: dict, where: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise TableError(f"{where}: unknown key '{key}'; allowed: " + ", ".join(allowed))


def _check_row(row: dict, allowed: dict, required, where: str) -> None:
    """Unknown keys and missing required ones are errors naming what is allowed."""
    _check_keys(row, allowed, where)
    for key in required:
        if key not in row:
            raise TableError(f"{where}: missing '{key}' ({allowed[key]})")


def _aten_use(item, where: str) -> AtenUse:
    if isinstance(item, str):
        return AtenUse(item)
    if not isinstance(item, dict) or len(item) != 1:
        raise TableError(f"{where}: an aten entry is a schema name or {{schema: options}}, got {item!r}")
    (schema, opts), = item.items()
    opts = opts or {}
    _check_keys(opts, ATEN_KEYS, f"{where} {schema}")
    use = AtenUse(schema, **opts)
    if use.foreach is not None:
        if not isinstance(use.foreach, dict) or set(use.foreach) - {"fast", "slow"} or "slow" not in use.foreach:
            raise TableError(f"{where} {schema}: foreach is {{fast: <C++ condition>, slow: <at::native loop>}}, "
                             f"got {use.foreach!r}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(use.foreach["slow"])):
            raise TableError(f"{where} {schema}: foreach slow must name an at::native function, got "
                             f"{use.foreach['slow']!r}")
    if use.impl and not use.meta:
        raise TableError(f"{where} {schema}: a hand-written impl must say in `meta:` why no structured meta "
                         "function serves it")
    return use


def _op(family: str, row: dict, where: str) -> Op:
    _check_row(row, ROW_KEYS, ("aclnn", "params", "doc", "entry", "dtypes"), where)
    name = row["aclnn"]
    if not (isinstance(name, str) and name.startswith("aclnn") and _IDENT.match(name)):
        raise TableError(f"{where}: aclnn name '{name}' must be an identifier starting with 'aclnn'")
    where = f"{where} ({name})"
    params = parse_params(row["params"], where)
    writes = list(row.get("writes") or [])
    for name_ in writes:
        if name_ not in [p.name for p in params if p.ctype == "const aclTensor*"]:
            raise TableError(f"{where}: writes names '{name_}', which is not a const aclTensor* parameter")
    params = [dataclasses.replace(p, written=True) if p.name in writes else p for p in params]
    reads = list(row.get("reads") or [])
    for name_ in reads:
        if name_ not in [p.name for p in params if p.ctype == "aclTensor*"]:
            raise TableError(f"{where}: reads names '{name_}', which is not an aclTensor* parameter")
    params = [dataclasses.replace(p, read_only=True) if p.name in reads else p for p in params]
    formats = row.get("formats") or {}
    for param, fmts in formats.items():
        if param not in [p.name for p in params if p.kind == "tensor"]:
            raise TableError(f"{where}: formats names '{param}', which is not a tensor parameter")
        for f in fmts:
            if f not in FORMATS:
                raise TableError(f"{where}: unknown format '{f}'; allowed: {', '.join(sorted(FORMATS))}")
    uses = [_aten_use(a, where) for a in row.get("aten") or []]
    names = [p.name for p in params]
    for use in uses:
        for key in use.map:
            if key not in names:
                raise TableError(f"{where} {use.schema}: map names '{key}', which is not a parameter "
                                 f"({', '.join(names)}); in a {{flow: mapping}} quote an expression "
                                 "holding ', '")
    return Op(family, name, params, str(row["doc"]), str(row["entry"]),
              expand_dtypes(list(row["dtypes"]), where), formats, uses)


def _check_dispatch_keys(keys: list[str], where: str) -> None:
    for k in keys:
        if k not in DISPATCH_KEYS:
            raise TableError(f"{where}: unknown dispatch key '{k}'; allowed: " + ", ".join(DISPATCH_KEYS))
    if len(set(keys)) != len(keys):
        raise TableError(f"{where}: dispatch keys repeat: {keys}")


def dispatcher_signature(schema: str, where: str) -> tuple[str, str, list[tuple[str, str]]]:
    """'npu_swiglu(Tensor input, int dim=-1) -> Tensor' -> (name.overload,
    C++ return type, [(C++ type, name)]): the signature the dispatcher calls a
    kernel of the schema with (torchgen's, SymInt kept). A schema torchgen
    cannot read is a TableError quoting it (emit_dispatch also has PyTorch's
    own parser read it, as m.def will). Without torchgen (a build of the
    emulator alone) the name is read by hand and the signature left empty."""
    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?)\s*\((.*)\)\s*->\s*(.+?)\s*", schema, re.S)
    if not m:
        raise TableError(f"{where}: cannot read schema '{schema}': expected 'name[.overload](arguments) -> returns' "
                         "(no namespace: rows define ops in the npu:: library)")
    try:
        from torchgen import local
        from torchgen.api import dispatcher
        from torchgen.model import Arguments, parse_returns
    except ImportError:
        return m.group(1), "", []
    try:
        args = Arguments.parse(m.group(2))
        rets = parse_returns(m.group(3))
        with local.parametrize(use_const_ref_for_mutable_tensors=False, use_ilistref_for_tensor_lists=False):
            flat = [*args.flat_positional, *args.flat_kwarg_only, *args.out]
            cpp_args = [(dispatcher.argument_type(a, binds=a.name, symint=True).cpp_type(), a.name) for a in flat]
            cpp_ret = dispatcher.returns_type(rets, symint=True).cpp_type()
    except Exception as e:  # torchgen reports a malformed schema with AssertionError/ValueError/KeyError
        raise TableError(f"{where}: cannot read schema '{schema}': {type(e).__name__}: {e}") from None
    return m.group(1), cpp_ret, cpp_args


def _schema_row(family: str, row: dict, where: str) -> Schema:
    _check_row(row, SCHEMA_KEYS, ("schema", "doc"), where)
    if not isinstance(row["schema"], str):
        raise TableError(f"{where}: schema must be a string, got {row['schema']!r}")
    name, ret, args = dispatcher_signature(row["schema"], where)
    where = f"{where} ({name})"
    kernels = row.get("kernels") or {}
    python = row.get("python")
    if not isinstance(kernels, dict):
        raise TableError(f"{where}: kernels is a mapping {{dispatch key: kernel function}}, got {kernels!r}")
    if not kernels and not python:
        raise TableError(f"{where}: missing 'kernels' ({SCHEMA_KEYS['kernels']}) or 'python' ({SCHEMA_KEYS['python']})")
    if kernels and python:
        raise TableError(f"{where}: give 'kernels' or 'python', not both")
    _check_dispatch_keys(list(kernels), where)
    for key, fn in kernels.items():
        if not (isinstance(fn, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*", fn)):
            raise TableError(f"{where}: the {key} kernel must be a C++ function name, got {fn!r}")
    return Schema(family, row["schema"], name, dict(kernels), python, str(row["doc"]), ret, args)


def load_family(path: pathlib.Path) -> Family:
    where = str(path)
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise TableError(f"{where}: the top level must be a mapping with doc/emulator/ops/registrations")
    _check_keys(data, {"doc": 1, "emulator": 1, "ops": 1, "registrations": 1, "functions": 1,
                       "dispatch_include": 1, "schemas": 1}, where)
    ops = [_op(path.stem, row, f"{where}: ops[{i}]") for i, row in enumerate(data.get("ops") or [])]
    regs = []
    for i, row in enumerate(data.get("registrations") or []):
        w = f"{where}: registrations[{i}]"
        _check_row(row, REGISTRATION_KEYS, REQUIRED_REGISTRATION_KEYS, w)
        keys = list(row.get("keys") or ["PrivateUse1"])
        _check_dispatch_keys(keys, f"{w} ({row['schema']})")
        regs.append(Registration(path.stem, row["schema"], row["impl"], row["why"], keys))
    functions = []
    for i, row in enumerate(data.get("functions") or []):
        w = f"{where}: functions[{i}]"
        _check_row(row, FUNCTION_KEYS, FUNCTION_KEYS, w)
        if not (isinstance(row["name"], str) and row["name"].startswith("aclnn") and _IDENT.match(row["name"])):
            raise TableError(f"{w}: function name '{row['name']}' must be an identifier starting with 'aclnn'")
        functions.append(Function(row["name"], parse_params(row["params"], f"{w} ({row['name']})",
                                                            FUNCTION_PARAM_TYPES), str(row["doc"])))
    if ops and not data.get("emulator"):
        raise TableError(f"{where}: 'emulator' (the header declaring the task makers) is required with ops")
    include = data.get("dispatch_include")
    if include is not None and not (isinstance(include, str) and include.startswith("dispatch/")
                                    and include.endswith(".h")):
        raise TableError(f"{where}: dispatch_include must name a header under dispatch/, got {include!r}")
    schemas = [_schema_row(path.stem, row, f"{where}: schemas[{i}]")
               for i, row in enumerate(data.get("schemas") or [])]
    return Family(path.stem, str(data.get("doc", "")), data.get("emulator"), ops, regs, functions, include, schemas)


def load_table(paths: list[pathlib.Path]) -> list[Family]:
    families = [load_family(p) for p in sorted(paths)]
    _require_once(families, lambda fam: (op.aclnn for op in fam.ops), "{} is described twice ({} and {})")
    _require_once(families, lambda fam: (sch.name for sch in fam.schemas), "npu::{} is defined twice ({} and {})")
    return families


def _require_once(families: list[Family], names: Callable[[Family], Iterable[str]], message: str) -> None:
    """Each name `names(family)` yields belongs to one family only."""
    owner: dict[str, str] = {}
    for fam in families:
        for name in names(fam):
            if name in owner:
                raise TableError(message.format(name, owner[name], fam.name))
            owner[name] = fam.name
