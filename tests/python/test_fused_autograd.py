"""torch.ops.npu's fused ops differentiate and the composed ones run with only
`import npu_emu`: npu-emu registers their autograd (torch_npu's
derivatives.yaml formulas) and compositions when its backend activates
(npu_emu.fused), not when torch_npu (npu-emu's compatible module) is
imported. Checked in a fresh interpreter that never imports torch_npu, under
NPU_EMU_FALLBACK=error, each gradient against a plain-PyTorch reference
computed in the same process on CPU."""

from __future__ import annotations

import json

from conftest import run_python

_CHILD = r'''
import json, sys
import torch
import npu_emu

assert "npu_emu.torch_npu_compat" not in sys.modules and "torch_npu" not in sys.modules
npu = torch.ops.npu
g = torch.Generator().manual_seed(0)


def rand(*shape):
    return torch.randn(*shape, generator=g, dtype=torch.float64).float()


def grads(fn, *inputs):
    """fn's gradients on npu and on CPU, for a random output gradient."""
    leaves = [[t.clone().to(dev).requires_grad_() for t in inputs] for dev in ("npu", "cpu")]
    outs = [fn(*ls, dev) for ls, dev in zip(leaves, ("npu", "cpu"))]
    go = torch.randn(outs[1].shape, generator=g, dtype=torch.float64).float()
    outs[0].backward(go.npu())
    outs[1].backward(go)
    return max(float((a.grad.cpu() - b.grad).abs().max()) for a, b in zip(*leaves))


def rms(x, gamma, dev):
    if dev == "npu":
        return npu.npu_rms_norm(x, gamma, 1e-6)[0]
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma


def rotary(x, r1, r2, dev):
    if dev == "npu":
        return npu.npu_rotary_mul(x, r1, r2)
    x1, x2 = x.chunk(2, -1)
    return x * r1 + torch.cat((-x2, x1), -1) * r2


def swiglu(x, dev):
    if dev == "npu":
        return npu.npu_swiglu(x, -1)
    a, b = x.chunk(2, -1)
    return torch.nn.functional.silu(a) * b


def masked_softmax(x, dev):
    mask = torch.zeros(2, 1, 4, 4, dtype=torch.bool).triu(1)
    if dev == "npu":
        return npu.npu_scaled_masked_softmax(x, mask.npu(), 0.5, False)
    return torch.softmax((x * 0.5).masked_fill(mask, -1e4), -1)


def attention(q, k, v, dev):
    if dev == "npu":
        return npu.npu_fusion_attention(q, k, v, 2, "BNSD", scale=0.25)[0]
    return torch.softmax(q @ k.transpose(-1, -2) * 0.25, -1) @ v


def grouped(x, w, dev):
    if dev == "npu":
        return npu.npu_grouped_matmul([x], [w], group_list=[2, 5], group_list_type=0, split_item=2)[0]
    return torch.cat((x[:2] @ w[0], x[2:5] @ w[1]))


def fast_gelu(x, dev):
    if dev == "npu":
        return npu.npu_fast_gelu(x)
    return x / (1 + torch.exp(-1.702 * x.abs())) * torch.exp(0.851 * (x - x.abs()))


npu_emu._C._set_fallback_mode("error")
errors = {
    "npu_rms_norm": grads(rms, rand(3, 8), rand(8)),
    "npu_rotary_mul": grads(rotary, rand(1, 2, 3, 8), rand(1, 1, 3, 8), rand(1, 1, 3, 8)),
    "npu_swiglu": grads(swiglu, rand(3, 8)),
    "npu_scaled_masked_softmax": grads(masked_softmax, rand(2, 3, 4, 4)),
    "npu_fusion_attention": grads(attention, rand(1, 2, 4, 8), rand(1, 2, 5, 8), rand(1, 2, 5, 8)),
    "npu_grouped_matmul": grads(grouped, rand(5, 4), rand(2, 4, 3)),
    "npu_fast_gelu": grads(fast_gelu, rand(3, 8)),
}
assert "torch_npu" not in sys.modules and "npu_emu.torch_npu_compat" not in sys.modules
print(json.dumps(errors))
'''


def test_fused_ops_differentiate_with_only_npu_emu_imported() -> None:
    result = run_python(_CHILD, env={"NPU": "emu"})
    assert result.returncode == 0, result.stderr[-3000:]
    errors = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(errors) == {"npu_rms_norm", "npu_rotary_mul", "npu_swiglu", "npu_scaled_masked_softmax",
                           "npu_fusion_attention", "npu_grouped_matmul", "npu_fast_gelu"}
    bad = {name: err for name, err in errors.items() if not err < 1e-4}
    assert not bad, f"gradients differ from the CPU reference: {bad}"
