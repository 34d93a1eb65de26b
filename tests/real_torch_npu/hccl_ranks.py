"""Launches a multi-rank job of the real torch_npu on the stand-in: one fresh
interpreter per rank running `hccl_worker.py SCENARIO`, with torchrun's
environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT; one emulated device per rank), each bounded by
a timeout after which every rank still running is killed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

WORKER = Path(__file__).with_name("hccl_worker.py")
REPO = Path(__file__).resolve().parents[2]


@dataclass
class RankResult:
    rank: int
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(scenario: str, world_size: int = 2, env: dict[str, str] | None = None,
              timeout: float = 240) -> list[RankResult]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("NPU", "ASCEND_", "HCCL_")) and k != "LD_LIBRARY_PATH"}
    base.update({"NPU": "emu", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()),
                 "WORLD_SIZE": str(world_size), "NPU_EMU_DEVICE_COUNT": str(world_size)})
    base.update(env or {})
    procs = []
    for rank in range(world_size):
        rank_env = dict(base, RANK=str(rank), LOCAL_RANK=str(rank))
        procs.append(subprocess.Popen([sys.executable, str(WORKER), scenario], env=rank_env, cwd=REPO,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    for rank, proc in enumerate(procs):
        try:
            out, err = proc.communicate(timeout=timeout)
            results.append(RankResult(rank, proc.returncode, out, err))
        except subprocess.TimeoutExpired:
            for other in procs:
                if other.poll() is None:
                    other.kill()
            out, err = proc.communicate()
            results.append(RankResult(rank, None, out, err))
            timeout = 5  # the rest were just killed
    return results


def describe(results: list[RankResult]) -> str:
    return "\n".join(f"--- rank {r.rank} exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
                     for r in results)
