"""torch.npu allocator selection: npu-emu has one allocator, the native
caching allocator; pluggable allocators and memory pools are not supported."""

from __future__ import annotations

from typing import Any, NoReturn

from npu_emu.npu.not_supported import refuse, refusing

__all__ = ["MemPool", "NPUPluggableAllocator", "change_current_allocator", "empty_virt_addr_cache",
           "get_allocator_backend", "use_mem_pool"]

_INSTEAD = "npu-emu always uses its caching allocator (configure it with PYTORCH_NPU_ALLOC_CONF)"


def get_allocator_backend() -> str:
    """The allocator serving npu tensors: "native" (the caching allocator)."""
    return "native"


def empty_virt_addr_cache() -> None:
    """Nothing to release: npu-emu does not reserve virtual address ranges
    (expandable segments are accepted but not used)."""


class MemPool:
    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.MemPool (private memory pools)", _INSTEAD)


class NPUPluggableAllocator:
    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.NPUPluggableAllocator", _INSTEAD)


use_mem_pool = refusing("torch.npu.use_mem_pool()", _INSTEAD)
change_current_allocator = refusing("torch.npu.change_current_allocator()", _INSTEAD)
