"""torch_npu.contrib on npu-emu: transfer_to_npu (imported explicitly, as in
torch_npu, since importing it patches torch.cuda), function and module."""

from npu_emu.torch_npu_compat.contrib import function, module  # noqa: F401
from npu_emu.torch_npu_compat.contrib.function import *  # noqa: F401,F403
from npu_emu.torch_npu_compat.contrib.function import npu_ciou, npu_diou, npu_giou, npu_iou, npu_ptiou  # noqa: F401
from npu_emu.torch_npu_compat.contrib.module import *  # noqa: F401,F403
from npu_emu.torch_npu_compat.contrib.module import (  # noqa: F401
    BiLSTM, DCNv2, FastBatchNorm1d, FastBatchNorm2d, FastBatchNorm3d, FastSyncBatchNorm, FusedColorJitter, Mish,
    SiLU, Swish,
)
