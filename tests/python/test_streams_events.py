"""Asynchronous execution seen from Python: streams, events, torch.accelerator.

The emulator's per-kernel latency knob (a property of the emulated device)
makes launches observably asynchronous; tests wait with real synchronization.
"""

import pytest
import torch

from conftest import run_python

DELAY = 100_000  # µs per kernel


def test_launch_returns_before_the_kernel_ran(delay_us):
    x = torch.ones(1000).npu()
    torch.npu.synchronize()
    delay_us(DELAY)
    y = x + 1
    assert torch.npu.current_stream().query() is False
    torch.npu.synchronize()
    assert torch.npu.current_stream().query() is True
    assert torch.equal(y.cpu(), torch.full((1000,), 2.0))


def test_stream_api_and_context_manager():
    s = torch.npu.Stream()
    assert s.device == torch.device("npu", 0)
    assert torch.npu.current_stream() == torch.npu.default_stream()
    with torch.npu.stream(s):
        assert torch.npu.current_stream() == s
    assert torch.npu.current_stream() == torch.npu.default_stream()
    torch.npu.set_stream(s)
    assert torch.npu.current_stream() == s
    torch.npu.set_stream(torch.npu.default_stream())
    assert torch.npu.Stream(priority=-1).query()
    assert isinstance(s.npu_stream, int) and s.npu_stream != 0


def test_wait_stream_orders_side_stream_after_default(delay_us):
    x = torch.zeros(10_000).npu()
    torch.npu.synchronize()
    side = torch.npu.Stream()
    delay_us(DELAY)
    y = x + 1  # slow producer on the default stream
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        z = y * 3  # consumer: must see the producer's result
    torch.npu.current_stream().wait_stream(side)
    assert torch.equal(z.cpu(), torch.full((10_000,), 3.0))


def test_events_order_streams_and_time_them(delay_us):
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    assert isinstance(start, torch.npu.Event)
    assert start.query() is True  # never recorded
    x = torch.ones(100).npu()
    delay_us(20_000)
    start.record()
    y = x * 2
    end.record()
    assert end.query() is False
    side = torch.npu.Stream()
    side.wait_event(end)
    with torch.npu.stream(side):
        w = y + 1
    end.synchronize()
    assert end.query() is True
    assert end.elapsed_time(start) < 0 < start.elapsed_time(end)
    assert start.elapsed_time(end) >= 15.0  # ms: at least most of the emulated kernel latency
    side.synchronize()
    assert torch.equal(w.cpu(), torch.full((100,), 3.0))


def test_event_errors_are_clear():
    a, b = torch.npu.Event(), torch.npu.Event()
    a.record()
    b.record()
    with pytest.raises((ValueError, RuntimeError), match="enable_timing"):
        a.elapsed_time(b)
    with pytest.raises((ValueError, RuntimeError), match="recorded"):
        torch.npu.Event(enable_timing=True).elapsed_time(torch.npu.Event(enable_timing=True))
    with pytest.raises(ValueError, match="interprocess"):
        torch.npu.Event(interprocess=True)
    with pytest.raises(RuntimeError, match="Invalid NPU device index 9"):
        torch.npu.Stream(device="npu:9")


def test_torch_accelerator_works_with_npu():
    assert torch.accelerator.is_available()
    assert torch.accelerator.current_accelerator() == torch.device("npu")
    assert torch.accelerator.device_count() == 1
    assert torch.accelerator.current_device_index() == 0
    torch.accelerator.set_device_index(0)
    s = torch.accelerator.current_stream()
    assert s.device_type == torch.npu.current_stream().device_type and s.stream_id == 0
    y = torch.ones(3, device="npu") * 2
    torch.accelerator.synchronize()
    assert y.cpu().tolist() == [2.0, 2.0, 2.0]


def test_launch_blocking_makes_launches_synchronous():
    code = ("import torch, npu_emu\n"
            "x = torch.ones(10).npu(); torch.npu.synchronize()\n"
            "npu_emu._C._set_kernel_delay_us(50000)\n"
            "y = x + 1\n"
            "print(torch.npu.current_stream().query())\n")
    r = run_python(code, {"ASCEND_LAUNCH_BLOCKING": "1"})
    assert r.stdout.strip() == "True", r.stderr
    r = run_python(code)
    assert r.stdout.strip() == "False", r.stderr


def test_recording_an_event_on_another_devices_stream_names_both_devices():
    code = ("import torch, npu_emu\n"
            "e = torch.npu.Event()\n"
            "e.record(torch.npu.current_stream(0))\n"
            "try:\n"
            "    e.record(torch.npu.Stream(device=1))\n"
            "except RuntimeError as err:\n"
            "    print(repr(str(err)))\n")
    r = run_python(code, {"NPU_EMU_DEVICE_COUNT": "2"})
    assert r.returncode == 0, r.stderr
    message = r.stdout.strip()
    assert "belongs to npu:0" in message and "stream is on npu:1" in message, message
    assert "\\x00" not in message and "\\x01" not in message, message
