"""torch_npu.contrib's box IoU helpers in plain PyTorch (differentiable
through autograd). Boxes are (x1, y1, x2, y2) for npu_iou, (cx, cy, w, h)
for npu_giou, as torch_npu documents them."""

from __future__ import annotations

import torch

from npu_emu.npu.error_codes import ErrCode, ops_error

# torch_npu's documented guard against an empty union.
_IOU_EPS = 0.001


def _as_box_dtype(boxes: torch.Tensor) -> torch.Tensor:
    return boxes if boxes.dtype in (torch.float32, torch.float16) else boxes.float()


def _areas(boxes: torch.Tensor) -> torch.Tensor:
    return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])


def npu_iou(boxes1: torch.Tensor, boxes2: torch.Tensor, mode: str = "ptiou", is_normalized: bool = False,
            normalized_scale: float = 100.0) -> torch.Tensor:
    """IoU of every pair of boxes1 (N, 4) and boxes2 (M, 4), as (N, M):
    mode "iou": (overlap + 0.001) / (union + 0.001); "ptiou": overlap / (union + 0.001)."""
    if mode not in ("iou", "ptiou"):
        raise ValueError(f"npu_iou: mode must be one of 'iou', 'ptiou'; got {mode!r}" + ops_error(ErrCode.VALUE))
    boxes1, boxes2 = _as_box_dtype(boxes1), _as_box_dtype(boxes2)
    if is_normalized:
        boxes1, boxes2 = boxes1 * normalized_scale, boxes2 * normalized_scale
    a, b = boxes1[:, None, :], boxes2[None, :, :]
    width = (torch.minimum(a[..., 2], b[..., 2]) - torch.maximum(a[..., 0], b[..., 0])).clamp(min=0)
    height = (torch.minimum(a[..., 3], b[..., 3]) - torch.maximum(a[..., 1], b[..., 1])).clamp(min=0)
    overlap = width * height
    union = _areas(a) + _areas(b) - overlap
    if mode == "iou":
        return (overlap + _IOU_EPS) / (union + _IOU_EPS)
    return overlap / (union + _IOU_EPS)


npu_ptiou = npu_iou


def npu_giou(boxes1: torch.Tensor, boxes2: torch.Tensor, is_permuted: bool = True) -> torch.Tensor:
    """Generalized IoU of boxes1[i] and boxes2[i] (each (n, 4), centre x, centre y,
    width, height), as (n, 1): iou - (enclosing area - union) / enclosing area."""
    if boxes1.shape != boxes2.shape:
        raise ValueError(f"npu_giou: boxes1 and boxes2 must have the same shape; got {tuple(boxes1.shape)} and "
                         f"{tuple(boxes2.shape)}" + ops_error(ErrCode.VALUE))
    if not is_permuted:
        raise ValueError("npu_giou: is_permuted=False is not supported by npu-emu (torch_npu documents only "
                         "is_permuted=True); allowed: True" + ops_error(ErrCode.VALUE))
    boxes1, boxes2 = _as_box_dtype(boxes1), _as_box_dtype(boxes2)

    def corners(boxes: torch.Tensor) -> torch.Tensor:
        centre, size = boxes[:, :2], boxes[:, 2:]
        return torch.cat([centre - size / 2, centre + size / 2], dim=1)

    a, b = corners(boxes1), corners(boxes2)
    width = (torch.minimum(a[:, 2], b[:, 2]) - torch.maximum(a[:, 0], b[:, 0])).clamp(min=0)
    height = (torch.minimum(a[:, 3], b[:, 3]) - torch.maximum(a[:, 1], b[:, 1])).clamp(min=0)
    overlap = width * height
    union = _areas(a) + _areas(b) - overlap
    enclosing = ((torch.maximum(a[:, 2], b[:, 2]) - torch.minimum(a[:, 0], b[:, 0]))
                 * (torch.maximum(a[:, 3], b[:, 3]) - torch.minimum(a[:, 1], b[:, 1])))
    return (overlap / union - (enclosing - union) / enclosing).unsqueeze(1)
