"""The `npu-emu` command: device info, the demo, and the project's tools."""

from __future__ import annotations

import argparse
import sys


def _info(_: argparse.Namespace) -> int:
    import torch

    import npu_emu  # noqa: F401

    print(f"npu-emu {npu_emu.__version__} on torch {torch.__version__}")
    for i in range(torch.npu.device_count()):
        props = torch.npu.get_device_properties(i)
        free, total = torch.npu.mem_get_info(i)
        print(f"npu:{i}  {props.name}  cube cores {props.cube_core_num}, vector cores {props.vector_core_num}, "
              f"HBM {total / 2**30:.1f} GiB ({free / 2**30:.1f} GiB free)")
    return 0


def _bench(args: argparse.Namespace) -> int:
    """Runs bench/run.py of the source tree this package is installed from."""
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "bench" / "run.py"
    if not script.exists():
        print(f"npu-emu bench: {script} not found (the benchmarks live in the source tree)", file=sys.stderr)
        return 2
    sys.argv = [str(script), *args.rest]
    runpy.run_path(str(script), run_name="__main__")
    return 0


def _conformance(args: argparse.Namespace) -> int:
    from npu_emu.conformance.cli import main as conformance_main

    return conformance_main(args.rest)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["conformance"]:
        # Its options are its own (argparse.REMAINDER would reject leading options).
        return _conformance(argparse.Namespace(rest=argv[1:]))
    parser = argparse.ArgumentParser(prog="npu-emu", description="A hardware-less Ascend NPU for PyTorch")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="show the emulated devices").set_defaults(run=_info)
    bench = sub.add_parser("bench", help="npu-emu vs PyTorch CPU, side by side (bench/run.py)")
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for bench/run.py (--json FILE, --quick)")
    bench.set_defaults(run=_bench)
    conformance = sub.add_parser("conformance", add_help=False,
                                 help="PyTorch's OpInfo database and test files on npu, with reports "
                                      "(npu-emu conformance --help)")
    conformance.add_argument("rest", nargs=argparse.REMAINDER)
    conformance.set_defaults(run=_conformance)
    from npu_emu.debug.cli import add_parser as add_formats_parser

    add_formats_parser(sub)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
