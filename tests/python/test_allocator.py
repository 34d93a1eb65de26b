"""The npu caching allocator: reuse within a stream, per-stream free lists,
record_stream, raw allocations, fractions, OOM and recovery."""

from __future__ import annotations

import pytest
import torch

import npu_emu  # noqa: F401  (activates the npu backend)
from npu_subprocess import run_json, run_python

MiB = 1 << 20
# Unusual large sizes: each gets a segment of its own, so no block another
# test left in the cache can serve it by accident.
SIZE_A = 13 * MiB + 4321
SIZE_B = 15 * MiB + 1234


def empty(nbytes: int) -> torch.Tensor:
    return torch.empty(nbytes, dtype=torch.uint8, device="npu")


def test_is_the_registered_device_allocator():
    assert torch._C._accelerator_isAllocatorInitialized()
    x = empty(100)
    assert torch.accelerator.memory_allocated() == torch.npu.memory_allocated() >= 512
    del x


def test_freed_block_is_reused_on_the_same_stream():
    x = empty(SIZE_A)
    ptr = x.data_ptr()
    reserved = torch.npu.memory_reserved()
    del x
    y = empty(SIZE_A)
    assert y.data_ptr() == ptr
    assert torch.npu.memory_reserved() == reserved  # no new segment


def test_free_lists_are_per_stream():
    s = torch.npu.Stream()
    with torch.npu.stream(s):
        x = empty(SIZE_B)
    ptr = x.data_ptr()
    del x
    y = empty(SIZE_B)  # default stream: may not take the block freed for s
    assert y.data_ptr() != ptr
    with torch.npu.stream(s):
        z = empty(SIZE_B)
    assert z.data_ptr() == ptr
    del y, z


def test_record_stream_delays_reuse_until_the_other_stream_is_done(delay_us):
    torch.npu.synchronize()
    side = torch.npu.Stream()
    x = empty(SIZE_A + 7)
    ptr = x.data_ptr()
    delay_us(500_000)  # the side stream's kernel stays in flight
    with torch.npu.stream(side):
        x.fill_(3)
    x.record_stream(side)
    del x
    y = empty(SIZE_A + 7)
    assert y.data_ptr() != ptr, "reused while the side stream still used the block"
    assert not side.query()
    delay_us(0)
    side.synchronize()
    z = empty(SIZE_A + 7)  # the event completed: the block is back
    assert z.data_ptr() == ptr
    del y, z


def test_without_record_stream_the_block_is_reused_at_once(delay_us):
    torch.npu.synchronize()
    side = torch.npu.Stream()
    x = empty(SIZE_A + 9)
    ptr = x.data_ptr()
    delay_us(200_000)
    with torch.npu.stream(side):
        x.fill_(3)
    del x
    y = empty(SIZE_A + 9)
    assert y.data_ptr() == ptr  # the caller's responsibility without record_stream
    del y


def test_record_stream_on_the_allocating_stream_changes_nothing():
    x = empty(SIZE_B + 5)
    ptr = x.data_ptr()
    x.record_stream(torch.npu.current_stream())
    del x
    y = empty(SIZE_B + 5)
    assert y.data_ptr() == ptr
    del y


def test_caching_allocator_alloc_and_delete():
    before = torch.npu.memory_allocated()
    ptr = torch.npu.caching_allocator_alloc(5000)
    assert ptr != 0 and ptr % 512 == 0
    assert torch.npu.memory_allocated() - before == 5120  # 5032 rounded to 512
    torch.npu.caching_allocator_delete(ptr)
    assert torch.npu.memory_allocated() == before
    with pytest.raises(RuntimeError, match="not a live allocation"):
        torch.npu.caching_allocator_delete(ptr)
    s = torch.npu.Stream()
    ptr = torch.npu.caching_allocator_alloc(100, device=0, stream=s)
    torch.npu.caching_allocator_delete(ptr)
    with pytest.raises(TypeError):
        torch.npu.caching_allocator_alloc(100, stream="default")


def test_zero_sized_tensors_take_no_memory():
    before = torch.npu.memory_stats()["allocation.all.current"]
    x = torch.empty(0, device="npu")
    assert torch.npu.memory_stats()["allocation.all.current"] == before
    assert x.numel() == 0


def test_per_stream_allocations_keep_data_intact():
    a = torch.arange(1000, dtype=torch.float32, device="npu")
    b = a * 2
    del a
    c = torch.ones(1000, device="npu")  # reuses a's block
    assert torch.equal(b.cpu(), torch.arange(1000, dtype=torch.float32) * 2)
    assert torch.equal(c.cpu(), torch.ones(1000))


def test_set_per_process_memory_fraction_limits_reservations():
    result = run_json("""
        total = torch.npu.mem_get_info()[1]
        torch.npu.set_per_process_memory_fraction(0.25)
        ok = torch.empty(total // 8, dtype=torch.uint8, device="npu")
        try:
            torch.empty(total // 5, dtype=torch.uint8, device="npu")
            raised = None
        except torch.OutOfMemoryError as e:
            raised = str(e)
        stats = torch.npu.memory_stats()
        print(json.dumps({"raised": raised, "ooms": stats["num_ooms"], "retries": stats["num_alloc_retries"]}))
    """, env={"NPU_EMU_HBM_MB": "1024"})
    assert result["raised"] is not None and result["raised"].startswith("NPU out of memory")
    assert "per-process memory fraction" in result["raised"]
    assert result["ooms"] == 1 and result["retries"] == 1


def test_bad_fraction_is_rejected():
    with pytest.raises(ValueError, match="Allowed range"):
        torch.npu.set_per_process_memory_fraction(1.5)
    with pytest.raises(TypeError):
        torch.npu.set_per_process_memory_fraction("half")


OOM_SCRIPT = """
    keep = torch.arange(1000, dtype=torch.float32, device="npu")
    before = torch.npu.memory_allocated()
    result = {}
    try:
        torch.empty(300 * 1024 * 1024, dtype=torch.uint8, device="npu")
    except torch.OutOfMemoryError as e:
        result["type"] = type(e).__name__
        result["message"] = str(e)
    stats = torch.npu.memory_stats()
    result["num_ooms"] = stats["num_ooms"]
    result["num_alloc_retries"] = stats["num_alloc_retries"]
    result["allocated_unchanged"] = torch.npu.memory_allocated() == before
    after = torch.ones(10, device="npu")
    result["ones"] = after.cpu().tolist()
    result["keep_intact"] = torch.equal(keep.cpu(), torch.arange(1000, dtype=torch.float32))
    big = torch.empty(100 * 1024 * 1024, dtype=torch.uint8, device="npu")
    result["big_after_oom"] = big.numel()
    print(json.dumps(result))
"""


def test_oom_raises_out_of_memory_error_and_the_process_recovers():
    result = run_json(OOM_SCRIPT, env={"NPU_EMU_HBM_MB": "256"})
    assert result["type"] == "OutOfMemoryError"
    msg = result["message"]
    assert msg.startswith("NPU out of memory. Tried to allocate 302.00 MiB (NPU 0; 256.00 MiB total capacity; ")
    for part in ("already allocated;", "current active;", "free;", "reserved in total by PyTorch)"):
        assert part in msg
    assert result["num_ooms"] == 1
    assert result["num_alloc_retries"] == 1
    assert result["allocated_unchanged"]
    assert result["ones"] == [1.0] * 10
    assert result["keep_intact"]
    assert result["big_after_oom"] == 100 * 1024 * 1024


def test_oom_frees_the_cache_and_retries_before_failing():
    # 150 MiB cached (freed but held) + a 150 MiB request does not fit 256 MiB
    # until the cache is returned: the retry succeeds, no OOM.
    result = run_json("""
        x = torch.empty(150 * 1024 * 1024, dtype=torch.uint8, device="npu")
        del x
        reserved_before = torch.npu.memory_reserved()
        y = torch.empty(170 * 1024 * 1024, dtype=torch.uint8, device="npu")
        s = torch.npu.memory_stats()
        print(json.dumps({"reserved_before": reserved_before, "retries": s["num_alloc_retries"],
                          "ooms": s["num_ooms"], "reserved": torch.npu.memory_reserved()}))
    """, env={"NPU_EMU_HBM_MB": "256"})
    assert result["reserved_before"] == 150 * MiB + 2 * MiB
    assert result["retries"] == 1 and result["ooms"] == 0
    assert result["reserved"] == 170 * MiB + 2 * MiB


def test_oom_from_an_op_output_is_out_of_memory_error_too():
    proc = run_python("""
        a = torch.empty(100 * 1024 * 1024, dtype=torch.uint8, device="npu")
        b = torch.empty(100 * 1024 * 1024, dtype=torch.uint8, device="npu")
        try:
            c = a + b  # the output does not fit
        except torch.OutOfMemoryError as e:
            print("OOM", str(e).split(".")[0])
    """, env={"NPU_EMU_HBM_MB": "256"})
    assert proc.returncode == 0, proc.stderr
    assert "OOM NPU out of memory" in proc.stdout


def test_no_caching_returns_memory_at_once():
    result = run_json("""
        x = torch.empty(1000, dtype=torch.uint8, device="npu")
        reserved_live = torch.npu.memory_reserved()
        del x
        s = torch.npu.memory_stats()
        print(json.dumps({"reserved_live": reserved_live, "reserved": s["reserved_bytes.all.current"],
                          "device_free": s["num_device_free"],
                          "caching": npu_emu._C._npu_allocator_config()["caching_enabled"]}))
    """, env={"PYTORCH_NO_NPU_MEMORY_CACHING": "1"})
    assert result["caching"] is False
    assert result["reserved_live"] == 1536  # its own device allocation, not a 2 MiB segment
    assert result["reserved"] == 0 and result["device_free"] == 1
