"""torch_npu.contrib.module on npu-emu: the modules that are plain PyTorch in
effect work, the ones that need Ascend kernels raise one clear error when
constructed."""

from npu_emu.torch_npu_compat.contrib import refused as _refused
from npu_emu.torch_npu_compat.contrib.module.layers import (
    BiLSTM,
    ChannelShuffle,
    FastBatchNorm1d,
    FastBatchNorm2d,
    FastBatchNorm3d,
    Focus,
    LabelSmoothingCrossEntropy,
    Mish,
    NpuDropPath,
    SiLU,
    Swish,
)

globals().update({name: _refused.module(name) for name in _refused.MODULES})

__all__ = [
    "ChannelShuffle", "Prefetcher", "LabelSmoothingCrossEntropy", "ROIAlign", "ModulatedDeformConv", "PSROIPool",
    "NpuFairseqDropout", "NpuCachedDropout", "MultiheadAttention", "NpuDropPath", "Focus", "LinearA8W8Quant",
    "LinearQuant", "LinearWeightQuant", "DropoutWithByteMask", "QuantConv2d",
]
