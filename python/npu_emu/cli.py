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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="npu-emu", description="A hardware-less Ascend NPU for PyTorch")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="show the emulated devices").set_defaults(run=_info)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
