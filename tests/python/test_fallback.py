"""The counted CPU fallback for aten ops without a native npu kernel: results
match CPU for functional, in-place, out= and multi-output ops, every use is
counted, and NPU_EMU_FALLBACK decides allow / warn once / error.

The ops used here (special.zeta, renorm_, kthvalue, frexp, logcumsumexp) are
outside the native list on purpose; if one becomes native, pick another op
that is not. Structured ops reach the fallback as their out= overload
(functional `torch.special.zeta` is counted as aten::special_zeta.out)."""

from __future__ import annotations

import warnings

import pytest
import torch

import npu_emu
from npu_subprocess import run_json, run_python


def fallback_count(op: str) -> int:
    return npu_emu.fallback_report().get(op, 0)


@pytest.fixture(autouse=True)
def _allow(fallback_mode):
    fallback_mode("allow")


def test_functional_op_matches_cpu_and_is_counted():
    x = torch.rand(7, 9) * 1.8 - 0.9
    before = fallback_count("aten::special_zeta.out")
    y = torch.special.zeta(2.0, x.npu())
    assert y.device.type == "npu"
    torch.testing.assert_close(y.cpu(), torch.special.zeta(2.0, x), rtol=0, atol=0)
    torch.special.zeta(2.0, x.npu()[:, 1:])
    assert fallback_count("aten::special_zeta.out") == before + 2


def test_in_place_on_a_strided_view_writes_through():
    base_cpu = torch.rand(6, 8) * 1.8 - 0.9
    base = base_cpu.npu()
    view = base[1:, ::2]
    returned = view.renorm_(2, 0, 0.5)
    base_cpu[1:, ::2].renorm_(2, 0, 0.5)
    assert returned is view
    assert view.data_ptr() == base.data_ptr() + base.element_size() * 8  # still a view of base
    torch.testing.assert_close(base.cpu(), base_cpu, rtol=0, atol=0)


def test_out_variant_resizes_and_casts_like_cpu():
    x = torch.rand(5, 4) * 1.8 - 0.9
    out = torch.empty(0, dtype=torch.float64, device="npu")
    out_cpu = torch.empty(0, dtype=torch.float64)
    result = torch.special.zeta(2.0, x.npu(), out=out)
    torch.special.zeta(2.0, x, out=out_cpu)
    assert result is out and out.shape == (5, 4) and out.dtype == torch.float64
    torch.testing.assert_close(out.cpu(), out_cpu, rtol=0, atol=0)


def test_multi_output_ops_match_cpu():
    x = torch.randn(4, 10)
    values, indices = torch.kthvalue(x.npu(), 3, dim=1)
    ref_values, ref_indices = torch.kthvalue(x, 3, dim=1)
    assert values.device.type == indices.device.type == "npu"
    assert torch.equal(values.cpu(), ref_values) and torch.equal(indices.cpu(), ref_indices)
    mantissa, exponent = torch.frexp(x.npu())
    ref_mantissa, ref_exponent = torch.frexp(x)
    assert torch.equal(mantissa.cpu(), ref_mantissa) and torch.equal(exponent.cpu(), ref_exponent)


def test_autograd_through_a_fallback_op():
    x = torch.randn(3, 5, dtype=torch.float64)
    x_npu = x.npu().requires_grad_()
    torch.logcumsumexp(x_npu, dim=1).sum().backward()
    x_cpu = x.clone().requires_grad_()
    torch.logcumsumexp(x_cpu, dim=1).sum().backward()
    torch.testing.assert_close(x_npu.grad.cpu(), x_cpu.grad)


VIEW_OPS = {
    "transpose": lambda t: t.transpose(0, 1),
    "narrow": lambda t: t.narrow(1, 1, 3),
    "select": lambda t: t.select(0, 2),
    "diagonal": lambda t: t.diagonal(),
    "unfold": lambda t: t.unfold(1, 2, 1),
    "expand": lambda t: t[:1].expand(5, 6),
    "permute": lambda t: t.permute(1, 0),
    "unsqueeze": lambda t: t.unsqueeze(1),
    "split": lambda t: t.split(2)[1],
    "unbind": lambda t: t.unbind(1)[3],
    "as_strided": lambda t: t.as_strided((2, 2), (1, 6), 1),
    "view": lambda t: t.view(-1),
    "mT": lambda t: t.mT,
}


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_view_ops_are_native_views(name, fallback_mode):
    fallback_mode("error")  # a view through the fallback would be a copy: must not happen
    base_cpu = torch.arange(30, dtype=torch.float32).view(5, 6)
    base = base_cpu.npu()
    view = VIEW_OPS[name](base)
    assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert torch.equal(view.cpu(), VIEW_OPS[name](base_cpu))
    if name != "expand":  # an expanded view overlaps itself: PyTorch refuses writes to it
        view.mul_(-1)
        VIEW_OPS[name](base_cpu).mul_(-1)
        assert torch.equal(base.cpu(), base_cpu)  # written through to the base


def test_complex_views_are_native(fallback_mode):
    fallback_mode("error")
    z = torch.randn(4, 3, dtype=torch.complex64).npu()
    real = torch.view_as_real(z)
    assert real.shape == (4, 3, 2) and real.untyped_storage().data_ptr() == z.untyped_storage().data_ptr()
    back = torch.view_as_complex(real)
    assert torch.equal(back.cpu(), z.cpu())


def test_error_mode_names_the_op_and_the_process_keeps_working(fallback_mode):
    x = torch.rand(4).npu()
    fallback_mode("error")
    before = fallback_count("aten::special_zeta.out")
    with pytest.raises(RuntimeError, match=r"aten::special_zeta.out has no native npu kernel and NPU_EMU_FALLBACK=error"):
        torch.special.zeta(2.0, x)
    assert fallback_count("aten::special_zeta.out") == before  # refused, so not counted
    assert torch.equal((x + x).cpu(), x.cpu() * 2)  # native ops still run
    fallback_mode("allow")
    torch.testing.assert_close(torch.special.zeta(2.0, x).cpu(), torch.special.zeta(2.0, x.cpu()), rtol=0, atol=0)


def test_unknown_mode_is_a_clear_error(fallback_mode):
    with pytest.raises(RuntimeError, match="NPU_EMU_FALLBACK must be one of allow, warn, error; got 'sometimes'"):
        fallback_mode("sometimes")
    assert npu_emu._C._fallback_mode() == "allow"  # unchanged


def test_environment_modes():
    code = """
        import warnings
        x = torch.rand(4).npu()
        out = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                try:
                    torch.special.zeta(2.0, x)
                    out["ran"] = out.get("ran", 0) + 1
                except RuntimeError as e:
                    out["error"] = str(e).splitlines()[0]
        out["warnings"] = sum("aten::special_zeta.out' is not currently supported on the NPU backend" in str(w.message)
                              for w in caught)
        out["count"] = npu_emu.fallback_report().get("aten::special_zeta.out", 0)
        print(json.dumps(out))
    """
    warn = run_json(code)  # default: warn, once per op
    assert warn == {"ran": 3, "warnings": 1, "count": 3}
    allow = run_json(code, env={"NPU_EMU_FALLBACK": "allow"})
    assert allow == {"ran": 3, "warnings": 0, "count": 3}
    error = run_json(code, env={"NPU_EMU_FALLBACK": "error"})
    assert "aten::special_zeta.out" in error["error"] and "ran" not in error and error["count"] == 0
    bad = run_python("torch.special.zeta(2.0, torch.rand(2).npu())", env={"NPU_EMU_FALLBACK": "bogus"})
    assert bad.returncode != 0 and "NPU_EMU_FALLBACK must be one of allow, warn, error; got 'bogus'" in bad.stderr



NO_CPU_KERNEL = {  # aten ops PyTorch implements only for CUDA (and other accelerators)
    "aten::batch_norm_stats": lambda x: torch.batch_norm_stats(x, 1e-5),
    "aten::_masked_scale": lambda x: torch.ops.aten._masked_scale(x, torch.ones_like(x, dtype=torch.bool), 2.0),
    "aten::_fused_dropout": lambda x: torch.ops.aten._fused_dropout(x, 0.5),
}


@pytest.mark.parametrize("op", list(NO_CPU_KERNEL))
def test_op_without_a_cpu_kernel_is_refused_naming_it(op, fallback_mode):
    fallback_mode("warn")
    x = torch.randn(4, 3).npu()
    before = fallback_count(op)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(NotImplementedError) as info:
            NO_CPU_KERNEL[op](x)
    message = str(info.value)
    assert message.startswith(f"{op} is not supported on npu yet")
    assert "no CPU kernel" in message and "npu-emu's CPU fallback cannot run it" in message
    assert "Could not run" not in message
    assert [str(w.message) for w in caught] == []  # no "runs on the CPU" warning for a run that cannot happen
    assert fallback_count(op) == before  # it never ran
    assert torch.equal((x * 2).cpu(), x.cpu() * 2)  # the device keeps working
