"""Rewriting CUDA device arguments to npu ones (for transfer_to_npu):
"cuda" / "cuda:1" / torch.device("cuda", 1) / map_location dicts."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

DEVICE_KEYWORDS = ("device", "device_type", "map_location", "device_id")


def to_npu(value: Any) -> Any:
    """`value` with every CUDA device named in it replaced by the npu one;
    anything else unchanged."""
    if isinstance(value, str) and "cuda" in value:
        return value.replace("cuda", "npu")
    if isinstance(value, torch.device) and value.type == "cuda":
        return torch.device("npu", value.index)
    if isinstance(value, dict):
        return {to_npu(k): to_npu(v) for k, v in value.items()}
    return value


def on_npu(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps `fn` so that CUDA devices among its positional arguments and its
    device keyword arguments name npu devices instead."""
    if getattr(fn, "_npu_emu_cuda_rewrite", False):
        return fn

    @functools.wraps(fn)
    def call_on_npu(*args: Any, **kwargs: Any) -> Any:
        args = tuple(to_npu(a) if isinstance(a, (str, torch.device)) else a for a in args)
        for key in DEVICE_KEYWORDS:
            if key in kwargs:
                kwargs[key] = to_npu(kwargs[key])
        if "device_ids" in kwargs and isinstance(kwargs["device_ids"], (list, tuple)):
            kwargs["device_ids"] = type(kwargs["device_ids"])(to_npu(d) for d in kwargs["device_ids"])
        return fn(*args, **kwargs)

    call_on_npu._npu_emu_cuda_rewrite = True  # type: ignore[attr-defined]
    return call_on_npu


def wrap_attributes(owner: Any, names: list[str]) -> None:
    """Replaces owner.<name> by on_npu(owner.<name>) for each name it has."""
    for name in names:
        if hasattr(owner, name):
            setattr(owner, name, on_npu(getattr(owner, name)))
