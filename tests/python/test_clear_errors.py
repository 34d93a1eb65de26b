"""Misconfigurations and features npu does not have yet give one clear error:
the line the user reads names the setting (or feature) and what to do."""

from __future__ import annotations

import pytest
import torch

from conftest import run_python


def final_exception_line(stderr: str) -> str:
    """The last line of a traceback: `<exception type>: <message>`."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert lines, "no error output"
    return lines[-1]


# --- a bad environment setting under NPU=emu: `import torch` fails naming it


@pytest.mark.parametrize("variable, value, expected", [
    ("NPU_EMU_DEVICE_COUNT", "abc", "NPU_EMU_DEVICE_COUNT must be an integer from 1 to 16, got 'abc'"),
    ("NPU_EMU_SOC", "foo", "NPU_EMU_SOC: unknown SoC 'foo'; known SoCs: Ascend910B1"),
    ("NPU_EMU_HBM_MB", "lots", "NPU_EMU_HBM_MB must be an integer"),
    ("NPU_EMU_FALLBACK", "bogus", "NPU_EMU_FALLBACK must be one of allow, warn, error; got 'bogus'"),
    ("NPU", "gpu", "NPU='gpu' is not a valid value; allowed values are: NPU=emu, NPU=acl"),
])
def test_bad_setting_is_the_error_of_import_torch(variable, value, expected):
    env = {"NPU": "emu", variable: value}
    r = run_python("import torch", env)
    assert r.returncode != 0
    last = final_exception_line(r.stderr)
    assert "Failed to load the backend extension" not in last, r.stderr
    assert expected in last, r.stderr
    # ... and says how to import torch without the backend.
    assert "TORCH_DEVICE_BACKEND_AUTOLOAD=0" in last


def test_fallback_setting_is_checked_when_npu_emu_is_imported():
    # Before, a bad value was only noticed by the first op that fell back.
    r = run_python("import torch, npu_emu", {"NPU_EMU_FALLBACK": "eror"})
    assert r.returncode != 0
    assert final_exception_line(r.stderr) == (
        "RuntimeError: NPU_EMU_FALLBACK must be one of allow, warn, error; got 'eror'"), r.stderr


def test_runtime_setting_error_leads_when_npu_emu_is_imported():
    # Without NPU=, `import npu_emu` starts the emulator: its reason comes
    # first, not "aclInit failed, error code is 100000".
    r = run_python("import torch, npu_emu", {"NPU_EMU_DEVICE_COUNT": "0"})
    assert r.returncode != 0
    assert final_exception_line(r.stderr) == (
        "RuntimeError: aclInit: NPU_EMU_DEVICE_COUNT must be an integer from 1 to 16, got '0'"), r.stderr
    assert "error code is 100000" in r.stderr  # the runtime's own report stays in the chained cause


def test_bad_allocator_setting_names_the_variable_at_first_allocation():
    # Read at the first allocation (as CUDA's allocator does), not at import.
    r = run_python("import torch\ntorch.ones(2, device='npu')",
                   {"NPU": "emu", "PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:abc"})
    assert r.returncode != 0
    last = final_exception_line(r.stderr)
    assert last.startswith("RuntimeError: PYTORCH_NPU_ALLOC_CONF='max_split_size_mb:abc': Invalid value for "
                           "CachingAllocator option max_split_size_mb: 'abc'; allowed: "), r.stderr


def test_good_settings_still_import():
    r = run_python("import torch\nprint(torch.ones(2, device='npu').sum().item(), torch.npu.device_count())",
                   {"NPU": "emu", "NPU_EMU_DEVICE_COUNT": "2", "NPU_EMU_FALLBACK": "allow"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2.0", "2"]


# --- torch.compile with inductor


def _compile_error(fn, *args) -> BaseException:
    torch._dynamo.reset()
    with pytest.raises(Exception) as info:
        torch.compile(fn, backend="inductor")(*args)
    return info.value


@pytest.mark.parametrize("case", ["pointwise", "module"])
def test_inductor_on_npu_says_what_to_use(case):
    if case == "pointwise":
        err = _compile_error(lambda x: x * 2 + 1, torch.ones(3, device="npu"))
    else:
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).to("npu")
        err = _compile_error(model, torch.randn(2, 4, device="npu"))
    message = str(err)
    assert "torch.compile(backend='inductor') is not supported on npu yet" in message
    assert "backend='eager'" in message
    assert "KeyError" not in message


def test_eager_compile_on_npu_and_inductor_on_cpu_still_work():
    torch._dynamo.reset()
    x = torch.arange(5.0)
    eager = torch.compile(lambda t: t * 2 + 1, backend="eager")
    assert torch.equal(eager(x.npu()).cpu(), x * 2 + 1)
    torch._dynamo.reset()
    cpu = torch.compile(lambda t: t * 3 - 1, backend="inductor")
    try:
        result = cpu(x)
    except torch._dynamo.exc.BackendCompilerFailed as e:
        # Inductor's own C++ code generation fails under some settings (with
        # ATEN_CPU_CAPABILITY=default it emits at::vec code it then cannot
        # compile): PyTorch's limitation, not npu-emu's refusal.
        if not isinstance(e.inner_exception, torch._inductor.exc.CppCompileError):
            raise
        assert "not supported on npu" not in str(e)
        pytest.skip("inductor cannot compile CPU code with this machine's settings")
    finally:
        torch._dynamo.reset()
    assert torch.equal(result, x * 3 - 1)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_activation_checkpointing_on_npu_works(use_reentrant):
    # checkpoint re-enters torch.autocast(<device>, enabled=<current state>)
    # around the recomputation; on npu that used to fail PyTorch's assertion
    # that the device module has get_amp_supported_dtype.
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    reference = torch.nn.Linear(4, 4)
    x = torch.randn(3, 4)
    grads = {}
    for device in ("cpu", "npu"):
        model = torch.nn.Linear(4, 4).to(device)
        model.load_state_dict(reference.state_dict())
        xi = x.detach().to(device).requires_grad_()
        y = checkpoint(lambda t: torch.tanh(model(t)) * t, xi, use_reentrant=use_reentrant)
        y.sum().backward()
        grads[device] = (xi.grad.cpu(), model.weight.grad.cpu(), model.bias.grad.cpu())
    for npu_grad, cpu_grad in zip(grads["npu"], grads["cpu"]):
        torch.testing.assert_close(npu_grad, cpu_grad, rtol=1e-5, atol=1e-6)
