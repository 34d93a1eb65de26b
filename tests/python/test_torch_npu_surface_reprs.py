"""torch_npu's texts on npu-emu's own module: Stream and Event reprs as
torch_npu prints them, and the CPU fallback warning in torch_npu's words,
given once per op."""

from __future__ import annotations

import json
import re
import textwrap

import pytest
import torch

import npu_emu  # noqa: F401
from conftest import run_python


def test_event_repr_before_and_after_record():
    event = torch.npu.Event()
    assert repr(event) == "<torch_npu.npu.Event uninitialized>"
    assert event.npu_event == 0
    torch.npu.current_stream().record_event(event)
    assert event.npu_event != 0
    assert repr(event) == f"<torch_npu.npu.Event {event.npu_event:#x}>"
    assert event._as_parameter_.value == event.npu_event
    event.synchronize()


def test_stream_repr_names_device_and_handle():
    for stream in (torch.npu.current_stream(), torch.npu.Stream(), torch.npu.default_stream()):
        assert re.fullmatch(r"<torch_npu\.npu\.Stream device=npu:0 npu_stream=0x[0-9a-f]+>", repr(stream))
        assert repr(stream).endswith(f"npu_stream={stream.npu_stream:#x}>")


def test_record_event_without_argument_gives_a_torch_npu_event():
    stream = torch.npu.Stream()
    event = stream.record_event()
    assert type(event) is torch.npu.Event
    assert repr(event).startswith("<torch_npu.npu.Event 0x")
    event.synchronize()
    assert event.query()


def test_npu_events_time_each_other_and_plain_events(delay_us):
    x = torch.ones(64, device="npu")
    start = torch.npu.Event(enable_timing=True)
    plain_end = torch.Event(device="npu", enable_timing=True)  # PyTorch's own kind
    end = torch.npu.Event(enable_timing=True)
    delay_us(5_000)
    start.record()
    y = x + 1
    plain_end.record()
    z = y * 2
    end.record()
    end.synchronize()
    assert 0 < start.elapsed_time(plain_end) <= start.elapsed_time(end)
    assert end.elapsed_time(start) < 0
    assert torch.equal(z.cpu(), torch.full((64,), 4.0))
    # Every npu event still passes torch.npu.Event's isinstance check.
    assert isinstance(plain_end, torch.npu.Event) and isinstance(end, torch.npu.Event)
    assert not isinstance(torch.Event(device="cpu"), torch.npu.Event)


def test_elapsed_time_refuses_non_events():
    event = torch.npu.Event(enable_timing=True)
    event.record()
    with pytest.raises(RuntimeError, match="expected torch.Event objects"):
        event.elapsed_time(torch.npu.current_stream())


_FALLBACK_SCRIPT = textwrap.dedent("""
    import json, warnings
    import torch
    import npu_emu
    from npu_emu import debug
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device="npu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in {calls!r}:
            for _ in range(3):
                eval(call)
    torch.npu.synchronize()
    print(json.dumps({{"messages": [str(w.message) for w in caught], "fallbacks": list(debug.fallback_report())}}))
""")


def test_fallback_warning_uses_torch_npu_wording_once_per_op():
    # Ops that npu-emu runs through the CPU fallback today (whichever of them still fall back are checked).
    probe = ("torch.histc(x)", "torch.frexp(x)", "torch.logcumsumexp(x, 0)", "torch.kthvalue(x.flatten(), 2)")
    result = run_python(_FALLBACK_SCRIPT.format(calls=probe), env={"NPU": "emu", "NPU_EMU_FALLBACK": "warn"})
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    fallen = out["fallbacks"]
    if not fallen:
        pytest.skip("every probed op has a native npu kernel now")
    for name in fallen:
        expected = (f"CAUTION: The operator '{name}' is not currently supported on the NPU backend and will fall "
                    "back to run on the CPU. This may have performance implications.")
        assert sum(m.startswith(expected) for m in out["messages"]) == 1, out["messages"]


@pytest.mark.parametrize("kwargs,message", [
    ({"stream_id": 99999, "device_index": 0}, "unknown npu stream id 99999"),
    ({"stream_id": -1, "device_index": 0}, "unknown npu stream id -1"),
    ({"stream_id": 0, "device_index": 999}, "Invalid NPU device index 999"),
    ({"stream_id": 0, "device_index": -1}, "Invalid NPU device index -1"),
])
def test_rewrapping_a_stream_that_does_not_exist_fails_fast(kwargs, message):
    with pytest.raises(RuntimeError, match=message):
        torch.npu.Stream(device_type=npu_emu._C._npu_device_type(), **kwargs)
    existing = torch.npu.Stream()
    again = torch.npu.Stream(stream_id=existing.stream_id, device_index=existing.device_index,
                             device_type=existing.device_type)
    assert again == existing and again.npu_stream == existing.npu_stream
