"""torch.npu memory statistics: exact values for a scripted allocation
sequence (rounding and pool choice visible), summary, snapshot, resets."""

from __future__ import annotations

import pytest
import torch

import npu_emu  # noqa: F401  (activates the npu backend)
from npu_subprocess import run_json

MiB = 1 << 20

# Runs in a fresh process so the allocator starts empty. Each step records
# the statistics after it.
SCRIPT = """
def stats():
    s = torch.npu.memory_stats()
    return {k: s[k] for k in KEYS}

KEYS = [
    "allocated_bytes.all.current", "allocated_bytes.small_pool.current", "allocated_bytes.large_pool.current",
    "reserved_bytes.all.current", "reserved_bytes.small_pool.current", "reserved_bytes.large_pool.current",
    "segment.small_pool.current", "segment.large_pool.current", "allocation.all.current",
    "active.all.current", "active_bytes.all.current", "requested_bytes.all.current",
    "inactive_split.all.current", "inactive_split_bytes.all.current", "allocated_bytes.all.peak",
    "allocated_bytes.all.allocated", "allocated_bytes.all.freed", "num_device_alloc", "num_device_free",
    "num_alloc_retries", "num_ooms",
]

def empty(nbytes):
    return torch.empty(nbytes, dtype=torch.uint8, device="npu")

steps = {}
a = empty(1000); steps["a"] = stats()
b = empty(1); steps["b"] = stats()
c = empty(MiB - 32); steps["c"] = stats()
d = empty(MiB - 31); steps["d"] = stats()
e = empty(10 * MiB - 32); steps["e"] = stats()
f = empty(10 * MiB); steps["f"] = stats()
a_ptr = a.data_ptr()
del a; steps["del_a"] = stats()
a2 = empty(1000); steps["a2"] = stats()
steps["a2_reuses_a"] = a2.data_ptr() == a_ptr
steps["memory_allocated"] = torch.npu.memory_allocated()
steps["memory_reserved"] = torch.npu.memory_reserved()
steps["accelerator_allocated"] = torch.accelerator.memory_allocated()
del a2, b, c, d, e, f
steps["freed"] = stats()
torch.npu.empty_cache()
steps["emptied"] = stats()
steps["max_memory_allocated"] = torch.npu.max_memory_allocated()
torch.npu.reset_peak_memory_stats()
steps["peak_after_reset"] = torch.npu.max_memory_allocated()
steps["max_reserved_after_reset"] = torch.npu.max_memory_reserved()
torch.npu.reset_accumulated_memory_stats()
steps["after_accumulated_reset"] = stats()
print(json.dumps(steps))
""".replace("MiB", str(MiB))


@pytest.fixture(scope="module")
def steps():
    return run_json(SCRIPT)


def test_small_request_is_padded_rounded_and_gets_a_2mib_segment(steps):
    s = steps["a"]  # 1000 + 32 -> 1536
    assert s["allocated_bytes.all.current"] == 1536
    assert s["allocated_bytes.small_pool.current"] == 1536
    assert s["allocated_bytes.large_pool.current"] == 0
    assert s["requested_bytes.all.current"] == 1000
    assert s["reserved_bytes.small_pool.current"] == 2 * MiB
    assert s["segment.small_pool.current"] == 1
    assert s["segment.large_pool.current"] == 0
    # The rest of the segment is one inactive split block.
    assert s["inactive_split.all.current"] == 1
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - 1536
    assert s["allocation.all.current"] == 1
    assert s["active.all.current"] == 1 and s["active_bytes.all.current"] == 1536


def test_tiny_request_is_512_and_splits_the_same_segment(steps):
    s = steps["b"]  # 1 + 32 -> 512
    assert s["allocated_bytes.all.current"] == 1536 + 512
    assert s["reserved_bytes.all.current"] == 2 * MiB
    assert s["segment.small_pool.current"] == 1
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - 2048


def test_one_mib_after_padding_is_still_small(steps):
    s = steps["c"]  # (1 MiB - 32) + 32 = 1 MiB exactly: small pool
    assert s["allocated_bytes.small_pool.current"] == 2048 + MiB
    assert s["allocated_bytes.large_pool.current"] == 0
    assert s["reserved_bytes.all.current"] == 2 * MiB


def test_above_one_mib_goes_to_a_20mib_large_segment(steps):
    s = steps["d"]  # 1 MiB + 1 -> rounded to 1 MiB + 512, large pool
    assert s["allocated_bytes.large_pool.current"] == MiB + 512
    assert s["reserved_bytes.large_pool.current"] == 20 * MiB
    assert s["segment.large_pool.current"] == 1
    assert s["reserved_bytes.all.current"] == 22 * MiB


def test_ten_mib_is_served_from_the_cached_large_segment(steps):
    s = steps["e"]  # exactly 10 MiB after padding: fits the 20 MiB segment's rest
    assert s["allocated_bytes.large_pool.current"] == MiB + 512 + 10 * MiB
    assert s["reserved_bytes.large_pool.current"] == 20 * MiB
    assert s["segment.large_pool.current"] == 1


def test_above_ten_mib_gets_its_own_segment_rounded_to_2mib(steps):
    s = steps["f"]  # 10 MiB + 32 -> 10 MiB + 512 -> segment of 12 MiB
    assert s["allocated_bytes.large_pool.current"] == MiB + 512 + 10 * MiB + 10 * MiB + 512
    assert s["reserved_bytes.large_pool.current"] == 32 * MiB
    assert s["segment.large_pool.current"] == 2
    assert s["num_device_alloc"] == 3


def test_free_returns_the_block_to_the_pool_and_it_is_reused(steps):
    s = steps["del_a"]
    assert s["allocated_bytes.small_pool.current"] == 512 + MiB
    assert s["reserved_bytes.all.current"] == 34 * MiB  # cached, not returned
    assert s["allocated_bytes.all.freed"] == 1536
    assert steps["a2_reuses_a"] is True
    assert steps["a2"]["num_device_alloc"] == 3


def test_memory_allocated_and_reserved_match_the_stats(steps):
    expected = 1536 + 512 + MiB + (MiB + 512) + 10 * MiB + (10 * MiB + 512)
    assert steps["memory_allocated"] == expected
    assert steps["accelerator_allocated"] == expected
    assert steps["memory_reserved"] == 34 * MiB


def test_everything_freed_then_empty_cache_returns_all_segments(steps):
    freed = steps["freed"]
    assert freed["allocated_bytes.all.current"] == 0
    assert freed["active_bytes.all.current"] == 0
    assert freed["inactive_split.all.current"] == 0  # whole segments again after merging
    assert freed["reserved_bytes.all.current"] == 34 * MiB
    emptied = steps["emptied"]
    assert emptied["reserved_bytes.all.current"] == 0
    assert emptied["segment.small_pool.current"] == 0 and emptied["segment.large_pool.current"] == 0
    assert emptied["num_device_free"] == 3
    assert emptied["num_alloc_retries"] == 0 and emptied["num_ooms"] == 0


def test_peak_and_resets(steps):
    peak = 1536 + 512 + MiB + (MiB + 512) + 10 * MiB + (10 * MiB + 512)
    assert steps["max_memory_allocated"] == peak
    assert steps["peak_after_reset"] == 0
    assert steps["max_reserved_after_reset"] == 0
    after = steps["after_accumulated_reset"]
    assert after["allocated_bytes.all.allocated"] == 0 and after["allocated_bytes.all.freed"] == 0
    assert after["num_device_alloc"] == 0


def test_memory_stats_has_cuda_compatible_keys():
    x = torch.ones(10, device="npu")
    stats = torch.npu.memory_stats()
    for name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
                 "active_bytes", "inactive_split_bytes", "requested_bytes"):
        for pool in ("all", "small_pool", "large_pool"):
            for metric in ("current", "peak", "allocated", "freed"):
                assert f"{name}.{pool}.{metric}" in stats
    for key in ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free",
                "max_split_size", "oversize_allocations.current", "oversize_segments.current"):
        assert key in stats
    assert stats["allocated_bytes.all.current"] >= 512
    assert list(stats) == sorted(stats)
    assert torch.accelerator.memory_stats()["allocated_bytes.all.current"] == stats["allocated_bytes.all.current"]
    del x


def test_memory_summary_header_and_rows():
    x = torch.ones(1000, device="npu")
    text = torch.npu.memory_summary()
    assert "PyTorch NPU memory summary, device ID 0" in text
    for row in ("Allocated memory", "Active memory", "NPU reserved memory", "Allocations", "Oversize allocations"):
        assert row in text
    assert "NPU OOMs: " in text
    del x


def test_memory_snapshot_lists_segments_with_their_blocks():
    x = torch.empty(3000, dtype=torch.uint8, device="npu")
    segments = torch.npu.memory_snapshot()
    holding = [s for s in segments
               if s["address"] <= x.data_ptr() < s["address"] + s["total_size"]]
    assert len(holding) == 1
    seg = holding[0]
    assert seg["segment_type"] == "small" and seg["total_size"] == 2 * MiB
    assert sum(b["size"] for b in seg["blocks"]) == seg["total_size"]
    mine = [b for b in seg["blocks"] if b["address"] == x.data_ptr()]
    assert mine == [{"address": x.data_ptr(), "size": 3072, "requested_size": 3000, "state": "active_allocated"}]
    del x


def test_device_argument_forms_and_bad_device():
    assert torch.npu.memory_allocated(0) == torch.npu.memory_allocated("npu:0") == \
        torch.npu.memory_allocated(torch.device("npu", 0))
    with pytest.raises(RuntimeError, match="Invalid NPU device index 7"):
        torch.npu.memory_allocated(7)
    with pytest.raises(ValueError, match="Expected a npu device, but got: cpu"):
        torch.npu.memory_stats("cpu")


def test_mem_get_info_reflects_reserved_segments():
    torch.npu.empty_cache()
    free_before, total = torch.npu.mem_get_info()
    x = torch.empty(64 * MiB, dtype=torch.uint8, device="npu")
    free_after, total_after = torch.npu.mem_get_info()
    assert total_after == total
    assert free_before - free_after == 64 * MiB + 2 * MiB  # one segment: rounded up to 2 MiB
    del x
    torch.npu.empty_cache()
    assert torch.npu.mem_get_info()[0] == free_before


def test_statistics_are_per_device():
    result = run_json("""
        x = torch.empty(5000, dtype=torch.uint8, device="npu:1")
        y = torch.empty(100, dtype=torch.uint8, device="npu:0")
        out = {"d0": torch.npu.memory_allocated(0), "d1": torch.npu.memory_allocated("npu:1"),
               "r1": torch.npu.memory_reserved(1), "x_device": str(x.device)}
        with torch.npu.device(1):
            out["current_is_1"] = torch.npu.memory_allocated() == out["d1"]
        del x
        torch.npu.empty_cache()
        out["r1_after"] = torch.npu.memory_reserved(1)
        out["r0_after"] = torch.npu.memory_reserved(0)
        print(json.dumps(out))
    """, env={"NPU_EMU_DEVICE_COUNT": "2"})
    assert result == {"d0": 512, "d1": 5120, "r1": 2 * MiB, "x_device": "npu:1", "current_is_1": True,
                      "r1_after": 0, "r0_after": 2 * MiB}
