"""A TorchDispatchMode that turns every op on npu tensors into storage reads and
writes on the op's stream, from the op schema's alias annotations."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from npu_emu.sanitizer.accesses import Access, AccessTracker, capture_stack
from npu_emu.sanitizer.clocks import StreamKey

# Ops that touch no tensor data (bookkeeping only).
_NO_ACCESS_OPS = frozenset({"aten::record_stream", "aten::set_", "aten::resize_", "aten::detach",
                            "aten::lift_fresh"})


# Ops that only allocate: their output holds no data written by any stream.
_ALLOCATING_OPS = frozenset({"aten::empty", "aten::empty_strided", "aten::empty_like", "aten::new_empty",
                             "aten::new_empty_strided"})


def _npu_tensors(value: Any) -> Iterator[torch.Tensor]:
    for leaf in tree_leaves(value):
        if isinstance(leaf, torch.Tensor) and leaf.device.type == "npu":
            yield leaf


def _is_view_op(schema: torch.FunctionSchema) -> bool:
    """An op returning aliases of its inputs without writing them (view, as_strided...)."""
    return any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)


def _current_stream(device_index: int) -> StreamKey:
    stream = torch.accelerator.current_stream(torch.device("npu", device_index))
    return (stream.device_index, stream.stream_id)


def _argument(schema: torch.FunctionSchema, args: tuple, kwargs: dict, name: str) -> Any:
    for position, argument in enumerate(schema.arguments):
        if argument.name == name:
            return args[position] if position < len(args) else kwargs.get(name)
    return None


_COPY_OPS = frozenset({"aten::_to_copy", "aten::copy_", "aten::_copy_from", "aten::_copy_from_and_resize"})


def _waits_for_stream(schema: torch.FunctionSchema, args: tuple, kwargs: dict, out: Any) -> bool:
    """Whether the op returns only once the stream's work is done: .item(), and
    host<->device copies except non_blocking ones with pinned host memory
    (dispatch/ops/copy.cpp synchronizes the stream for all others)."""
    if schema.name == "aten::_local_scalar_dense":  # .item()
        return True
    if schema.name not in _COPY_OPS:
        return False
    tensors = [t for t in tree_leaves((args, kwargs, out)) if isinstance(t, torch.Tensor)]
    host = [t for t in tensors if t.device.type == "cpu"]
    if not host or not any(t.device.type == "npu" for t in tensors):
        return False
    return not (_argument(schema, args, kwargs, "non_blocking") and all(t.is_pinned() for t in host))


class StreamAccessMode(TorchDispatchMode):
    """Reports each op's storage accesses to the tracker before running it."""

    def __init__(self, tracker: AccessTracker) -> None:
        super().__init__()
        self.tracker = tracker

    def _argument_accesses(self, func: Any, args: tuple, kwargs: dict) -> list[tuple[torch.Tensor, bool]]:
        schema = func._schema
        accesses: list[tuple[torch.Tensor, bool]] = []
        for position, argument in enumerate(schema.arguments):
            if position < len(args):
                value = args[position]
            elif argument.name in kwargs:
                value = kwargs[argument.name]
            else:
                continue
            is_write = argument.alias_info is not None and argument.alias_info.is_write
            accesses.extend((tensor, is_write) for tensor in _npu_tensors(value))
        return accesses

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        schema = func._schema
        if schema.name == "aten::record_stream":
            tensor, stream = args[0], args[1]
            if tensor.device.type == "npu":
                self.tracker.protect(tensor, (stream.device_index, stream.stream_id))
        if schema.name in _NO_ACCESS_OPS or _is_view_op(schema):
            return func(*args, **kwargs)
        accesses = self._argument_accesses(func, args, kwargs)
        if not accesses:
            # Factory ops, copies from the host and host-only ops: outputs are fresh storages.
            out = func(*args, **kwargs)
            stream = self._record_outputs(func, out, set())
            if stream is not None and _waits_for_stream(schema, args, kwargs, out):
                self.tracker.clocks.host_sync_stream(stream)
            return out
        stack = capture_stack()
        # Each tensor is accessed on its own device's current stream (a copy
        # across devices reads on the source's and writes on the destination's).
        launched: dict[int, tuple[StreamKey, int]] = {}

        def stream_of(tensor: torch.Tensor) -> tuple[StreamKey, int]:
            index = tensor.device.index or 0
            if index not in launched:
                stream = _current_stream(index)
                launched[index] = (stream, self.tracker.clocks.launch(stream))
            return launched[index]

        # Writes last: an op that reads and writes one storage is checked as a write.
        for tensor, is_write in sorted(accesses, key=lambda a: a[1]):
            stream, seq = stream_of(tensor)
            self.tracker.access(tensor, Access(is_write, stream, seq, schema.name, stack))
        out = func(*args, **kwargs)
        seen = {t.untyped_storage().data_ptr() for t, _ in accesses}
        first_stream, first_seq = stream_of(accesses[0][0])
        self._record_outputs(func, out, seen, first_stream, first_seq, stack, stream_of)
        if _waits_for_stream(schema, args, kwargs, out):
            # A blocking copy returns after the stream's work is done.
            for stream, _ in launched.values():
                self.tracker.clocks.host_sync_stream(stream)
        elif schema.name in _COPY_OPS and len(launched) > 1:
            # Across devices the source's stream is synchronized before the copy (dispatch/ops/copy.cpp).
            for tensor, is_write in accesses:
                if not is_write:
                    self.tracker.clocks.host_sync_stream(stream_of(tensor)[0])
        return out

    def _record_outputs(self, func: Any, out: Any, seen: set[int], stream: StreamKey | None = None,
                        seq: int = 0, stack: Any = None,
                        stream_of: Callable[[torch.Tensor], tuple[StreamKey, int]] | None = None) -> StreamKey | None:
        """Records the op's new npu outputs as writes; returns the op's stream (None: no npu tensor)."""
        for tensor in _npu_tensors(out):
            if tensor.untyped_storage().data_ptr() in seen:
                continue  # an in-place/out= result, already recorded
            if func._schema.name in _ALLOCATING_OPS:
                self.tracker.allocate(tensor)  # no kernel: the first real access is checked
                continue
            if stream_of is not None:
                stream, seq = stream_of(tensor)
            elif stream is None:
                stream = _current_stream(tensor.device.index or 0)
                seq = self.tracker.clocks.launch(stream)
                stack = capture_stack()
            self.tracker.access(tensor, Access(True, stream, seq, func._schema.name, stack))
        return stream
