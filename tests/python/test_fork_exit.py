"""Process lifecycle: interpreter exit after large npu work, and children
forked after the parent used npu. Every scenario runs in fresh interpreters
bounded by a timeout, so a hang fails the test instead of stalling the suite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FORK_ERROR = "Cannot re-initialize NPU in forked subprocess"
TIMEOUT_S = 60


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_EMU_DEVICE_COUNT", "NPU_EMU_KERNEL_DELAY_US", "ASCEND_LAUNCH_BLOCKING")}
    env["NPU"] = "emu"
    env.update(extra or {})
    return env


def _start(script: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    # A session of its own: on a timeout the whole tree (forked children too) is killed.
    return subprocess.Popen([sys.executable, str(script)], env=_env(env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"process did not finish within {TIMEOUT_S} s (hang)\nstdout:\n{out}\nstderr:\n{err}")
    return proc.returncode, out, err


def _run_many(tmp_path: Path, code: str, runs: int, parallel: int = 4) -> list[tuple[int, str, str]]:
    """Runs `code` as a script `runs` times, `parallel` interpreters at a time."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    results = []
    for start in range(0, runs, parallel):
        procs = [_start(script) for _ in range(min(parallel, runs - start))]
        results.extend(_finish(p) for p in procs)
    return results


def _run(tmp_path: Path, code: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    return _finish(_start(script, env))


def _assert_all_exit_zero(results: list[tuple[int, str, str]]) -> None:
    codes = [rc for rc, _, _ in results]
    bad = [(rc, err[-2000:]) for rc, _, err in results if rc != 0]
    assert not bad, f"exit codes {codes}; first failure: {bad[0]}"


LARGE_OPS = """
    import torch, torch_npu

    # Large enough that the kernels fan out over oneTBB's worker threads.
    x = torch.randn(1 << 22).npu()
    total = (x * 2 + 1).exp().sum() + x.abs().amax()
    y = torch_npu.npu_format_cast(torch.randn(8, 40, 96, 96).npu(), torch_npu.Format.NC1HWC0)
    assert torch.isfinite(total.cpu())
    # Left in flight: the interpreter exits while streams and TBB workers are busy.
    z = (x.sqrt() + y.sum()).cumsum(0)
    w = torch_npu.npu_format_cast(y, torch_npu.Format.NCHW)
"""


def test_interpreter_exit_after_large_ops_is_clean_every_time(tmp_path):
    _assert_all_exit_zero(_run_many(tmp_path, LARGE_OPS, runs=12))


def test_exit_never_unloads_the_emulator_or_onetbb(tmp_path):
    # Unloading the emulator library at exit also unloaded oneTBB while its
    # worker threads still ran: a SIGSEGV in unmapped code in some runs.
    # glibc's loader reports every unload, so this holds deterministically.
    rc, _, err = _run(tmp_path, LARGE_OPS, env={"LD_DEBUG": "files", "LD_DEBUG_OUTPUT": str(tmp_path / "ld")})
    assert rc == 0, err
    log = "".join(p.read_text() for p in tmp_path.glob("ld.*"))
    assert "libnpu_emu_acl.so" in log  # the loader did report on this process
    unloaded = [line for line in log.splitlines()
                if "destroying link map" in line and ("libnpu_emu_acl" in line or "libtbb" in line)]
    assert not unloaded, unloaded


FORK_PRELUDE = """
    import os, sys, torch, torch_npu

    parent = torch.arange(1 << 20, dtype=torch.float32).npu()
    assert float((parent * 2).sum().cpu()) == float((torch.arange(1 << 20, dtype=torch.float64) * 2).sum())
    assert not torch.npu._is_in_bad_fork()

    def wait_child(pid):
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)
"""


@pytest.mark.parametrize("how", ["sys.exit", "return", "os._exit"])
def test_forked_child_that_only_exits_does_not_hang(tmp_path, how):
    exit_call = {"sys.exit": "sys.exit(7)", "return": "raise SystemExit(7)", "os._exit": "os._exit(7)"}[how]
    code = FORK_PRELUDE + f"""
    pid = os.fork()
    if pid == 0:
        {exit_call}
    assert wait_child(pid) == 7
    # The parent's npu state is intact after the fork.
    assert torch.equal((parent + 1).cpu(), torch.arange(1 << 20, dtype=torch.float32) + 1)
    print("parent ok")
    """
    rc, out, err = _run(tmp_path, code)
    assert rc == 0, err
    assert "parent ok" in out


def test_forked_child_gets_a_clear_error_from_every_npu_entry_point(tmp_path):
    code = FORK_PRELUDE + """
    entry_points = {
        "torch.ones(device='npu')": lambda: torch.ones(3, device="npu"),
        "tensor.npu()": lambda: torch.ones(3).npu(),
        "tensor.to('npu:0')": lambda: torch.ones(3).to("npu:0"),
        "parent tensor op": lambda: parent + 1,
        "parent tensor .cpu()": lambda: parent.cpu(),
        "torch.npu.synchronize()": lambda: torch.npu.synchronize(),
        "torch.npu.current_device()": lambda: torch.npu.current_device(),
        "torch.npu.set_device(0)": lambda: torch.npu.set_device(0),
        "torch.npu.Stream()": lambda: torch.npu.Stream(),
        "torch.npu.Event().record()": lambda: torch.npu.Event().record(),
        "torch.npu.memory_allocated()": lambda: torch.npu.memory_allocated(),
    }
    pid = os.fork()
    if pid == 0:
        failures = []
        assert torch.npu._is_in_bad_fork()
        assert torch.npu.device_count() == 1  # what CUDA's device_count also answers in a bad fork
        for name, call in entry_points.items():
            try:
                call()
                failures.append(f"{name}: no error")
            except RuntimeError as e:
                if "Cannot re-initialize NPU in forked subprocess" not in str(e) or "'spawn'" not in str(e):
                    failures.append(f"{name}: {e}")
        torch.manual_seed(0)  # seeds CPU; skips npu in a bad fork, as for CUDA
        del parent  # freeing the parent's npu memory in the child must neither hang nor fail
        print("\\n".join(failures), flush=True)
        sys.exit(1 if failures else 0)
    assert wait_child(pid) == 0
    assert torch.equal((parent + 1).cpu(), torch.arange(1 << 20, dtype=torch.float32) + 1)
    print("parent ok")
    """
    rc, out, err = _run(tmp_path, code)
    assert rc == 0, f"{out}\n{err}"
    assert "parent ok" in out


def test_fork_before_any_npu_use_leaves_npu_usable_in_the_child(tmp_path):
    # Importing the backend does not initialize a device: as with CUDA, a
    # child forked before the parent used npu initializes its own.
    code = """
    import os, sys, torch, torch_npu
    pid = os.fork()
    if pid == 0:
        assert not torch.npu._is_in_bad_fork()
        ok = torch.equal((torch.arange(5).npu() * 3).cpu(), torch.arange(5) * 3)
        sys.exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert torch.equal((torch.arange(5).npu() + 1).cpu(), torch.arange(5) + 1)
    print("parent ok")
    """
    rc, out, err = _run(tmp_path, code)
    assert rc == 0, f"{out}\n{err}"
    assert "parent ok" in out


POOL_SCRIPT = """
    import multiprocessing as mp
    import torch, torch_npu

    def use_npu(n):
        return float((torch.arange(n, dtype=torch.float32).npu() * 2).sum().cpu())

    if __name__ == "__main__":
        expected = float((torch.arange(1000, dtype=torch.float32) * 2).sum())
        assert use_npu(1000) == expected  # the parent has used npu before the pool starts
        {body}
        assert use_npu(1000) == expected  # and keeps working after it
        print("parent ok")
"""


def test_fork_pool_worker_using_npu_gets_the_clear_error(tmp_path):
    body = """
        with mp.get_context("fork").Pool(1) as pool:
            try:
                pool.apply(use_npu, (1000,))
                raise AssertionError("a fork worker used npu without an error")
            except RuntimeError as e:
                assert "Cannot re-initialize NPU in forked subprocess" in str(e), str(e)
                assert "'spawn' start method" in str(e), str(e)
            assert pool.apply(sum, ([1, 2, 3],)) == 6  # the worker itself is fine for CPU work
    """
    rc, out, err = _run(tmp_path, POOL_SCRIPT.replace("{body}", textwrap.dedent(body).strip().replace("\n", "\n        ")))
    assert rc == 0, f"{out}\n{err}"
    assert "parent ok" in out


def test_spawn_pool_worker_uses_npu(tmp_path):
    body = """
        with mp.get_context("spawn").Pool(1) as pool:
            assert pool.apply(use_npu, (1000,)) == expected
    """
    rc, out, err = _run(tmp_path, POOL_SCRIPT.replace("{body}", textwrap.dedent(body).strip().replace("\n", "\n        ")))
    assert rc == 0, f"{out}\n{err}"
    assert "parent ok" in out
