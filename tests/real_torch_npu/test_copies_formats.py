"""Copies, private formats and serialization: exact, as on the hardware."""

import io

import pytest
import torch
import torch_npu


def test_copies_between_host_and_device_are_exact():
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool):
        cpu = (torch.randn(5, 7) * 100).to(dtype)
        npu = cpu.npu()
        assert npu.device.type == "npu" and npu.dtype == dtype
        assert torch.equal(npu.cpu(), cpu)
        assert torch.equal(npu.clone().cpu(), cpu)  # device to device
        assert torch.equal(npu.t().contiguous().cpu(), cpu.t().contiguous())  # strided
        assert torch.equal(npu[1:4, ::2].cpu(), cpu[1:4, ::2])


def test_non_blocking_copies_land_after_synchronize():
    pinned = torch.arange(10000.).pin_memory()
    npu = pinned.to("npu", non_blocking=True)
    back = torch.empty_like(pinned).pin_memory()
    back.copy_(npu, non_blocking=True)
    torch.npu.synchronize()
    assert torch.equal(back, pinned)


@pytest.fixture(params=[False, True], ids=["internal_format_off", "internal_format_on"])
def internal_format(request):
    # A setter only; off is the default of the emulated Ascend910B1.
    torch.npu.config.allow_internal_format = request.param
    yield request.param
    torch.npu.config.allow_internal_format = False


@pytest.mark.parametrize("shape, fmt, name", [((2, 20, 5, 6), 3, "NC1HWC0"), ((33, 47), 29, "FRACTAL_NZ"),
                                                ((40, 20, 3, 3), 4, "FRACTAL_Z")])
def test_format_cast_round_trips_exactly(internal_format, shape, fmt, name):
    cpu = torch.randn(*shape)
    cast = torch_npu.npu_format_cast(cpu.npu(), fmt)
    # With internal formats off, torch_npu keeps the base format (its rule).
    expected = name if internal_format else ("NCHW" if len(shape) == 4 else "ND")
    assert torch_npu.get_npu_format(cast).name == expected
    assert cast.shape == cpu.shape
    assert torch.equal(cast.cpu(), cpu)
    back = torch_npu.npu_format_cast(cast, 2 if len(shape) == 2 else 0)
    assert torch.equal(back.cpu(), cpu)
    assert torch.equal((back + 1).cpu(), cpu + 1)


def test_save_and_load_keep_device_and_values():
    tensors = {"w": torch.randn(3, 4).npu(), "i": torch.arange(5).npu()}
    buffer = io.BytesIO()
    torch.save(tensors, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    for key, value in tensors.items():
        assert loaded[key].device == value.device
        assert torch.equal(loaded[key].cpu(), value.cpu())
    buffer.seek(0)
    on_cpu = torch.load(buffer, map_location="cpu")
    assert on_cpu["w"].device.type == "cpu" and torch.equal(on_cpu["w"], tensors["w"].cpu())
