"""Issue 20, load: a bounded soak of threads x streams x mixed ops x
allocations near the HBM limit, every result checked against CPU, and no
growth of reserved device memory or of the process's RSS after a warm-up.

One fresh process (NPU_EMU_HBM_MB must apply from the start) runs THREADS
threads, each alternating between two streams of its own, for
NPU_EMU_SOAK_SECONDS (default 60; set it higher for a long local soak). Each
step draws one of: elementwise ops, a matmul, reductions, host-to-device and
device-to-host copies from/to pinned memory with non_blocking=True, a format
cast there and back, and a large allocation (each thread holds at most one, a
fifth of the device, so live data stays under the device's size: an OOM is a
failure). The process is killed at a timeout, so a hang fails the test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

HBM_MB = 384
THREADS = 3
SECONDS = int(os.environ.get("NPU_EMU_SOAK_SECONDS", "") or "60")
RSS_GROWTH_BOUND_MB = 64  # after the warm-up; the allocator and streams keep no per-step state

SOAK = r"""
import json, os, random, threading, time, traceback
import torch, torch_npu

SECONDS, THREADS, HBM = {seconds}, {threads}, {hbm} << 20
BIG = HBM // 5 // 4  # float32 elements of one large allocation: a fifth of the device
deadline = time.monotonic() + SECONDS
warmup_end = time.monotonic() + max(SECONDS * 0.2, 3)
failures, counts, lock = [], {{}}, threading.Lock()


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def close(a, b, exact=False):
    return torch.equal(a, b) if exact else torch.allclose(a, b, rtol=1e-4, atol=1e-4)


def step(kind, rng, stream, big):
    g = torch.Generator().manual_seed(rng.randrange(1 << 30))
    if kind == "elementwise":
        a, b = torch.randn(rng.randrange(1, 5000), generator=g), torch.randn(1, generator=g)
        got = ((a.npu() * b.npu()) - 1).abs().clamp(max=2.0).cpu()
        return close(got, ((a * b) - 1).abs().clamp(max=2.0), exact=True)
    if kind == "matmul":
        m, k, n = (rng.randrange(1, 96) for _ in range(3))
        a, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
        return close((a.npu() @ b.npu()).cpu(), a @ b)
    if kind == "reduce":
        a = torch.randn(rng.randrange(1, 64), rng.randrange(1, 300), generator=g)
        d = a.npu()
        return (close(d.sum(1).cpu(), a.sum(1)) and close(d.amax(0).cpu(), a.amax(0), exact=True)
                and close(d.mean().cpu(), a.mean()))
    if kind == "copies":
        src = torch.randn(rng.randrange(1, 1 << 16), generator=g).pin_memory()
        back = torch.empty_like(src).pin_memory()
        d = torch.empty(src.shape, device="npu")
        d.copy_(src, non_blocking=True)
        d.mul_(2)
        back.copy_(d, non_blocking=True)
        stream.synchronize()
        return close(back, src * 2, exact=True)
    if kind == "format":
        a = torch.randn(rng.randrange(1, 4), rng.randrange(1, 40), rng.randrange(1, 9), rng.randrange(1, 9),
                        generator=g)
        fmt = rng.choice([3, 4, 29])
        t = torch_npu.npu_format_cast(a.npu(), fmt)
        return torch_npu.get_npu_format(t) == fmt and close(torch_npu.npu_format_cast(t, 0).cpu(), a, exact=True)
    if kind == "big":
        if big:  # give the held one back; the next "big" step allocates again
            big.clear()
            return True
        t = torch.empty(BIG, device="npu")
        t.fill_(3.0)
        big.append(t)
        return float(t.amin().cpu()) == 3.0 and float(t.amax().cpu()) == 3.0 and float(t[BIG - 1].cpu()) == 3.0
    raise AssertionError(kind)


KINDS = ["elementwise", "matmul", "reduce", "copies", "format", "big"]


def worker(index):
    rng = random.Random(1000 + index)
    streams = [torch.npu.Stream(), torch.npu.Stream()]
    big, n = [], 0
    try:
        while time.monotonic() < deadline:
            stream = streams[n % 2]
            kind = rng.choice(KINDS)
            with torch.npu.stream(stream):
                ok = step(kind, rng, stream, big)
            with lock:
                counts[kind] = counts.get(kind, 0) + 1
                if not ok:
                    failures.append(f"thread {{index}} step {{n}}: {{kind}} differs from CPU")
            n += 1
    except Exception:
        with lock:
            failures.append(f"thread {{index}} step {{n}}: " + traceback.format_exc())
    finally:
        big.clear()
        for s in streams:
            s.synchronize()


def settled():
    torch.npu.synchronize()
    torch.npu.empty_cache()
    return torch.npu.memory_allocated(), torch.npu.memory_reserved(), rss_mb()


start = time.monotonic()
threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
for t in threads:
    t.start()
while time.monotonic() < warmup_end:
    time.sleep(0.05)  # a wait for the warm-up to pass, not a synchronization
peak_rss = rss_mb()  # measured while the workers run, after the warm-up
for t in threads:
    t.join(SECONDS + 600)
alive = [t.name for t in threads if t.is_alive()]
allocated, reserved, end_rss = settled()
print(json.dumps({{"failures": failures, "alive": alive, "counts": counts, "allocated": allocated,
                   "reserved": reserved, "warm_rss_mb": peak_rss, "end_rss_mb": end_rss,
                   "seconds": time.monotonic() - start}}))
"""


def test_soak_threads_streams_mixed_ops_near_the_hbm_limit(tmp_path):
    script = tmp_path / "soak.py"
    script.write_text(SOAK.format(seconds=SECONDS, threads=THREADS, hbm=HBM_MB))
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPU_EMU_KERNEL_DELAY_US", "ASCEND_LAUNCH_BLOCKING", "PYTORCH_NPU_ALLOC_CONF",
                        "PYTORCH_NO_NPU_MEMORY_CACHING", "NPU_EMU_DEVICE_COUNT")}
    env.update(NPU="emu", NPU_EMU_HBM_MB=str(HBM_MB))
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    timeout = SECONDS + 300
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"soak did not finish within {timeout} s (hang)\n{out}\n{err[-4000:]}")
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{out}\n{err[-6000:]}"
    result = json.loads(out.strip().splitlines()[-1])
    print(json.dumps(result))  # counts and memory, for the log (pytest -s)
    assert not result["alive"], f"threads still running after the deadline: {result['alive']}"
    assert not result["failures"], "\n".join(result["failures"][:5])
    assert set(result["counts"]) == {"elementwise", "matmul", "reduce", "copies", "format", "big"}, result["counts"]
    # Every tensor is gone: nothing allocated, nothing cached after empty_cache.
    assert result["allocated"] == 0 and result["reserved"] == 0, result
    assert result["end_rss_mb"] <= result["warm_rss_mb"] + RSS_GROWTH_BOUND_MB, result
