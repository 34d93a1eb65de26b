"""The JSON report's schema (JSON Schema, draft 2020-12 vocabulary) and a
small validator for the subset it uses, so the report can be checked without
extra packages.

Versioning: SCHEMA_VERSION changes only when a field is removed, renamed or
changes meaning; new optional fields keep the version."""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 1

_COUNT = {"type": "integer", "minimum": 0}
_RATE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_COUNTS_BY = lambda keys: {  # noqa: E731
    "type": "object", "required": list(keys), "additionalProperties": False,
    "properties": {k: _COUNT for k in keys}}
_OP_COUNTS = {"type": "object", "additionalProperties": _COUNT}

_TOTALS = {
    "type": "object",
    "required": ["units", "status", "outcome", "samples", "pass_rate", "native_units", "native_passed",
                 "native_pass_rate", "fallback_units", "fallback_passed", "fallback_pass_rate"],
    "properties": {
        "units": _COUNT,
        "status": _COUNTS_BY(("passed", "failed", "errored", "skipped")),
        "outcome": _COUNTS_BY(("pass", "fail", "xfail", "xpass", "skip")),
        "samples": _COUNTS_BY(("passed", "failed", "errored", "skipped")),
        "pass_rate": _RATE,
        "native_units": _COUNT, "native_passed": _COUNT, "native_pass_rate": _RATE,
        "fallback_units": _COUNT, "fallback_passed": _COUNT, "fallback_pass_rate": _RATE,
    },
}

_UNIT = {
    "type": "object",
    "required": ["key", "op", "dtype", "status", "outcome", "samples", "first_failure", "native",
                 "native_samples", "fallback_samples", "fallback_ops", "native_ops", "grad_checked",
                 "rtol", "atol", "tolerance_source", "skip_reason", "expected_reason", "duration_s"],
    "properties": {
        "key": {"type": "string"},
        "op": {"type": "string"},
        "dtype": {"type": "string"},
        "status": {"enum": ["passed", "failed", "errored", "skipped"]},
        "outcome": {"enum": ["pass", "fail", "xfail", "xpass", "skip"]},
        "samples": _COUNTS_BY(("passed", "failed", "errored", "skipped")),
        "first_failure": {
            "type": ["object", "null"],
            "required": ["sample", "status", "phase", "description", "message"],
            "properties": {
                "sample": {"type": "integer"},
                "status": {"enum": ["failed", "errored"]},
                "phase": {"enum": ["forward", "grad"]},
                "description": {"type": "string"},
                "message": {"type": "string"},
            },
        },
        "native": {"type": ["boolean", "null"]},
        "native_samples": _COUNT,
        "fallback_samples": _COUNT,
        "fallback_ops": _OP_COUNTS,
        "native_ops": _OP_COUNTS,
        "grad_checked": {"type": "boolean"},
        "rtol": {"type": "number", "minimum": 0},
        "atol": {"type": "number", "minimum": 0},
        "tolerance_source": {"enum": ["opinfo", "default", "n/a"]},
        "skip_reason": {"type": "string"},
        "expected_reason": {"type": "string"},
        "duration_s": {"type": "number", "minimum": 0},
        # Optional (added in version 1): listed as machine-dependent ("may fail").
        "may_fail": {"type": "boolean"},
        # Optional (added in version 1), upstream runs: pytest's class and test
        # names, the canonical test id, pytest's own outcome, the traceback's end.
        "classname": {"type": "string"},
        "name": {"type": "string"},
        "test_id": {"type": "string"},
        "pytest_outcome": {"enum": ["", "passed", "failed", "error", "skipped", "xfailed", "xpassed"]},
        "details": {"type": "string"},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "npu-emu conformance report",
    "type": "object",
    "required": ["schema", "schema_version", "kind", "created_utc", "wall_time_s", "torch_version",
                 "npu_emu_version", "command", "selection", "totals", "by_dtype", "units"],
    "properties": {
        "schema": {"const": "npu-emu-conformance-report"},
        "schema_version": {"const": SCHEMA_VERSION},
        "kind": {"enum": ["opinfo", "upstream"]},
        "created_utc": {"type": "string"},
        "wall_time_s": {"type": "number", "minimum": 0},
        "torch_version": {"type": "string"},
        "npu_emu_version": {"type": "string"},
        "command": {"type": "string"},
        "selection": {"type": "object"},
        "totals": _TOTALS,
        "by_dtype": {"type": "object", "additionalProperties": _TOTALS},
        "units": {"type": "array", "items": _UNIT},
    },
}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is_type(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def validate(doc: Any, schema: dict[str, Any] = SCHEMA, path: str = "$") -> list[str]:
    """Every violation of `schema` in `doc`, as 'path: problem' strings."""
    errors: list[str] = []
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if not any(_is_type(doc, n) for n in names):
            return [f"{path}: expected {' or '.join(names)}, got {type(doc).__name__}"]
    if "const" in schema and doc != schema["const"]:
        errors.append(f"{path}: expected {schema['const']!r}, got {doc!r}")
    if "enum" in schema and doc not in schema["enum"]:
        errors.append(f"{path}: {doc!r} not one of {schema['enum']}")
    if isinstance(doc, (int, float)) and not isinstance(doc, bool):
        if "minimum" in schema and doc < schema["minimum"]:
            errors.append(f"{path}: {doc} < minimum {schema['minimum']}")
        if "maximum" in schema and doc > schema["maximum"]:
            errors.append(f"{path}: {doc} > maximum {schema['maximum']}")
    if isinstance(doc, dict):
        errors += [f"{path}: missing {k!r}" for k in schema.get("required", []) if k not in doc]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for k, v in doc.items():
            if k in props:
                errors += validate(v, props[k], f"{path}.{k}")
            elif extra is False:
                errors.append(f"{path}: unexpected property {k!r}")
            elif isinstance(extra, dict):
                errors += validate(v, extra, f"{path}.{k}")
    if isinstance(doc, list) and "items" in schema:
        for i, item in enumerate(doc):
            errors += validate(item, schema["items"], f"{path}[{i}]")
    return errors
