"""The storage formats as arithmetic, straight from FORMATS.md: for a logical
shape, format and element size, the storage shape and C0, and the maps from a
logical element to its storage coordinates and back.

This is the debugger's own model of the spec (pure Python and numpy, no
device): `npu_emu.debug` checks it against what a tensor's storage descriptor
says, and the tests check both against the device's bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from npu_emu.formats import Format

FRACTAL = 16  # M0 = N0: the row edge of every fractal

_NZ_C0 = {Format.FRACTAL_NZ_C0_16: 16, Format.FRACTAL_NZ_C0_32: 32, Format.FRACTAL_NZ_C0_2: 2,
          Format.FRACTAL_NZ_C0_4: 4, Format.FRACTAL_NZ_C0_8: 8}
NZ_FAMILY = frozenset({Format.FRACTAL_NZ, *_NZ_C0})
BASE_FORMATS = frozenset({Format.NCHW, Format.NHWC, Format.ND, Format.NCDHW, Format.NC, Format.NCL})
_PADS_TO_4D = frozenset({Format.NC1HWC0, Format.NC1HWC0_C04, Format.FRACTAL_Z})
_RANK_5 = frozenset({Format.NDHWC, Format.NDC1HWC0, Format.FRACTAL_Z_3D})
STORABLE = BASE_FORMATS | NZ_FAMILY | _PADS_TO_4D | _RANK_5


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def c0_of(fmt: Format, itemsize: int) -> int:
    """C0 (the innermost block edge) of `fmt` for elements of `itemsize` bytes; 0 for formats without one."""
    if fmt in (Format.NC1HWC0, Format.FRACTAL_Z, Format.NDC1HWC0, Format.FRACTAL_Z_3D):
        return 16
    if fmt == Format.NC1HWC0_C04:
        return 4
    if fmt == Format.FRACTAL_NZ:
        return 32 // min(itemsize, 2)
    return _NZ_C0.get(fmt, 0)


def padded_shape(fmt: Format, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape the format lays out: lower ranks padded to 4-D for the NCHW-based blocked formats."""
    if fmt not in _PADS_TO_4D or len(shape) >= 4:
        return tuple(shape)
    return {0: (1, 1, 1, 1), 1: (1, shape[0], 1, 1) if shape else (), 2: (1, *shape, 1),
            3: (1, *shape)}[len(shape)]


def _pad_index(fmt: Format, shape: tuple[int, ...], index: tuple) -> tuple:
    if fmt not in _PADS_TO_4D or len(shape) >= 4:
        return tuple(index)
    zero = 0 * index[0] if index else 0
    return {0: (zero, zero, zero, zero), 1: (zero, *index, zero, zero) if index else (),
            2: (zero, *index, zero), 3: (zero, *index)}[len(shape)]


def _unpad_index(fmt: Format, shape: tuple[int, ...], padded: tuple) -> tuple:
    if fmt not in _PADS_TO_4D or len(shape) >= 4:
        return tuple(padded)
    return {0: (), 1: (padded[1],), 2: (padded[1], padded[2]), 3: tuple(padded[1:])}[len(shape)]


@dataclass(frozen=True)
class Layout:
    """How a logical tensor of `shape` and `itemsize`-byte elements lies in `fmt`."""

    shape: tuple[int, ...]
    format: Format
    itemsize: int

    def __post_init__(self) -> None:
        if self.format not in STORABLE:
            raise ValueError(f"format must be one of {sorted(f.name for f in STORABLE)}, got {self.format!r}")
        if self.itemsize not in (1, 2, 4, 8):
            raise ValueError(f"itemsize must be 1, 2, 4 or 8, got {self.itemsize}")
        rank = len(self.shape)
        if self.format in _RANK_5 and rank != 5:
            raise ValueError(f"{self.format.name} holds 5-D tensors, got shape {list(self.shape)}")
        if self.format in _PADS_TO_4D and rank > 4:
            raise ValueError(f"{self.format.name} holds tensors of rank 0 to 4, got shape {list(self.shape)}")
        if self.format in NZ_FAMILY and rank < 2:
            raise ValueError(f"{self.format.name} holds tensors of rank >= 2, got shape {list(self.shape)}")

    @property
    def c0(self) -> int:
        return c0_of(self.format, self.itemsize)

    @property
    def padded(self) -> tuple[int, ...]:
        return padded_shape(self.format, self.shape)

    @property
    def storage_shape(self) -> tuple[int, ...]:
        s, c0, f = self.padded, self.c0, self.format
        if f in (Format.NC1HWC0, Format.NC1HWC0_C04):
            return (s[0], cdiv(s[1], c0), s[2], s[3], c0)
        if f == Format.FRACTAL_Z:
            return (cdiv(s[1], c0) * s[2] * s[3], cdiv(s[0], FRACTAL), FRACTAL, c0)
        if f == Format.NDHWC:
            return (s[0], s[2], s[3], s[4], s[1])
        if f == Format.NDC1HWC0:
            return (s[0], s[2], cdiv(s[1], c0), s[3], s[4], c0)
        if f == Format.FRACTAL_Z_3D:
            return (s[2] * cdiv(s[1], c0) * s[3] * s[4], cdiv(s[0], FRACTAL), FRACTAL, c0)
        if f in NZ_FAMILY:
            return (*s[:-2], cdiv(s[-1], c0), cdiv(s[-2], FRACTAL), FRACTAL, c0)
        return tuple(s)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def storage_numel(self) -> int:
        return math.prod(self.storage_shape)

    @property
    def padding_elements(self) -> int:
        return self.storage_numel - self.numel

    def padded_index(self, index) -> tuple:
        """`index` in the padded shape (itself unless the format pads the rank to 4-D)."""
        return _pad_index(self.format, self.shape, tuple(index))

    # -- logical -> storage -------------------------------------------------

    def to_storage(self, index) -> tuple:
        """Storage coordinates of logical element `index` (ints, or numpy arrays of indices)."""
        n_, c_, f = self.padded, self.c0, self.format
        i = _pad_index(f, self.shape, tuple(index))
        if f in (Format.NC1HWC0, Format.NC1HWC0_C04):
            n, c, h, w = i
            return (n, c // c_, h, w, c % c_)
        if f == Format.FRACTAL_Z:
            n, c, h, w = i
            return (((c // c_) * n_[2] + h) * n_[3] + w, n // FRACTAL, n % FRACTAL, c % c_)
        if f == Format.NDHWC:
            n, c, d, h, w = i
            return (n, d, h, w, c)
        if f == Format.NDC1HWC0:
            n, c, d, h, w = i
            return (n, d, c // c_, h, w, c % c_)
        if f == Format.FRACTAL_Z_3D:
            n, c, d, h, w = i
            c1 = cdiv(n_[1], c_)
            return ((((d * c1 + c // c_) * n_[3] + h) * n_[4]) + w, n // FRACTAL, n % FRACTAL, c % c_)
        if f in NZ_FAMILY:
            *b, m, k = i
            return (*b, k // c_, m // FRACTAL, m % FRACTAL, k % c_)
        return i

    # -- storage -> logical -------------------------------------------------

    def from_storage(self, coords) -> tuple | None:
        """The logical index stored at storage coordinates `coords`, or None for a padding slot."""
        coords = tuple(int(x) for x in coords)
        s, n_, c_, f = self.storage_shape, self.padded, self.c0, self.format
        if len(coords) != len(s) or any(not 0 <= x < d for x, d in zip(coords, s)):
            raise IndexError(f"storage coordinates {list(coords)} outside the storage shape {list(s)}")
        if f in (Format.NC1HWC0, Format.NC1HWC0_C04):
            n, c1, h, w, c0 = coords
            p = (n, c1 * c_ + c0, h, w)
        elif f == Format.FRACTAL_Z:
            row, n1, n0, c0 = coords
            hw = n_[2] * n_[3]
            p = (n1 * FRACTAL + n0, (row // hw) * c_ + c0, (row // n_[3]) % n_[2], row % n_[3])
        elif f == Format.NDHWC:
            n, d, h, w, c = coords
            p = (n, c, d, h, w)
        elif f == Format.NDC1HWC0:
            n, d, c1, h, w, c0 = coords
            p = (n, c1 * c_ + c0, d, h, w)
        elif f == Format.FRACTAL_Z_3D:
            row, n1, n0, c0 = coords
            c1n = cdiv(n_[1], c_)
            w = row % n_[4]
            h = (row // n_[4]) % n_[3]
            c1 = (row // (n_[4] * n_[3])) % c1n
            d = row // (n_[4] * n_[3] * c1n)
            p = (n1 * FRACTAL + n0, c1 * c_ + c0, d, h, w)
        elif f in NZ_FAMILY:
            *b, k1, m1, m0, k0 = coords
            p = (*b, m1 * FRACTAL + m0, k1 * c_ + k0)
        else:
            p = coords
        if any(x >= d for x, d in zip(p, n_)):
            return None
        return _unpad_index(f, self.shape, p)

    # -- offsets ------------------------------------------------------------

    def storage_offset_of(self, coords) -> int:
        """Element offset of storage coordinates `coords` (row-major over the storage shape)."""
        return int(np.ravel_multi_index(tuple(int(x) for x in coords), self.storage_shape))

    def coords_of_offset(self, offset: int) -> tuple[int, ...]:
        if not 0 <= offset < self.storage_numel:
            raise IndexError(f"element offset {offset} outside the storage of {self.storage_numel} elements")
        return tuple(int(x) for x in np.unravel_index(offset, self.storage_shape))

    def logical_to_storage_map(self) -> np.ndarray:
        """For every logical element (array of `shape`), its element offset in the storage."""
        if self.numel == 0:
            return np.zeros(self.shape, dtype=np.int64)
        idx = np.indices(self.shape, dtype=np.int64) if self.shape else np.zeros((0,), dtype=np.int64)
        coords = self.to_storage(tuple(idx)) if self.shape else self.to_storage(())
        coords = tuple(np.broadcast_to(np.asarray(c, dtype=np.int64), self.shape) for c in coords)
        return np.ravel_multi_index(coords, self.storage_shape).astype(np.int64).reshape(self.shape)

    def storage_to_logical_map(self) -> np.ndarray:
        """For every storage element (array of `storage_shape`), the flat logical index it holds, -1 for padding."""
        out = np.full(self.storage_numel, -1, dtype=np.int64)
        if self.numel:
            out[self.logical_to_storage_map().reshape(-1)] = np.arange(self.numel, dtype=np.int64)
        return out.reshape(self.storage_shape)
