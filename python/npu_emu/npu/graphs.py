"""torch.npu graph capture (NPUGraph, graph, make_graphed_callables ...):
not supported by npu-emu, each name raising one clear error when used.
is_current_stream_capturing() answers False: nothing is ever captured."""

from __future__ import annotations

from typing import Any, NoReturn

from npu_emu.npu.not_supported import refuse, refusing

__all__ = ["NPUGraph", "graph", "graph_pool_handle", "graph_task_group_begin", "graph_task_group_end",
           "graph_task_update_begin", "graph_task_update_end", "is_current_stream_capturing",
           "make_graphed_callables"]

_INSTEAD = "run the model eagerly (or with torch.compile's eager backend)"


class NPUGraph:
    """Refuses construction: npu-emu has no aclgraph capture."""

    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.NPUGraph (aclgraph capture and replay)", _INSTEAD)


class graph:  # noqa: N801  (torch_npu's name)
    """Refuses construction: npu-emu has no aclgraph capture."""

    def __new__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        refuse("torch.npu.graph (aclgraph capture)", _INSTEAD)


def is_current_stream_capturing() -> bool:
    return False


graph_pool_handle = refusing("torch.npu.graph_pool_handle()", _INSTEAD)
make_graphed_callables = refusing("torch.npu.make_graphed_callables()", _INSTEAD)
graph_task_group_begin = refusing("torch.npu.graph_task_group_begin()", _INSTEAD)
graph_task_group_end = refusing("torch.npu.graph_task_group_end()", _INSTEAD)
graph_task_update_begin = refusing("torch.npu.graph_task_update_begin()", _INSTEAD)
graph_task_update_end = refusing("torch.npu.graph_task_update_end()", _INSTEAD)
