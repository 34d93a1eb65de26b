"""TORCH_TRANSFER_TO_NPU, read as torch_npu reads it when it is imported:
1 also imports torch_npu.contrib.transfer_to_npu (a CUDA script runs on npu
without editing it), 0 or unset does nothing, anything else is refused."""

from __future__ import annotations

import os

ALLOWED = ("0", "1")


def apply() -> None:
    value = os.environ.get("TORCH_TRANSFER_TO_NPU", "0")
    if value not in ALLOWED:
        raise ValueError(f"TORCH_TRANSFER_TO_NPU={value!r} is not a valid value; allowed values are: 0, 1")
    if value == "1":
        from npu_emu.torch_npu_compat.contrib import transfer_to_npu  # noqa: F401  (patches torch.cuda on import)


apply()
