"""torch_npu, as npu-emu provides it: scripts written for Ascend hardware
import this module under the name `torch_npu` (see _npu_emu_switch)."""

import torch

import npu_emu  # noqa: F401  (activates the backend)
from npu_emu import npu  # noqa: F401  (torch_npu.npu is the device module)
from npu_emu.formats import (  # noqa: F401
    Format,
    empty_with_format,
    get_npu_format,
    get_storage_size,
    npu_format_cast,
    npu_format_cast_,
    unsafe_empty_with_format,
)

__version__ = "2.13.0+npu_emu"


def _autoload() -> None:
    """The real torch_npu's `torch.backends` entry point, when that package is
    installed but this module answers for it (NPU_EMU_TORCH_NPU=compat):
    importing this module already activated npu-emu's backend."""


from npu_emu.torch_npu_compat import _aliases  # noqa: E402,F401  (import torch_npu.npu[.amp|.utils])
from npu_emu.torch_npu_compat import _C, contrib, optim, utils  # noqa: E402,F401
from npu_emu.torch_npu_compat import version  # noqa: E402,F401
from npu_emu.npu.utils import (  # noqa: E402,F401  (torch_npu's top-level aliases)
    obfuscation_calculate,
    obfuscation_finalize,
    obfuscation_initialize,
    set_op_timeout_ms,
)
from npu_emu.npu.hardware_only import super_kernel_scope_begin, super_kernel_scope_end  # noqa: E402,F401
from npu_emu.torch_npu_compat.fused_ops import *  # noqa: E402,F401,F403  (torch_npu fused LLM ops)
from npu_emu.torch_npu_compat.fused_simple import *  # noqa: E402,F401,F403
from npu_emu.torch_npu_compat import _transfer_env  # noqa: E402,F401  (TORCH_TRANSFER_TO_NPU=1)
from npu_emu.torch_npu_compat import profiler  # noqa: E402,F401  (torch_npu.profiler)
