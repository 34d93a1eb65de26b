"""Fuzz target (issue 20): aclCreateTensor argument validation, run in a fresh
interpreter (body: tests/python/fuzz_acl_tensor.py) so that a crash of the
emulator fails this test with its signal instead of ending the test run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis", reason="the fuzz targets need hypothesis (scripts/setup.sh installs it)")

HERE = Path(__file__).resolve().parent


def test_acl_create_tensor_with_random_arguments_errors_clearly_or_reads_exactly():
    env = dict(os.environ, NPU="emu", PYTHONPATH=os.pathsep.join([str(HERE), *sys.path]))
    env.pop("NPU_EMU_KERNEL_DELAY_US", None)
    proc = subprocess.run([sys.executable, "-c", "import fuzz_acl_tensor; fuzz_acl_tensor.fuzz_create_tensor_and_copy()"],
                          env=env, capture_output=True, text=True, timeout=600, cwd=HERE)
    if proc.returncode < 0:
        pytest.fail(f"the fuzz process died of {signal.Signals(-proc.returncode).name}\n{proc.stderr[-6000:]}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
