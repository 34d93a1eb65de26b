"""python -m ops.gen --table-dir ops/table --out-dir <build>/generated --part acl|dispatch

Writes, from the op table: include/acl/aclnn_<family>.h and aclnn_ops.h,
emulator/entries_<family>.cpp, dispatch/aclnn_op_list.h (--part acl) or
(--part dispatch, needs PyTorch's torchgen) dispatch/register_<family>.cpp,
dispatch/aclnn_capabilities.h and native_ops.json. A file is rewritten only
when its text changes, so unchanged outputs do not trigger recompiles."""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from . import emit_acl
from .table import TableError, load_table


def write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ops.gen")
    ap.add_argument("--table-dir", type=pathlib.Path, required=True)
    ap.add_argument("--out-dir", type=pathlib.Path, required=True)
    ap.add_argument("--part", choices=("acl", "dispatch"), required=True,
                    help="acl: headers, emulator entries, driver list; dispatch: PyTorch registrations (torchgen)")
    args = ap.parse_args(argv)
    try:
        families = load_table(sorted(args.table_dir.glob("*.yaml")))
        out = args.out_dir
        if args.part == "acl":
            for fam in families:
                write(out / "include" / "acl" / f"aclnn_{fam.name}.h", emit_acl.acl_header(fam))
                write(out / "emulator" / f"entries_{fam.name}.cpp", emit_acl.emulator_entries(fam))
            write(out / "include" / "acl" / "aclnn_ops.h", emit_acl.umbrella_header(families))
            write(out / "dispatch" / "aclnn_op_list.h", emit_acl.driver_op_list(families))
        else:
            from . import emit_dispatch

            aten = emit_dispatch.Aten()
            for fam in families:
                write(out / "dispatch" / f"register_{fam.name}.cpp", emit_dispatch.registrations(aten, fam))
            write(out / "dispatch" / "aclnn_capabilities.h", emit_dispatch.capabilities(families))
            write(out / "native_ops.json", json.dumps(emit_dispatch.native_list(families), indent=1) + "\n")
    except TableError as e:
        print(f"op table error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
