"""npu-emu: an Ascend NPU for PyTorch without the hardware.

Importing this package activates the `npu` backend: on the emulator, or on
the real CANN libraries when NPU=acl.
"""

from npu_emu._backend import activate as _activate

_activate()

from npu_emu.debug import fallback_report, native_report, storage_data, storage_desc  # noqa: E402

__all__ = ["fallback_report", "native_report", "storage_data", "storage_desc"]

import os as _os  # noqa: E402

if _os.environ.get("NPU_EMU_TRACE"):
    from npu_emu.debug import trace as _trace

    _trace.start_from_env()
__version__ = "0.1.0"
