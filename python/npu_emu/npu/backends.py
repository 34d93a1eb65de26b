"""torch.npu's scaled-dot-product-attention switches: PyTorch's global SDPA
flags (shared with torch.backends.cuda), which torch_npu exposes under
torch.npu; npu-emu's attention honours them as PyTorch's dispatch does."""

from __future__ import annotations

import torch.backends.cuda as _flags

__all__ = ["enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp", "flash_sdp_enabled",
           "math_sdp_enabled", "mem_efficient_sdp_enabled", "preferred_linalg_library", "sdp_kernel"]

enable_flash_sdp = _flags.enable_flash_sdp
flash_sdp_enabled = _flags.flash_sdp_enabled
enable_math_sdp = _flags.enable_math_sdp
math_sdp_enabled = _flags.math_sdp_enabled
enable_mem_efficient_sdp = _flags.enable_mem_efficient_sdp
mem_efficient_sdp_enabled = _flags.mem_efficient_sdp_enabled
sdp_kernel = _flags.sdp_kernel
preferred_linalg_library = _flags.preferred_linalg_library
