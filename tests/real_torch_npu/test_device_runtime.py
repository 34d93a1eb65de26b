"""Devices, streams, events and memory of the real torch_npu on the stand-in."""

import pytest
import torch
import torch_npu  # noqa: F401

from conftest import run_python


def test_device_count_and_properties_are_the_emulated_chips():
    assert torch.npu.is_available() and torch.npu.device_count() == 1
    # Another SoC profile (device_model/soc_profile.cpp): its facts, not zeros.
    r = run_python("import torch, torch_npu\np = torch.npu.get_device_properties(0)\n"
                   "print(p.name, p.total_memory >> 30, p.cube_core_num, p.vector_core_num, p.L2_cache_size >> 20)\n"
                   "print(torch.npu.get_device_name(0))", {"NPU_EMU_SOC": "Ascend910B4"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["Ascend910B4 32 20 40 96", "Ascend910B4"]


def test_several_devices_follow_the_emulators_device_count():
    r = run_python("import torch, torch_npu\nprint(torch.npu.device_count())\n"
                   "x = torch.arange(4.).to('npu:1')\nprint(x.device, (x.to('npu:0') * 2).cpu().tolist())",
                   {"NPU_EMU_DEVICE_COUNT": "2"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["2", "npu:1 [0.0, 2.0, 4.0, 6.0]"]


def test_work_on_a_side_stream_is_ordered_by_events():
    side = torch.npu.Stream()
    start = torch.npu.Event(enable_timing=True)
    done = torch.npu.Event(enable_timing=True)
    x = torch.arange(1000.).npu()
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        start.record()
        y = x * 3 + 1
        done.record()
    torch.npu.current_stream().wait_event(done)
    z = y.sum()
    done.synchronize()
    assert done.query() and start.elapsed_time(done) >= 0
    assert z.item() == (torch.arange(1000.) * 3 + 1).sum().item()
    side.synchronize()
    assert side.query()


def test_memory_statistics_count_live_tensors():
    torch.npu.empty_cache()
    torch.npu.reset_peak_memory_stats()
    before = torch.npu.memory_allocated()
    x = torch.empty(1024, 1024, device="npu")
    assert torch.npu.memory_allocated() - before >= x.numel() * 4
    assert torch.npu.max_memory_allocated() >= torch.npu.memory_allocated()
    assert torch.npu.memory_reserved() >= torch.npu.memory_allocated()
    del x
    assert torch.npu.memory_allocated() == before
    free, total = torch.npu.mem_get_info()
    assert 0 < free <= total == torch.npu.get_device_properties(0).total_memory


def test_graph_capture_is_refused_naming_it():
    g = torch.npu.NPUGraph()
    with pytest.raises(RuntimeError, match="Graph capture .* is not emulated"):
        with torch.npu.graph(g):
            torch.ones(2, device="npu")
