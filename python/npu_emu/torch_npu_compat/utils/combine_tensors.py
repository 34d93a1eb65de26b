"""torch_npu.utils.npu_combine_tensors and helpers: put many npu tensors
into one flat buffer (each becomes a view into it), so fused optimizers
can update them with one kernel. Base-format tensors only: a tensor's
storage is its numel elements."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from npu_emu.formats import get_storage_size
from npu_emu.npu.error_codes import ErrCode, pta_error

__all__ = ["get_part_combined_tensor", "is_combined_tensor_valid", "npu_combine_tensors"]


def _check_combinable(tensors: Sequence[torch.Tensor]) -> None:
    if any(t is None for t in tensors):
        raise RuntimeError("Tensors to combine must not have `None`." + pta_error(ErrCode.PARAM))
    dtype = tensors[0].dtype
    for t in tensors:
        if t.dtype != dtype:
            raise RuntimeError(f"Tensors to combine must have the same dtype; got {dtype} and {t.dtype}"
                               + pta_error(ErrCode.TYPE))
        if t.device.type != "npu":
            raise RuntimeError(f"Tensors to combine must be on NPU, got {t.device.type}." + pta_error(ErrCode.VALUE))
        if not t.is_contiguous():
            raise RuntimeError("Tensors to combine must be contiguous." + pta_error(ErrCode.VALUE))
        if get_storage_size(t) != t.numel():
            raise RuntimeError("npu_combine_tensors: tensors in a private npu format are not supported by npu-emu; "
                               "torch_npu.npu_format_cast them to ND first" + pta_error(ErrCode.NOT_SUPPORT))


def _point_into(tensor: torch.Tensor, buffer: torch.Tensor, offset: int) -> None:
    """Makes `tensor` a view of buffer's storage from element `offset` on."""
    with torch.no_grad():
        tensor.set_(buffer.untyped_storage(), buffer.storage_offset() + offset, tensor.size(), tensor.stride())


def npu_combine_tensors(list_of_tensor: Sequence[torch.Tensor], require_copy_value: bool = True):
    """A new flat npu buffer holding every tensor back to back; each tensor
    becomes a view into it (keeping its values when require_copy_value,
    else zeros). None for no tensors or no elements."""
    if len(list_of_tensor) == 0:
        return None
    _check_combinable(list_of_tensor)
    total = sum(t.numel() for t in list_of_tensor)
    if total == 0:
        return None
    combined = torch.zeros(total, dtype=list_of_tensor[0].dtype, device=list_of_tensor[0].device)
    offset = 0
    for t in list_of_tensor:
        n = t.numel()
        if require_copy_value:
            combined[offset:offset + n].copy_(t.detach().reshape(-1))
        _point_into(t, combined, offset)
        offset += n
    return combined


def get_part_combined_tensor(combined_tensor: torch.Tensor | None, index: int, size: int):
    """A flat view of `size` elements of combined_tensor from `index`."""
    if combined_tensor is None or size == 0:
        return None
    total = get_storage_size(combined_tensor)
    if index + size > total:
        raise RuntimeError(f"(index + size) ({index + size}) > torch_npu.get_storage_size(combined_tensor) ({total})"
                           + pta_error(ErrCode.VALUE))
    part = torch.empty(size, dtype=combined_tensor.dtype, device=combined_tensor.device)
    _point_into(part, combined_tensor, index)
    return part


def is_combined_tensor_valid(combined_tensor: torch.Tensor | None, list_of_tensor: Sequence[torch.Tensor]) -> bool:
    """Whether every tensor is contiguous and starts inside combined_tensor's memory."""
    if len(list_of_tensor) == 0:
        return True
    if combined_tensor is None:
        return False
    start = combined_tensor.data_ptr()
    end = start + get_storage_size(combined_tensor) * combined_tensor.element_size()
    return all(t is not None and start <= t.data_ptr() < end and t.is_contiguous() for t in list_of_tensor)
