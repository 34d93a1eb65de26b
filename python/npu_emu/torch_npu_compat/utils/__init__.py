"""torch_npu.utils: environment report, error codes and CANN version helpers."""

from npu_emu.npu.utils import get_cann_version
