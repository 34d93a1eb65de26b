"""torch_npu's fused versions of third-party optimizers (AdamP, LAMB,
BertAdam, RMSpropTF): not provided by npu-emu; constructing one raises."""

from __future__ import annotations

from typing import Any, NoReturn

from npu_emu.npu.not_supported import refuse


def _refusing_optimizer(name: str) -> type:
    def refuse_construction(cls: type, *args: Any, **kwargs: Any) -> NoReturn:
        refuse(f"torch_npu.optim.{name}",
               "use NpuFusedSGD, NpuFusedAdam, NpuFusedAdamW, NpuFusedAdadelta, NpuFusedRMSprop or torch.optim")

    return type(name, (), {"__new__": refuse_construction, "__module__": "torch_npu.optim"})


NpuFusedAdamP = _refusing_optimizer("NpuFusedAdamP")
NpuFusedLamb = _refusing_optimizer("NpuFusedLamb")
NpuFusedBertAdam = _refusing_optimizer("NpuFusedBertAdam")
NpuFusedRMSpropTF = _refusing_optimizer("NpuFusedRMSpropTF")
