"""Debugging aids for npu tensors and their formats.

- reports: which ops ran natively or on the CPU fallback; the raw storage.
- inspect_tensor: describe / locate / locate_offset / compare / explain a tensor's format.
- render: pictures of the physical layout (text, PNG).
- trace: NPU_EMU_TRACE=formats[:path], every format change and fallback as JSON lines;
  trace_report summarises a trace (`npu-emu formats report`).
"""

from npu_emu.debug.inspect_tensor import (
    Comparison,
    Explanation,
    FormatDescription,
    Location,
    compare,
    describe,
    explain,
    locate,
    locate_offset,
    storage_values,
)
from npu_emu.debug.layout import Layout
from npu_emu.debug.render import render_png, render_text
from npu_emu.debug.reports import fallback_report, native_report, reset_reports, storage_data, storage_desc
from npu_emu.debug.trace import tracing

__all__ = [
    "Comparison", "Explanation", "FormatDescription", "Layout", "Location", "compare", "describe", "explain",
    "fallback_report", "locate", "locate_offset", "native_report", "render_png", "render_text", "reset_reports",
    "storage_data", "storage_desc", "storage_values", "tracing",
]
