"""The `NPU=` switch, kept free of heavy imports.

It runs at interpreter start-up (from a .pth file) and when PyTorch autoloads
device backends, so it must not import torch or npu_emu unless asked to:

    NPU=emu   the emulator; `import torch_npu` is the real torch_npu on the
              CANN stand-in when it is installed, else this package's
              compatible module (NPU_EMU_TORCH_NPU=real|compat forces one)
    NPU=acl   the backend on the real CANN libraries
    unset     nothing activates; `import npu_emu` opts in to the emulator
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType

ALLOWED_MODES = ("emu", "acl")
# Which front-end `import torch_npu` gives with NPU=emu (NPU_EMU_TORCH_NPU).
TORCH_NPU_FRONT_ENDS = ("auto", "real", "compat")
_COMPAT_PACKAGE = "npu_emu.torch_npu_compat"


def requested_mode() -> str | None:
    """The mode named by NPU, or None when unset; raises for other values."""
    value = os.environ.get("NPU", "").strip()
    if not value:
        return None
    if value not in ALLOWED_MODES:
        raise RuntimeError(
            f"NPU={value!r} is not a valid value; allowed values are: "
            + ", ".join(f"NPU={m}" for m in ALLOWED_MODES)
            + " (or leave NPU unset)"
        )
    return value


def _real_torch_npu_installed() -> bool:
    """Whether a real torch_npu is importable from sys.path (the path finder
    alone: the alias finder below must not answer for it)."""
    return importlib.machinery.PathFinder.find_spec("torch_npu") is not None


def torch_npu_front_end() -> str:
    """"real" when `import torch_npu` should load the real package on the CANN
    stand-in (NPU=emu only), else "compat"; raises for a bad
    NPU_EMU_TORCH_NPU or for "real" without the package."""
    value = os.environ.get("NPU_EMU_TORCH_NPU", "").strip() or "auto"
    if value not in TORCH_NPU_FRONT_ENDS:
        raise RuntimeError(f"NPU_EMU_TORCH_NPU={value!r} is not a valid value; allowed values are: "
                           + ", ".join(TORCH_NPU_FRONT_ENDS))
    if requested_mode() != "emu" or value == "compat":
        return "compat"
    installed = _real_torch_npu_installed()
    if value == "real" and not installed:
        raise RuntimeError("NPU_EMU_TORCH_NPU=real but the torch_npu package (PyPI torch-npu) is not installed in this "
                           "environment; install torch-npu with the matching torch, or set NPU_EMU_TORCH_NPU=compat")
    return "real" if installed else "compat"


class RealTorchNpuFinder(importlib.abc.MetaPathFinder):
    """On `import torch_npu`, readies the CANN stand-in (environment and
    libraries, _npu_emu_standin.prepare) and lets the path finder load the
    real package."""

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname == "torch_npu":
            import _npu_emu_standin

            _npu_emu_standin.prepare()
        return None


def install_real_torch_npu_hook() -> None:
    if not any(isinstance(f, RealTorchNpuFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, RealTorchNpuFinder())


class _AliasLoader(importlib.abc.Loader):
    """Loads `torch_npu[.x]` as the already-importable module `target`."""

    def __init__(self, target: str) -> None:
        self._target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self._target)

    def exec_module(self, module: ModuleType) -> None:
        pass  # the target module is already executed


class TorchNpuAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves `import torch_npu` to npu-emu's torch_npu-compatible module,
    ahead of any real torch_npu on sys.path."""

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname != "torch_npu" and not fullname.startswith("torch_npu."):
            return None
        target_name = _COMPAT_PACKAGE + fullname[len("torch_npu"):]
        if importlib.util.find_spec(target_name.rsplit(".", 1)[0] if "." in target_name else target_name) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name), is_package=True)


def install_torch_npu_alias() -> None:
    if not any(isinstance(f, TorchNpuAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchNpuAliasFinder())


def at_startup() -> None:
    """Run from the .pth file: only the cheap part (the import hooks)."""
    try:
        if requested_mode() is None:
            return
        if torch_npu_front_end() == "real":
            install_real_torch_npu_hook()
        else:
            install_torch_npu_alias()
    except RuntimeError as err:
        # A bad NPU or NPU_EMU_TORCH_NPU value is reported when torch,
        # npu_emu or torch_npu is imported (torch may autoload the real
        # torch_npu before npu-emu's own entry point reports it).
        sys.meta_path.insert(0, _StartErrorFinder(err))


class _StartErrorFinder(importlib.abc.MetaPathFinder):
    """Raises the start-up setting error on `import torch_npu`."""

    def __init__(self, error: RuntimeError) -> None:
        self._error = error

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname == "torch_npu":
            raise RuntimeError(str(self._error))
        return None


class BackendStartError(BaseException):
    """npu-emu could not start as torch's `npu` backend during `import torch`
    (a bad NPU or NPU_EMU_* setting, missing CANN libraries ...).

    Deliberately not an Exception: torch wraps every Exception an autoloaded
    backend raises in its generic "Failed to load the backend extension"
    RuntimeError, which leaves the message naming the bad setting in a
    chained cause above it. This error passes through, so the last line the
    user reads is the real one. Its __cause__ is the original exception."""


def autoload() -> None:
    """Entry point of group `torch.backends`, called by `import torch`."""
    try:
        mode = requested_mode()
        if mode is None:
            _explain_missing_device_tests_at_exit()
            return
        if torch_npu_front_end() == "real":
            # The real torch_npu owns the npu device (its own entry point of
            # this group imports it); npu-emu's backend stays out of the way.
            install_real_torch_npu_hook()
            return
        importlib.import_module("npu_emu")
    except Exception as err:
        reason = str(err) or type(err).__name__
        raise BackendStartError(
            f"{reason} (npu-emu could not start as torch's npu backend with NPU={os.environ.get('NPU', '').strip()}; "
            "to import torch without it, unset NPU or set TORCH_DEVICE_BACKEND_AUTOLOAD=0)"
        ) from err


# PyTorch's device-type tests: this variable restricts them to some devices.
_DEVICE_TESTS_ENV = "PYTORCH_TESTING_DEVICE_ONLY_FOR"


def _explain_missing_device_tests_at_exit() -> None:
    """A process that asks PyTorch's test files for their npu tests
    (PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1 or npu) while the backend is
    not active gets none of them, and pytest says only "no tests ran": say at
    exit why, and how to activate it. Cheap: only the variable is read now."""
    wanted = [d.strip() for d in os.environ.get(_DEVICE_TESTS_ENV, "").split(",")]
    if "privateuse1" in wanted or "npu" in wanted:
        import atexit

        atexit.register(_report_if_still_inactive)


def _report_if_still_inactive() -> None:
    torch = sys.modules.get("torch")
    try:
        if torch is None or torch._C._get_privateuse1_backend_name() == "npu":
            return
    except AttributeError:
        return
    sys.stderr.write(
        f"npu-emu: {_DEVICE_TESTS_ENV}={os.environ.get(_DEVICE_TESTS_ENV)} asks PyTorch's test files for their npu "
        "tests, but the npu backend was not active in this process (NPU is unset), so PyTorch instantiated none "
        "of them. Set NPU=emu (e.g. `NPU=emu python -m pytest test/test_ops.py`), or run the files with "
        "`npu-emu conformance upstream --pytorch-src <checkout>`, or load the runner's plugin with "
        "`-p npu_emu.conformance.pytest_plugin`.\n")
