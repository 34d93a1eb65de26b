"""torch.npu.memory._record_memory_history / _snapshot in the format PyTorch's
memory viz reads."""

from __future__ import annotations

import gc
import pickle

import pytest
import torch
from torch.cuda import _memory_viz

import npu_emu  # noqa: F401


@pytest.fixture
def history():
    torch.npu.memory._record_memory_history()
    yield
    torch.npu.memory._record_memory_history(enabled=None)


def test_history_records_allocs_and_frees_with_frames(history):
    x = torch.ones(1000, device="npu")
    y = x * 2
    address, size = y.untyped_storage().data_ptr(), y.untyped_storage().nbytes()
    del y
    gc.collect()
    snapshot = torch.npu.memory._snapshot()
    trace = snapshot["device_traces"][0]
    mine = [e for e in trace if e["addr"] == address]
    assert [e["action"] for e in mine][:3] == ["alloc", "free_requested", "free_completed"]
    assert mine[0]["size"] == size
    assert any(f["name"] == "test_history_records_allocs_and_frees_with_frames" for f in mine[0]["frames"])
    assert x.untyped_storage().data_ptr() in {e["addr"] for e in trace if e["action"] == "alloc"}


def test_snapshot_segments_hold_live_tensors(history):
    x = torch.ones(4096, device="npu")
    snapshot = torch.npu.memory._snapshot()
    address = x.untyped_storage().data_ptr()
    blocks = [b for s in snapshot["segments"] for b in s["blocks"]
              if b["address"] <= address < b["address"] + b["size"]]
    assert len(blocks) == 1 and blocks[0]["state"] == "active_allocated"


def test_memory_viz_reads_the_snapshot(history, tmp_path):
    a = torch.randn(256, 256).npu()
    b = a @ a
    del b
    torch.npu.memory._dump_snapshot(str(tmp_path / "snap.pickle"))
    with open(tmp_path / "snap.pickle", "rb") as f:
        snapshot = pickle.load(f)
    assert "<html" in _memory_viz.trace_plot(snapshot).lower()
    assert "<html" in _memory_viz.segment_plot(snapshot).lower()
    del a


def test_record_memory_history_names_bad_arguments():
    with pytest.raises(ValueError, match="enabled must be one of"):
        torch.npu.memory._record_memory_history(enabled="sometimes")
