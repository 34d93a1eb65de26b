"""Private formats from Python: the Format ids, the torch_npu format API and
the debug views of a tensor's storage."""

from __future__ import annotations

import enum
import warnings
from dataclasses import dataclass
from typing import Union

import torch

from npu_emu import _C


class Format(enum.IntEnum):
    """aclFormat ids, as torch_npu.Format numbers them."""

    UNDEFINED = -1
    NCHW = 0
    NHWC = 1
    ND = 2
    NC1HWC0 = 3
    FRACTAL_Z = 4
    NC1HWC0_C04 = 12
    HWCN = 16
    NDHWC = 27
    FRACTAL_NZ = 29
    NCDHW = 30
    NDC1HWC0 = 32
    FRACTAL_Z_3D = 33
    NC = 35
    NCL = 47
    FRACTAL_NZ_C0_16 = 50
    FRACTAL_NZ_C0_32 = 51
    FRACTAL_NZ_C0_2 = 52
    FRACTAL_NZ_C0_4 = 53
    FRACTAL_NZ_C0_8 = 54


@dataclass(frozen=True)
class StorageDesc:
    """What an npu storage records about its layout (shared by all its views)."""

    base_sizes: tuple[int, ...]
    base_strides: tuple[int, ...]
    storage_sizes: tuple[int, ...]
    origin_format: Format
    npu_format: Format
    dtype: str


def describe_storage(t: torch.Tensor) -> StorageDesc:
    d = _C._storage_desc(t)
    return StorageDesc(tuple(d["base_sizes"]), tuple(d["base_strides"]), tuple(d["storage_sizes"]),
                       Format(d["origin_format"]), Format(d["npu_format"]), d["dtype"])


def read_storage(t: torch.Tensor) -> torch.Tensor:
    return _C._storage_data(t)


def _format_id(acl_format: int | Format) -> int:
    if not isinstance(acl_format, int):
        raise TypeError(f"acl_format must be an int or torch_npu.Format, got {type(acl_format).__name__}")
    return int(acl_format)


DtypeArg = Union[torch.dtype, int, None]


def npu_format_cast(self: torch.Tensor, acl_format: int | torch.Tensor, *, customize_dtype: DtypeArg = None,
                    input_dtype: DtypeArg = None) -> torch.Tensor:
    """`self` in another storage format (a Tensor argument: that tensor's format).
    customize_dtype picks the block size (C0) of another dtype's layout, as
    torch_npu's does: a torch.dtype, its ScalarType code, or a torch_npu
    dtype code (aclDataType + 256)."""
    dtypes = {"customize_dtype": _dtype_code(customize_dtype), "input_dtype": _dtype_code(input_dtype)}
    if isinstance(acl_format, torch.Tensor):
        return torch.ops.npu.npu_format_cast.Tensor(self, acl_format, **dtypes)
    _warn_rank_fallback(self, _format_id(acl_format))
    return torch.ops.npu.npu_format_cast(self, _format_id(acl_format), **dtypes)


def npu_format_cast_(self: torch.Tensor, acl_format: int | torch.Tensor, *, customize_dtype: DtypeArg = None,
                     input_dtype: DtypeArg = None) -> torch.Tensor:
    dtypes = {"customize_dtype": _dtype_code(customize_dtype), "input_dtype": _dtype_code(input_dtype)}
    if isinstance(acl_format, torch.Tensor):
        return torch.ops.npu.npu_format_cast_(self, acl_format, **dtypes)
    _warn_rank_fallback(self, _format_id(acl_format))
    return torch.ops.npu.npu_format_cast_.acl_format(self, _format_id(acl_format), **dtypes)


def get_npu_format(self: torch.Tensor) -> int:
    return torch.ops.npu.get_npu_format(self)


def get_storage_size(self: torch.Tensor) -> int:
    return torch.ops.npu.get_storage_size(self)


_NZ_FAMILY = {Format.FRACTAL_NZ, *range(Format.FRACTAL_NZ_C0_16, Format.FRACTAL_NZ_C0_8 + 1)}


def _warn_rank_fallback(t: torch.Tensor, acl_format: int) -> None:
    # The C++ op applies the fallback; warnings raised inside custom ops reach
    # only stderr, so the Python entry points say it as a Python warning.
    if acl_format in _NZ_FAMILY and t.dim() < 2:
        warnings.warn(f"FRACTAL_NZ needs a tensor of rank >= 2, got rank {t.dim()}: using ND instead", stacklevel=3)
    elif acl_format == Format.NCHW and t.dim() != 4:
        warnings.warn(f"NCHW needs a 4-D tensor, got rank {t.dim()}: using ND instead", stacklevel=3)


def _warn_internal_format(acl_format: int, keep_format: bool) -> None:
    if acl_format in (Format.NCHW, Format.NHWC, Format.ND, Format.NCDHW, Format.NC, Format.NCL) or keep_format:
        return
    if not torch.npu.config.allow_internal_format:
        warnings.warn(f"empty_with_format: torch.npu.config.allow_internal_format is False, so the tensor is created "
                      f"in its base format instead of {Format(acl_format).name}", stacklevel=3)


def empty_with_format(size, *, dtype: torch.dtype | None = None, layout: torch.layout | None = None,
                      device: torch.device | str | None = None, pin_memory: bool | None = False,
                      acl_format: int = 2) -> torch.Tensor:
    _warn_internal_format(_format_id(acl_format), False)
    return torch.ops.npu.empty_with_format(list(size), dtype=dtype, layout=layout, device=_device(device),
                                           pin_memory=pin_memory, acl_format=_format_id(acl_format))


def unsafe_empty_with_format(size, *, dtype: torch.dtype | None = None, layout: torch.layout | None = None,
                             device: torch.device | str | None = None, pin_memory: bool | None = False,
                             acl_format: int = 2, keep_format: bool = False) -> torch.Tensor:
    _warn_internal_format(_format_id(acl_format), keep_format)
    return torch.ops.npu.unsafe_empty_with_format(list(size), dtype=dtype, layout=layout, device=_device(device),
                                                  pin_memory=pin_memory, acl_format=_format_id(acl_format),
                                                  keep_format=keep_format)


def _device(device: torch.device | str | None) -> torch.device | None:
    return None if device is None else torch.device(device)


def _dtype_code(dtype: DtypeArg) -> int | None:
    # ScalarType codes as c10 numbers them (what `int? customize_dtype` carries);
    # an int passes as it is (the dispatch layer checks it, as torch_npu's codes).
    if dtype is None or (isinstance(dtype, int) and not isinstance(dtype, bool)):
        return dtype
    codes = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
             torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}
    if dtype not in codes:
        raise ValueError(f"customize_dtype/input_dtype must be an int code or one of "
                         f"{sorted(str(d) for d in codes)}, got {dtype}")
    return codes[dtype]
