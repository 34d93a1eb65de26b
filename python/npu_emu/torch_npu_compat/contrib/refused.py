"""torch_npu.contrib names that stand on Ascend-only kernels (NMS, RoI
pooling, deformable convolution, quantized matmul, fused attention,
pre-generated dropout masks, colour jitter): each raises npu-emu's one
not-supported error, naming itself, when called or constructed."""

from __future__ import annotations

from typing import Any, NoReturn

from npu_emu.npu.not_supported import refuse, refusing

_INSTEAD_FUNCTION = "compose it from PyTorch ops (torchvision.ops has NMS and box coders) or run it on Ascend hardware"
_INSTEAD_MODULE = "use a plain PyTorch/torchvision equivalent or run it on Ascend hardware"

# Functions and the torch_npu kernel each one needs.
FUNCTIONS = {
    "npu_diou": "npu_diou", "npu_ciou": "npu_ciou",
    "npu_multiclass_nms": "npu_batch_nms", "npu_batched_multiclass_nms": "npu_batch_nms",
    "npu_single_level_responsible_flags": "npu_anchor_response_flags",
    "npu_bbox_coder_encode_yolo": "npu_yolo_boxes_encode",
    "npu_bbox_coder_encode_xyxy2xywh": "npu_bounding_box_encode",
    "npu_bbox_coder_decode_xywh2xyxy": "npu_bounding_box_decode",
    "npu_fused_attention": "npu_fused_attention_score_fwd",
    "npu_fused_attention_with_layernorm": "npu_fused_attention_layernorm_qkv_fwd",
    "dropout_with_byte_mask": "npu_dropout_with_byte_mask",
}

MODULES = {
    "ROIAlign": "npu_roi_align", "PSROIPool": "npu_ps_roi_pooling",
    "DCNv2": "npu_deformable_conv2d", "ModulatedDeformConv": "npu_deformable_conv2d",
    "MultiheadAttention": "npu_multi_head_attention", "FusedColorJitter": "Ascend image kernels",
    "NpuFairseqDropout": "npu_dropout_gen_mask", "NpuCachedDropout": "npu_dropout_gen_mask",
    "NpuPreGenDropout": "npu_dropout_gen_mask", "DropoutWithByteMask": "npu_dropout_with_byte_mask",
    "LinearA8W8Quant": "npu_quant_matmul", "LinearQuant": "npu_quant_matmul",
    "LinearWeightQuant": "npu_weight_quant_batchmatmul", "QuantConv2d": "npu_quant_conv2d",
    "FastSyncBatchNorm": "HCCL sync batch norm", "Prefetcher": "a side-stream data prefetcher",
}


def function(name: str):
    return refusing(f"torch_npu.contrib.function.{name} (needs the Ascend kernel {FUNCTIONS[name]})", _INSTEAD_FUNCTION)


def module(name: str) -> type:
    feature = f"torch_npu.contrib.module.{name} (needs {MODULES[name]})"

    def __init__(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
        refuse(feature, _INSTEAD_MODULE)

    return type(name, (), {"__init__": __init__, "__doc__": f"Not supported by npu-emu: {feature}."})
