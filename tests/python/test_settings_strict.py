"""Issue 20, strict settings: every NPU_EMU_*, ASCEND_*, PYTORCH_*_ALLOC_CONF
and TORCH_NPU_* variable npu-emu reads, given a bad value, stops the start
(or the first allocation, for the allocator's) with an error naming the
variable, the value and what it takes; none is read as a silent default.

Not here: paths (NPU_EMU_CANN_HOME, NPU_EMU_STANDIN_REPORT, ASCEND_HOME_PATH:
a missing file is reported where it is opened) and TORCH_NPU_DEVICE_CAPABILITY,
whose bad value torch_npu answers with None and a warning
(test_torch_npu_surface_settings.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO

_FIRST_USE = "import torch, torch_npu; x = torch.ones(3, device='npu'); print((x + 1).sum().item())"
# Every setting this file varies, cleared first so the machine's own values do not interfere.
_CLEARED = ("NPU", "NPU_EMU_", "ASCEND_", "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_NO_NPU_MEMORY_CACHING",
            "TORCH_NPU_")


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(_CLEARED)}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True, timeout=120,
                          cwd=REPO)


# (variable, bad value, words of the allowed values the message must contain)
BACKEND_SETTINGS = [
    ("NPU", "gpu", "NPU=emu, NPU=acl"),
    ("NPU_EMU_TORCH_NPU", "fake", "auto, real, compat"),
    ("NPU_EMU_DEVICE_COUNT", "0", "integer from 1 to 16"),
    ("NPU_EMU_DEVICE_COUNT", "two", "integer from 1 to 16"),
    ("NPU_EMU_SOC", "Ascend999", "Ascend910B1"),
    ("NPU_EMU_HBM_MB", "-1", "integer from 1"),
    ("NPU_EMU_HBM_MB", "1g", "integer from 1"),
    ("NPU_EMU_KERNEL_DELAY_US", "abc", "integer from 0"),
    ("NPU_EMU_KERNEL_DELAY_US", "-5", "integer from 0"),
    ("ASCEND_LAUNCH_BLOCKING", "yes", "0 or 1"),
    ("ASCEND_RT_VISIBLE_DEVICES", "a", "integer"),
    ("NPU_EMU_FALLBACK", "sometimes", "allow, warn, error"),
    ("TORCH_NPU_FALLBACK_CPU_DISABLE", "yes", "0 or 1"),
    ("TORCH_NPU_COMPACT_ERROR_OUTPUT", "on", "0 or 1"),
    ("NPU_EMU_FAULTS", "boom", "oom@N"),
    ("NPU_EMU_SANITIZE", "all", "streams"),
    ("NPU_EMU_TRACE", "bytes", "formats"),
    ("PYTORCH_NPU_ALLOC_CONF", "max_split_size_mb:abc", "integer number of MiB"),
    ("PYTORCH_NPU_ALLOC_CONF", "bogus:1", "max_split_size_mb"),
    ("PYTORCH_ALLOC_CONF", "garbage_collection_threshold:2", "garbage_collection_threshold"),
    ("PYTORCH_NO_NPU_MEMORY_CACHING", "2", "0 or 1"),
]


@pytest.mark.parametrize(("variable", "value", "allowed"), BACKEND_SETTINGS,
                         ids=[f"{v}={x}" for v, x, _ in BACKEND_SETTINGS])
def test_bad_value_is_an_error_naming_the_variable_and_the_allowed_values(variable, value, allowed):
    env = {"NPU": "emu", variable: value}
    result = _run(_FIRST_USE, env)
    assert result.returncode != 0, f"{variable}={value!r} was accepted:\n{result.stdout}"
    last = result.stderr.strip().splitlines()[-1]  # the exception itself, not a traceback line
    assert variable in last and value in last and allowed in last, result.stderr[-3000:]


@pytest.mark.parametrize(("variable", "value"), [("TORCH_NPU_FALLBACK_CPU_DISABLE", "0"),
                                                 ("TORCH_NPU_FALLBACK_CPU_DISABLE", "1"),
                                                 ("TORCH_NPU_COMPACT_ERROR_OUTPUT", "0"),
                                                 ("TORCH_NPU_COMPACT_ERROR_OUTPUT", "1")])
def test_good_switch_values_are_accepted(variable, value):
    result = _run(_FIRST_USE, {"NPU": "emu", variable: value})
    assert result.returncode == 0 and result.stdout.strip() == "6.0", result.stderr[-3000:]


# The CANN stand-in's own settings, read by its libraries: checked when the
# Python switch loads them (what `import torch_npu` does for the real torch_npu).
_LOAD_STANDIN = "import _npu_emu_standin; _npu_emu_standin.prepare(); print('loaded')"
STANDIN_SETTINGS = [
    ("ASCEND_GLOBAL_LOG_LEVEL", "5", "0 (debug), 1 (info), 2 (warning), 3 (error), 4 (no log)"),
    ("ASCEND_GLOBAL_LOG_LEVEL", "warning", "0 (debug), 1 (info)"),
    ("ASCEND_GLOBAL_LOG_LEVEL", "-1", "0 (debug)"),
    ("ASCEND_SLOG_PRINT_TO_STDOUT", "true", "0 or 1"),
    ("ASCEND_SLOG_PRINT_TO_STDOUT", "10", "0 or 1"),
    ("NPU_EMU_STANDIN_VERBOSE", "yes", "0 or 1"),
]


@pytest.mark.parametrize(("variable", "value", "allowed"), STANDIN_SETTINGS,
                         ids=[f"{v}={x}" for v, x, _ in STANDIN_SETTINGS])
def test_bad_standin_setting_is_an_error_naming_it(variable, value, allowed):
    result = _run(_LOAD_STANDIN, {variable: value})
    assert result.returncode != 0, f"{variable}={value!r} was accepted:\n{result.stdout}"
    last = result.stderr.strip().splitlines()[-1]
    assert variable in last and f"'{value}'" in last and allowed in last, result.stderr[-3000:]


def test_good_standin_settings_are_accepted():
    env = {"ASCEND_GLOBAL_LOG_LEVEL": "4", "ASCEND_SLOG_PRINT_TO_STDOUT": "0", "NPU_EMU_STANDIN_VERBOSE": "1"}
    result = _run(_LOAD_STANDIN, env)
    assert result.returncode == 0 and result.stdout.strip() == "loaded", result.stderr[-3000:]
