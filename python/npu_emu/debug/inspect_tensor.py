"""One tensor's storage, explained: describe its format, locate a logical
element in the storage (and the reverse), compare two tensors through their
physical bytes, and say why the tensor has its format."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from npu_emu import _C
from npu_emu.debug.layout import BASE_FORMATS, Layout
from npu_emu.formats import Format, describe_storage


def _require_tensor(t: object, what: str) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{what} expects a torch.Tensor, got {type(t).__name__}")
    if t.is_sparse or t.layout != torch.strided:
        raise TypeError(f"{what} expects a strided (dense) tensor, got layout {t.layout}")
    return t


@dataclass(frozen=True)
class TensorLayout:
    """A tensor's storage as the debugger sees it: the whole logical tensor
    its storage holds (`base_shape`, in `format`), the view `t` takes of it,
    and the arithmetic of the format (`layout`)."""

    shape: tuple[int, ...]          # the tensor's (view's) logical shape
    strides: tuple[int, ...]        # its strides over the base layout
    offset: int                     # its storage offset, in base elements
    base_shape: tuple[int, ...]     # the logical tensor the storage holds (base formats: all its elements, 1-D)
    format: Format
    layout: Layout | None           # the private format's arithmetic; None for base formats (row-major)
    itemsize: int
    dtype: torch.dtype


def tensor_layout(t: torch.Tensor) -> TensorLayout:
    """The layout of `t`'s storage: its format's arithmetic for npu tensors
    with a private format, the row-major base layout otherwise (CPU tensors
    included)."""
    _require_tensor(t, "tensor_layout")
    itemsize = t.element_size()
    nbytes = t.untyped_storage().nbytes()
    if t.device.type == "npu":
        d = describe_storage(t)
        if d.npu_format not in BASE_FORMATS and d.npu_format != Format.UNDEFINED:
            layout = Layout(tuple(d.base_sizes), d.npu_format, itemsize)
            if layout.storage_shape != tuple(d.storage_sizes):
                raise RuntimeError(f"npu_emu.debug's model of {d.npu_format.name} gives storage shape "
                                   f"{list(layout.storage_shape)} for {list(d.base_sizes)}, the device says "
                                   f"{list(d.storage_sizes)}: please report this as a bug")
            return TensorLayout(tuple(t.shape), tuple(t.stride()), t.storage_offset(), tuple(d.base_sizes),
                                d.npu_format, layout, itemsize, t.dtype)
    # Base formats: the storage is row-major elements; the view addresses them directly.
    flat = nbytes // itemsize if itemsize else 0
    fmt = Format.NCHW if t.dim() == 4 else Format.NCDHW if t.dim() == 5 else Format.ND
    if t.device.type == "npu":
        fmt = describe_storage(t).npu_format
        fmt = fmt if fmt in BASE_FORMATS else Format.ND
    return TensorLayout(tuple(t.shape), tuple(t.stride()), t.storage_offset(), (flat,), fmt, None, itemsize, t.dtype)


def _is_base(tl: TensorLayout) -> bool:
    return tl.layout is None


def _storage_coords(tl: TensorLayout, base_index: tuple[int, ...]) -> tuple[int, ...]:
    return base_index if _is_base(tl) else tuple(int(x) for x in tl.layout.to_storage(base_index))


def _storage_shape(tl: TensorLayout) -> tuple[int, ...]:
    return tl.base_shape if _is_base(tl) else tl.layout.storage_shape


# -- describe ---------------------------------------------------------------


@dataclass(frozen=True)
class FormatDescription:
    shape: tuple[int, ...]
    dtype: str
    format: str
    base_format: str
    storage_shape: tuple[int, ...]
    c0: int | None
    logical_bytes: int
    storage_bytes: int
    padding_bytes: int

    @property
    def padding_share(self) -> float:
        return self.padding_bytes / self.storage_bytes if self.storage_bytes else 0.0

    def __str__(self) -> str:
        c0 = f", C0 = {self.c0}" if self.c0 else ""
        return (f"logical shape {list(self.shape)} {self.dtype}, format {self.format} (base {self.base_format}){c0}\n"
                f"storage shape {list(self.storage_shape)}: {self.storage_bytes} bytes, of which "
                f"{self.padding_bytes} padding ({100 * self.padding_share:.1f} %)")


def describe(t: torch.Tensor) -> FormatDescription:
    """Logical shape, format, storage shape, C0 and padding of `t`'s storage
    (the whole logical tensor its storage holds, which `t` may view part of)."""
    tl = tensor_layout(t)
    dtype = str(t.dtype).removeprefix("torch.")
    if _is_base(tl):
        shape = tuple(t.shape) if t.device.type != "npu" else tuple(describe_storage(t).base_sizes)
        logical = math.prod(shape) * tl.itemsize
        return FormatDescription(shape, dtype, tl.format.name, tl.format.name, shape, None, logical, logical, 0)
    d = describe_storage(t)
    lay = tl.layout
    logical = lay.numel * lay.itemsize
    storage = lay.storage_numel * lay.itemsize
    return FormatDescription(tl.base_shape, dtype, lay.format.name, d.origin_format.name, lay.storage_shape,
                             lay.c0 or None, logical, storage, storage - logical)


# -- locate -----------------------------------------------------------------


@dataclass(frozen=True)
class Location:
    """Where one element lives. `index` is None for a padding slot (or a
    storage element the view `t` does not address); `base_index` is the
    element of the whole logical tensor the storage holds (None for padding)."""

    index: tuple[int, ...] | None
    base_index: tuple[int, ...] | None
    storage_coords: tuple[int, ...]
    storage_shape: tuple[int, ...]
    element_offset: int
    byte_offset: int
    format: str
    padding: bool = False

    def __str__(self) -> str:
        where = (f"storage {list(self.storage_coords)} of {list(self.storage_shape)} ({self.format}), "
                 f"element offset {self.element_offset}, byte offset {self.byte_offset}")
        if self.padding:
            return f"padding at {where}"
        if self.index is None:
            return f"base element {list(self.base_index)} (not in this view) at {where}"
        base = "" if self.base_index == self.index else f" (base element {list(self.base_index)})"
        return f"element {list(self.index)}{base} at {where}"


def _normalize_index(index, shape: tuple[int, ...]) -> tuple[int, ...]:
    if isinstance(index, (int, np.integer)):
        index = (int(index),)
    index = tuple(int(i) for i in index)
    if len(index) != len(shape):
        raise IndexError(f"index {list(index)} has {len(index)} coordinates, the tensor has shape {list(shape)}")
    out = []
    for i, n in zip(index, shape):
        if not -n <= i < n:
            raise IndexError(f"index {list(index)} is outside shape {list(shape)}")
        out.append(i + n if i < 0 else i)
    return tuple(out)


def _view_index(flat: int, tl: TensorLayout) -> tuple[int, ...] | None:
    """The index of `t` that addresses base element `flat`, if any (non-overlapping views)."""
    rest = flat - tl.offset
    if rest < 0:
        return None
    index = [0] * len(tl.shape)
    for dim in sorted(range(len(tl.shape)), key=lambda k: -tl.strides[k]):
        stride = tl.strides[dim]
        if stride > 0 and tl.shape[dim] > 1:
            index[dim] = min(rest // stride, tl.shape[dim] - 1)
            rest -= index[dim] * stride
    if rest != 0:
        return None
    return tuple(index)


def locate(t: torch.Tensor, index) -> Location:
    """Where logical element `index` of `t` lives in its storage."""
    tl = tensor_layout(t)
    idx = _normalize_index(index, tl.shape)
    flat = tl.offset + sum(i * s for i, s in zip(idx, tl.strides))
    base_index = tuple(int(x) for x in np.unravel_index(flat, tl.base_shape)) if tl.base_shape else ()
    coords = _storage_coords(tl, base_index)
    shape = _storage_shape(tl)
    element = int(np.ravel_multi_index(coords, shape)) if shape else 0
    return Location(idx, base_index, coords, shape, element, element * tl.itemsize, tl.format.name)


def locate_offset(t: torch.Tensor, byte_offset: int) -> Location:
    """What lives at `byte_offset` of `t`'s storage: which logical element
    (of `t`, and of the whole tensor the storage holds), or padding."""
    tl = tensor_layout(t)
    shape = _storage_shape(tl)
    numel = math.prod(shape)
    if not isinstance(byte_offset, (int, np.integer)) or not 0 <= byte_offset < numel * tl.itemsize:
        raise IndexError(f"byte_offset must be an int in [0, {numel * tl.itemsize}) for this storage of "
                         f"{numel} {str(tl.dtype).removeprefix('torch.')} elements, got {byte_offset!r}")
    element = int(byte_offset) // tl.itemsize
    coords = tuple(int(x) for x in np.unravel_index(element, shape)) if shape else ()
    base_index = coords if _is_base(tl) else tl.layout.from_storage(coords)
    if base_index is None:
        return Location(None, None, coords, shape, element, element * tl.itemsize, tl.format.name, padding=True)
    flat = int(np.ravel_multi_index(base_index, tl.base_shape)) if tl.base_shape else 0
    return Location(_view_index(flat, tl), tuple(base_index), coords, shape, element, element * tl.itemsize,
                    tl.format.name)


# -- compare ----------------------------------------------------------------


def storage_values(t: torch.Tensor) -> torch.Tensor:
    """`t`'s values read from its physical storage through the format's
    arithmetic (not through the device's format-cast kernel), as a CPU tensor."""
    tl = tensor_layout(t)
    if t.device.type == "npu":
        raw = _C._storage_data(t).reshape(-1)
    else:
        raw = torch.as_strided(t, (tl.base_shape[0],), (1,), 0) if tl.base_shape[0] else t.new_empty(0)
        raw = raw.detach().clone()
    if _is_base(tl):
        base = raw
    else:
        base = raw[torch.from_numpy(tl.layout.logical_to_storage_map().reshape(-1))]
    return torch.as_strided(base, tl.shape, tl.strides, tl.offset).clone()


@dataclass(frozen=True)
class Mismatch:
    index: tuple[int, ...]
    a: object
    b: object
    a_location: Location
    b_location: Location


@dataclass(frozen=True)
class Comparison:
    shape: tuple[int, ...]
    compared: int
    mismatched: int
    first: tuple[Mismatch, ...]
    a_format: str
    b_format: str

    @property
    def equal(self) -> bool:
        return self.mismatched == 0

    def __bool__(self) -> bool:
        return self.equal

    def __str__(self) -> str:
        head = (f"{self.compared} elements of shape {list(self.shape)} compared ({self.a_format} vs "
                f"{self.b_format}): ")
        if self.equal:
            return head + "all equal"
        lines = [head + f"{self.mismatched} differ; the first {len(self.first)}:"]
        for m in self.first:
            lines.append(f"  [{', '.join(map(str, m.index))}]: {m.a!r} != {m.b!r}")
            lines.append(f"      a: storage {list(m.a_location.storage_coords)} byte {m.a_location.byte_offset}")
            lines.append(f"      b: storage {list(m.b_location.storage_coords)} byte {m.b_location.byte_offset}")
        return "\n".join(lines)


def compare(a: torch.Tensor, b: torch.Tensor, *, max_mismatches: int = 10, rtol: float = 0.0,
            atol: float = 0.0) -> Comparison:
    """Compares `a` and `b` (same logical shape, any formats or devices)
    element by element, reading each from its physical storage; mismatches
    come with their logical index and both physical locations. NaNs in the
    same place are equal; the default tolerance is exact."""
    _require_tensor(a, "compare")
    _require_tensor(b, "compare")
    if a.shape != b.shape:
        raise ValueError(f"compare needs tensors of one shape, got {list(a.shape)} and {list(b.shape)}")
    if max_mismatches < 0:
        raise ValueError(f"max_mismatches must be >= 0, got {max_mismatches}")
    va, vb = storage_values(a), storage_values(b)
    common = torch.promote_types(va.dtype, vb.dtype)
    va, vb = va.to(common), vb.to(common)
    if common.is_floating_point or common.is_complex:
        same = torch.isclose(va, vb, rtol=rtol, atol=atol, equal_nan=True)
    else:
        same = va == vb
    bad = (~same).nonzero()
    first = []
    for row in bad[:max_mismatches].tolist():
        index = tuple(row)
        first.append(Mismatch(index, va[index].item(), vb[index].item(), locate(a, index), locate(b, index)))
    fmt = lambda t: tensor_layout(t).format.name  # noqa: E731
    return Comparison(tuple(a.shape), va.numel(), int(bad.shape[0]), tuple(first), fmt(a), fmt(b))


# -- explain ----------------------------------------------------------------


@dataclass(frozen=True)
class Explanation:
    format: str
    op: str | None
    rule: str | None
    traced_op: str
    allow_internal_format: bool
    soc: str
    soc_default: bool

    def __str__(self) -> str:
        lines = [f"format {self.format}"]
        if self.op:
            during = f" while running {self.traced_op}" if self.traced_op else ""
            lines.append(f"  decided by {self.op}{during}: {self.rule}")
        elif self.format in {f.name for f in BASE_FORMATS}:
            lines.append("  no op chose a private format: a new tensor's format is its base format guessed from "
                         "its rank (4-D NCHW, 5-D NCDHW, otherwise ND)")
        else:
            lines.append("  no recorded decision (the storage was laid out before npu_emu recorded origins)")
        lines.append(f"  torch.npu.config.allow_internal_format = {self.allow_internal_format} "
                     f"(SoC {self.soc} default: {self.soc_default}); ops give private-format results only when "
                     f"it is on, explicit npu_format_cast always does")
        return "\n".join(lines)


def explain(t: torch.Tensor) -> Explanation:
    """Why `t` has its format: the op and rule that decided it (recorded where
    formats are decided), allow_internal_format and the SoC's default."""
    _require_tensor(t, "explain")
    if t.device.type != "npu":
        raise TypeError(f"explain expects an npu tensor, got a {t.device.type} tensor")
    origin = _C._storage_origin(t)
    props = _C._device_properties(t.device.index or 0)
    return Explanation(describe(t).format, origin["op"], origin["rule"], origin["traced_op"],
                       bool(_C._allow_internal_format()), props["name"], bool(props["allow_internal_format_default"]))
