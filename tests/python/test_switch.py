"""The NPU= switch, each value in a fresh interpreter."""

from conftest import run_python

PROBE = ("import torch\n"
         "print('npu' if hasattr(torch, 'npu') else 'none')\n")


def test_emu_autoloads_and_torch_npu_resolves():
    r = run_python("import torch, torch_npu\nx = torch.arange(6.).npu()\nprint((x + x).cpu())\n"
                   "import npu_emu.torch_npu_compat as c; print(torch_npu is c, torch_npu.npu is torch.npu)", {"NPU": "emu"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["tensor([ 0.,  2.,  4.,  6.,  8., 10.])", "True True"]


def test_torch_npu_import_before_torch():
    r = run_python("import torch_npu, torch\nprint(torch.ones(2).npu().device)", {"NPU": "emu"})
    assert r.stdout.strip() == "npu:0", r.stderr


def test_unset_activates_nothing_until_opt_in():
    r = run_python(PROBE + "import npu_emu\nprint(torch.ones(1).npu().device)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["none", "npu:0"]
    r = run_python("import torch_npu")
    assert r.returncode != 0 and "No module named 'torch_npu'" in r.stderr


def test_acl_without_cann_is_a_clear_error():
    r = run_python("import torch", {"NPU": "acl", "ASCEND_HOME_PATH": "/nonexistent"})
    assert r.returncode != 0
    assert "the CANN runtime was not found" in r.stderr and "NPU=emu" in r.stderr


def test_other_values_list_the_allowed_ones():
    r = run_python("import torch", {"NPU": "gpu"})
    assert r.returncode != 0
    assert "NPU='gpu' is not a valid value; allowed values are: NPU=emu, NPU=acl" in r.stderr
