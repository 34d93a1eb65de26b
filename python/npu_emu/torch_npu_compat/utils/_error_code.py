"""torch_npu.utils._error_code: torch_npu's error codes (see npu_emu.npu.error_codes)."""

from npu_emu.npu.error_codes import (  # noqa: F401
    ErrCode,
    SubModule as _SubModuleID,
    dist_error,
    graph_error,
    ops_error,
    prof_error,
    pta_error,
)
