"""Moving OpInfo sample inputs to npu and op outputs back to CPU."""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch.testing._internal.opinfo.core import SampleInput

NPU = torch.device("npu")


def _map(value: Any, on_tensor: Callable[[torch.Tensor], Any], key: str | None = None) -> Any:
    if isinstance(value, torch.Tensor):
        return on_tensor(value)
    if isinstance(value, torch.device) and value.type == "cpu":
        return NPU
    if key == "device" and isinstance(value, str) and value.startswith("cpu"):
        return "npu"  # factory samples name the device they were made for
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # namedtuple
        return type(value)(*(_map(v, on_tensor) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, on_tensor) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, on_tensor, k) for k, v in value.items()}
    return value


def _to_npu_leaf(t: torch.Tensor) -> torch.Tensor:
    # A fresh leaf on npu with the same requires_grad, so gradients land on it.
    return t.detach().to(NPU).requires_grad_(t.requires_grad)


# Sample arguments an op requires on the host whatever its own device (their
# OpInfo makes them on CPU for every device under test, as PyTorch's own
# device tests run them): OpInfo name -> positions in the sample's args.
HOST_ARGS: dict[str, frozenset[int]] = {
    "tensor_split": frozenset({0}),  # tensor_indices_or_sections: split points read on the host
}


def sample_to_npu(sample: SampleInput, op_name: str = "") -> SampleInput:
    """The sample with its tensors on npu, except the op's host arguments (HOST_ARGS)."""
    host = HOST_ARGS.get(op_name, frozenset())
    with torch.no_grad():
        return SampleInput(
            _map(sample.input, _to_npu_leaf),
            args=tuple(a if i in host else _map(a, _to_npu_leaf) for i, a in enumerate(sample.args)),
            kwargs=_map(sample.kwargs, _to_npu_leaf),
            output_process_fn_grad=sample.output_process_fn_grad,
            broadcasts_input=sample.broadcasts_input,
            name=sample.name,
        )


def to_cpu(value: Any) -> Any:
    """Outputs with every tensor detached and on CPU (structure kept)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, tuple) and hasattr(type(value), "n_fields"):  # torch.return_types structseq
        return type(value)([to_cpu(v) for v in value])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_cpu(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_cpu(v) for v in value)
    if isinstance(value, dict):
        return {k: to_cpu(v) for k, v in value.items()}
    return value


def grad_inputs(sample: SampleInput) -> list[torch.Tensor]:
    """The sample's tensors that require grad, in a fixed order."""
    found: list[torch.Tensor] = []

    def visit(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            if value.requires_grad:
                found.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
        elif isinstance(value, dict):
            for v in value.values():
                visit(v)

    visit(sample.input)
    visit(sample.args)
    visit(sample.kwargs)
    return found


def differentiable_outputs(value: Any) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []

    def visit(v: Any) -> None:
        if isinstance(v, torch.Tensor):
            if v.requires_grad and (v.dtype.is_floating_point or v.dtype.is_complex):
                found.append(v)
        elif isinstance(v, (list, tuple)):
            for item in v:
                visit(item)
        elif isinstance(v, dict):
            for item in v.values():
                visit(item)

    visit(value)
    return found


def describe(sample: SampleInput) -> str:
    """A short description of a sample for failure messages: shapes, not values."""
    def short(v: Any) -> str:
        if isinstance(v, torch.Tensor):
            return f"Tensor{list(v.shape)}"
        if isinstance(v, (list, tuple)):
            inner = ", ".join(short(x) for x in v[:6])
            return f"[{inner}{', ...' if len(v) > 6 else ''}]"
        text = repr(v)
        return text if len(text) <= 40 else text[:37] + "..."
    parts = [short(sample.input)] + [short(a) for a in sample.args]
    parts += [f"{k}={short(v)}" for k, v in sample.kwargs.items()]
    return f"({', '.join(parts)})"
