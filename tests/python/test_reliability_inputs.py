"""Issue 20, strict inputs: bad settings, tampered checkpoints, cross-device
events, empty tensors in format casts and bogus stream handles each get one
clear error instead of a silent default or a failure later."""

from __future__ import annotations

import gc
import io

import pytest
import torch

import npu_emu  # noqa: F401
from npu_emu import formats
from conftest import make_tensor, run_python

# --- settings read from the environment -----------------------------------

_FIRST_USE = "import torch, npu_emu; x = torch.ones(3, device='npu'); print((x + 1).sum().item())"


@pytest.mark.parametrize(
    ("variable", "value", "allowed"),
    [
        ("NPU_EMU_KERNEL_DELAY_US", "abc", "integer"),
        ("NPU_EMU_KERNEL_DELAY_US", "-5", "integer"),
        ("NPU_EMU_KERNEL_DELAY_US", "10us", "integer"),
        ("ASCEND_LAUNCH_BLOCKING", "yes", "0 or 1"),
        ("PYTORCH_NO_NPU_MEMORY_CACHING", "maybe", "0 or 1"),
    ],
)
def test_bad_setting_is_an_error_naming_it(variable: str, value: str, allowed: str) -> None:
    result = run_python(_FIRST_USE, env={variable: value})
    assert result.returncode != 0, f"{variable}={value!r} was accepted:\n{result.stdout}"
    message = result.stderr
    assert variable in message and value in message and allowed in message, message


@pytest.mark.parametrize(
    ("variable", "value"),
    [("NPU_EMU_KERNEL_DELAY_US", "0"), ("NPU_EMU_KERNEL_DELAY_US", "3"), ("ASCEND_LAUNCH_BLOCKING", "0"),
     ("ASCEND_LAUNCH_BLOCKING", "1"), ("PYTORCH_NO_NPU_MEMORY_CACHING", "1"),
     ("PYTORCH_NO_NPU_MEMORY_CACHING", "0")],
)
def test_good_setting_is_accepted(variable: str, value: str) -> None:
    result = run_python(_FIRST_USE, env={variable: value})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "6.0"


# --- torch.load of tampered format metadata -------------------------------


def _checkpoint_with_metadata(monkeypatch, tensor: torch.Tensor, metadata: dict[str, bool]) -> bytes:
    """A checkpoint of `tensor` whose backend metadata was replaced, as an
    edited file would carry it."""
    monkeypatch.setattr(torch._utils, "get_tensor_metadata", lambda _t: dict(metadata))
    buffer = io.BytesIO()
    torch.save({"w": tensor}, buffer)
    monkeypatch.undo()
    return buffer.getvalue()


@pytest.mark.parametrize("weights_only", [False, True])
@pytest.mark.parametrize(
    ("shape", "format_id", "expected"),
    [
        ((2, 3, 4, 5), -1, "not a known npu format"),
        ((2, 3, 4, 5), 9999, "not a known npu format"),
        ((2, 3, 4, 5, 6), 3, "cannot hold"),  # NC1HWC0 holds at most 4 dims
        ((2, 3), 32, "cannot hold"),  # NDC1HWC0 needs a 5-D tensor
        ((2, 3), 33, "cannot hold"),  # FRACTAL_Z_3D too
    ],
)
def test_tampered_format_metadata_is_rejected(monkeypatch, weights_only: bool, shape, format_id: int,
                                              expected: str) -> None:
    source = make_tensor(shape, torch.float32).npu()
    data = _checkpoint_with_metadata(monkeypatch, source, {f"npu_format_{format_id}": True})
    gc.collect()
    torch.npu.synchronize()
    before = torch.npu.memory_allocated()
    message = _load_error(data, weights_only)
    assert "npu_format" in message and expected in message and str(format_id) in message, message
    gc.collect()  # the exception's frames held the loaded storage
    torch.npu.synchronize()
    assert torch.npu.memory_allocated() == before  # nothing of the refused tensor is left


def _load_error(data: bytes, weights_only: bool) -> str:
    with pytest.raises(ValueError) as info:
        torch.load(io.BytesIO(data), weights_only=weights_only)
    return str(info.value)


@pytest.mark.parametrize("weights_only", [False, True])
def test_untampered_private_format_still_loads(weights_only: bool) -> None:
    source = make_tensor((2, 3, 4, 5), torch.float32)
    t = formats.npu_format_cast(source.npu(), 3)
    buffer = io.BytesIO()
    torch.save({"w": t}, buffer)
    loaded = torch.load(io.BytesIO(buffer.getvalue()), weights_only=weights_only)["w"]
    assert formats.get_npu_format(loaded) == 3
    assert torch.equal(loaded.cpu(), source)


# --- events of two devices ------------------------------------------------


def test_elapsed_time_between_devices_raises() -> None:
    code = """
import torch, npu_emu
a = torch.npu.Event(enable_timing=True); b = torch.npu.Event(enable_timing=True)
with torch.npu.device(0):
    a.record()
with torch.npu.device(1):
    b.record()
torch.npu.synchronize(0); torch.npu.synchronize(1)
try:
    print('elapsed', a.elapsed_time(b))
except RuntimeError as e:
    print('raised', ' '.join(str(e).split()))
with torch.npu.device(1):
    c = torch.npu.Event(enable_timing=True); c.record(); torch.npu.synchronize(1)
print('same device', b.elapsed_time(c) >= 0)
"""
    result = run_python(code, env={"NPU_EMU_DEVICE_COUNT": "2"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("raised"), result.stdout
    assert "device" in lines[0] and "npu:0" in lines[0] and "npu:1" in lines[0], lines[0]
    assert lines[1] == "same device True"


# --- 0-size tensors in format casts ---------------------------------------

_EMPTY_4D = [(0, 3, 4, 5), (2, 0, 4, 5), (2, 3, 0, 5), (2, 3, 4, 0)]


@pytest.mark.parametrize("shape", _EMPTY_4D)
@pytest.mark.parametrize("format_id", [0, 1, 2, 3, 4, 29])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_empty_tensor_format_cast_round_trip(shape, format_id: int, dtype: torch.dtype) -> None:
    source = torch.empty(shape, dtype=dtype)
    cast = formats.npu_format_cast(source.npu(), format_id)
    assert cast.shape == source.shape
    assert formats.get_npu_format(cast) == format_id
    back = formats.npu_format_cast(cast, 0)
    assert back.cpu().shape == source.shape


@pytest.mark.parametrize("shape", [(2, 0, 4, 5), (0, 17, 3, 3)])
@pytest.mark.parametrize("format_id", [3, 4, 29])
def test_empty_tensor_in_place_format_cast(shape, format_id: int) -> None:
    t = torch.empty(shape).npu()
    formats.npu_format_cast_(t, format_id)
    assert formats.get_npu_format(t) == format_id and t.shape == shape
    formats.npu_format_cast_(t, 0)
    assert formats.get_npu_format(t) == 0 and t.cpu().shape == shape


@pytest.mark.parametrize("shape", [(0, 3, 4, 2, 5), (1, 0, 2, 3, 4)])
@pytest.mark.parametrize("format_id", [32, 33])
def test_empty_5d_tensor_format_cast(shape, format_id: int) -> None:
    source = torch.empty(shape, dtype=torch.float16)
    cast = formats.npu_format_cast(source.npu(), format_id)
    assert formats.get_npu_format(cast) == format_id
    assert formats.npu_format_cast(cast, 30).cpu().shape == source.shape


# --- ExternalStream --------------------------------------------------------


@pytest.mark.parametrize("handle", [0, 1, 0xDEADBEEF, 1 << 40])
def test_external_stream_with_bogus_handle_is_rejected_when_made(handle: int) -> None:
    with pytest.raises((RuntimeError, ValueError), match="stream"):
        torch.npu.ExternalStream(handle)


def test_external_stream_with_real_handle_works() -> None:
    owned = torch.npu.Stream()
    wrapped = torch.npu.ExternalStream(owned.npu_stream)
    with torch.npu.stream(wrapped):
        y = torch.arange(4.0, device="npu") * 2
    wrapped.synchronize()
    assert torch.equal(y.cpu(), torch.arange(4.0) * 2)
