"""Tests of the real torch_npu (PyPI torch-npu) on npu-emu's CANN stand-in.

Run with the interpreter of the environment that has torch-npu installed
(scripts/setup.sh makes .venv-torch-npu; scripts/test.sh runs this
directory with it). In-process tests import torch_npu here, the way a user's
`NPU=emu python train.py` does; tests of start-up behaviour use fresh
interpreters (run_python).
"""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.machinery.PathFinder.find_spec("torch_npu") is None:
    raise pytest.UsageError(
        "tests/real_torch_npu need the real torch_npu (PyPI torch-npu==2.13.0): run them with "
        ".venv-torch-npu/bin/python (scripts/setup.sh creates it), not with the project's .venv")

# What a user's shell has: NPU=emu at interpreter start. This process started
# under pytest, so it applies the switch's start-up step itself.
os.environ["NPU"] = "emu"
os.environ.pop("NPU_EMU_TORCH_NPU", None)
import _npu_emu_switch  # noqa: E402

_npu_emu_switch.at_startup()

import torch  # noqa: E402
import torch_npu  # noqa: E402,F401

REPO = Path(__file__).resolve().parents[2]


def run_python(code: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter of this environment, with NPU=emu
    unless `env` says otherwise."""
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("NPU", "ASCEND_")) and k != "LD_LIBRARY_PATH"}
    full_env["NPU"] = "emu"
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


@pytest.fixture(autouse=True)
def _synchronized():
    yield
    torch.npu.synchronize()
