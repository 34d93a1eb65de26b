"""npu_emu.profiler: the device timeline (one track per stream, the aclnn
launches in order, copies, event records and waits) as Chrome trace JSON."""

from __future__ import annotations

import json

import torch

import npu_emu.profiler


def _emulator_tracks(trace: dict) -> dict[int, dict[int, list[dict]]]:
    """pid -> tid -> the X events of the "npu:N emulator" processes."""
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    tracks: dict[int, dict[int, list[dict]]] = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and names.get(e["pid"], "").endswith("emulator"):
            tracks.setdefault(e["pid"], {}).setdefault(e["tid"], []).append(e)
    return tracks


def _run_two_streams(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    side = torch.npu.Stream()
    c = torch.add(a, b)
    d = torch.mul(c, b)
    e = torch.mm(d, b)
    done = torch.npu.Event()
    done.record()
    with torch.npu.stream(side):
        side.wait_event(done)
        f = torch.relu(e)
        g = torch.add(f, torch.ones(f.shape).to("npu"))  # a host-to-device copy on this stream
    torch.npu.current_stream().wait_stream(side)
    return g


def _check_trace(tmp_path, a, b) -> None:
    with npu_emu.profiler.profile() as prof:
        out = _run_two_streams(a, b)
    torch.npu.synchronize()
    expected = torch.relu(torch.mm((a.cpu() + b.cpu()) * b.cpu(), b.cpu())) + 1
    torch.testing.assert_close(out.cpu(), expected)  # a GEMM: summation order may differ

    path = prof.export_chrome_trace(tmp_path / "trace.json")
    trace = json.loads(path.read_text())
    tracks = _emulator_tracks(trace)
    assert len(tracks) == 1
    (streams,) = tracks.values()
    assert len(streams) == 2, "one track per stream used"
    main_tid, side_tid = sorted(streams)
    main = [e["name"] for e in sorted(streams[main_tid], key=lambda e: e["args"]["seq"])]
    side = [e["name"] for e in sorted(streams[side_tid], key=lambda e: e["args"]["seq"])]
    kernels_main = [n for n in main if n.startswith("aclnn")]
    assert kernels_main == ["aclnnAdd", "aclnnMul", "aclnnMm"]
    assert "aclrtRecordEvent" in main
    assert main.index("aclrtRecordEvent") > main.index("aclnnMm")
    # The wait_stream at the end: a record on the side stream, a wait on the main one.
    assert side == ["aclrtStreamWaitEvent", "aclnnRelu", "aclrtMemcpyAsync", "aclnnAdd", "aclrtRecordEvent"]
    assert main[-1] == "aclrtStreamWaitEvent"
    # Each kernel carries the aten op that launched it and its estimate.
    by_name = {e["name"]: e for s in streams.values() for e in s}
    assert by_name["aclnnAdd"]["args"]["aten_op"] == "add"
    assert by_name["aclnnMm"]["args"]["aten_op"] == "mm"
    assert by_name["aclnnMm"]["args"]["estimated_us"] > 0
    # Tasks of one stream never overlap and run in submit order.
    for events in streams.values():
        ordered = sorted(events, key=lambda e: e["args"]["seq"])
        for before, after in zip(ordered, ordered[1:]):
            assert after["ts"] >= before["ts"] + before["dur"] - 1e-3
    assert prof.kernel_names() == ["aclnnAdd", "aclnnMul", "aclnnMm", "aclnnRelu", "aclnnAdd"]
    copy = next(e for e in streams[side_tid] if e["name"] == "aclrtMemcpyAsync")
    assert copy["cat"] == "copy" and copy["args"]["aten_op"] == "_to_copy"
    assert copy["args"]["bytes"] == out.numel() * out.element_size()


def test_trace_tracks_ops_copies_and_events(tmp_path):
    a = torch.randn(32, 32).npu()
    b = torch.randn(32, 32).npu()
    _check_trace(tmp_path, a, b)


def test_trace_with_asynchronous_streams(tmp_path, delay_us):
    # Kernels that take a while run on the stream workers, after their launch
    # returned: tasks are still matched to the ops that launched them.
    a = torch.randn(16, 16).npu()
    b = torch.randn(16, 16).npu()
    delay_us(2000)
    _check_trace(tmp_path, a, b)


def test_trace_has_allocator_counters_and_estimated_tracks(tmp_path):
    x = torch.randn(64, 64).npu()
    with npu_emu.profiler.profile(soc="Ascend910B3") as prof:
        y = torch.mm(x, x)
        del y
    trace = json.loads(prof.export_chrome_trace(tmp_path / "t.json").read_text())
    counters = [e for e in trace["traceEvents"] if e["ph"] == "C" and e["name"] == "allocator"]
    assert counters and all(e["args"]["allocated"] >= 0 for e in counters)
    processes = [e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
    assert "npu:0 estimated on Ascend910B3" in processes
    assert "aclnnMm" in prof.summary()


def test_recorder_is_off_outside_the_context():
    with npu_emu.profiler.profile() as prof:
        torch.ones(4, device="npu").add_(1)
    recorded = len(prof.tasks)
    torch.ones(4, device="npu").add_(1)
    torch.npu.synchronize()
    from npu_emu.profiler import _native

    assert recorded >= 1
    assert _native.take() == []


def test_unknown_soc_is_named():
    import pytest

    with pytest.raises(ValueError, match="no device-time figures for SoC 'Ascend999'; known: Ascend910A"):
        with npu_emu.profiler.profile(soc="Ascend999"):
            pass


def test_trace_merges_with_torch_profilers_cpu_trace(tmp_path):
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    a = torch.randn(8, 8).npu()
    with torch_profile(activities=[ProfilerActivity.CPU]) as cpu, npu_emu.profiler.profile() as prof:
        torch.add(a, a)
    cpu.export_chrome_trace(str(tmp_path / "cpu.json"))
    merged = json.loads(prof.export_chrome_trace(tmp_path / "merged.json", merge_with=tmp_path / "cpu.json")
                        .read_text())
    names = {e.get("name") for e in merged["traceEvents"] if e.get("ph") == "X"}
    assert "aten::add" in names and "aclnnAdd" in names
    assert "baseTimeNanoseconds" in merged
    # Every copy of a task (emulator and estimated tracks) moved once, alike.
    submitted = {}
    for e in merged["traceEvents"]:
        if e.get("ph") == "X" and "seq" in e.get("args", {}):
            submitted.setdefault(e["args"]["seq"], set()).add(e["args"]["submitted_us"])
    assert submitted and all(len(values) == 1 for values in submitted.values())


def test_format_trace_lines_of_the_profile_join_the_host_process(tmp_path):
    # Lines in the schema of NPU_EMU_TRACE=formats (v1: ts_ns from
    # time.monotonic_ns): those written during the profile become instant
    # events, the others are left out.
    import time

    x = torch.randn(8, 8).npu()
    before = time.monotonic_ns()
    with npu_emu.profiler.profile() as prof:
        torch.add(x, x)
        during = time.monotonic_ns()
    lines = [{"v": 1, "seq": 1, "ts_ns": before - 1, "thread": 1, "event": "cast", "op": "early"},
             {"v": 1, "seq": 2, "ts_ns": during, "thread": 1, "event": "cast", "op": "add", "bytes": 256}]
    trace_file = tmp_path / "formats.jsonl"
    trace_file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    trace = json.loads(prof.export_chrome_trace(tmp_path / "t.json", format_trace=trace_file).read_text())
    instants = [e for e in trace["traceEvents"] if e["ph"] == "i"]
    assert [(e["name"], e["args"]["bytes"]) for e in instants] == [("cast add", 256)]
