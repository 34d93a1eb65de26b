"""torch.npu.FloatTensor and the other legacy tensor types.

Calling one builds an npu tensor of its dtype (`FloatTensor(2, 3)`: an
uninitialized 2x3 tensor; `FloatTensor([1, 2])` or `FloatTensor(t)`: a copy of
the data); `isinstance(t, torch.npu.FloatTensor)` holds for npu float32
tensors. `t.type("torch.npu.FloatTensor")` is PyTorch's own string form.
"""

from __future__ import annotations

from typing import Any

import torch

TENSOR_TYPES: dict[str, torch.dtype] = {
    "BoolTensor": torch.bool, "ByteTensor": torch.uint8, "CharTensor": torch.int8,
    "ShortTensor": torch.int16, "IntTensor": torch.int32, "LongTensor": torch.int64,
    "HalfTensor": torch.float16, "BFloat16Tensor": torch.bfloat16, "FloatTensor": torch.float32,
    "DoubleTensor": torch.float64,
}


def _npu_device(device: torch.device | str | int | None) -> torch.device:
    if device is None:
        return torch.device("npu", torch.npu.current_device())
    chosen = torch.device("npu", device) if isinstance(device, int) else torch.device(device)
    if chosen.type != "npu":
        raise ValueError(f"torch.npu tensor types build npu tensors; device={device!r} is not an npu device")
    return chosen if chosen.index is not None else torch.device("npu", torch.npu.current_device())


class _NpuTensorType(type):
    dtype: torch.dtype

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, torch.Tensor) and obj.device.type == "npu" and obj.dtype == cls.dtype

    def __call__(cls, *args: Any, device: torch.device | str | int | None = None) -> torch.Tensor:
        target = _npu_device(device)
        if not args:
            return torch.empty(0, dtype=cls.dtype, device=target)
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return torch.empty(args, dtype=cls.dtype, device=target)
        if len(args) == 1 and isinstance(args[0], torch.Size):
            return torch.empty(args[0], dtype=cls.dtype, device=target)
        if len(args) == 1:
            data = args[0]
            if isinstance(data, torch.Tensor):
                return data.to(device=target, dtype=cls.dtype)
            return torch.tensor(data, dtype=cls.dtype, device=target)
        raise TypeError(f"torch.npu.{cls.__name__}() takes sizes (ints), a torch.Size, a sequence or a tensor; "
                        f"got {tuple(type(a).__name__ for a in args)}")

    def __repr__(cls) -> str:
        return f"<class 'torch.npu.{cls.__name__}'>"


def _make(name: str, dtype: torch.dtype) -> type:
    return _NpuTensorType(name, (), {"dtype": dtype, "is_npu": True, "is_sparse": False, "__module__": "torch.npu"})


_types = {name: _make(name, dtype) for name, dtype in TENSOR_TYPES.items()}
BoolTensor = _types["BoolTensor"]
ByteTensor = _types["ByteTensor"]
CharTensor = _types["CharTensor"]
ShortTensor = _types["ShortTensor"]
IntTensor = _types["IntTensor"]
LongTensor = _types["LongTensor"]
HalfTensor = _types["HalfTensor"]
BFloat16Tensor = _types["BFloat16Tensor"]
FloatTensor = _types["FloatTensor"]
DoubleTensor = _types["DoubleTensor"]

__all__ = list(TENSOR_TYPES)
