"""The real torch_npu sees the devices the emulator's device registry gives
a launch: ASCEND_RT_VISIBLE_DEVICES (renumbered from 0), one device per
local rank under torchrun (LOCAL_WORLD_SIZE)."""

from conftest import run_python


def test_visible_devices_are_renumbered_from_zero():
    r = run_python("import torch, torch_npu\nprint(torch.npu.device_count())\n"
                   "x = torch.arange(3.).to('npu:1')\nprint(x.device, (x * 2).cpu().tolist())",
                   {"ASCEND_RT_VISIBLE_DEVICES": "5,2"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["2", "npu:1 [0.0, 2.0, 4.0]"]


def test_torchrun_gives_one_device_per_local_rank():
    r = run_python("import torch, torch_npu\nprint(torch.npu.device_count())", {"LOCAL_WORLD_SIZE": "3"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "3"


def test_a_bad_visible_device_names_the_variable():
    r = run_python("import torch, torch_npu\ntorch.ones(1).npu()", {"ASCEND_RT_VISIBLE_DEVICES": "0,0"})
    assert r.returncode != 0
    assert "ASCEND_RT_VISIBLE_DEVICES lists device 0 twice" in r.stderr, r.stderr[-2000:]
