"""Running npu code in a fresh interpreter: for behaviour fixed at process
start (NPU_EMU_HBM_MB, PYTORCH_NPU_ALLOC_CONF ...) and for allocator state
that must start empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

_PRELUDE = "import json, torch, npu_emu\n"


def run_python(code: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `code` (after importing torch and npu_emu) in a new interpreter
    with this environment plus `env`; allocator variables are cleared first."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("NPU", "NPU_EMU_DEVICE_COUNT", "NPU_EMU_HBM_MB", "PYTORCH_NPU_ALLOC_CONF",
                             "PYTORCH_ALLOC_CONF", "PYTORCH_NO_NPU_MEMORY_CACHING", "NPU_EMU_KERNEL_DELAY_US")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", _PRELUDE + textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def run_json(code: str, env: dict[str, str] | None = None) -> Any:
    """Runs `code`, which must print one JSON document last, and returns it."""
    proc = run_python(code, env)
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])
