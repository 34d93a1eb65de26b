"""torch.save / torch.load of npu tensors.

PyTorch's own machinery does the work for a PrivateUse1 backend once its
device module is registered (torch._register_device_module("npu", ...)):
torch.save copies each npu storage to the host and tags it with its location
("npu:0"); torch.load restores it through the privateuse1 entry of
torch.serialization's registry (``storage.to("npu:<i>")``), honouring
map_location, and refuses a location this process does not have ("Attempting
to deserialize object on NPU device 1 but torch.npu.device_count() is 1 ...").
Views keep sharing their storage, because storages are pickled once each.

What this module adds is the extension point for npu-specific metadata:
every npu tensor torch.save pickles first goes through ``prepare_for_save``,
which runs the hooks registered with ``register_save_hook``. A tensor whose
storage holds a private format (NZ, 5HD ...) has physical bytes that do not
match its logical shape; a hook can return a base-format (ND) equivalent to
save instead, so any loader reads it correctly.

Private formats are built in: a tensor whose storage is in a private format
is written as its base-format (origin format) values, with the format in the
tensor's backend metadata ("npu_format_<id>", added by the C++ side in
dispatch/format/format_serialization.cpp). torch.load onto npu lays the
storage out in that format again; a load onto the CPU gives the plain values.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

SaveHook = Callable[[torch.Tensor], "torch.Tensor | None"]

_save_hooks: list[SaveHook] = []
_installed = False


def register_save_hook(hook: SaveHook) -> None:
    """Adds `hook(tensor) -> tensor | None`, called for each npu tensor that
    torch.save pickles, in registration order. Returning a tensor saves that
    one in place of the original (same logical shape, dtype and device);
    returning None keeps the original."""
    _save_hooks.append(hook)


def prepare_for_save(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor torch.save actually writes for npu tensor `tensor`."""
    for hook in _save_hooks:
        replaced = hook(tensor)
        if replaced is not None:
            if replaced.shape != tensor.shape or replaced.dtype != tensor.dtype:
                raise RuntimeError(f"npu save hook {hook!r} changed the tensor's shape or dtype "
                                   f"({tuple(tensor.shape)}, {tensor.dtype} -> {tuple(replaced.shape)}, "
                                   f"{replaced.dtype})")
            tensor = replaced
    return tensor


def _rebuild_args_len(rebuild_func: Callable) -> int:
    """How many positional arguments precede `metadata` in a rebuild call."""
    return 7 if rebuild_func is torch._utils._rebuild_tensor_v3 else 6


def _reduce_private_format(tensor: torch.Tensor, reduce: Callable, proto: int):
    """Pickles `tensor` (in a private format) as its base-format values plus
    the format in the metadata, so any loader reads correct values."""
    from npu_emu.formats import describe_storage, npu_format_cast

    with torch.no_grad():
        base = npu_format_cast(tensor.detach(), int(describe_storage(tensor).origin_format))
    base.requires_grad_(tensor.requires_grad)
    rebuild_func, args = reduce(base, proto)
    if rebuild_func not in (torch._utils._rebuild_tensor_v2, torch._utils._rebuild_tensor_v3):
        return rebuild_func, args
    metadata = torch._utils.get_tensor_metadata(tensor)  # includes npu_format_<id>
    return rebuild_func, args[:_rebuild_args_len(rebuild_func)] + (metadata,)


def install() -> None:
    """Routes npu tensors being pickled through prepare_for_save and writes
    private formats as base values plus metadata (idempotent)."""
    global _installed
    if _installed:
        return
    from npu_emu import _C

    original = torch.Tensor._reduce_ex_internal

    def _reduce_ex_internal(self: torch.Tensor, proto: int):
        tensor = self
        if self.device.type == "npu" and _save_hooks:
            tensor = prepare_for_save(self)
        if tensor.device.type == "npu" and _C._has_private_format(tensor):
            return _reduce_private_format(tensor, original, proto)
        return original(tensor, proto)

    torch.Tensor._reduce_ex_internal = _reduce_ex_internal  # type: ignore[method-assign]
    _installed = True
