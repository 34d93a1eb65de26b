"""The stream race detector (NPU_EMU_SANITIZE=streams / npu_emu.sanitizer.enable()):
known races are reported with both stacks, the tensor and the streams; the
correct synchronization idioms are not reported and compute what CPU does."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
import torch

from conftest import run_python
from npu_emu import sanitizer
from npu_emu.sanitizer import StreamRaceError
from npu_emu.npu import streams as npu_streams

# Ops that read their npu input(s) and write a new output, each run on a second stream.
READERS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "add": lambda t: t + 1,
    "matmul": lambda t: t @ t,
    "sum": lambda t: t.sum(dim=0),
    "copy_to_new": lambda t: t.clone(),
}


@pytest.fixture
def detector() -> Iterator[None]:
    torch.npu.synchronize()
    sanitizer.enable()
    try:
        yield
    finally:
        sanitizer.disable()
        torch.npu.synchronize()


def _host_matrix() -> torch.Tensor:
    return torch.arange(16, dtype=torch.float32).reshape(4, 4) / 7


# ---- known races ----------------------------------------------------------

@pytest.mark.parametrize("reader", sorted(READERS))
def test_write_on_one_stream_read_on_another_is_reported(detector, reader: str) -> None:
    side = torch.npu.Stream()
    source = _host_matrix().to("npu")
    produced = torch.empty(4, 4, device="npu")
    torch.npu.synchronize()
    with torch.npu.stream(side):
        torch.mul(source, 2, out=produced)  # line of the write, named in the report
    with pytest.raises(StreamRaceError) as info:
        READERS[reader](produced)  # read on the default stream, nothing waited
    message = str(info.value)
    assert "read after write" in message
    assert "shape (4, 4)" in message and "torch.float32" in message
    assert f"{produced.untyped_storage().data_ptr():#x}" in message
    assert f"stream_id={side.stream_id}" in message and "stream_id=0 (default stream)" in message
    # Both Python stacks point at this test's lines.
    assert "torch.mul(source, 2, out=produced)" in message and "READERS[reader](produced)" in message


def test_write_write_race_is_reported(detector) -> None:
    side = torch.npu.Stream()
    target = torch.zeros(1000, device="npu")
    torch.npu.synchronize()
    with torch.npu.stream(side):
        target.fill_(2.0)
    with pytest.raises(StreamRaceError, match=r"(?s)write after write.*aten::add_ writes it.*aten::fill_ wrote it"):
        target.add_(1.0)


def test_write_after_read_race_is_reported(detector) -> None:
    side = torch.npu.Stream()
    source = torch.ones(1000, device="npu")
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        total = source.sum()
    with pytest.raises(StreamRaceError, match="write after read"):
        source.mul_(3)  # may overwrite `source` while `side` still sums it
    del total


def test_event_recorded_but_not_waited_is_reported(detector) -> None:
    side = torch.npu.Stream()
    event = torch.npu.Event()
    with torch.npu.stream(side):
        produced = torch.full((64,), 3.0, device="npu")
        event.record()
    with pytest.raises(StreamRaceError):
        produced * 2  # recording alone orders nothing


def test_waiting_on_the_wrong_stream_is_reported(detector) -> None:
    side, other = torch.npu.Stream(), torch.npu.Stream()
    with torch.npu.stream(side):
        produced = torch.full((64,), 3.0, device="npu")
    torch.npu.current_stream().wait_stream(other)  # not the producer
    with pytest.raises(StreamRaceError):
        produced.neg()


# ---- correct idioms: not reported, results as on CPU -----------------------

def _produce_on(stream: torch.Stream) -> torch.Tensor:
    with torch.npu.stream(stream):
        return torch.tensor(_host_matrix().tolist(), device="npu") * 2


def _check(result: torch.Tensor, expected: torch.Tensor) -> None:
    torch.testing.assert_close(result.cpu(), expected)  # matmul/sum may round differently


@pytest.mark.parametrize("reader", sorted(READERS))
def test_wait_stream_is_not_reported(detector, reader: str) -> None:
    side = torch.npu.Stream()
    produced = _produce_on(side)
    torch.npu.current_stream().wait_stream(side)
    _check(READERS[reader](produced), READERS[reader](_host_matrix() * 2))


@pytest.mark.parametrize("waiting", ["stream.wait_event", "event.wait", "record_event"])
def test_event_record_and_wait_is_not_reported(detector, waiting: str) -> None:
    side = torch.npu.Stream()
    produced = _produce_on(side)
    main = torch.npu.current_stream()
    if waiting == "record_event":
        main.wait_event(side.record_event())
    else:
        event = torch.npu.Event()
        event.record(side)
        if waiting == "event.wait":
            event.wait(main)
        else:
            main.wait_event(event)
    _check(produced @ produced, (_host_matrix() * 2) @ (_host_matrix() * 2))


@pytest.mark.parametrize("sync", ["torch.npu.synchronize", "torch.accelerator.synchronize", "stream.synchronize",
                                  "event.synchronize"])
def test_host_synchronization_is_not_reported(detector, sync: str) -> None:
    side = torch.npu.Stream()
    produced = _produce_on(side)
    if sync == "torch.npu.synchronize":
        torch.npu.synchronize()
    elif sync == "torch.accelerator.synchronize":
        torch.accelerator.synchronize()
    elif sync == "stream.synchronize":
        side.synchronize()
    else:
        event = torch.npu.Event()
        event.record(side)
        event.synchronize()
    produced.add_(1)  # a write: also ordered after the producer
    _check(produced, _host_matrix() * 2 + 1)


def test_same_stream_is_not_reported(detector) -> None:
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        x = torch.ones(256, device="npu")
        x.mul_(4)
        y = x + x
        x.copy_(y)
    side.synchronize()
    _check(x, torch.full((256,), 8.0))


def test_record_stream_and_reuse_is_not_reported(detector) -> None:
    """The allocator reuses a block freed after record_stream only when the
    recorded stream is done with it: reuse on the allocating stream is fine."""
    side = torch.npu.Stream()
    for _ in range(3):
        buffer = torch.ones(1 << 16, device="npu")
        side.wait_stream(torch.npu.current_stream())
        with torch.npu.stream(side):
            partial = buffer.sum()
        buffer.record_stream(side)
        del buffer
        reused = torch.empty(1 << 16, device="npu")
        reused.fill_(2.0)
        torch.npu.current_stream().wait_stream(side)
        _check(partial, torch.tensor(float(1 << 16)))
        _check(reused.sum(), torch.tensor(float(2 << 16)))


def test_empty_is_an_allocation_not_a_write(detector) -> None:
    side = torch.npu.Stream()
    for make in (lambda: torch.empty(32, device="npu"), lambda: torch.empty_strided((4, 8), (8, 1), device="npu")):
        buffer = make()  # no kernel on the default stream
        with torch.npu.stream(side):
            buffer.fill_(5.0)
        torch.npu.current_stream().wait_stream(side)
        _check(buffer.sum(), torch.tensor(160.0))


def test_blocking_copy_to_host_orders_later_work(detector) -> None:
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        produced = torch.ones(8, device="npu") * 5
        on_host = produced.cpu()  # returns once `side` has finished
    produced.add_(1)
    _check(produced, on_host + 1)


def test_blocking_copy_from_host_orders_later_work(detector) -> None:
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        uploaded = _host_matrix().to("npu")  # not pinned: returns once `side` has copied it
    _check(uploaded * 2, _host_matrix() * 2)


def test_non_blocking_copy_from_pinned_memory_is_not_a_synchronization(detector) -> None:
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        uploaded = _host_matrix().pin_memory().to("npu", non_blocking=True)
    with pytest.raises(StreamRaceError, match="aten::_to_copy wrote it"):
        uploaded * 2
    torch.npu.current_stream().wait_stream(side)
    _check(uploaded * 2, _host_matrix() * 2)


def test_disable_stops_reporting_and_restores_the_api() -> None:
    sanitizer.enable()
    assert sanitizer.is_enabled()
    sanitizer.disable()
    assert not sanitizer.is_enabled()
    assert type(torch.npu.Event()) is npu_streams.Event  # npu-emu's own class again, not the tracking one
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        produced = torch.ones(8, device="npu")
    torch.npu.current_stream().wait_stream(side)  # (correct code; nothing is tracked anyway)
    _check(produced * 2, torch.full((8,), 2.0))


def test_timing_still_works_with_tracked_events(detector) -> None:
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    start.record()
    torch.ones(1024, device="npu").sum()
    end.record()
    end.synchronize()
    assert isinstance(start, torch.npu.Event)
    assert start.elapsed_time(end) >= 0.0


# ---- activation by the environment ----------------------------------------

_RACE_SCRIPT = """
import torch, npu_emu
from npu_emu import sanitizer
assert sanitizer.is_enabled()
side = torch.npu.Stream()
with torch.npu.stream(side):
    x = torch.ones(4, device="npu")
x + 1
"""


def test_environment_variable_enables_the_detector() -> None:
    result = run_python(_RACE_SCRIPT, env={"NPU": "emu", "NPU_EMU_SANITIZE": "streams"})
    assert result.returncode != 0
    assert "StreamRaceError" in result.stderr and "read after write" in result.stderr
    assert re.search(r'File "<string>", line 8', result.stderr)  # the racing read, in the user's code


def test_bad_environment_value_is_rejected() -> None:
    result = run_python("import torch, npu_emu", env={"NPU": "emu", "NPU_EMU_SANITIZE": "stream"})
    assert result.returncode != 0
    assert "NPU_EMU_SANITIZE='stream'" in result.stderr and "allowed values: streams" in result.stderr


def test_correct_program_under_the_environment_variable_exits_cleanly() -> None:
    """Also the exit: a dispatch mode left pushed at finalization used to abort."""
    code = """
import torch, npu_emu
side = torch.npu.Stream()
with torch.npu.stream(side):
    x = torch.ones(4, device="npu") * 3
torch.npu.current_stream().wait_stream(side)
print((x + 1).sum().item())
"""
    result = run_python(code, env={"NPU": "emu", "NPU_EMU_SANITIZE": "streams"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "16.0" and "terminate" not in result.stderr


def test_freeing_without_record_stream_then_reusing_the_block_is_reported(detector) -> None:
    side = torch.npu.Stream()
    buffer = torch.ones(1 << 16, device="npu")
    old_address = buffer.data_ptr()
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        partial = buffer.sum()  # `side` may still read the block...
    del buffer  # ...when the default stream's pool takes it back (no record_stream)
    # The caching allocator hands the same block out to the next request of the default stream.
    with pytest.raises(StreamRaceError, match="(?s)reuse of a memory block freed while.*stream_id=") as info:
        torch.ones(1 << 16, device="npu")
    message = str(info.value)
    assert f"{old_address:#x}" in message
    assert "partial = buffer.sum()" in message and 'torch.ones(1 << 16, device="npu")' in message
    del partial


def _train_with_prefetch_stream(device: str, wait_for_copies: bool) -> list[torch.Tensor]:
    """SGD on a small MLP whose batches are copied on a side stream (the usual prefetcher)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    # Pinned: only then is a non_blocking copy asynchronous (others synchronize the stream).
    batches = [(torch.randn(8, 16), torch.randn(8, 4)) for _ in range(4)]
    if device == "npu":
        batches = [(x.pin_memory(), y.pin_memory()) for x, y in batches]
    on_npu = device == "npu"
    copy_stream = torch.npu.Stream() if on_npu else None

    def prefetch(i: int) -> tuple[torch.Tensor, ...]:
        with torch.npu.stream(copy_stream):
            return tuple(t.to(device, non_blocking=True) for t in batches[i])

    following = prefetch(0)
    for i in range(len(batches)):
        if on_npu and wait_for_copies:
            torch.npu.current_stream().wait_stream(copy_stream)
        x, y = following
        if on_npu:
            x.record_stream(torch.npu.current_stream())
            y.record_stream(torch.npu.current_stream())
        if i + 1 < len(batches):
            following = prefetch(i + 1)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return [p.detach().cpu() for p in model.parameters()]


def test_training_loop_with_a_prefetch_stream_is_not_reported(detector) -> None:
    expected = _train_with_prefetch_stream("cpu", wait_for_copies=True)
    for got, want in zip(_train_with_prefetch_stream("npu", wait_for_copies=True), expected):
        torch.testing.assert_close(got, want)


def test_training_loop_missing_the_wait_for_the_copy_stream_is_reported(detector) -> None:
    with pytest.raises(StreamRaceError, match=r"(?s)read after write of a tensor of shape \(8, 16\).*model\(x\)"):
        _train_with_prefetch_stream("npu", wait_for_copies=False)
