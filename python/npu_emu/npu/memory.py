"""torch.npu memory: the caching allocator's statistics and controls, with
torch.cuda.memory's names and statistic keys (torch_npu's surface)."""

from __future__ import annotations

import collections
from typing import Any

import torch

from npu_emu import _C
from npu_emu.npu.device import DeviceLike, _check, _index
from npu_emu.npu.error_codes import ErrCode, pta_error

__all__ = [
    "caching_allocator_alloc", "caching_allocator_delete", "empty_cache", "max_memory_allocated",
    "max_memory_cached", "max_memory_reserved", "memory_allocated", "memory_cached", "memory_reserved",
    "memory_snapshot", "memory_stats", "memory_stats_as_nested_dict", "memory_summary",
    "reset_accumulated_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
    "reset_peak_memory_stats", "set_per_process_memory_fraction", "get_per_process_memory_fraction",
]

# Fractions set with set_per_process_memory_fraction, per device index.
_fractions: dict[int, float] = {}


def _device(device: DeviceLike) -> int:
    return _check(_index(device))


def memory_stats_as_nested_dict(device: DeviceLike = None) -> dict[str, Any]:
    """The allocator's statistics for `device`, nested by name, pool and metric."""
    return _C._npu_memory_stats(_device(device))


def memory_stats(device: DeviceLike = None) -> collections.OrderedDict[str, Any]:
    """Allocator statistics with torch.cuda.memory_stats' flat keys, e.g.
    ``allocated_bytes.all.current``, ``segment.small_pool.peak``, ``num_ooms``."""
    return flat_stats(memory_stats_as_nested_dict(device))


def flat_stats(nested: dict[str, Any]) -> collections.OrderedDict[str, Any]:
    """Nested statistics as torch.cuda's flat dotted keys, sorted."""
    flat: list[tuple[str, Any]] = []

    def flatten(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                flatten(f"{prefix}.{key}" if prefix else key, inner)
        else:
            flat.append((prefix, value))

    flatten("", nested)
    return collections.OrderedDict(sorted(flat))


def memory_allocated(device: DeviceLike = None) -> int:
    """Bytes of device memory occupied by tensors (block sizes, after rounding)."""
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device: DeviceLike = None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device: DeviceLike = None) -> int:
    """Bytes of device memory held by the caching allocator (segments)."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device: DeviceLike = None) -> int:
    return memory_stats(device)["reserved_bytes.all.peak"]


def memory_cached(device: DeviceLike = None) -> int:
    """Deprecated alias of memory_reserved."""
    return memory_reserved(device)


def max_memory_cached(device: DeviceLike = None) -> int:
    """Deprecated alias of max_memory_reserved."""
    return max_memory_reserved(device)


def reset_peak_memory_stats(device: DeviceLike = None) -> None:
    _C._npu_reset_peak_memory_stats(_device(device))


def reset_accumulated_memory_stats(device: DeviceLike = None) -> None:
    _C._npu_reset_accumulated_memory_stats(_device(device))


def reset_max_memory_allocated(device: DeviceLike = None) -> None:
    """Deprecated: resets every peak statistic, as in torch.cuda."""
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: DeviceLike = None) -> None:
    """Deprecated: resets every peak statistic, as in torch.cuda."""
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Returns every unused cached segment of every device to the device."""
    _C._npu_empty_cache()


def set_per_process_memory_fraction(fraction: float, device: DeviceLike = None) -> None:
    """Caps the memory this process may reserve on `device` at `fraction` of
    its capacity; allocations beyond it raise torch.OutOfMemoryError."""
    if not isinstance(fraction, float):  # torch_npu and torch.cuda reject ints too
        raise TypeError(f"Invalid type for fraction argument, must be float, got {type(fraction).__name__}"
                        + pta_error(ErrCode.TYPE))
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1" + pta_error(ErrCode.VALUE))
    index = _device(device)
    _C._npu_set_memory_fraction(float(fraction), index)
    _fractions[index] = float(fraction)


def get_per_process_memory_fraction(device: DeviceLike = None) -> float:
    """The fraction of `device` this process may reserve: the last
    set_per_process_memory_fraction, else PYTORCH_NPU_ALLOC_CONF's
    per_process_memory_fraction, else 1.0."""
    index = _device(device)
    if index in _fractions:
        return _fractions[index]
    configured = _C._npu_allocator_config().get("per_process_memory_fraction")
    return 1.0 if configured is None else float(configured)


def memory_snapshot() -> list[dict[str, Any]]:
    """Every segment of every device with its blocks (address, size, state)."""
    return _C._npu_memory_snapshot()


def caching_allocator_alloc(size: int, device: DeviceLike = None, stream: Any = None) -> int:
    """Allocates `size` bytes with the caching allocator; returns the address.
    `stream`: a torch.npu.Stream / torch.Stream or an ACL stream handle
    (default: the device's current stream)."""
    if not isinstance(size, int) or size < 0:
        raise ValueError(f"caching_allocator_alloc: size must be a non-negative int, got {size!r}")
    index = _device(device)
    if stream is None:
        handle = 0
    elif isinstance(stream, torch.Stream):
        handle = _C._stream_handle(stream.stream_id, stream.device_index)
    elif isinstance(stream, int):
        handle = stream
    else:
        raise TypeError("caching_allocator_alloc: stream must be a torch.npu.Stream, an int handle or None, "
                        f"got {type(stream).__name__}")
    return _C._npu_caching_allocator_alloc(size, index, handle)


def caching_allocator_delete(mem_ptr: int) -> None:
    """Frees an address returned by caching_allocator_alloc."""
    _C._npu_caching_allocator_delete(int(mem_ptr))


def _format_size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            return f"{n / scale:7.2f} {unit}"
    return f"{n:7d} B  "


def _format_count(n: int) -> str:
    return f"{n:11d}"


def memory_summary(device: DeviceLike = None, abbreviated: bool = False) -> str:
    """A table of the allocator's statistics for `device`, as torch.cuda's."""
    index = _device(device)
    stats = memory_stats(index)
    rows: list[tuple[str, str, Any]] = [
        ("allocated_bytes", "Allocated memory", _format_size),
        ("active_bytes", "Active memory", _format_size),
        ("requested_bytes", "Requested memory", _format_size),
        ("reserved_bytes", "NPU reserved memory", _format_size),
        ("inactive_split_bytes", "Non-releasable memory", _format_size),
        ("allocation", "Allocations", _format_count),
        ("active", "Active allocs", _format_count),
        ("segment", "NPU reserved segments", _format_count),
        ("inactive_split", "Non-releasable allocs", _format_count),
    ]
    pools = [("all", "")] if abbreviated else [("all", ""), ("large_pool", "from large pool"),
                                                ("small_pool", "from small pool")]
    width = 75
    line, thick = "-" * width, "=" * width
    out = [thick, f" {'PyTorch NPU memory summary, device ID ' + str(index):<73} ",
           line,
           f" {'NPU OOMs: ' + str(stats['num_ooms']):<36} | "
           f"{'npuMalloc retries: ' + str(stats['num_alloc_retries']):<34} ",
           thick,
           f" {'Metric':<24} | {'Cur Usage':>10} | {'Peak Usage':>10} | {'Tot Alloc':>10} | {'Tot Freed':>10} ",
           line]
    for key, title, fmt in rows:
        for pool, label in pools:
            name = title if not label else f"      {label}"
            cells = [fmt(stats[f"{key}.{pool}.{metric}"]).strip()
                     for metric in ("current", "peak", "allocated", "freed")]
            out.append(f" {name:<24} | " + " | ".join(f"{c:>10}" for c in cells) + " ")
        out.append(line)
    for key, title in (("oversize_allocations", "Oversize allocations"), ("oversize_segments", "Oversize NPU segments")):
        cells = [str(stats[f"{key}.{metric}"]) for metric in ("current", "peak", "allocated", "freed")]
        out.append(f" {title:<24} | " + " | ".join(f"{c:>10}" for c in cells) + " ")
    out.append(thick)
    return "|" + "|\n|".join(out) + "|\n"


# The allocation history for PyTorch's memory viz (npu_emu/profiler/memory_history.py).
from npu_emu.profiler.memory_history import _dump_snapshot, _record_memory_history, _snapshot  # noqa: E402,F401
