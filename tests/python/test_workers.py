"""Issue 20, workers: `multiprocessing` pools (spawn and fork) and DataLoader
workers (num_workers=2, spawn and fork) that use npu, several at once, with
every result checked against the same computation on CPU.

As with CUDA: a spawn worker, or a child forked before the parent used npu,
initializes its own emulated device; a child forked after the parent used npu
gets the "Cannot re-initialize NPU in forked subprocess" error from every npu
entry, which DataLoader and Pool hand back to the parent. npu tensors cannot
be sent to another process (npu-emu emulates no IPC memory): one clear error
at the send. Every scenario is a fresh interpreter in a session of its own,
killed whole at the timeout, so a hang fails the test instead of blocking CI.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TIMEOUT_S = 300  # spawn workers import torch each: slow on a loaded 2-core machine
FORK_ERROR = "Cannot re-initialize NPU in forked subprocess"


def run_script(directory: Path, code: str) -> dict:
    """Runs `code` as a script (spawn workers re-import it as __mp_main__);
    its last stdout line must be one JSON document, returned."""
    script = directory / "workers_script.py"
    script.write_text(textwrap.dedent(code))
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_EMU_DEVICE_COUNT", "NPU_EMU_KERNEL_DELAY_US", "ASCEND_LAUNCH_BLOCKING", "NPU_EMU_HBM_MB")}
    env["NPU"] = "emu"
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, cwd=directory)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # workers too
        out, err = proc.communicate()
        pytest.fail(f"did not finish within {TIMEOUT_S} s (hang)\nstdout:\n{out}\nstderr:\n{err[-4000:]}")
    assert proc.returncode == 0, f"exit code {proc.returncode}\nstdout:\n{out}\nstderr:\n{err[-4000:]}"
    return json.loads(out.strip().splitlines()[-1])


# The work every worker does, on npu and on CPU: elementwise ops, a matmul, a
# reduction, a format round trip. Seeded per task, so the parent can recompute
# it on CPU and compare.
WORK = """
    import json, os, sys
    import torch, torch_npu

    def inputs(seed):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(8, 16, 12, 12, generator=g), torch.randn(96, 64, generator=g)

    def compute(seed, device):
        x, w = inputs(seed)
        x, w = x.to(device), w.to(device)
        y = (x * 2 + 1).relu()
        if device == "npu":  # a private format and back: must be exact
            y = torch_npu.npu_format_cast(torch_npu.npu_format_cast(y, 3), 0)
        m = y.reshape(-1, 96)[:64] @ w
        return [t.cpu() for t in (y.sum(dim=(2, 3)), m, y.amax(dim=1))]

    def npu_task(seed):
        return compute(seed, "npu")

    def check(seed, got):
        # y and its max are exact; the sum and matmul accumulate in another order
        want = compute(seed, "cpu")
        return (torch.allclose(got[0], want[0], rtol=1e-5, atol=1e-4)
                and torch.allclose(got[1], want[1], rtol=1e-5, atol=1e-4) and torch.equal(got[2], want[2]))

    def error_of(call):
        try:
            call()
            return "no error"
        except Exception as e:  # what a worker's error looks like in the parent
            return f"{type(e).__name__}: {e}"
"""


def test_spawn_pool_workers_use_npu_beside_the_parent(tmp_path):
    result = run_script(tmp_path, WORK + """
    import multiprocessing as mp

    if __name__ == "__main__":
        parent_before = check(100, npu_task(100))  # the parent has a device before the workers start
        with mp.get_context("spawn").Pool(3) as pool:
            pending = pool.map_async(npu_task, range(9))
            parent_during = all(check(200 + i, npu_task(200 + i)) for i in range(3))  # load on both sides
            results = pending.get(timeout=240)
        print(json.dumps({"workers": [check(i, r) for i, r in enumerate(results)],
                          "parent": [parent_before, parent_during]}))
    """)
    assert result == {"workers": [True] * 9, "parent": [True, True]}


def test_fork_pool_before_the_parent_used_npu_works_in_every_worker(tmp_path):
    result = run_script(tmp_path, WORK + """
    import multiprocessing as mp

    if __name__ == "__main__":
        with mp.get_context("fork").Pool(3) as pool:
            results = pool.map_async(npu_task, range(6)).get(timeout=240)
        # The parent starts its own device after its children did.
        print(json.dumps({"workers": [check(i, r) for i, r in enumerate(results)],
                          "parent": check(50, npu_task(50))}))
    """)
    assert result == {"workers": [True] * 6, "parent": True}


def test_fork_pool_after_the_parent_used_npu_gets_the_clear_error_in_every_worker(tmp_path):
    result = run_script(tmp_path, WORK + """
    import multiprocessing as mp

    def cpu_task(seed):
        return compute(seed, "cpu")

    if __name__ == "__main__":
        x = torch.randn(1 << 20).npu()
        slow = (x.exp() + 1).cumsum(0)  # still in flight when the workers are forked
        with mp.get_context("fork").Pool(3) as pool:
            async_results = [pool.apply_async(npu_task, (i,)) for i in range(6)]
            errors = [error_of(lambda r=r: r.get(timeout=240)) for r in async_results]
            cpu = pool.map_async(cpu_task, range(3)).get(timeout=240)  # the workers stay usable for CPU work
        print(json.dumps({"errors": errors, "cpu": [check(i, r) for i, r in enumerate(cpu)],
                          "parent": check(7, npu_task(7))
                                    and torch.allclose(slow.cpu(), (x.cpu().exp() + 1).cumsum(0), rtol=1e-4)}))
    """)
    assert len(result["errors"]) == 6
    for error in result["errors"]:
        assert error.startswith("RuntimeError: " + FORK_ERROR) and "'spawn' start method" in error, error
    assert result["cpu"] == [True] * 3 and result["parent"] is True


DATALOADER = WORK + """
    import multiprocessing as mp
    from torch.utils.data import DataLoader, Dataset

    class NpuDataset(Dataset):
        \"\"\"Each item computed on npu in the worker, returned on CPU.\"\"\"
        def __len__(self):
            return 8
        def __getitem__(self, i):
            return npu_task(i)[1]

    class CpuDataset(Dataset):
        def __len__(self):
            return 8
        def __getitem__(self, i):
            return inputs(i)[1]

    def loader(dataset, method, **kwargs):
        return DataLoader(dataset, batch_size=2, num_workers=2, multiprocessing_context=mp.get_context(method),
                          timeout=240, **kwargs)

    def npu_items_match(method):
        batches = list(loader(NpuDataset(), method))
        return all(torch.allclose(b[k], compute(2 * i + k, "cpu")[1], rtol=1e-5, atol=1e-4)
                   for i, b in enumerate(batches) for k in range(2)) and len(batches) == 4

    def cpu_items_to_npu(method):
        \"\"\"CPU-side workers, pinned batches copied to npu without blocking, used there.\"\"\"
        ok = True
        for i, batch in enumerate(loader(CpuDataset(), method, pin_memory=True, pin_memory_device="npu")):
            ok &= batch.is_pinned()
            on_npu = batch.to("npu", non_blocking=True)
            want = torch.stack([inputs(2 * i + k)[1] for k in range(2)])
            ok &= torch.allclose((on_npu @ on_npu.transpose(1, 2)).cpu(), want @ want.transpose(1, 2),
                                 rtol=1e-5, atol=1e-4)
        return bool(ok)
"""


def test_dataloader_spawn_workers_use_npu(tmp_path):
    result = run_script(tmp_path, DATALOADER + """
    if __name__ == "__main__":
        parent = check(3, npu_task(3))
        print(json.dumps({"npu_items": npu_items_match("spawn"), "pinned": cpu_items_to_npu("spawn"),
                          "parent": parent and check(4, npu_task(4))}))
    """)
    assert result == {"npu_items": True, "pinned": True, "parent": True}


def test_dataloader_fork_workers_before_and_after_the_parent_used_npu(tmp_path):
    result = run_script(tmp_path, DATALOADER + """
    if __name__ == "__main__":
        before = npu_items_match("fork")  # the parent has not touched npu yet: each worker starts its own
        parent = check(3, npu_task(3))
        after = error_of(lambda: list(loader(NpuDataset(), "fork")))
        print(json.dumps({"before": before, "after": after, "pinned": cpu_items_to_npu("fork"),
                          "parent": parent and check(4, npu_task(4))}))
    """)
    assert result["before"] is True
    assert FORK_ERROR in result["after"] and "DataLoader worker process" in result["after"], result["after"]
    assert result["pinned"] is True and result["parent"] is True


def test_sending_an_npu_tensor_to_a_worker_is_one_clear_error(tmp_path):
    result = run_script(tmp_path, WORK + """
    import multiprocessing as mp

    def double(t):
        return t * 2

    if __name__ == "__main__":
        x = torch.arange(6.0).npu()
        with mp.get_context("spawn").Pool(1) as pool:
            pool_error = error_of(lambda: pool.apply(double, (x,)))
            cpu_ok = torch.equal(pool.apply(double, (x.cpu(),)), torch.arange(6.0) * 2)
        queue = torch.multiprocessing.get_context("spawn").SimpleQueue()
        print(json.dumps({"pool": pool_error, "queue": error_of(lambda: queue.put(x)),
                          "parameter": error_of(lambda: queue.put(torch.nn.Parameter(x))),
                          "storage": error_of(lambda: queue.put(x.untyped_storage())),
                          "cpu": cpu_ok, "parent": torch.equal((x * 2).cpu(), torch.arange(6.0) * 2)}))
    """)
    for key in ("pool", "queue", "parameter", "storage"):
        message = result[key]
        assert message.startswith("RuntimeError: ") and "npu" in message and ".cpu()" in message, (key, message)
    assert result["cpu"] is True and result["parent"] is True


def test_fork_while_other_threads_use_npu_never_hangs_the_child(tmp_path):
    """Children forked while the parent's threads allocate, free and launch on
    npu (locks of the allocator and streams held at the fork): each child frees
    the npu tensors it inherited, gets the clear error from npu, and exits."""
    result = run_script(tmp_path, WORK + """
    import threading

    stop = threading.Event()

    def churn(seed):
        g = torch.Generator().manual_seed(seed)
        while not stop.is_set():
            x = torch.randn(int(torch.randint(1, 1 << 16, (1,), generator=g)), generator=g).npu()
            (x * 2 + 1).sum().cpu()
            del x

    inherited = [torch.randn(1 << 12).npu() for _ in range(8)]
    threads = [threading.Thread(target=churn, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    outcomes = []
    for i in range(12):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            inherited.clear()  # frees npu memory the parent allocated
            message = error_of(lambda: torch.ones(2, device="npu"))
            os.write(write_end, message.encode()[:500])
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as r:
            message = r.read()
        _, status = os.waitpid(pid, 0)
        outcomes.append([os.waitstatus_to_exitcode(status), message])
    stop.set()
    for t in threads:
        t.join()
    print(json.dumps({"children": outcomes, "parent": check(5, npu_task(5))}))
    """)
    assert result["parent"] is True
    for code, message in result["children"]:
        assert code == 0 and FORK_ERROR in message, (code, message)
