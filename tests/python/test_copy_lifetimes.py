"""Buffers read by work queued on another stream stay alive until that work ran.

A copy between devices reads a staging buffer of the source device on the
destination's stream. When the buffer dies on return, the caching allocator
must not hand its block to the next allocation on the source device before
the destination's stream has read it (record_stream, done by the copy
itself). The same holds for npu_format_cast_, whose cast reads the storage it
replaces on the current stream. Each scenario keeps the reading stream busy
with the kernel delay, then writes -1 into a new buffer of the freed
buffer's size: a premature reuse shows up as -1 in the result."""

from __future__ import annotations

from typing import Any

import pytest

from npu_subprocess import run_json

# Runs in a fresh interpreter with two emulated devices; prints one JSON
# object: scenario name -> [result as a list, expected as a list].
_CODE = r"""
D0, D1 = torch.device("npu:0"), torch.device("npu:1")
DELAY_US = 50_000
N = 1024
HOST = torch.arange(2 * N, dtype=torch.float32)


def busy(device):
    # Delayed kernels on the device's current stream: whatever is queued
    # after them there waits about 8 * DELAY_US.
    t = torch.zeros(16, device=device)
    for _ in range(7):
        t.add_(1)


def scribble(device, numel, dtype):
    # A new buffer of the freed buffer's size on `device`'s current stream,
    # overwritten: it takes the freed block if the allocator allows it.
    # Waiting for the fill here (the reading stream is still busy) makes it
    # land before the read even once the kernel delay is lifted.
    torch.empty(numel, dtype=dtype, device=device).fill_(-1)
    torch.npu.current_stream(device).synchronize()


def source(device=D0):
    x = HOST.to(device)
    torch.npu.synchronize(device)
    return x


def strided_view():
    x = source()
    busy(D1)
    y = x[::2].to(D1)
    scribble(D0, N, torch.float32)
    return y, HOST[::2]


def contiguous():
    x = source()
    busy(D1)
    y = x.to(D1)
    scribble(D0, 2 * N, torch.float32)
    return y, HOST


def dtype_conversion():
    x = source()
    busy(D1)
    y = x.to(D1, torch.float16)  # 0..2047 are exact in float16
    scribble(D0, 2 * N, torch.float16)
    return y, HOST.half()


def into_a_strided_destination():
    x = source()
    d = torch.zeros(N, 2, device=D1)
    busy(D1)
    d[:, 1].copy_(x[N:])
    scribble(D0, N, torch.float32)
    expected = torch.zeros(N, 2)
    expected[:, 1] = HOST[N:]
    return d, expected


def from_the_second_device():
    x = source(D1)
    busy(D0)
    y = x[1::2].to(D0)
    scribble(D1, N, torch.float32)
    return y, HOST[1::2]


def destination_side_stream():
    x = source()
    side = torch.npu.Stream(device=D1)
    with torch.npu.stream(side):
        busy(D1)
        y = x[::2].to(D1)
    scribble(D0, N, torch.float32)
    return y, HOST[::2]


def source_side_stream():
    x = source()
    side = torch.npu.Stream(device=D0)
    side.wait_stream(torch.npu.current_stream(D0))
    busy(D1)
    with torch.npu.stream(side):
        y = x[::2].to(D1)
        scribble(D0, N, torch.float32)
    return y, HOST[::2]


def in_place_format_cast_on_a_side_stream():
    # npu_format_cast_ replaces the tensor's storage: the old block, allocated
    # on the default stream, is still read by the cast queued on the side stream.
    torch.npu.config.allow_internal_format = True
    host = HOST.reshape(32, 64)
    t = host.to(D0)
    torch.npu.synchronize(D0)
    side = torch.npu.Stream(device=D0)
    with torch.npu.stream(side):
        busy(D0)
        torch.ops.npu.npu_format_cast_(t, 29)  # FRACTAL_NZ
    scribble(D0, 2 * N, torch.float32)
    return t, host


results = {}
for scenario in (strided_view, contiguous, dtype_conversion, into_a_strided_destination, from_the_second_device,
                 destination_side_stream, source_side_stream, in_place_format_cast_on_a_side_stream):
    # Empty caches: a block freed by the scenario is the only free block of
    # its size class, so the scribbles are sure to be offered it.
    torch.npu.empty_cache()
    npu_emu._C._set_kernel_delay_us(DELAY_US)
    try:
        got, expected = scenario()
    finally:
        npu_emu._C._set_kernel_delay_us(0)
    # Every stream of both devices has finished before reading the result.
    torch.npu.synchronize(D0)
    torch.npu.synchronize(D1)
    results[scenario.__name__] = [got.cpu().tolist(), expected.tolist()]
print(json.dumps(results))
"""

SCENARIOS = ["strided_view", "contiguous", "dtype_conversion", "into_a_strided_destination",
             "from_the_second_device", "destination_side_stream", "source_side_stream",
             "in_place_format_cast_on_a_side_stream"]


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Any]:
    return run_json(_CODE, {"NPU_EMU_DEVICE_COUNT": "2"})


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_buffer_read_on_another_stream_is_not_reused_early(outcomes, scenario):
    got, expected = outcomes[scenario]
    assert got == expected


def test_record_stream_with_a_stream_of_another_device_delays_reuse():
    # What the copies do internally, through the public call: the block is
    # held back until the other device's stream ran past the recorded point.
    code = """
    D0, D1 = torch.device("npu:0"), torch.device("npu:1")
    x = torch.empty(1000, device=D0)
    address = x.data_ptr()
    npu_emu._C._set_kernel_delay_us(100_000)
    t = torch.zeros(16, device=D1)
    for _ in range(6):
        t.add_(1)
    x.record_stream(torch.npu.current_stream(D1))
    del x
    while_busy = torch.empty(1000, device=D0).data_ptr()
    npu_emu._C._set_kernel_delay_us(0)
    torch.npu.synchronize(D1)
    after = torch.empty(1000, device=D0).data_ptr()
    print(json.dumps([while_busy != address, after == address]))
    """
    assert run_json(code, {"NPU_EMU_DEVICE_COUNT": "2"}) == [True, True]
