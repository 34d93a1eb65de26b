"""`npu-emu formats ...`: the format debugger from a shell.

A tensor is given either by `--shape 2,17,5,5 --format NC1HWC0 [--dtype
float16]` (made on the emulator, values 0, 1, 2, ... in logical order) or by
`--tensor FILE.pt` (torch.save of an npu tensor keeps its format)."""

from __future__ import annotations

import argparse
import sys

_DTYPES = ("float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")


def _ints(text: str) -> tuple[int, ...]:
    text = text.strip().strip("[]()")
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers like 2,17,5,5, got {text!r}") from None


def _format_id(text: str) -> int:
    from npu_emu.formats import Format

    if text.lstrip("-").isdigit():
        return int(text)
    try:
        return int(Format[text.upper()])
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"format must be a name or id of {', '.join(f'{f.name} ({int(f)})' for f in Format)}; got {text!r}"
        ) from None


def _add_tensor_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tensor", help="a tensor saved with torch.save (an npu tensor keeps its format)")
    p.add_argument("--shape", type=_ints, help="logical shape, e.g. 2,17,5,5")
    p.add_argument("--format", type=_format_id, default=None, help="format name or id, e.g. NC1HWC0 or 3")
    p.add_argument("--dtype", choices=_DTYPES, default="float32")


def _tensor(args: argparse.Namespace, which: str = "tensor"):
    import torch

    import npu_emu  # noqa: F401
    from npu_emu.formats import npu_format_cast

    path = getattr(args, which, None)
    if path:
        t = torch.load(path, weights_only=True)
        if not isinstance(t, torch.Tensor):
            raise SystemExit(f"npu-emu formats: {path} holds a {type(t).__name__}, not a tensor")
        return t
    if args.shape is None or args.format is None:
        raise SystemExit("npu-emu formats: give --tensor FILE.pt, or --shape and --format")
    dtype = getattr(torch, args.dtype)
    numel = 1
    for n in args.shape:
        numel *= n
    values = torch.arange(numel) % (2 if dtype == torch.bool else 100 if dtype in (torch.int8, torch.uint8) else 2**11)
    t = values.to(dtype).reshape(args.shape).npu()
    return npu_format_cast(t, args.format)


def _describe(args: argparse.Namespace) -> int:
    from npu_emu import debug

    t = _tensor(args)
    print(debug.describe(t))
    print(debug.explain(t) if t.device.type == "npu" else "(a CPU tensor: row-major)")
    return 0


def _locate(args: argparse.Namespace) -> int:
    from npu_emu import debug

    t = _tensor(args)
    if (args.index is None) == (args.offset is None):
        raise SystemExit("npu-emu formats locate: give exactly one of --index I,J,... or --offset BYTES")
    if args.index is not None:
        loc = debug.locate(t, args.index)
        print(debug.render.path_text(t, loc))
    else:
        print(debug.locate_offset(t, args.offset))
    return 0


def _show(args: argparse.Namespace) -> int:
    from npu_emu import debug

    t = _tensor(args)
    print(debug.render_text(t, args.index, max_tiles=args.max_tiles))
    if args.png:
        pic = debug.render_png(t, args.png, args.index, max_tiles=args.max_tiles)
        print(f"wrote {pic.path} ({pic.width}x{pic.height} px)")
    return 0


def _compare(args: argparse.Namespace) -> int:
    import torch

    import npu_emu  # noqa: F401
    from npu_emu import debug

    a, b = (torch.load(p, weights_only=True) for p in (args.a, args.b))
    result = debug.compare(a, b, max_mismatches=args.max, rtol=args.rtol, atol=args.atol)
    print(result)
    return 0 if result.equal else 1


def _report(args: argparse.Namespace) -> int:
    from npu_emu.debug import trace_report

    summary = trace_report.summarize(trace_report.load(args.trace))
    print(trace_report.report_text(summary, top=args.top, steps=args.steps))
    if args.plot:
        print(f"wrote {trace_report.report_plot(summary, args.plot, top=args.top)}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    formats = sub.add_parser("formats", help="format debugging: describe, locate, show, compare, report",
                             description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmds = formats.add_subparsers(dest="formats_command", required=True)
    p = cmds.add_parser("describe", help="logical shape, format, storage shape, C0, padding; why this format")
    _add_tensor_args(p)
    p.set_defaults(run=_describe)
    p = cmds.add_parser("locate", help="where element --index lives, or what lives at byte --offset")
    _add_tensor_args(p)
    p.add_argument("--index", type=_ints)
    p.add_argument("--offset", type=int, help="a byte offset into the storage")
    p.set_defaults(run=_locate)
    p = cmds.add_parser("show", help="the physical layout as text (and --png FILE)")
    _add_tensor_args(p)
    p.add_argument("--index", type=_ints, help="an element to highlight, with its path")
    p.add_argument("--png", help="also write the picture to this PNG file (needs matplotlib)")
    p.add_argument("--max-tiles", type=int, default=8)
    p.set_defaults(run=_show)
    p = cmds.add_parser("compare", help="two saved tensors element by element through their storages")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--max", type=int, default=10, help="mismatches to print")
    p.add_argument("--rtol", type=float, default=0.0)
    p.add_argument("--atol", type=float, default=0.0)
    p.set_defaults(run=_compare)
    p = cmds.add_parser("report", help="summarise a NPU_EMU_TRACE=formats:FILE trace per op and call site")
    p.add_argument("trace", help="the JSON-lines trace file")
    p.add_argument("--plot", help="also write bar charts to this PNG file (needs matplotlib)")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--steps", type=int, default=1, help="training steps the trace covers (for per-step counts)")
    p.set_defaults(run=_report)


if __name__ == "__main__":
    from npu_emu.cli import main

    sys.exit(main(["formats", *sys.argv[1:]]))
