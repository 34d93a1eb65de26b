"""torch_npu's error codes (ERRsscc: submodule ss, code ccc) and the suffix
torch_npu appends to its error texts, e.g. "ERR00002 PTA invalid type"."""

from __future__ import annotations

import enum
import os
import time


class SubModule(enum.Enum):
    PTA = 0
    OPS = 1
    DIST = 2
    GRAPH = 3
    PROF = 4
    UNKNOWN = 99


class ErrCode(enum.Enum):
    SUCCESS = (0, "success")
    PARAM = (1, "invalid parameter")
    TYPE = (2, "invalid type")
    VALUE = (3, "invalid value")
    PTR = (4, "invalid pointer")
    INTERNAL = (5, "internal error")
    MEMORY = (6, "memory error")
    NOT_SUPPORT = (7, "feature not supported")
    NOT_FOUND = (8, "resource not found")
    UNAVAIL = (9, "resource unavailable")
    SYSCALL = (10, "system call failed")
    TIMEOUT = (11, "timeout error")
    PERMISSION = (12, "permission error")
    ACL = (100, "call acl api failed")
    HCCL = (200, "call hccl api failed")
    GE = (300, "call ge api failed")
    EXCEPT = (999, "applicaiton exception")  # sic: torch_npu's text

    @property
    def code(self) -> int:
        return self.value[0]

    @property
    def msg(self) -> str:
        return self.value[1]


def _device_and_rank() -> tuple[int, int]:
    import torch

    device = rank = -1
    try:
        device = torch.npu.current_device()
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            rank = torch.distributed.get_rank()
    except Exception:  # an error text must not fail while being built
        pass
    return device, rank


def error_suffix(submodule: SubModule, error: ErrCode) -> str:
    """torch_npu's suffix: "\\n[ERROR] <time> (PID:p, Device:d, RankID:r)
    ERRsscc SUB message"; empty with TORCH_NPU_COMPACT_ERROR_OUTPUT=1."""
    if os.environ.get("TORCH_NPU_COMPACT_ERROR_OUTPUT", "0") not in ("", "0"):
        return ""
    device, rank = _device_and_rank()
    return (f"\n[ERROR] {time.strftime('%Y-%m-%d-%H:%M:%S', time.localtime())} (PID:{os.getpid()}, "
            f"Device:{device}, RankID:{rank}) ERR{submodule.value:02d}{error.code:03d} {submodule.name} {error.msg}")


def pta_error(error: ErrCode) -> str:
    return error_suffix(SubModule.PTA, error)


def ops_error(error: ErrCode) -> str:
    return error_suffix(SubModule.OPS, error)


def dist_error(error: ErrCode) -> str:
    return error_suffix(SubModule.DIST, error)


def graph_error(error: ErrCode) -> str:
    return error_suffix(SubModule.GRAPH, error)


def prof_error(error: ErrCode) -> str:
    return error_suffix(SubModule.PROF, error)
