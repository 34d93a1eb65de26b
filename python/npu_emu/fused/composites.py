"""torch_npu ops npu-emu composes of native ops (add, softmax,
native_dropout, matmul) because it has no aclnn op of their own:
npu_dropout_with_add_softmax(_backward) and npu_grouped_matmul (both
overloads). Registered CompositeImplicitAutograd: the composition
differentiates itself."""

from __future__ import annotations

from typing import Any, Sequence

import torch
from torch import Tensor


def _dropout_with_add_softmax(self: Tensor, x1: Tensor, alpha: Any, prob: float, dim: int) -> tuple:
    softmax_out = torch.softmax(torch.add(x1, self, alpha=alpha), dim)
    out, keep = torch.native_dropout(softmax_out, prob, True)
    return keep.to(torch.uint8), softmax_out, out


def _dropout_with_add_softmax_backward(grad: Tensor, mask: Tensor, softmax_out: Tensor, alpha: Any,
                                       prob: float, dim: int) -> tuple:
    keep_scale = 0.0 if prob >= 1.0 else 1.0 / (1.0 - prob)
    g = grad * mask.to(grad.dtype) * keep_scale
    d_in = softmax_out * (g - (g * softmax_out).sum(dim, keepdim=True))
    return d_in * alpha, d_in


_QUANT_ARGS = ("scale", "offset", "antiquant_scale", "antiquant_offset", "per_token_scale", "activation_input",
               "activation_quant_scale", "activation_quant_offset")


def _group_sizes(group_list: Sequence[int], group_list_type: int, total: int) -> list[int]:
    values = [int(v) for v in group_list]
    if group_list_type == 1:
        sizes = values
    elif group_list_type == 0:
        sizes = [b - a for a, b in zip([0] + values[:-1], values)]
    else:
        raise ValueError(f"npu_grouped_matmul: group_list_type must be 0 (cumulative) or 1 (counts), "
                         f"got {group_list_type}")
    if any(s < 0 for s in sizes) or sum(sizes) > total:
        raise ValueError(f"npu_grouped_matmul: group_list {values} does not split the {total} rows of x")
    return sizes


def _grouped_matmul(x: list[Tensor], weight: list[Tensor], group_list: Any = None, *, bias: Any = None,
                    split_item: int | None = 0, group_type: int | None = None, group_list_type: int | None = 0,
                    act_type: int | None = 0, **rest: Any) -> list[Tensor]:
    given = [name for name in _QUANT_ARGS if rest.get(name) is not None]
    if given:
        raise NotImplementedError(f"npu_grouped_matmul: {', '.join(given)} (quantized grouped matmul) is not "
                                  "emulated by npu-emu; leave them None")
    if act_type not in (None, 0):
        raise NotImplementedError(f"npu_grouped_matmul: act_type {act_type} is not emulated: use 0 and apply "
                                  "the activation afterwards")
    if rest.get("output_dtype") is not None:
        raise NotImplementedError("npu_grouped_matmul: output_dtype is not emulated: leave it None")
    split_item = 0 if split_item is None else split_item
    if split_item not in (0, 1, 2, 3):
        raise ValueError(f"npu_grouped_matmul: split_item must be 0, 1, 2 or 3, got {split_item}")
    weights = list(weight)
    if len(weights) == 1 and weights[0].dim() == 3:
        weights = list(weights[0].unbind(0))
    biases = list(bias) if bias is not None else []
    if len(biases) == 1 and biases[0].dim() == 2 and len(weights) > 1:
        biases = list(biases[0].unbind(0))
    if group_list is not None:
        if group_type not in (None, 0):
            raise NotImplementedError(f"npu_grouped_matmul: group_type {group_type} is not emulated: 0 "
                                      "(split x's rows) or -1 (no grouping)")
        if len(x) != 1:
            raise ValueError("npu_grouped_matmul: with group_list, x must be one tensor [M, K]")
        gl = group_list.tolist() if isinstance(group_list, Tensor) else list(group_list)
        sizes = _group_sizes(gl, group_list_type or 0, x[0].shape[0])
        if len(sizes) != len(weights):
            raise ValueError(f"npu_grouped_matmul: group_list has {len(sizes)} groups, weight {len(weights)}")
        xs = list(x[0][: sum(sizes)].split(sizes, 0))
    else:
        if len(x) != len(weights):
            raise ValueError(f"npu_grouped_matmul: x has {len(x)} tensors, weight {len(weights)}")
        xs = list(x)
    if biases and len(biases) != len(weights):
        raise ValueError(f"npu_grouped_matmul: bias has {len(biases)} tensors, weight {len(weights)}")
    ys = [torch.matmul(xi, wi) for xi, wi in zip(xs, weights)]
    if biases:
        ys = [y + b for y, b in zip(ys, biases)]
    if split_item in (2, 3):
        return [torch.cat(ys, 0)]
    return ys


def register() -> None:
    """Registers the compositions as the ops' CompositeImplicitAutograd kernels."""
    lib = torch.library.Library("npu", "IMPL")  # noqa: TOR901 (kept alive below)
    lib.impl("npu_dropout_with_add_softmax", _dropout_with_add_softmax, "CompositeImplicitAutograd")
    lib.impl("npu_dropout_with_add_softmax_backward", _dropout_with_add_softmax_backward,
             "CompositeImplicitAutograd")
    lib.impl("npu_grouped_matmul", _grouped_matmul, "CompositeImplicitAutograd")
    lib.impl("npu_grouped_matmul.List", _grouped_matmul, "CompositeImplicitAutograd")
    _LIBRARIES.append(lib)


# The Library objects must outlive the registrations they hold.
_LIBRARIES: list[torch.library.Library] = []
