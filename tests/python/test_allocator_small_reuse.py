"""The caching allocator's small-block reuse list: a freed small block is
parked whole for the next malloc of its size and stream, and everything that
looks at the pools or reports on them (a malloc of another size, stats,
memory_snapshot, empty_cache, the out-of-memory retry) merges the parked
blocks back first, so what users see is what merging at once gives."""

from __future__ import annotations

import torch

import npu_emu  # noqa: F401  (activates the npu backend)
from npu_subprocess import run_json

MiB = 1 << 20

# Fresh processes: the allocator starts empty, so addresses and numbers are
# those of one 2 MiB small segment.
PRELUDE = """
def empty(nbytes, **kw):
    return torch.empty(nbytes, dtype=torch.uint8, device="npu", **kw)

def stats():
    s = torch.npu.memory_stats()
    return {k: s[k] for k in ("allocated_bytes.all.current", "active_bytes.all.current",
                              "requested_bytes.all.current", "allocation.all.current", "active.all.current",
                              "inactive_split.all.current", "inactive_split_bytes.all.current",
                              "segment.all.current", "reserved_bytes.all.current", "num_device_alloc",
                              "allocated_bytes.all.freed", "allocated_bytes.all.allocated")}
"""


def test_same_size_reuses_the_block_and_stats_stay_exact():
    out = run_json(PRELUDE + """
a = empty(1000)            # 1536-byte block at the segment's start
ptr = a.data_ptr()
b = empty(100)             # 512 bytes after it
del a                      # parked
steps = {"after_free": stats()}
a2 = empty(1000)
steps["reused"] = a2.data_ptr() == ptr
steps["after_reuse"] = stats()
for _ in range(50):        # a loop of small ops: one block, reused
    a2 = a2 + 1
steps["after_loop"] = stats()
del a2, b
steps["all_freed"] = stats()
print(json.dumps(steps))
""")
    after_free = out["after_free"]
    assert after_free["allocated_bytes.all.current"] == 512
    assert after_free["active_bytes.all.current"] == 512
    assert after_free["requested_bytes.all.current"] == 100
    assert after_free["allocation.all.current"] == 1 and after_free["active.all.current"] == 1
    # [free 1536 | b 512 | free rest]: two inactive pieces, as merging gives.
    assert after_free["inactive_split.all.current"] == 2
    assert after_free["inactive_split_bytes.all.current"] == 2 * MiB - 512
    assert out["reused"] is True
    after_reuse = out["after_reuse"]
    assert after_reuse["allocated_bytes.all.current"] == 2048
    assert after_reuse["requested_bytes.all.current"] == 1100
    assert after_reuse["inactive_split.all.current"] == 1
    assert after_reuse["inactive_split_bytes.all.current"] == 2 * MiB - 2048
    assert after_reuse["num_device_alloc"] == 1
    after_loop = out["after_loop"]
    assert after_loop["allocated_bytes.all.current"] == 2048
    assert after_loop["allocation.all.current"] == 2
    assert after_loop["segment.all.current"] == 1
    assert after_loop["allocated_bytes.all.allocated"] - after_loop["allocated_bytes.all.freed"] == 2048
    freed = out["all_freed"]
    assert freed["allocated_bytes.all.current"] == 0 and freed["active_bytes.all.current"] == 0
    assert freed["requested_bytes.all.current"] == 0
    assert freed["inactive_split.all.current"] == 0  # one whole segment again
    assert freed["inactive_split_bytes.all.current"] == 0
    assert freed["reserved_bytes.all.current"] == 2 * MiB


def test_empty_cache_right_after_frees_returns_the_segment():
    # No stats call in between: empty_cache itself merges the parked blocks.
    out = run_json(PRELUDE + """
xs = [empty(n) for n in (100, 1000, 3000, 100, 100)]
del xs
torch.npu.empty_cache()
print(json.dumps(stats()))
""")
    assert out["reserved_bytes.all.current"] == 0
    assert out["segment.all.current"] == 0
    assert out["inactive_split.all.current"] == 0


def test_memory_snapshot_right_after_a_free_shows_the_merged_segment():
    out = run_json(PRELUDE + """
a = empty(1000)
del a
segments = torch.npu.memory_snapshot()
print(json.dumps([[(b["size"], b["state"]) for b in s["blocks"]] for s in segments]))
""")
    assert out == [[[2 * MiB, "inactive"]]]


def test_a_malloc_of_another_size_sees_the_merged_space():
    # Merged at once, the freed 1536 bytes and the rest after them are one
    # block at the segment's start, which a 3072-byte request takes.
    out = run_json(PRELUDE + """
a = empty(1000)
ptr = a.data_ptr()
del a
c = empty(3000)
print(json.dumps({"same_start": c.data_ptr() == ptr, "stats": stats()}))
""")
    assert out["same_start"] is True
    assert out["stats"]["allocated_bytes.all.current"] == 3072
    assert out["stats"]["inactive_split.all.current"] == 1
    assert out["stats"]["inactive_split_bytes.all.current"] == 2 * MiB - 3072


def test_many_frees_beyond_the_list_size_merge_into_one_segment():
    out = run_json(PRELUDE + """
xs = [empty(100 + i) for i in range(40)]
steps = {"held": stats()}
for i in range(0, 40, 2):
    xs[i] = None
steps["half"] = stats()
xs = None
steps["none"] = stats()
print(json.dumps(steps))
""")
    assert out["held"]["allocated_bytes.all.current"] == 40 * 512
    half = out["half"]
    assert half["allocated_bytes.all.current"] == 20 * 512
    # Every other block free: 20 holes of 512, then the segment's rest.
    assert half["inactive_split.all.current"] == 21
    assert half["inactive_split_bytes.all.current"] == 2 * MiB - 20 * 512
    none = out["none"]
    assert none["allocated_bytes.all.current"] == 0
    assert none["inactive_split.all.current"] == 0
    assert none["segment.all.current"] == 1


def test_a_parked_block_is_not_reused_on_another_stream():
    out = run_json(PRELUDE + """
side = torch.npu.Stream()
a = empty(1000)
ptr = a.data_ptr()
del a
with torch.npu.stream(side):
    b = empty(1000)
c = empty(1000)
print(json.dumps({"side_took_it": b.data_ptr() == ptr, "default_took_it": c.data_ptr() == ptr}))
""")
    assert out == {"side_took_it": False, "default_took_it": True}


def test_record_stream_on_a_small_block_delays_its_reuse():
    out = run_json(PRELUDE + """
side = torch.npu.Stream()
x = torch.ones(64, device="npu")
ptr = x.data_ptr()
torch.npu.synchronize()
with torch.npu.stream(side):
    y = x * 2
x.record_stream(side)
del x
busy = not side.query()
z = torch.empty(64, device="npu")
early = z.data_ptr() == ptr
side.synchronize()
del z
w = torch.empty(64, device="npu")
print(json.dumps({"busy": busy, "early": early, "after": w.data_ptr() == ptr,
                  "y": y.cpu().tolist() == [2.0] * 64}))
""", env={"NPU_EMU_KERNEL_DELAY_US": "300000"})
    assert out["y"] is True
    assert out["busy"] is True  # the side stream's kernel is still in flight
    assert out["early"] is False
    assert out["after"] is True


def test_threads_on_their_own_streams_keep_the_stats_exact():
    out = run_json(PRELUDE + """
import threading
errors = []
def work(seed):
    try:
        s = torch.npu.Stream()
        with torch.npu.stream(s):
            a = torch.full((64,), float(seed), device="npu")
            for i in range(300):
                b = a + i
                c = b * 2
                if c[0].item() != 2 * (seed + i):
                    errors.append((seed, i))
            s.synchronize()
    except Exception as e:  # reported below
        errors.append(repr(e))
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in threads: t.start()
for t in threads: t.join()
torch.npu.synchronize()
print(json.dumps({"errors": errors, "stats": stats()}))
""")
    assert out["errors"] == []
    s = out["stats"]
    assert s["allocated_bytes.all.current"] == 0 and s["active_bytes.all.current"] == 0
    assert s["requested_bytes.all.current"] == 0 and s["allocation.all.current"] == 0
    assert s["inactive_split.all.current"] == 0
    assert s["allocated_bytes.all.allocated"] == s["allocated_bytes.all.freed"]


def test_each_device_frees_its_own_blocks():
    # A tensor's deleter goes to its device's allocator; caching_allocator_delete
    # finds the device of a raw pointer by itself.
    out = run_json("""
def allocated(d):
    return torch.npu.memory_stats(d)["allocated_bytes.all.current"]
x0 = torch.ones(64, device="npu:0")
x1 = torch.ones(1000, device="npu:1")
raw = torch.npu.caching_allocator_alloc(5000, device=1)
steps = {"held": [allocated(0), allocated(1)]}
with torch.npu.device(1):
    side = torch.npu.Stream()
    x1.record_stream(side)
del x1
steps["x1_freed"] = [allocated(0), allocated(1)]
torch.npu.caching_allocator_delete(raw)
steps["raw_freed"] = [allocated(0), allocated(1)]
del x0
steps["x0_freed"] = [allocated(0), allocated(1)]
print(json.dumps(steps))
""", env={"NPU_EMU_DEVICE_COUNT": "2"})
    assert out["held"] == [512, 4096 + 5120]
    assert out["x1_freed"] == [512, 5120]
    assert out["raw_freed"] == [512, 0]
    assert out["x0_freed"] == [0, 0]
