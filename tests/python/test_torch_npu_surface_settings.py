"""Settings and texts as torch_npu has them: TORCH_NPU_FALLBACK_CPU_DISABLE,
per_process_memory_fraction in PYTORCH_NPU_ALLOC_CONF, ERR0xxxx error codes,
Stream reprs; torch_npu._C names and torch_npu.utils.collect_env."""

from __future__ import annotations

import re
import textwrap

import pytest
import torch

import npu_emu  # noqa: F401
import torch_npu
import torch_npu._C
from conftest import run_python

# An op with no native npu kernel (its only route is the CPU fallback).


def _fallback_op() -> str:
    # An aten op with a CPU kernel that npu-emu runs through the fallback.
    return textwrap.dedent("""
        import torch
        import npu_emu
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device="npu")
        y = torch.ops.aten.{op}(x)
        torch.npu.synchronize()
        print("RAN")
    """)


@pytest.fixture(scope="module")
def fallback_op_name() -> str:
    """A unary aten op that falls back to the CPU on npu-emu today."""
    from npu_emu import debug

    for op in ("histc", "frexp", "special_bessel_j0", "special_airy_ai"):
        debug.reset_reports()
        getattr(torch.ops.aten, op)(torch.ones(2, device="npu"))
        torch.npu.synchronize()
        if any(op in name for name in debug.fallback_report()):
            return op
    pytest.skip("every probed op has a native npu kernel now")


@pytest.mark.parametrize("value,blocked", [("1", True), ("0", False), (None, False)])
def test_torch_npu_fallback_cpu_disable(fallback_op_name, value, blocked):
    env = {"NPU": "emu", "NPU_EMU_FALLBACK": ""}
    if value is not None:
        env["TORCH_NPU_FALLBACK_CPU_DISABLE"] = value
    result = run_python(_fallback_op().format(op=fallback_op_name), env=env)
    if blocked:
        assert result.returncode != 0
        assert "TORCH_NPU_FALLBACK_CPU_DISABLE=1 forbids the CPU fallback" in result.stderr
        assert fallback_op_name in result.stderr
    else:
        assert result.returncode == 0, result.stderr[-2000:]
        assert "RAN" in result.stdout


def test_torch_npu_fallback_cpu_disable_bad_value(fallback_op_name):
    env = {"NPU": "emu", "NPU_EMU_FALLBACK": "", "TORCH_NPU_FALLBACK_CPU_DISABLE": "yes"}
    result = run_python(_fallback_op().format(op=fallback_op_name), env=env)
    assert result.returncode != 0
    assert "TORCH_NPU_FALLBACK_CPU_DISABLE must be 0 or 1; got 'yes'" in result.stderr


def test_npu_emu_fallback_setting_wins_over_torch_npus(fallback_op_name):
    env = {"NPU": "emu", "NPU_EMU_FALLBACK": "allow", "TORCH_NPU_FALLBACK_CPU_DISABLE": "1"}
    result = run_python(_fallback_op().format(op=fallback_op_name), env=env)
    assert result.returncode == 0, result.stderr[-2000:]


FRACTION_SCRIPT = textwrap.dedent("""
    import torch
    import npu_emu
    total = torch.npu.get_device_properties(0).total_memory
    print("FRACTION", torch.npu.get_per_process_memory_fraction())
    try:
        x = torch.empty(int(total * {share}), dtype=torch.int8, device="npu")
        print("ALLOCATED")
    except torch.OutOfMemoryError as err:
        print("OOM", str(err).splitlines()[0])
""")


@pytest.mark.parametrize("fraction,share,fits", [("0.1", 0.2, False), ("0.5", 0.4, True), ("1.0", 0.5, True)])
def test_per_process_memory_fraction_in_alloc_conf(fraction, share, fits):
    env = {"NPU": "emu", "PYTORCH_NPU_ALLOC_CONF": f"per_process_memory_fraction:{fraction}",
           "NPU_EMU_HBM_MB": "256"}
    result = run_python(FRACTION_SCRIPT.format(share=share), env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"FRACTION {float(fraction)}" in result.stdout
    if fits:
        assert "ALLOCATED" in result.stdout
    else:
        assert "OOM NPU out of memory" in result.stdout
        assert "per-process memory fraction" in result.stdout


@pytest.mark.parametrize("value", ["2.0", "-0.1", "", "half"])
def test_per_process_memory_fraction_bad_values(value):
    with pytest.raises(RuntimeError, match=r"per_process_memory_fraction.*between 0.0 and 1.0"):
        npu_emu._C._npu_parse_allocator_config(f"per_process_memory_fraction:{value}")


def test_per_process_memory_fraction_combines_with_other_keys():
    config = npu_emu._C._npu_parse_allocator_config("max_split_size_mb:64,per_process_memory_fraction:0.25")
    assert config["per_process_memory_fraction"] == 0.25
    assert config["max_split_size"] == 64 << 20
    assert npu_emu._C._npu_parse_allocator_config("")["per_process_memory_fraction"] is None


def test_error_codes_as_torch_npu():
    with pytest.raises(TypeError, match=r"ERR00002 PTA invalid type"):
        torch.npu.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match=r"ERR00003 PTA invalid value"):
        torch.npu.set_per_process_memory_fraction(1.5)
    with pytest.raises(RuntimeError, match=r"\[ERROR\] \S+ \(PID:\d+, Device:-?\d+, RankID:-?\d+\) ERR00003 PTA"):
        torch.npu.set_device(torch.npu.device_count())
    from torch_npu.utils._error_code import ErrCode, ops_error, pta_error

    assert pta_error(ErrCode.ACL).endswith("ERR00100 PTA call acl api failed")
    assert ops_error(ErrCode.PARAM).endswith("ERR01001 OPS invalid parameter")


def test_compact_error_output_drops_the_suffix(monkeypatch):
    from torch_npu.utils._error_code import ErrCode, pta_error

    monkeypatch.setenv("TORCH_NPU_COMPACT_ERROR_OUTPUT", "1")
    assert pta_error(ErrCode.TYPE) == ""


def test_stream_repr_as_torch_npu():
    s = torch.npu.Stream()
    assert re.fullmatch(r"<torch_npu\.npu\.Stream device=npu:0 npu_stream=0x[0-9a-f]+>", repr(s))
    assert repr(s) != repr(torch.npu.Stream())
    assert f"{s.npu_stream:#x}" in repr(s)


def test_private_c_names():
    assert torch_npu._C._npu_get_soc_version() == 220  # Ascend910B1
    assert torch_npu._C._npu_getCurrentRawStream(0) == torch.npu.current_stream(0).npu_stream
    s = torch.npu.Stream()
    with torch.npu.stream(s):
        assert torch_npu._C._npu_getCurrentRawStream(0) == s.npu_stream
    base = torch.arange(12.0, device="npu").reshape(3, 4)
    view = base[1:, 1:3]
    weak = torch_npu._C._weak_ref_tensor(view)
    assert (weak.data_ptr(), weak.shape, weak.stride(), weak.storage_offset()) == (
        view.data_ptr(), view.shape, view.stride(), view.storage_offset())
    assert torch.equal(weak.cpu(), view.cpu())
    t = torch_npu._C._empty_strided_npu((2, 3), (1, 2), torch.float16)
    assert (t.shape, t.stride(), t.dtype, t.device.type) == ((2, 3), (1, 2), torch.float16, "npu")
    assert torch_npu._C._npu_getDeviceCount() == torch.npu.device_count()


def test_collect_env_report():
    from torch_npu.utils import collect_env

    info = collect_env.get_env_info()
    assert info.torch_version == torch.__version__
    assert info.torch_npu_version == torch_npu.__version__
    assert info.cann_version == torch_npu.npu.utils.get_cann_version()
    text = collect_env.get_pretty_env_info()
    assert f"Torch-npu version: {torch_npu.__version__}" in text and "CANN:" in text


def test_device_argument_errors_as_torch_npu():
    from torch_npu.npu import _get_device_index

    assert _get_device_index("npu:0") == 0 and _get_device_index(None, optional=True) == torch.npu.current_device()
    with pytest.raises(ValueError, match=r"(?s)Expected a npu device, but got: cpu.*ERR00003 PTA invalid value"):
        torch.npu.synchronize("cpu")
    with pytest.raises(RuntimeError, match="Invalid device string"):
        _get_device_index("npu0", optional=True)
    with pytest.raises(ValueError, match="but got: None"):
        _get_device_index(None)


def test_device_queries_as_torch_npu(monkeypatch):
    props = torch.npu.get_device_properties(0)
    for field in ("major", "minor", "is_multi_gpu_board", "is_integrated", "max_threads_per_multi_processor",
                  "warp_size", "regs_per_multiprocessor", "gcnArchName"):
        assert getattr(props, field) is None, field
    assert props.total_memory > 0 and props.name == torch.npu.get_device_name(0)
    monkeypatch.delenv("TORCH_NPU_DEVICE_CAPABILITY", raising=False)
    assert torch.npu.get_device_capability(props.name) is None
    monkeypatch.setenv("TORCH_NPU_DEVICE_CAPABILITY", "8.0")
    assert torch.npu.get_device_capability(0) == (8, 0)
    monkeypatch.setenv("TORCH_NPU_DEVICE_CAPABILITY", "8.a")
    with pytest.warns(UserWarning, match="TORCH_NPU_DEVICE_CAPABILITY='8.a' is not 'major.minor'"):
        assert torch.npu.get_device_capability() is None
    assert torch.npu.can_device_access_peer(0, 0) is False
    with pytest.raises(AssertionError, match="Invalid device id"):
        torch.npu.can_device_access_peer(-1, 0)
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        torch.npu.can_device_access_peer(0, -1)


@pytest.mark.parametrize("value,transferred", [("1", True), ("0", False), (None, False)])
def test_torch_transfer_to_npu_setting(value, transferred):
    code = textwrap.dedent("""
        import torch
        import torch_npu
        print(torch.zeros(2, device="npu").is_cuda, torch.cuda.is_available())
        print(torch.randn(2, device="cuda").device)
    """)
    env = {"NPU": "emu", "NPU_EMU_TORCH_NPU": "compat"}
    if value is not None:
        env["TORCH_TRANSFER_TO_NPU"] = value
    result = run_python(code, env=env)
    if transferred:
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.split() == ["True", "True", "npu:0"]
    else:  # plain PyTorch's CUDA: not available in this build
        assert result.stdout.split()[:2] == ["False", "False"]
        assert result.returncode != 0


def test_torch_transfer_to_npu_refuses_other_values():
    result = run_python("import torch_npu", env={"NPU": "emu", "NPU_EMU_TORCH_NPU": "compat",
                                                 "TORCH_TRANSFER_TO_NPU": "yes"})
    assert result.returncode != 0
    assert "TORCH_TRANSFER_TO_NPU='yes' is not a valid value; allowed values are: 0, 1" in result.stderr


@pytest.mark.parametrize("name,bad,good", [
    ("ACL_PRECISION_MODE", "allow_fp32_to_fp32", "must_keep_origin_dtype"),
    ("ACL_OP_COMPILER_CACHE_MODE", "sometimes", "disable"),
    ("ACL_OP_DEBUG_LEVEL", "9", "0"),
    ("ACL_AICORE_NUM", "64", "8"),
])
def test_set_option_checks_values_as_torch_npu(name, bad, good):
    from npu_emu.npu import options

    with pytest.raises(ValueError, match=rf"(?s)value of {name} should be .* but got {bad}.*ERR00001"):
        torch.npu.set_option({name: bad})
    assert options.get_option(name) != bad  # nothing recorded from a refused dict
    torch.npu.set_option({name: good})
    assert options.get_option(name) == good


def test_mstx_calls_reach_torch_npu_C_mstx(monkeypatch):
    """Tools replace torch_npu._C._mstx's functions to see markers: mstx must
    call them (host or stream variant) and refuse bad arguments before them."""
    calls = []
    monkeypatch.setattr(torch_npu._C._mstx, "_mark_on_host", lambda m, d="default": calls.append(("host", m, d)))
    monkeypatch.setattr(torch_npu._C._mstx, "_mark",
                        lambda m, sid, dev, dtype, d="default": calls.append(("stream", m, dev, d)))
    monkeypatch.setattr(torch_npu._C._mstx, "_range_start_on_host", lambda m, d="default": 41)
    stream = torch.npu.current_stream()
    torch_npu.npu.mstx.mark("a")
    torch_npu.npu.mstx.mark("b", stream=stream, domain="d1")
    with pytest.warns(UserWarning, match="Invalid stream"):
        torch_npu.npu.mstx.mark("c", stream=1)
    with pytest.warns(UserWarning, match="Invalid domain"):
        torch_npu.npu.mstx.mark("c", domain=1)
    assert calls == [("host", "a", "default"), ("stream", "b", stream.device_index, "d1")]
    assert torch_npu.npu.mstx.range_start("r") == 41
    with pytest.warns(UserWarning, match="Invalid stream"):
        assert torch_npu.npu.mstx.range_start("r", stream="s") == 0
    with pytest.warns(UserWarning, match="Invalid stream"):
        assert torch_npu.npu.mstx.range_push("r", stream="s") == -1
