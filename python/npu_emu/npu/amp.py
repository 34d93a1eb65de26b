"""torch.npu's autocast hook: the dtypes torch.autocast("npu") accepts, as
torch_npu reports them. Autocast itself is not implemented on npu yet: an
npu op inside an enabled region raises (see npu_emu.unsupported)."""

from __future__ import annotations

import torch


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.float16, torch.bfloat16]
