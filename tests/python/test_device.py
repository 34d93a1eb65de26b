"""torch.npu device API and the `npu` device in PyTorch."""

import pytest
import torch

from conftest import run_python


def test_device_basics():
    assert torch.npu.is_available()
    assert torch.npu.device_count() == 1
    assert torch.npu.current_device() == 0
    torch.npu.set_device(0)
    torch.npu.set_device("npu:0")
    assert torch.npu.get_device_name().startswith("Ascend910B")
    assert torch.npu.get_device_name(0) == "Ascend910B1"


def test_device_properties_match_profile():
    props = torch.npu.get_device_properties(0)
    assert props.name == "Ascend910B1"
    assert props.total_memory == 64 * 2**30
    assert props.cube_core_num == 24 and props.vector_core_num == 48
    assert props.multi_processor_count == props.cube_core_num
    free, total = torch.npu.mem_get_info()
    assert total == props.total_memory and 0 < free <= total
    assert torch.npu.get_device_capability() is None


def test_tensor_and_module_methods():
    x = torch.arange(6.0).npu()
    assert x.is_npu and x.device == torch.device("npu", 0)
    assert not torch.ones(1).is_npu
    m = torch.nn.Linear(3, 2).npu()
    assert m.weight.is_npu
    out = m(torch.ones(4, 3).npu())
    torch.testing.assert_close(out.cpu(), m.cpu()(torch.ones(4, 3)))


def test_factories_on_npu():
    torch.testing.assert_close(torch.zeros(2, 3, device="npu").cpu(), torch.zeros(2, 3))
    torch.testing.assert_close(torch.ones(4, dtype=torch.int32, device="npu").cpu(), torch.ones(4, dtype=torch.int32))
    e = torch.empty(5, 7, device="npu")
    assert e.shape == (5, 7) and e.is_npu
    s = torch.empty_strided((2, 3), (1, 2), device="npu")
    assert s.stride() == (1, 2)
    assert torch.full((2,), 7.5, device="npu").cpu().tolist() == [7.5, 7.5]


def test_print_npu_tensor():
    text = repr(torch.tensor([1.5, -2.0]).npu())
    assert "device='npu:0'" in text and "1.5000" in text


def test_missing_device_is_a_clear_error():
    with pytest.raises(RuntimeError, match=r"Invalid NPU device index 5: 1 npu device\(s\) are visible"):
        torch.ones(2, device="npu:5")
    with pytest.raises(RuntimeError, match="Invalid NPU device index 3"):
        torch.npu.set_device(3)
    # The process keeps working.
    assert torch.ones(2, device="npu").sum().item() == 2


def test_device_context_managers():
    x = torch.ones(1, device="npu")
    with torch.npu.device(0):
        assert torch.npu.current_device() == 0
    with torch.npu.device_of(x):
        assert torch.npu.current_device() == 0


def test_emulated_device_count_and_visible_devices():
    code = ("import torch, npu_emu; print(torch.npu.device_count());"
            "x = torch.arange(4.).to('npu:2'); print((x + x).cpu().tolist(), x.device)")
    r = run_python(code, {"NPU_EMU_DEVICE_COUNT": "3"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["3", "[0.0, 2.0, 4.0, 6.0] npu:2"]
    r = run_python("import torch, npu_emu; print(torch.npu.device_count())",
                   {"NPU_EMU_DEVICE_COUNT": "4", "ASCEND_RT_VISIBLE_DEVICES": "1,3"})
    assert r.stdout.strip() == "2", r.stderr


@pytest.mark.parametrize("value", ["0", "17", "two"])
def test_bad_device_count_is_a_clear_error(value):
    r = run_python("import torch, npu_emu", {"NPU_EMU_DEVICE_COUNT": value})
    assert r.returncode != 0
    assert "NPU_EMU_DEVICE_COUNT must be an integer from 1 to 16" in r.stderr


def test_cross_device_copy():
    code = ("import torch, npu_emu\n"
            "a = torch.randn(5, 3).npu()\n"
            "b = a.to('npu:1')\n"
            "c = b.t().to('npu:0', dtype=torch.float64)\n"
            "assert b.device.index == 1 and c.device.index == 0\n"
            "torch.testing.assert_close(c.cpu(), a.cpu().t().double())\n"
            "print('ok')")
    r = run_python(code, {"NPU_EMU_DEVICE_COUNT": "2"})
    assert r.stdout.strip() == "ok", r.stderr
