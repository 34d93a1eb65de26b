"""Starts the ranks of a multi-process job as torchrun would (env://
rendezvous, RANK / LOCAL_RANK / WORLD_SIZE / LOCAL_WORLD_SIZE) and collects
each rank's exit code, last JSON line and stderr."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Generous: ranks import torch on 2 loaded cores. A hang fails at this limit.
JOB_LIMIT_S = 240
# The emulator's settings a rank must not inherit from the test's process.
_EMULATOR_SETTINGS = ("NPU_EMU_DEVICE_COUNT", "ASCEND_RT_VISIBLE_DEVICES", "NPU_EMU_KERNEL_DELAY_US")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_job(script: str, args: list[str], world: int,
            rank_env: Callable[[int], dict[str, str]] | None = None) -> list[tuple[int, dict | None, str]]:
    """Runs `script` (a file next to this one) as `world` ranks; `rank_env(r)`
    adds variables for rank r. Returns (exit code, JSON result, stderr) per rank."""
    port = _free_port()
    base = {k: v for k, v in os.environ.items() if k not in _EMULATOR_SETTINGS}
    procs = []
    for rank in range(world):
        env = {**base, "NPU": "emu", "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world),
               "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
               "JOB_TIMEOUT_S": "60", **(rank_env(rank) if rank_env else {})}
        procs.append(subprocess.Popen([sys.executable, str(HERE / script), *args], env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=JOB_LIMIT_S)
            lines = [line for line in out.splitlines() if line.startswith("{")]
            results.append((proc.returncode, json.loads(lines[-1]) if lines else None, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return results
