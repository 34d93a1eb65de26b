"""The memory format of results follows CPU's rules (PyTorch's
test_modules.test_memory_format checks it for every module): a convolution
(output, grad_input, grad_weight) is channels-last when its input or its
weight is; replication pads (2-d,
3-d) and the 3-d reflection pad keep a channels-last input's format, as
CPU's kernels re-lay their output after the meta function. Values and
strides are compared with CPU's."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from conftest import make_tensor

CL = {4: torch.channels_last, 5: torch.channels_last_3d}


def _laid(t: torch.Tensor, channels_last: bool) -> torch.Tensor:
    return t.contiguous(memory_format=CL[t.dim()]) if channels_last else t.contiguous()


CONV_CASES = {
    "conv2d": (F.conv2d, (2, 3, 6, 5), (4, 3, 3, 3)),
    "conv3d": (F.conv3d, (2, 3, 4, 5, 4), (4, 3, 2, 3, 2)),
    "conv_transpose3d": (F.conv_transpose3d, (2, 3, 4, 5, 4), (3, 4, 2, 3, 2)),
    "conv_transpose2d": (F.conv_transpose2d, (2, 3, 5, 4), (3, 4, 3, 3)),
}


# float32 goes through oneDNN on CPU, float64 through the slow kernels (whose
# 3-d form gives contiguous results).
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("weight_cl", [False, True], ids=["weight_contiguous", "weight_cl"])
@pytest.mark.parametrize("input_cl", [False, True], ids=["input_contiguous", "input_cl"])
@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution_output_and_gradient_strides_match_cpu(case, input_cl, weight_cl, dtype):
    """Output, grad_input and grad_weight: the weight's gradient takes the convolution's format too (seen
    through autograd.grad: a leaf's .grad is re-laid like the leaf by AccumulateGrad)."""
    fn, in_shape, w_shape = CONV_CASES[case]
    x = _laid(make_tensor(in_shape, dtype, seed=1), input_cl)
    w = _laid(make_tensor(w_shape, dtype, seed=2), weight_cl)
    results = {}
    for device in ("cpu", "npu"):
        xd = x.to(device).detach().requires_grad_()
        wd = w.to(device).detach().requires_grad_()
        out = fn(xd, wd)
        results[device] = (out, *torch.autograd.grad(out, (xd, wd), torch.ones_like(out)))
    # Layout is the point; float32 sums in another order than oneDNN's.
    tol = {"rtol": 1e-4, "atol": 1e-3} if dtype == torch.float32 else {}
    for cpu, npu in zip(results["cpu"], results["npu"]):
        assert npu.stride() == cpu.stride()
        torch.testing.assert_close(npu.cpu(), cpu, **tol)


PAD_CASES = {
    "replicate2d": ((2, 3, 4, 5), (1, 2, 0, 1), "replicate"),
    "replicate3d": ((2, 3, 3, 4, 5), (1, 0, 2, 1, 1, 1), "replicate"),
    "reflect3d": ((2, 3, 3, 4, 5), (1, 0, 2, 1, 1, 1), "reflect"),
    "reflect2d": ((2, 3, 4, 5), (1, 2, 0, 1), "reflect"),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
@pytest.mark.parametrize("channels_last", [False, True], ids=["contiguous", "cl"])
@pytest.mark.parametrize("case", sorted(PAD_CASES))
def test_pad_output_strides_match_cpu(case, channels_last, dtype):
    shape, pad, mode = PAD_CASES[case]
    x = _laid(make_tensor(shape, dtype), channels_last)
    cpu = F.pad(x, pad, mode=mode)
    npu = F.pad(x.npu(), pad, mode=mode)
    assert npu.stride() == cpu.stride()
    assert torch.equal(npu.cpu(), cpu)


@pytest.mark.parametrize("case", sorted(PAD_CASES))
def test_pad_out_is_relaid_as_on_cpu(case):
    shape, pad, mode = PAD_CASES[case]
    op = {("replicate", 4): torch._C._nn.replication_pad2d, ("replicate", 5): torch._C._nn.replication_pad3d,
          ("reflect", 4): torch._C._nn.reflection_pad2d, ("reflect", 5): torch._C._nn.reflection_pad3d}[mode, len(shape)]
    x = _laid(make_tensor(shape, torch.float32), True)
    cpu_out = torch.empty(0)
    op(x, pad, out=cpu_out)
    npu_out = torch.empty(0, device="npu")
    op(x.npu(), pad, out=npu_out)
    assert npu_out.stride() == cpu_out.stride()
    assert torch.equal(npu_out.cpu(), cpu_out)


PAD_ERROR_CASES = {
    "replicate2d_empty_result": ((1, 2, 2, 2), (-2, -2, 0, 0), "replicate"),
    "replicate3d_empty_result": ((1, 2, 2, 2, 2), (-2, -2, 0, 0, 0, 0), "replicate"),
    "reflect2d_too_wide": ((1, 2, 2, 2), (3, 3, 0, 0), "reflect"),
    "reflect3d_too_wide": ((1, 2, 2, 2, 2), (3, 0, 0, 0, 0, 0), "reflect"),
}


@pytest.mark.parametrize("case", sorted(PAD_ERROR_CASES))
def test_pad_argument_errors_match_cpu(case):
    # The npu pads check their arguments as CPU does, in CPU's words.
    shape, pad, mode = PAD_ERROR_CASES[case]
    x = torch.ones(shape)
    with pytest.raises(RuntimeError) as cpu:
        F.pad(x, pad, mode=mode)
    with pytest.raises(RuntimeError) as npu:
        F.pad(x.npu(), pad, mode=mode)
    assert str(npu.value) == str(cpu.value)
