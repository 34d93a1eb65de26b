"""torch_npu.optim: torch_npu's fused optimizers on npu-emu's fused / foreach kernels."""

from npu_emu.torch_npu_compat.optim.npu_fused_optim_base import NpuFusedOptimizerBase
from npu_emu.torch_npu_compat.optim.npu_fused_sgd import NpuFusedSGD
from npu_emu.torch_npu_compat.optim.npu_fused_adam import NpuFusedAdam
from npu_emu.torch_npu_compat.optim.npu_fused_adamw import NpuFusedAdamW
from npu_emu.torch_npu_compat.optim.npu_fused_adadelta import NpuFusedAdadelta
from npu_emu.torch_npu_compat.optim.npu_fused_rmsprop import NpuFusedRMSprop
from npu_emu.torch_npu_compat.optim.third_party import NpuFusedAdamP, NpuFusedBertAdam, NpuFusedLamb, NpuFusedRMSpropTF

__all__ = [
    "NpuFusedOptimizerBase", "NpuFusedSGD", "NpuFusedAdadelta", "NpuFusedLamb", "NpuFusedAdam", "NpuFusedAdamW",
    "NpuFusedAdamP", "NpuFusedBertAdam", "NpuFusedRMSprop", "NpuFusedRMSpropTF",
]
