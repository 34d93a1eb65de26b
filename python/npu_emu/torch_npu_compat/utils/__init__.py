"""torch_npu.utils: environment report, error codes, CANN version helpers
and tensor combining."""

from npu_emu.npu.utils import get_cann_version
from npu_emu.torch_npu_compat.utils.combine_tensors import (  # noqa: F401
    get_part_combined_tensor,
    is_combined_tensor_valid,
    npu_combine_tensors,
)
