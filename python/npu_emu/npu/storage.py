"""Legacy typed storage classes of the npu device (torch.npu.FloatStorage ...).

PyTorch's ``Tensor.storage_type()`` looks the class up by name on the device
module (``torch.npu``) and ``isinstance(storage, torch.npu.FloatStorage)``
takes the device from the last component of the class's ``__module__``, so
the classes are published as members of ``torch.npu``, like torch.cuda's.
"""

from __future__ import annotations

import torch
from torch._utils import classproperty
from torch.storage import _LegacyStorage, _warn_typed_storage_removal

# Every dtype with a legacy storage name (torch.storage's map) except the
# quantized ones, which npu tensors cannot have.
_STORAGE_DTYPES: dict[str, torch.dtype] = {
    "DoubleStorage": torch.float64,
    "FloatStorage": torch.float32,
    "HalfStorage": torch.float16,
    "BFloat16Storage": torch.bfloat16,
    "LongStorage": torch.int64,
    "IntStorage": torch.int32,
    "ShortStorage": torch.int16,
    "CharStorage": torch.int8,
    "ByteStorage": torch.uint8,
    "BoolStorage": torch.bool,
    "ComplexDoubleStorage": torch.complex128,
    "ComplexFloatStorage": torch.complex64,
}


class _NpuLegacyStorage(_LegacyStorage):
    """Base of the npu storage classes; host-only constructors are refused."""

    __module__ = "torch.npu"

    @classmethod
    def from_buffer(cls, *args, **kwargs):
        raise RuntimeError("from_buffer: not available for npu storage; build a CPU storage and move it with .npu()")

    @classmethod
    def _new_with_weak_ptr(cls, *args, **kwargs):
        raise RuntimeError("_new_with_weak_ptr: not available for npu storage")

    @classmethod
    def _new_shared_filename(cls, *args, **kwargs):
        raise RuntimeError("_new_shared_filename: not available for npu storage")


def _make_storage_class(name: str, dtype: torch.dtype) -> type:
    def public_dtype(cls) -> torch.dtype:
        _warn_typed_storage_removal()
        return dtype

    def private_dtype(cls) -> torch.dtype:
        return dtype

    return type(
        name,
        (_NpuLegacyStorage,),
        {"__module__": "torch.npu", "dtype": classproperty(public_dtype), "_dtype": classproperty(private_dtype)},
    )


STORAGE_CLASSES: dict[str, type] = {name: _make_storage_class(name, dt) for name, dt in _STORAGE_DTYPES.items()}
globals().update(STORAGE_CLASSES)
for _cls in STORAGE_CLASSES.values():
    torch._storage_classes.add(_cls)

__all__ = list(STORAGE_CLASSES)
