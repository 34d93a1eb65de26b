"""How stream workers use the host's cores.

A short op launched on an idle stream runs on the launching thread (the
emulated device just finished it fast); the stream's worker takes what is
launched while the stream is busy or slowed by the latency knob. Two busy
streams progress together, and a worker with nothing to run blocks instead
of spinning a core that another stream or the host thread needs (the
project's machines have 2 cores).

The idle check compares the process's CPU time with the wall time of the
same stretch, with a wide margin: load on the machine only lengthens the wall
time, which makes it pass more easily, never fail. How many cores a loop of
small ops keeps busy is measured by bench/run.py (row `host_cpu`), not tested:
on a loaded 2-core machine a polling worker cannot show up in that ratio.
"""

import threading
import time

import torch

from conftest import run_python

DELAY = 2_000  # µs per kernel


def _cpu_and_wall(work) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def test_idle_stream_workers_do_not_use_the_cpu(delay_us):
    # Both streams' workers have run tasks (delayed kernels go to the worker)
    # and are now idle with nothing queued.
    side = torch.npu.Stream()
    x = torch.ones(64).npu()
    delay_us(DELAY)
    y = x + 1
    with torch.npu.stream(side):
        z = x * 3
    torch.npu.synchronize()
    delay_us(0)
    cpu, wall = _cpu_and_wall(lambda: threading.Event().wait(0.3))
    assert cpu < 0.5 * wall, f"idle process used {cpu:.3f} s of CPU in {wall:.3f} s"
    assert torch.equal(y.cpu(), torch.full((64,), 2.0)) and torch.equal(z.cpu(), torch.full((64,), 3.0))


def test_two_busy_streams_progress_together(delay_us):
    side = torch.npu.Stream()
    x = torch.zeros(16).npu()
    torch.npu.synchronize()
    delay_us(DELAY)
    long_chain = x
    for _ in range(300):  # 0.6 s of queued work on the default stream
        long_chain = long_chain + 1
    with torch.npu.stream(side):
        short = x + 5
        done = torch.npu.Event()
        done.record(side)
    done.synchronize()
    # The side stream's task ran while the default stream still had most of
    # its queue: it did not wait behind the other stream's work.
    assert torch.npu.default_stream().query() is False
    assert torch.equal(short.cpu(), torch.full((16,), 5.0))
    torch.npu.synchronize()
    assert torch.equal(long_chain.cpu(), torch.full((16,), 300.0))


def test_ops_keep_stream_order_across_the_launching_thread_and_the_worker(delay_us):
    # Run here (idle stream), queued (delay set), then launched undelayed
    # while the stream is still busy: it must queue behind, not run here.
    for op in (torch.add, torch.mul, torch.sub):
        x = torch.arange(32, dtype=torch.float32).npu()
        torch.npu.synchronize()
        first = op(x, 2)
        delay_us(20_000)
        second = op(first, 3)
        delay_us(0)
        third = op(second, 4)
        summed = third.sum()
        torch.npu.synchronize()
        ref = op(op(op(torch.arange(32, dtype=torch.float32), 2), 3), 4)
        assert torch.equal(third.cpu(), ref)
        assert summed.cpu().item() == ref.sum().item()


def test_a_kernel_error_in_a_launch_run_on_the_launching_thread_is_reported_at_synchronize():
    # index_select validates indices when its kernel runs: a bad index fails
    # inside the task, which is reported by the next synchronizing call as
    # for a task the worker ran.
    x = torch.arange(8, dtype=torch.float32).npu()
    bad = torch.tensor([0, 99]).npu()
    torch.npu.synchronize()
    try:
        x.index_select(0, bad)
        torch.npu.synchronize()
    except (RuntimeError, IndexError) as e:
        assert "index" in str(e).lower()
    else:
        raise AssertionError("an out-of-range index was not reported")
    # The stream keeps working after the error was consumed.
    assert torch.equal((x + 1).cpu(), torch.arange(8, dtype=torch.float32) + 1)


def test_launch_blocking_reports_a_failing_kernel_at_its_launch():
    # The kernels fail on the data (an index out of range), whichever thread
    # runs them: with ASCEND_LAUNCH_BLOCKING=1 the launch itself raises;
    # without it, the next synchronize does.
    code = ("import torch, npu_emu\n"
            "x = torch.arange(8, dtype=torch.float32).npu()\n"
            "bad = torch.tensor([0, 99]).npu()\n"
            "torch.npu.synchronize()\n"
            "for op in (lambda: x.index_select(0, bad), lambda: torch.gather(x, 0, bad)):\n"
            "    where = 'launch'\n"
            "    try:\n"
            "        op()\n"
            "        where = 'synchronize'\n"
            "        torch.npu.synchronize()\n"
            "        where = 'nowhere'\n"
            "    except RuntimeError:\n"
            "        pass\n"
            "    print(where)\n")
    blocking = run_python(code, {"ASCEND_LAUNCH_BLOCKING": "1"})
    assert blocking.stdout.split() == ["launch", "launch"], blocking.stderr
    deferred = run_python(code)
    assert deferred.stdout.split() == ["synchronize", "synchronize"], deferred.stderr
