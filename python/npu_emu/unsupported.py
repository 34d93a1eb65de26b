"""Features npu-emu does not have yet, each refused with one error that says
what is unsupported on npu and what to use instead (instead of PyTorch's
bare assertions and `KeyError: 'npu'`):

- torch.compile's inductor backend on npu tensors: inductor finds npu code
  generators through `torch.npu.Scheduling` / `PythonWrapperCodegen` (see
  `inductor_attribute`), which refuse to generate; CPU graphs are untouched.
"""

from __future__ import annotations

from typing import Any, NoReturn

import torch

INDUCTOR_MESSAGE = (
    "torch.compile(backend='inductor') is not supported on npu yet (npu-emu has no inductor code generator for npu): "
    "use torch.compile(backend='eager') or backend='aot_eager', or run the model without torch.compile"
)

# The names inductor looks up on the device module of a PrivateUse1 backend.
INDUCTOR_ATTRIBUTES = ("Scheduling", "PythonWrapperCodegen", "CppWrapperCodegen", "WrapperFxCodegen")


def install() -> None:
    """Called once when the backend activates. Nothing is registered here
    now: inductor finds its stand-ins through torch.npu's attributes, and
    `hccl` is a working backend (npu_emu.distributed)."""


def _refuse_inductor(*args: Any, **kwargs: Any) -> NoReturn:
    raise NotImplementedError(INDUCTOR_MESSAGE)


class _RefusesInductor(type):
    """Metaclass of the npu code generator stand-ins: inductor's first
    question to them (supports_caching, create, ...) gets the refusal, before
    any lowering or code generation for the graph."""

    def __getattr__(cls, name: str) -> NoReturn:
        _refuse_inductor()

    def __call__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse_inductor()


class UnsupportedScheduling(metaclass=_RefusesInductor):
    """Inductor's kernel scheduler for npu: there is none."""


class UnsupportedWrapperCodegen(metaclass=_RefusesInductor):
    """Inductor's wrapper code generator for npu: there is none."""


def inductor_attribute(name: str) -> type:
    """`torch.npu.<name>` for the names in INDUCTOR_ATTRIBUTES. Only inductor
    asks for them, so torch._inductor is loaded by then; inductor looks up the
    device's op overrides before its wrapper code generator, so neutral ones
    are registered here for the refusal to be reached."""
    from torch._inductor.codegen import common

    if "npu" not in common.device_op_overrides_dict:
        common.register_device_op_overrides("npu", common.DeviceOpOverrides())
    return UnsupportedScheduling if name == "Scheduling" else UnsupportedWrapperCodegen
