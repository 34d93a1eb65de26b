"""Conformance runner: PyTorch's OpInfo database (and, optionally, PyTorch's
own test files) run on `npu` and compared with CPU, with JSON, JUnit XML and
Markdown reports. Entry points: `npu-emu conformance` and
`python -m npu_emu.conformance`; see docs/conformance.md."""
