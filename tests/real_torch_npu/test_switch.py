"""NPU=emu with the real torch_npu installed: `import torch_npu` (or torch's
autoload) gives the real package on the stand-in with no other setup, npu-emu's
own backend stays out, and NPU_EMU_TORCH_NPU forces either front-end."""

from conftest import run_python

REAL_PROBE = (
    "import sys, torch\n"
    "x = torch.arange(6.).npu()\n"
    "import torch_npu\n"
    "print(torch_npu.__file__.endswith('site-packages/torch_npu/__init__.py'), torch_npu.__version__)\n"
    "print((x + x).cpu().tolist())\n"
    "print(torch._C._get_privateuse1_backend_name(), 'npu_emu' in sys.modules, 'npu_emu._C' in sys.modules)\n")


def test_emu_loads_the_real_torch_npu_through_torchs_autoload():
    r = run_python(REAL_PROBE)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["True 2.13.0", "[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]", "npu False False"]


def test_real_can_be_forced_and_compat_chosen():
    r = run_python(REAL_PROBE, {"NPU_EMU_TORCH_NPU": "real"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "True 2.13.0"
    r = run_python("import torch, torch_npu\nprint(torch_npu.__name__, torch.ones(2).npu().device)",
                   {"NPU_EMU_TORCH_NPU": "compat"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "npu_emu.torch_npu_compat npu:0"


def test_npu_emus_own_backend_refuses_to_start_beside_the_real_one():
    r = run_python("import npu_emu")
    assert r.returncode != 0
    assert "the real torch_npu owns the npu device" in r.stderr and "NPU_EMU_TORCH_NPU=compat" in r.stderr


def test_a_bad_front_end_setting_lists_the_allowed_values():
    r = run_python("import torch", {"NPU_EMU_TORCH_NPU": "fake"})
    assert r.returncode != 0
    assert "NPU_EMU_TORCH_NPU='fake' is not a valid value; allowed values are: auto, real, compat" in r.stderr
