"""torch.npu host (pinned) memory statistics: the pinned allocator behind
pin_memory(), with torch.cuda.host_memory_stats' keys."""

from __future__ import annotations

import collections
from typing import Any

from npu_emu import _C
from npu_emu.npu.memory import flat_stats

__all__ = ["host_empty_cache", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats"]


def host_memory_stats_as_nested_dict() -> dict[str, Any]:
    return _C._npu_host_memory_stats()


def host_memory_stats() -> collections.OrderedDict[str, Any]:
    """Flat keys such as ``allocations.current``, ``active_bytes.peak``,
    ``num_host_alloc``, ``host_alloc_time.total``, sorted."""
    return flat_stats(host_memory_stats_as_nested_dict())


def reset_accumulated_host_memory_stats() -> None:
    _C._npu_reset_accumulated_host_memory_stats()


def reset_peak_host_memory_stats() -> None:
    _C._npu_reset_peak_host_memory_stats()


def host_empty_cache() -> None:
    """Returns pinned blocks whose last asynchronous copies finished."""
    _C._npu_host_empty_cache()
