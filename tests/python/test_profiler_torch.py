"""torch.profiler with ProfilerActivity.PrivateUse1 on npu: the kineto plugin
(dispatch/profiler/kineto_plugin.cpp) adds the emulator's streams to the
profile — kernels, copies, memsets, event records and waits, one track per
stream, each linked to the aten op that launched it."""

from __future__ import annotations

import json

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}


def _device_events(trace: dict) -> list[dict]:
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") in DEVICE_CATS]


def _thread_names(trace: dict) -> dict[tuple[int, int], str]:
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"]
            if e.get("ph") == "M" and e.get("name") == "thread_name"}


def _two_streams(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    side = torch.npu.Stream()
    c = torch.mm(torch.add(a, b), b)
    done = torch.npu.Event()
    done.record()
    with torch.npu.stream(side):
        side.wait_event(done)
        d = torch.relu(c) + torch.ones(c.shape).to("npu")  # a host-to-device copy on the side stream
    torch.npu.current_stream().wait_stream(side)
    return d


def test_private_use1_is_a_supported_activity():
    assert ProfilerActivity.PrivateUse1 in torch.profiler.supported_activities()


@pytest.mark.parametrize("activities", [[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1],
                                        [ProfilerActivity.PrivateUse1]], ids=["cpu+npu", "npu"])
def test_trace_has_one_track_per_stream_with_the_tasks(tmp_path, activities):
    a, b = torch.randn(16, 16).npu(), torch.randn(16, 16).npu()
    torch.npu.synchronize()
    with profile(activities=activities) as prof:
        out = _two_streams(a, b)
        torch.npu.synchronize()
    torch.testing.assert_close(out.cpu(), torch.relu((a.cpu() + b.cpu()) @ b.cpu()) + 1)

    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = _device_events(trace)
    names = _thread_names(trace)
    tracks: dict[tuple[int, int], list[dict]] = {}
    for e in events:
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    assert len(tracks) == 2, "one track per stream used"
    for key in tracks:
        assert names[key].startswith("stream "), names
    main, side = (sorted(t, key=lambda e: e["args"]["seq"]) for _, t in sorted(tracks.items()))
    assert [e["name"] for e in main if e["args"]["kind"] == "kernel"] == ["aclnnAdd", "aclnnMm"]
    assert [e["name"] for e in side] == ["aclrtStreamWaitEvent", "aclnnRelu", "aclrtMemcpyAsync", "aclnnAdd",
                                         "aclrtRecordEvent"]
    assert "aclrtRecordEvent" in [e["name"] for e in main]
    copy = next(e for e in side if e["name"] == "aclrtMemcpyAsync")
    assert copy["cat"] == "gpu_memcpy" and copy["args"]["kind"] == "copy"
    # Tasks of one stream run one after another.
    for track in (main, side):
        for before, after in zip(track, track[1:]):
            assert after["ts"] >= before["ts"] + before["dur"] - 1e-3


def test_kernels_link_to_their_aten_ops_and_give_device_time():
    x = torch.randn(8, 32).npu()
    w = torch.randn(16, 32).npu()
    torch.npu.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        y = torch.nn.functional.linear(x, w).relu().sum()
        torch.npu.synchronize()
    torch.testing.assert_close(y.cpu(), torch.nn.functional.linear(x.cpu(), w.cpu()).relu().sum(),
                               rtol=1e-4, atol=1e-4)
    events = prof.events()
    relu = next(e for e in events if e.name == "aten::relu")
    assert [k.name for k in relu.kernels] == ["aclnnRelu"]
    total = {e.key: e for e in prof.key_averages()}
    assert total["aten::relu"].device_time_total > 0
    assert total["aten::relu"].device_type == torch.autograd.DeviceType.CPU
    # The device rows themselves, by kernel name.
    assert total["aclnnRelu"].device_type == torch.autograd.DeviceType.PrivateUse1
    assert total["aclnnRelu"].count == 1
    table = prof.key_averages().table(sort_by="device_time_total")
    assert "aclnnRelu" in table


def test_cpu_only_profile_has_no_device_events(tmp_path):
    x = torch.randn(8, 8).npu()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        (x + 1).relu()
        torch.npu.synchronize()
    path = tmp_path / "cpu.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert any(e.get("name") == "aten::relu" for e in trace["traceEvents"])
    assert _device_events(trace) == []


def test_profiles_run_one_after_another_and_alongside_npu_emu_profiler(tmp_path):
    import npu_emu.profiler

    x = torch.randn(8, 8).npu()
    for _ in range(2):
        with npu_emu.profiler.profile(memory=False) as ours:
            with profile(activities=[ProfilerActivity.PrivateUse1]) as prof:
                (x * 2).abs()
                torch.npu.synchronize()
        path = tmp_path / "t.json"
        prof.export_chrome_trace(str(path))
        kernels = [e["name"] for e in _device_events(json.loads(path.read_text())) if e["args"]["kind"] == "kernel"]
        assert len(kernels) == 2 and kernels[1] == "aclnnAbs"
        assert ours.kernel_names() == kernels, "both profilers see every task"
