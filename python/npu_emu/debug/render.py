"""Pictures of a tensor's physical layout: the storage cut into the tiles
the format is made of (NC1HWC0 channel blocks, FRACTAL_Z / FRACTAL_NZ
fractals, rows of a base format), each cell showing which logical element
it holds, padding marked, one chosen element highlighted with its path from
logical index to byte offset. As text for a terminal, or as a PNG
(matplotlib)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from npu_emu.debug.inspect_tensor import Location, TensorLayout, locate, tensor_layout
from npu_emu.formats import Format

# PNG colours (RGB in [0, 1]): data cells take viridis by logical order and
# text is grey-scale; neither contains these.
PADDING_RGB = (0.95, 0.60, 0.60)
HIGHLIGHT_RGB = (1.0, 0.0, 1.0)
BACKGROUND_RGB = (1.0, 1.0, 1.0)

# Storage dim names by format, and how many trailing dims before the last
# make a tile's rows (the last dim is its columns).
_DIM_NAMES = {
    Format.NC1HWC0: ("N", "C1", "H", "W", "C0"),
    Format.NC1HWC0_C04: ("N", "C1", "H", "W", "C0"),
    Format.NDC1HWC0: ("N", "D", "C1", "H", "W", "C0"),
    Format.FRACTAL_Z: ("C1HW", "N1", "N0", "C0"),
    Format.FRACTAL_Z_3D: ("DC1HW", "N1", "N0", "C0"),
    Format.NDHWC: ("N", "D", "H", "W", "C"),
}
_ROW_DIMS = {Format.NC1HWC0: 2, Format.NC1HWC0_C04: 2, Format.NDC1HWC0: 2}


@dataclass(frozen=True)
class Tiles:
    """The storage as tiles: `logical[i, r, c]` is the flat index (into the
    logical tensor the storage holds) of the element at row r, column c of
    tile i, -1 for padding; `offsets` the element offsets in the storage."""

    logical: np.ndarray
    offsets: np.ndarray
    labels: tuple[str, ...]
    dim_names: tuple[str, ...]
    rows_name: str
    cols_name: str
    layout: TensorLayout


def tiles_of(t: torch.Tensor) -> Tiles:
    tl = tensor_layout(t)
    if tl.layout is None:
        shape = tl.base_shape
        if t.device.type == "npu" or t.is_contiguous():
            whole = tuple(t.shape) if math.prod(t.shape) == shape[0] and t.storage_offset() == 0 else shape
            shape = whole
        logical = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
        names = tuple(f"d{i}" for i in range(len(shape)))
        row_dims = 1
    else:
        logical = tl.layout.storage_to_logical_map()
        shape = tl.layout.storage_shape
        fmt = tl.format
        names = _DIM_NAMES.get(fmt) or (*(f"B{i}" for i in range(len(shape) - 4)), "K1", "M1", "M0", "K0")
        row_dims = _ROW_DIMS.get(fmt, 1)
    if len(shape) == 0:
        logical, shape, names = logical.reshape(1, 1), (1, 1), ("d0", "d1")
    elif len(shape) == 1:
        logical, shape, names = logical.reshape(1, shape[0]), (1, shape[0]), ("row", *names)
    row_dims = min(row_dims, len(shape) - 1)
    lead = shape[: len(shape) - 1 - row_dims]
    rows = math.prod(shape[len(lead):-1])
    offsets = np.arange(logical.size, dtype=np.int64).reshape(-1, rows, shape[-1])
    labels = tuple(" ".join(f"{n}={i}" for n, i in zip(names, idx)) or "storage" for idx in np.ndindex(*lead))
    rows_name = "·".join(names[len(lead):-1])
    return Tiles(logical.reshape(-1, rows, shape[-1]), offsets, labels, names, rows_name, names[-1], tl)


def _chosen(t: torch.Tensor, index) -> Location | None:
    return None if index is None else locate(t, index)


def _tiles_to_show(tiles: Tiles, highlight: int | None, max_tiles: int) -> list[int]:
    n = tiles.logical.shape[0]
    shown = list(range(min(n, max_tiles)))
    if highlight is not None:
        tile = int(highlight // tiles.offsets[0].size)
        if tile not in shown:
            shown[-1] = tile
    return shown


def path_text(t: torch.Tensor, loc: Location) -> str:
    tl = tensor_layout(t)
    c0 = f", C0={tl.layout.c0}" if tl.layout is not None and tl.layout.c0 else ""
    lines = [f"element {list(loc.index)} of {list(t.shape)} ({str(t.dtype).removeprefix('torch.')}, "
             f"{tl.format.name}{c0})"]
    if loc.base_index != loc.index:
        lines.append(f"  = element {list(loc.base_index)} of the stored tensor {list(tl.base_shape)}")
    if tl.layout is not None and tl.layout.padded != tl.layout.shape:
        padded = [int(i) for i in tl.layout.padded_index(loc.base_index)]
        lines.append(f"  = element {padded} of {list(tl.layout.padded)} (rank padded to 4-D)")
    lines.append(f"  -> storage {list(loc.storage_coords)} of {list(loc.storage_shape)}")
    lines.append(f"  -> element offset {loc.element_offset}, byte offset {loc.byte_offset}")
    return "\n".join(lines)


def render_text(t: torch.Tensor, index=None, *, max_tiles: int = 8, numbers: bool | None = None) -> str:
    """The storage of `t` as text tiles: each cell the flat logical index it
    holds (`numbers`, default when the tensor is small) or `o`, `.` for
    padding; the element at `index` marked `@` (or `*N`) with its path."""
    if max_tiles < 1:
        raise ValueError(f"max_tiles must be >= 1, got {max_tiles}")
    tiles = tiles_of(t)
    loc = _chosen(t, index)
    hi = None if loc is None else loc.element_offset
    total = int(tiles.logical.max(initial=-1)) + 1
    if numbers is None:
        numbers = total <= 10000
    width = max(2, len(str(max(total - 1, 0))) + (1 if hi is not None else 0))
    tl = tiles.layout
    pad = int((tiles.logical < 0).sum())
    out = [f"{tl.format.name} storage {list(tiles.logical.shape[0:1])[0]} tile(s) of "
           f"{tiles.logical.shape[1]} rows ({tiles.rows_name}) x {tiles.logical.shape[2]} columns "
           f"({tiles.cols_name}); {pad} of {tiles.logical.size} slots are padding ('.')"]
    if loc is not None:
        out.append(path_text(t, loc))
    shown = _tiles_to_show(tiles, hi, max_tiles)
    for k in shown:
        out.append(f"-- tile {tiles.labels[k]} (storage elements {int(tiles.offsets[k].min())}.."
                   f"{int(tiles.offsets[k].max())})")
        for r in range(tiles.logical.shape[1]):
            cells = []
            for c in range(tiles.logical.shape[2]):
                v, off = int(tiles.logical[k, r, c]), int(tiles.offsets[k, r, c])
                if off == hi:
                    cell = f"*{v}" if numbers else "@"
                elif v < 0:
                    cell = "."
                else:
                    cell = str(v) if numbers else "o"
                cells.append(cell.rjust(width if numbers else 1))
            out.append(" ".join(cells))
    if len(shown) < tiles.logical.shape[0]:
        out.append(f"... {tiles.logical.shape[0] - len(shown)} more tile(s) not shown (max_tiles={max_tiles})")
    return "\n".join(out)


@dataclass(frozen=True)
class Picture:
    path: Path
    width: int
    height: int
    cell_px: int
    data_cells: int
    padding_cells: int
    highlighted: Location | None


def _require_matplotlib():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("npu_emu.debug.render_png needs matplotlib, which is not installed: "
                          "pip install matplotlib (or use render_text for a text picture)") from e
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    return Figure, FigureCanvasAgg


HEADER_PX = 64
DPI = 100


def render_png(t: torch.Tensor, path: str | Path, index=None, *, max_tiles: int = 64, cell_px: int = 12) -> Picture:
    """Writes the storage of `t` as a PNG: tiles as in render_text, data
    cells coloured by logical order (viridis), padding light red (PADDING_RGB),
    the element at `index` magenta with its path in the header."""
    if max_tiles < 1 or cell_px < 2:
        raise ValueError(f"max_tiles must be >= 1 and cell_px >= 2, got {max_tiles} and {cell_px}")
    Figure, FigureCanvasAgg = _require_matplotlib()
    from matplotlib import colormaps

    tiles = tiles_of(t)
    loc = _chosen(t, index)
    hi = None if loc is None else loc.element_offset
    shown = _tiles_to_show(tiles, hi, max_tiles)
    rows, cols = tiles.logical.shape[1:]
    per_row = max(1, min(len(shown), math.ceil(math.sqrt(len(shown) * (rows + 1) / (cols + 1)))))
    grid_rows = math.ceil(len(shown) / per_row)
    h_cells, w_cells = grid_rows * (rows + 1), per_row * (cols + 1)
    cell_px = max(cell_px, min(40, math.ceil(480 / w_cells)))
    img = np.ones((h_cells, w_cells, 3)) * np.array(BACKGROUND_RGB)
    total = max(int(tiles.logical.max(initial=0)), 1)
    cmap = colormaps["viridis"]
    data = padding = 0
    placed = []
    for slot, k in enumerate(shown):
        r0, c0 = (slot // per_row) * (rows + 1), (slot % per_row) * (cols + 1)
        block = tiles.logical[k]
        colors = cmap(np.clip(block, 0, None) / total)[..., :3]
        colors[block < 0] = PADDING_RGB
        if hi is not None:
            colors[tiles.offsets[k] == hi] = HIGHLIGHT_RGB
        img[r0 + 1:r0 + 1 + rows, c0:c0 + cols] = colors
        data += int((block >= 0).sum())
        padding += int((block < 0).sum())
        placed.append((r0, c0, tiles.labels[k]))
    width, image_h = w_cells * cell_px, h_cells * cell_px
    height = image_h + HEADER_PX
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, image_h / height))
    ax.imshow(img, interpolation="nearest", aspect="auto", extent=(0, w_cells, h_cells, 0))
    ax.set_axis_off()
    for r0, c0, label in placed:
        ax.text(c0, r0 + 0.85, label, fontsize=max(5, min(9, cell_px * 0.7)), va="bottom", ha="left")
    tl = tiles.layout
    c0_text = f", C0={tl.layout.c0}" if tl.layout is not None and tl.layout.c0 else ""
    header = [f"{tl.format.name}{c0_text}: {tiles.logical.shape[0]} tile(s) of {rows} ({tiles.rows_name}) x "
              f"{cols} ({tiles.cols_name})",
              f"light red = padding ({int((tiles.logical < 0).sum())} of {tiles.logical.size} slots)"]
    if len(shown) < tiles.logical.shape[0]:
        header.append(f"{len(shown)} of {tiles.logical.shape[0]} tiles shown")
    if loc is not None:
        header.append(f"magenta: element {list(loc.index)} -> storage {list(loc.storage_coords)}, "
                      f"byte {loc.byte_offset}")
    fig.text(0.005, 1 - 4 / height, "\n".join(header), va="top", ha="left", fontsize=8, family="monospace")
    path = Path(path)
    fig.savefig(path, dpi=DPI)
    return Picture(path, width, height, cell_px, data, padding, loc)
