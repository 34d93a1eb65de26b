"""hccl's collectives overlap the caller's compute: the call only queues the
collective; the staging copies run on the group's worker, on its own stream,
after the work queued before the call; `wait()` orders the caller's stream
after the results. Observed through npu_emu.profiler's task records (which
thread submitted each task, on which stream, when it ran), with slow kernels
(NPU_EMU_KERNEL_DELAY_US) so that the stream is still busy during the call."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

import npu_emu.profiler


@pytest.fixture
def hccl_one_rank():
    dist.init_process_group("hccl", store=dist.HashStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


@pytest.mark.parametrize("collective", ["all_reduce", "broadcast", "all_gather_into_tensor"])
def test_collective_runs_beside_the_callers_stream(hccl_one_rank, delay_us, collective):
    src = torch.arange(8.0, device="npu")
    torch.npu.synchronize()
    calls = {
        "all_reduce": lambda t, out: dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True),
        "broadcast": lambda t, out: dist.broadcast(t, src=0, async_op=True),
        "all_gather_into_tensor": lambda t, out: dist.all_gather_into_tensor(out, t, async_op=True),
    }
    delay_us(200_000)
    with npu_emu.profiler.profile(memory=False) as prof:
        caller = threading.get_native_id()
        caller_stream = torch.npu.current_stream().npu_stream
        t = src * 3  # slow: still running when the collective is called
        out = torch.empty(8, device="npu") if collective == "all_gather_into_tensor" else t
        marker = torch.npu.Event()
        marker.record()
        # Still computing (0.2 s per kernel) unless this thread stalled that
        # long; then the collective rightly starts here and only the results
        # are checked.
        busy = not marker.query()
        work = calls[collective](t, out)
        completed = work.is_completed()
        reached = marker.query()
        work.wait()
        after = out + 1  # queued after wait(): must see the result
    delay_us(0)
    # Complete only once the stream has run what the input depends on.
    assert reached or not completed
    assert work.is_completed()
    assert torch.equal(after.cpu(), torch.arange(8.0) * 3 + 1)

    producer = next(task for task in prof.tasks if task.name == "aclnnMuls")
    consumer = next(task for task in prof.tasks if task.name == "aclnnAdds")
    copies = [task for task in prof.tasks if task.kind == "copy"]
    assert len(copies) == 2, [task.name for task in prof.tasks]  # staging and copy back
    staging, copy_back = sorted(copies, key=lambda task: task.seq)
    assert staging.start_ns >= producer.end_ns
    assert consumer.start_ns >= copy_back.end_ns
    if not busy:
        return
    # The worker stages, not the calling thread, on a stream of the group's
    # own (the copy back may be done by the waiting caller, on its stream
    # once idle).
    assert staging.submit_thread != caller
    assert staging.stream != caller_stream


def test_future_completes_without_wait(hccl_one_rank, delay_us):
    """DDP's reducer waits on get_future(): the worker completes it, with
    the results already in npu memory, and is_completed() follows."""
    src = torch.arange(6.0, device="npu")
    torch.npu.synchronize()
    delay_us(20_000)
    t = src + 1  # slow
    work = dist.all_reduce(t, op=dist.ReduceOp.SUM, async_op=True)
    value = work.get_future().wait()
    delay_us(0)
    assert work.is_completed() and work.is_success()
    assert value[0] is t
    assert torch.equal(t.cpu(), torch.arange(6.0) + 1)


def test_wait_with_a_timeout_completes_a_small_collective(hccl_one_rank):
    """A collective issued on the calling thread (inputs ready, small) still
    completes when waited for with a timeout."""
    t = torch.full((4,), 3.0, device="npu")
    torch.npu.synchronize()
    work = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)
    assert work.wait(timeout=timedelta(seconds=60))
    assert torch.equal(t.cpu(), torch.full((4,), 3.0))
