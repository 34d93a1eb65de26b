"""torch.save / torch.load of npu tensors, views, state dicts and
checkpoints naming devices this process does not have."""

from __future__ import annotations

import io

import pytest
import torch

import npu_emu
import npu_emu.serialization
import torch_npu
from npu_subprocess import run_python


def round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool])
def test_tensor_round_trip_stays_on_npu(dtype):
    cpu = torch.arange(24).reshape(4, 6).to(dtype)
    loaded = round_trip(cpu.npu())
    assert loaded.device == torch.device("npu", 0)
    assert loaded.dtype == dtype
    assert torch.equal(loaded.cpu(), cpu)


def test_views_keep_sharing_their_storage():
    base = torch.arange(20, dtype=torch.float32, device="npu")
    view = base[5:15].view(2, 5)
    t = base.view(4, 5).t()
    a, b, c = round_trip([base, view, t])
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
    assert b.storage_offset() == 5 and c.stride() == (1, 5)
    assert torch.equal(b.cpu(), torch.arange(5, 15, dtype=torch.float32).view(2, 5))
    a.add_(100)  # a write through one is seen through the others
    assert torch.equal(b.cpu(), torch.arange(105, 115, dtype=torch.float32).view(2, 5))


def test_state_dict_round_trip_and_map_locations():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)).npu()
    state = model.state_dict()
    on_npu = round_trip(state)
    on_cpu = round_trip(state, map_location="cpu")
    on_npu0 = round_trip(state, map_location=torch.device("npu:0"))
    for key, value in state.items():
        assert on_npu[key].device.type == "npu"
        assert on_cpu[key].device.type == "cpu"
        assert on_npu0[key].device == torch.device("npu", 0)
        assert torch.equal(on_cpu[key], value.cpu()), key
    fresh = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    fresh.load_state_dict(on_cpu)
    assert torch.equal(fresh[0].weight, model[0].weight.cpu())


def test_cpu_checkpoint_maps_to_npu():
    cpu = torch.randn(3, 3)
    loaded = round_trip(cpu, map_location="npu")
    assert loaded.device.type == "npu" and torch.equal(loaded.cpu(), cpu)


def test_file_round_trip_with_weights_only(tmp_path):
    path = tmp_path / "ckpt.pt"
    x = torch.randn(5, device="npu")
    torch.save({"x": x, "step": 3}, path)
    loaded = torch.load(path, weights_only=True)
    assert loaded["step"] == 3 and torch.equal(loaded["x"].cpu(), x.cpu())


def test_save_hook_replaces_the_saved_tensor():
    calls = []

    def hook(t: torch.Tensor):
        calls.append(tuple(t.shape))
        return t * 2 if t.dtype == torch.float64 else None

    npu_emu.serialization.register_save_hook(hook)
    try:
        x = torch.ones(3, dtype=torch.float64, device="npu")
        y = torch.ones(2, device="npu")
        lx, ly = round_trip([x, y])
        assert torch.equal(lx.cpu(), torch.full((3,), 2.0, dtype=torch.float64))
        assert torch.equal(ly.cpu(), torch.ones(2))
        assert calls == [(3,), (2,)]
        cpu_only = round_trip(torch.ones(2))  # CPU tensors do not reach npu hooks
        assert torch.equal(cpu_only, torch.ones(2)) and len(calls) == 2
    finally:
        npu_emu.serialization._save_hooks.remove(hook)


def test_hook_changing_the_shape_is_an_error():
    npu_emu.serialization.register_save_hook(lambda t: t.reshape(-1)[:1])
    try:
        with pytest.raises(RuntimeError, match="changed the tensor's shape"):
            round_trip(torch.ones(2, 2, device="npu"))
    finally:
        npu_emu.serialization._save_hooks.pop()


def test_checkpoint_from_a_missing_device(tmp_path):
    path = tmp_path / "on_npu1.pt"
    saver = run_python(f"""
        x = torch.arange(6, dtype=torch.float32, device="npu:1")
        torch.save({{"x": x}}, {str(path)!r})
    """, env={"NPU_EMU_DEVICE_COUNT": "2"})
    assert saver.returncode == 0, saver.stderr
    # This process sees one device: a clear error, unless map_location says where.
    with pytest.raises(RuntimeError, match="NPU device 1 but torch.npu.device_count.. is 1"):
        torch.load(path)
    for location in ("cpu", "npu:0", {"npu:1": "npu:0"}, torch.device("npu", 0)):
        loaded = torch.load(path, map_location=location)["x"]
        assert torch.equal(loaded.cpu(), torch.arange(6, dtype=torch.float32))
        assert loaded.device == (torch.device("cpu") if location == "cpu" else torch.device("npu", 0))


# Private formats: the bytes written are base-format values; the format rides
# in the tensor's backend metadata and comes back on a load onto npu.
PRIVATE_CASES = [((2, 19, 5, 3), 3), ((33, 17), 29), ((20, 6, 3, 3), 4), ((2, 3, 4, 5, 18), 32)]


@pytest.mark.parametrize("shape,fmt", PRIVATE_CASES, ids=["NC1HWC0", "FRACTAL_NZ", "FRACTAL_Z", "NDC1HWC0"])
def test_private_format_round_trips(shape, fmt, tmp_path):
    cpu = torch.randn(shape)
    x = torch_npu.npu_format_cast(cpu.npu(), fmt)
    assert torch_npu.get_npu_format(x) == fmt
    path = tmp_path / "x.pt"
    torch.save({"x": x, "plain": cpu.npu()}, path)
    for kwargs in ({}, {"weights_only": True}, {"map_location": "npu:0"}):
        loaded = torch.load(path, **kwargs)
        assert torch_npu.get_npu_format(loaded["x"]) == fmt, kwargs
        assert torch_npu.get_npu_format(loaded["plain"]) != fmt
        assert torch.equal(loaded["x"].cpu(), cpu)
        # The physical storage is the same layout, padding included.
        assert torch.equal(npu_emu.storage_data(loaded["x"]), npu_emu.storage_data(x))
    on_cpu = torch.load(path, map_location="cpu")["x"]
    assert on_cpu.device.type == "cpu" and on_cpu.shape == cpu.shape and torch.equal(on_cpu, cpu)


def test_private_format_in_a_state_dict_and_the_original_is_untouched():
    conv = torch.nn.Conv2d(3, 20, 3).npu()
    torch_npu.npu_format_cast_(conv.weight.data, 4)
    reference = conv.weight.detach().cpu()
    state = round_trip(conv.state_dict())
    assert torch_npu.get_npu_format(state["weight"]) == 4
    assert torch.equal(state["weight"].cpu(), reference)
    assert torch_npu.get_npu_format(conv.weight) == 4  # saving did not convert the live tensor
    assert torch.equal(conv.weight.detach().cpu(), reference)


def test_requires_grad_survives_a_private_format_round_trip():
    x = torch_npu.npu_format_cast(torch.randn(16, 16).npu(), 29).requires_grad_()
    loaded = round_trip(x)
    assert loaded.requires_grad and loaded.is_leaf and torch_npu.get_npu_format(loaded) == 29


def test_malformed_format_metadata_is_a_clear_error():
    t = torch.zeros(4, 4, device="npu")
    with pytest.raises(RuntimeError, match="npu_format_"):
        torch._utils.set_tensor_metadata(t, {"npu_format_x": True})
    with pytest.raises(ValueError, match="unknown format id 12345; allowed ids"):
        torch._utils.set_tensor_metadata(t, {"npu_format_12345": True})
    assert torch.equal(t.cpu(), torch.zeros(4, 4))  # the tensor is unharmed


# Base formats: a fresh tensor gets its format from its rank (4-D NCHW, 5-D
# NCDHW, else ND); any other base label must survive save/load as well.
BASE_CASES = [((2, 3, 4, 5), 2), ((2, 3, 4, 5), 0), ((2, 3, 4, 5), 1), ((2, 3, 4, 5, 6), 30), ((2, 3, 4, 5, 6), 2),
              ((3, 4), 2), ((7,), 2), ((3, 4), 35), ((3, 4, 5), 47)]


@pytest.mark.parametrize("shape,fmt", BASE_CASES, ids=[f"{len(s)}d-{f}" for s, f in BASE_CASES])
def test_base_format_round_trips_exactly(shape, fmt, tmp_path):
    cpu = torch.randn(shape)
    x = torch_npu.npu_format_cast(cpu.npu(), fmt)
    assert torch_npu.get_npu_format(x) == fmt
    path = tmp_path / "x.pt"
    torch.save({"x": x}, path)
    for kwargs in ({}, {"weights_only": True}, {"map_location": "npu:0"}):
        loaded = torch.load(path, **kwargs)["x"]
        assert torch_npu.get_npu_format(loaded) == fmt, kwargs
        assert torch.equal(loaded.cpu(), cpu)
    assert torch.equal(torch.load(path, map_location="cpu")["x"], cpu)


def test_a_fresh_tensor_gets_the_base_format_of_its_rank():
    for shape, fmt in [((2, 3, 4, 5), 0), ((2, 3, 4, 5, 6), 30), ((3, 4), 2), ((5,), 2), ((), 2)]:
        fresh = torch.randn(shape).npu()
        assert torch_npu.get_npu_format(fresh) == fmt
        assert torch_npu.get_npu_format(round_trip(fresh)) == fmt


def test_views_of_a_private_tensor_save_their_values_and_leave_it_alone():
    cpu = torch.randn(33, 20)
    w = torch_npu.npu_format_cast(cpu.npu(), 29)
    desc, data = npu_emu.storage_desc(w), npu_emu.storage_data(w)
    loaded = round_trip({"w": w, "row": w[3], "wt": w.t(), "flat": w.view(-1)})
    assert npu_emu.storage_desc(w) == desc and torch.equal(npu_emu.storage_data(w), data)
    assert torch_npu.get_npu_format(loaded["w"]) == 29
    for key, expected in {"w": cpu, "row": cpu[3], "wt": cpu.t(), "flat": cpu.view(-1)}.items():
        assert torch.equal(loaded[key].cpu(), expected), key
