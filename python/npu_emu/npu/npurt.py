"""torch.npu.npurt(): torch_npu's handle on a few raw runtime calls, made
here through the ACL library npu-emu loaded (the emulator's, or CANN's with
NPU=acl). Each returns the ACL error code (0 on success), as torch_npu's.
Host-memory registration needs the device's IOMMU: not supported."""

from __future__ import annotations

import ctypes
import functools

from npu_emu import _C
from npu_emu.npu.not_supported import refuse

__all__ = ["npurt"]


@functools.cache
def _acl() -> ctypes.CDLL:
    # The library is loaded already; this only gets a handle on its symbols.
    library = ctypes.CDLL(_C._driver_libraries()[0])
    library.aclrtCreateStream.argtypes = [ctypes.c_void_p]
    library.aclrtCreateStream.restype = ctypes.c_int
    library.aclrtDestroyStream.argtypes = [ctypes.c_void_p]
    library.aclrtDestroyStream.restype = ctypes.c_int
    return library


class _NpuRuntime:
    """The subset of the runtime torch_npu exposes (torch_npu._C._npurt)."""

    def npuStreamCreate(self, stream_out_address: int) -> int:  # noqa: N802  (torch_npu's name)
        """Creates a stream on the current device; its handle is written to
        the pointer-sized memory at `stream_out_address`."""
        import torch

        torch.npu.init()
        return int(_acl().aclrtCreateStream(ctypes.c_void_p(int(stream_out_address))))

    def npuStreamDestroy(self, stream: int) -> int:  # noqa: N802
        return int(_acl().aclrtDestroyStream(ctypes.c_void_p(int(stream))))

    def npuHostRegister(self, ptr: int, size: int, flags: int) -> int:  # noqa: N802
        refuse("torch.npu.npurt().npuHostRegister (registering host memory with the device)",
               "use pinned memory (tensor.pin_memory()) instead")

    def npuHostUnregister(self, ptr: int) -> int:  # noqa: N802
        refuse("torch.npu.npurt().npuHostUnregister (registering host memory with the device)",
               "use pinned memory (tensor.pin_memory()) instead")


runtime = _NpuRuntime()


def npurt() -> _NpuRuntime:
    """The NPU runtime API object (always the same one)."""
    return runtime
