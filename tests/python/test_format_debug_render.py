"""Pictures of a tensor's physical layout (npu_emu.debug.render_text /
render_png) and the `npu-emu formats` command."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from npu_emu import debug
from npu_emu.cli import main
from npu_emu.debug import render
from npu_emu.formats import Format, npu_format_cast


def _nc1hwc0(channels: int) -> torch.Tensor:
    return npu_format_cast(torch.arange(2 * channels * 9, dtype=torch.float16).reshape(2, channels, 3, 3).npu(),
                           Format.NC1HWC0)


def _cells(text: str) -> list[str]:
    """The cells of a text picture's tiles (each tile: a header line, then rows)."""
    return [c for tile in text.split("-- tile ")[1:] for line in tile.splitlines()[1:]
            if not line.startswith("...") for c in line.split()]


def test_text_picture_marks_padding_and_the_chosen_element():
    t = _nc1hwc0(17)
    text = debug.render_text(t, (1, 16, 2, 1), max_tiles=100)
    tiles = text.split("-- tile ")[1:]
    assert len(tiles) == 4  # (n, c1) channel blocks
    cells = _cells(text)
    assert len(cells) == 2 * 2 * 9 * 16
    assert cells.count(".") == 2 * 9 * 15  # channels 17..31 of the second block
    marked = [c for c in cells if c.startswith("*")]
    assert marked == [f"*{np.ravel_multi_index((1, 16, 2, 1), (2, 17, 3, 3))}"]
    loc = debug.locate(t, (1, 16, 2, 1))
    assert f"byte offset {loc.byte_offset}" in text and str(list(loc.storage_coords)) in text
    symbols = debug.render_text(t, (0, 0, 0, 0), numbers=False, max_tiles=1)
    assert symbols.count("@") == 1 and "more tile(s) not shown" in symbols


@pytest.mark.parametrize("fmt,shape", [(Format.FRACTAL_NZ, (20, 33)), (Format.FRACTAL_Z, (18, 3, 2, 2))])
def test_text_picture_fractals(fmt, shape):
    t = npu_format_cast(torch.randn(shape).npu(), fmt)
    text = debug.render_text(t, max_tiles=1000, numbers=False)
    cells = _cells(text)
    assert cells.count(".") == debug.describe(t).padding_bytes // 4
    assert cells.count("o") == t.numel()
    assert "16 rows" in text


def _colour_pixels(image: np.ndarray, rgb) -> int:
    return int((np.abs(image[..., :3] - np.array(rgb)) < 1.5 / 255).all(axis=-1).sum())


@pytest.mark.parametrize("channels", [17, 16])
def test_png_picture_size_padding_and_highlight(tmp_path, channels):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    t = _nc1hwc0(channels)
    pic = debug.render_png(t, tmp_path / "layout.png", (0, 3, 1, 1), cell_px=10)
    assert pic.path.exists() and pic.path.stat().st_size > 0
    image = imread(pic.path)
    assert image.shape[:2] == (pic.height, pic.width)
    assert pic.padding_cells == debug.describe(t).padding_bytes // 2
    cell_area = pic.cell_px ** 2
    padding = _colour_pixels(image, render.PADDING_RGB)
    highlight = _colour_pixels(image, render.HIGHLIGHT_RGB)
    if pic.padding_cells:
        assert padding == pytest.approx(pic.padding_cells * cell_area, rel=0.15)
    else:
        assert padding == 0
    assert highlight == pytest.approx(cell_area, rel=0.3)


def test_png_without_matplotlib_is_a_clear_error(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match="needs matplotlib.*pip install matplotlib"):
        debug.render_png(_nc1hwc0(17), tmp_path / "x.png")


def test_cli_describe_locate_show(capsys, tmp_path):
    spec = ["--shape", "2,17,5,5", "--format", "NC1HWC0", "--dtype", "float16"]
    assert main(["formats", "describe", *spec]) == 0
    out = capsys.readouterr().out
    assert "storage shape [2, 2, 5, 5, 16]" in out and "npu_format_cast" in out
    assert main(["formats", "locate", *spec, "--index", "1,16,2,3"]) == 0
    out = capsys.readouterr().out
    assert "storage [1, 1, 2, 3, 0]" in out
    byte = ((((1 * 2 + 1) * 5 + 2) * 5 + 3) * 16) * 2
    assert f"byte offset {byte}" in out
    assert main(["formats", "locate", *spec, "--offset", str(byte + 2)]) == 0
    assert "padding" in capsys.readouterr().out
    png = tmp_path / "show.png"
    args = ["formats", "show", *spec, "--index", "1,16,2,3"]
    if _has_matplotlib():
        args += ["--png", str(png)]
    assert main(args) == 0
    assert "*" in capsys.readouterr().out
    assert png.exists() == _has_matplotlib()


def test_cli_compare_saved_tensors(capsys, tmp_path):
    cpu = torch.randn(2, 20, 3, 3)
    torch.save(npu_format_cast(cpu.npu(), Format.NC1HWC0), tmp_path / "a.pt")
    torch.save(cpu.npu(), tmp_path / "b.pt")
    cpu[1, 18, 2, 2] = 5.0
    torch.save(cpu.npu(), tmp_path / "c.pt")
    assert main(["formats", "compare", str(tmp_path / "a.pt"), str(tmp_path / "b.pt")]) == 0
    assert "all equal" in capsys.readouterr().out
    assert main(["formats", "compare", str(tmp_path / "a.pt"), str(tmp_path / "c.pt")]) == 1
    out = capsys.readouterr().out
    assert "1 differ" in out and "[1, 18, 2, 2]" in out


def test_cli_describe_saved_tensor(capsys, tmp_path):
    torch.save(npu_format_cast(torch.randn(3, 40).npu(), Format.FRACTAL_NZ), tmp_path / "w.pt")
    assert main(["formats", "describe", "--tensor", str(tmp_path / "w.pt")]) == 0
    out = capsys.readouterr().out
    assert "format FRACTAL_NZ (base ND), C0 = 16" in out and "storage shape [3, 1, 16, 16]" in out


def test_cli_rejects_bad_format(capsys):
    with pytest.raises(SystemExit):
        main(["formats", "describe", "--shape", "2,3", "--format", "NOPE"])
    assert "format must be a name or id" in capsys.readouterr().err


def test_cli_report(capsys, tmp_path):
    trace = tmp_path / "t.jsonl"
    events = [{"event": "cast", "op": "aten::linear", "site": "model.py:10 (forward)", "from": "FRACTAL_NZ",
               "to": "ND", "bytes": 100}] * 3 + [
              {"event": "cast", "op": "aten::sum", "site": "model.py:12 (forward)", "from": "NC1HWC0",
               "to": "NCHW", "bytes": 50},
              {"event": "fallback", "op": "aten::foo", "fallback_op": "foo", "site": "model.py:13 (forward)",
               "bytes": 8}]
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    args = ["formats", "report", str(trace), "--steps", "2"]
    if _has_matplotlib():
        args += ["--plot", str(tmp_path / "r.png")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "4 format casts (2 per step)" in out
    assert "75 % of the casts at model.py:10 (forward)" in out
    assert "1 CPU fallbacks" in out and "foo" in out
    assert (tmp_path / "r.png").exists() == _has_matplotlib()


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_report_plot_shows_the_conversions_inside_aclnn_entries(tmp_path):
    pytest.importorskip("matplotlib")
    from npu_emu.debug.trace_report import plot_panels, report_plot, summarize

    events = [{"event": "cast", "op": "aten::abs", "site": "train.py:5 (step)", "from": "NC1HWC0", "to": "NCHW",
               "bytes": 64}] + [
              {"event": "entry_cast", "op": "aten::add_", "entry": "aclnnAdd", "param": "self", "from": "FRACTAL_Z",
               "to": "NCHW", "site": "train.py:9 (step)", "bytes": 32}] * 3
    summary = summarize(events)
    titles = [title for title, _ in plot_panels(summary)]
    assert titles == ["casts per call site", "casts per op", "conversions inside aclnn entries per call site",
                      "conversions inside aclnn entries per entry and parameter"], "no empty fallback panel"
    path = report_plot(summary, tmp_path / "r.png")
    from PIL import Image

    with Image.open(path) as image:
        assert image.size == (1000, 320 * len(titles))


@pytest.mark.parametrize("fmt,shape,index", [
    (Format.FRACTAL_NZ, (20, 33), (17, 30)), (Format.FRACTAL_NZ, (2, 5, 19), (1, 4, 18)),
    (Format.FRACTAL_Z, (18, 3, 2, 2), (17, 2, 1, 0)), (Format.NC1HWC0_C04, (2, 3, 2, 2), (1, 2, 1, 1)),
    (Format.NDC1HWC0, (1, 17, 2, 2, 2), (0, 16, 1, 1, 1)),
], ids=lambda v: v.name if isinstance(v, Format) else None)
def test_png_picture_of_every_tiled_format_marks_its_padding_and_the_element(tmp_path, fmt, shape, index):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    t = npu_format_cast(torch.randn(shape).npu(), fmt)
    pic = debug.render_png(t, tmp_path / "layout.png", index, cell_px=8)
    image = imread(pic.path)
    assert image.shape[:2] == (pic.height, pic.width)
    assert pic.padding_cells == debug.describe(t).padding_bytes // t.element_size() > 0
    assert _colour_pixels(image, render.PADDING_RGB) == pytest.approx(pic.padding_cells * pic.cell_px ** 2, rel=0.15)
    assert _colour_pixels(image, render.HIGHLIGHT_RGB) == pytest.approx(pic.cell_px ** 2, rel=0.3)
