"""torch_npu.contrib.function on npu-emu: the plain-PyTorch-expressible
functions work, the ones that need Ascend kernels raise one clear error."""

from npu_emu.torch_npu_compat.contrib import refused as _refused
from npu_emu.torch_npu_compat.contrib.function.boxes import npu_giou, npu_iou, npu_ptiou
from npu_emu.torch_npu_compat.contrib.function.tensor_ops import (
    fuse_add_softmax_dropout,
    matmul_transpose,
    npu_fast_condition_index_put,
    roll,
)

globals().update({name: _refused.function(name) for name in _refused.FUNCTIONS})

__all__ = [
    "npu_multiclass_nms", "npu_batched_multiclass_nms", "npu_single_level_responsible_flags",
    "npu_fast_condition_index_put", "npu_bbox_coder_encode_yolo", "npu_bbox_coder_encode_xyxy2xywh",
    "npu_bbox_coder_decode_xywh2xyxy", "fuse_add_softmax_dropout", "roll", "matmul_transpose",
    "npu_fused_attention", "npu_fused_attention_with_layernorm", "dropout_with_byte_mask",
]
