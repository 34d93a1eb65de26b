"""What torch.profiler (ProfilerActivity.PrivateUse1, the kineto plugin in
dispatch/profiler/kineto_plugin.cpp) shows of npu beyond the tasks
themselves: allocator activity as PyTorch's memory events, each task's
estimated time on the emulated SoC, tasks still running when the profile
stops, and one named process per device."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from conftest import run_python

NPU = [ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]
PRIVATE_USE1 = int(torch._C._autograd.DeviceType.PrivateUse1)  # c10::DeviceType, what "[memory]" events carry


def _trace(prof, tmp_path) -> dict:
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    return json.loads(path.read_text())


def _kernels(trace: dict) -> list[dict]:
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"]


def test_profile_memory_records_npu_allocations_and_frees(tmp_path):
    torch.npu.synchronize()
    with profile(activities=NPU, profile_memory=True) as prof:
        a = torch.empty(1 << 20, dtype=torch.uint8, device="npu")
        b = torch.ones(256, 256, device="npu")
        del a
        torch.npu.synchronize()
    trace = _trace(prof, tmp_path)
    memory = [e for e in trace["traceEvents"] if e.get("name") == "[memory]"]
    npu = [e for e in memory if e["args"]["Device Type"] == PRIVATE_USE1]
    sizes = [e["args"]["Bytes"] for e in npu]
    # Block sizes, as the allocator rounds them (and memory_allocated counts).
    first, second = (s for s in sizes if s > 0)
    assert (1 << 20) <= first < (1 << 20) + 4096 and 256 * 256 * 4 <= second < 256 * 256 * 4 + 4096, sizes
    assert -first in sizes and -second not in sizes, "a was freed, b is alive"
    assert all(e["args"]["Device Id"] == 0 for e in npu)
    # Running totals of the allocator, as torch.npu.memory_allocated counts them.
    assert max(e["args"]["Total Allocated"] for e in npu) >= (1 << 20) + 256 * 256 * 4
    assert all(e["args"]["Total Reserved"] >= e["args"]["Total Allocated"] for e in npu)
    # key_averages' device memory columns: the ops that allocated on npu.
    rows = {e.key: e for e in prof.key_averages()}
    assert rows["aten::empty"].self_device_memory_usage >= 1 << 20
    assert rows["aten::ones"].device_memory_usage >= 256 * 256 * 4
    assert b.sum().item() == 256 * 256


def test_no_memory_events_without_profile_memory(tmp_path):
    with profile(activities=NPU) as prof:
        torch.empty(4096, device="npu")
        torch.npu.synchronize()
    assert not [e for e in _trace(prof, tmp_path)["traceEvents"] if e.get("name") == "[memory]"]


def test_each_kernel_carries_the_same_estimate_as_npu_emu_profiler(tmp_path):
    import npu_emu.profiler

    a, b = torch.randn(128, 256).npu(), torch.randn(256, 64).npu()
    torch.npu.synchronize()
    with npu_emu.profiler.profile(memory=False) as ours:
        with profile(activities=NPU) as prof:
            c = torch.relu(torch.mm(a, b)).add(1.0)
            torch.npu.synchronize()
    torch.testing.assert_close(c.cpu(), torch.relu(a.cpu() @ b.cpu()) + 1, rtol=1e-4, atol=1e-4)
    kernels = _kernels(_trace(prof, tmp_path))
    assert [k["name"] for k in kernels] == ["aclnnMm", "aclnnRelu", "aclnnAdds"]
    expected = {t.seq: t for t in ours.tasks if t.kind == "kernel"}
    soc = ours.peaks.soc
    for k in kernels:
        assert k["args"]["estimated_on"] == soc
        # The same roofline and figures: the mm is costed by its FLOPs on the Cube.
        assert float(k["args"]["estimated_us"]) == pytest.approx(expected[k["args"]["seq"]].estimated_us, rel=1e-3)
    by_name = {k["name"]: float(k["args"]["estimated_us"]) for k in kernels}
    assert by_name["aclnnMm"] > by_name["aclnnRelu"]


def test_each_stream_has_an_estimate_track_that_key_averages_does_not_count(tmp_path):
    a, b = torch.randn(64, 128).npu(), torch.randn(128, 32).npu()
    torch.npu.synchronize()
    with profile(activities=NPU) as prof:
        torch.mm(a, b).exp().sum()
        torch.npu.synchronize()
    trace = _trace(prof, tmp_path)
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"]
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tasks = sorted((e for e in trace["traceEvents"] if e.get("ph") == "X" and "seq" in e.get("args", {})
                    and e.get("cat") != "gpu_user_annotation"), key=lambda e: e["args"]["seq"])
    estimated = sorted((e for e in trace["traceEvents"] if e.get("cat") == "gpu_user_annotation"),
                       key=lambda e: e["args"]["seq"])
    soc = estimated[0]["args"]["estimated_on"]
    assert [e["name"] for e in estimated] == [f'{e["name"]} [est. {soc}]' for e in tasks]
    stream_track = threads[(tasks[0]["pid"], tasks[0]["tid"])]
    assert {threads[(e["pid"], e["tid"])] for e in estimated} == {f"{stream_track} estimated on {soc}"}
    for e in estimated:
        assert e["dur"] == pytest.approx(float(e["args"]["estimated_us"]), abs=0.01)  # ts and dur rounded to ns
    for before, after in zip(estimated, estimated[1:]):
        assert after["ts"] >= before["ts"] + before["dur"] - 2e-3, "one after another, as the stream runs them"
    # key_averages: the kernel's row keeps the emulator's time; the estimate
    # has its own row (a user annotation, outside the device-time totals).
    rows = {e.key: e for e in prof.key_averages()}
    kernel, estimate = rows["aclnnMm"], rows[f"aclnnMm [est. {soc}]"]
    assert kernel.count == 1 and not kernel.is_user_annotation
    assert estimate.count == 1 and estimate.is_user_annotation
    mm = next(e for e in estimated if e["name"].startswith("aclnnMm"))
    assert estimate.device_time_total == pytest.approx(float(mm["args"]["estimated_us"]), abs=0.01)


def test_tasks_still_running_on_the_current_device_when_the_profile_stops_are_in_the_trace(tmp_path, delay_us):
    x = torch.randn(64, 64).npu()
    torch.npu.synchronize()
    delay_us(20_000)
    side = torch.npu.Stream()
    with profile(activities=[ProfilerActivity.PrivateUse1]) as prof:
        with torch.npu.stream(side):
            for _ in range(3):
                x = torch.tanh(x)
        # No synchronize: the side stream's kernels are queued or running
        # when the profile stops (torch.profiler synchronizes the current
        # device; the plugin also waits, for every device: see below).
    names = [k["name"] for k in _kernels(_trace(prof, tmp_path))]
    assert names == ["aclnnTanh"] * 3


_TWO_DEVICES = textwrap.dedent("""
    import json, sys, tempfile
    import torch, npu_emu
    from torch.profiler import ProfilerActivity, profile
    assert torch.npu.device_count() == 2
    x0 = torch.randn(32, 32).npu(0)
    x1 = torch.randn(32, 32).npu(1)
    torch.npu.synchronize(0); torch.npu.synchronize(1)
    npu_emu._C._set_kernel_delay_us(20000)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        y0 = torch.relu(x0)
        side = torch.npu.Stream(device=1)
        with torch.npu.device(1):
            y1 = x1
            for _ in range(5):
                y1 = torch.exp(y1)
            with torch.npu.stream(side):
                z1 = torch.abs(x1)
        # Device 1 is not the current device: torch.profiler does not
        # synchronize it, and its five delayed exps are still queued when
        # device 0's one relu is done.
    npu_emu._C._set_kernel_delay_us(0)
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    trace = json.load(open(path))
    meta = [e for e in trace["traceEvents"] if e.get("ph") == "M"]
    out = {
        "processes": {str(e["pid"]): e["args"]["name"] for e in meta if e["name"] == "process_name"},
        "labels": {str(e["pid"]): e["args"]["labels"] for e in meta if e["name"] == "process_labels"},
        "threads": {f'{e["pid"]}/{e["tid"]}': e["args"]["name"] for e in meta if e["name"] == "thread_name"},
        "kernels": [[e["pid"], e["tid"], e["name"], "estimated_us" in e["args"]] for e in trace["traceEvents"]
                    if e.get("ph") == "X" and e.get("cat") == "kernel"],
    }
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def two_devices() -> dict:
    proc = run_python(_TWO_DEVICES, {"NPU_EMU_DEVICE_COUNT": "2"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_tasks_still_running_on_another_device_when_the_profile_stops_are_in_the_trace(two_devices):
    kernels = two_devices["kernels"]
    by_device = {pid: sorted(name for p, _, name, _ in kernels if p == pid) for pid in (0, 1)}
    assert by_device == {0: ["aclnnRelu"], 1: ["aclnnAbs"] + ["aclnnExp"] * 5}
    assert all(has_estimate for *_, has_estimate in kernels)


def test_two_devices_each_have_a_named_process_with_their_stream_tracks(two_devices):
    out = two_devices
    kernels = out["kernels"]
    assert out["processes"]["0"] == "npu:0" and out["processes"]["1"] == "npu:1"
    assert out["labels"]["0"] == "NPU 0 (npu-emu)" and out["labels"]["1"] == "NPU 1 (npu-emu)"
    tracks = {(pid, tid) for pid, tid, _, _ in kernels}
    assert len([t for t in tracks if t[0] == 1]) == 2, "device 1: its default stream and the side stream"
    for pid, tid in tracks:
        assert out["threads"][f"{pid}/{tid}"].startswith("stream "), out["threads"]
