"""torch.autocast("npu") and torch.npu.amp: CUDA's op lists on npu
(dispatch/autocast/autocast_rules.h), nesting, enabled=False, the weight cast
cache, backward through an autocast region, GradScaler, and torch_npu's
function names.

Values are compared with CPU running the same op on inputs cast the way the
policy says (float16/bfloat16 inputs for lower-precision ops, float32 for
float32 ops): tolerances are a few ulps of the reduced type relative to the
result's scale (float16 2e-3, bfloat16 1.6e-2), float32 1e-5.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

import npu_emu  # noqa: F401
from npu_subprocess import run_json

LOW = [torch.float16, torch.bfloat16]
TOL = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2), torch.float32: (1e-5, 1e-5)}


def rand(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed + 17 * len(shape) + sum(shape))
    return torch.randn(*shape, generator=g).to(dtype)


def npu(*tensors: torch.Tensor) -> list[torch.Tensor]:
    return [t.npu() for t in tensors]


def assert_matches(npu_out: torch.Tensor, cpu_out: torch.Tensor) -> None:
    assert npu_out.device.type == "npu"
    assert npu_out.dtype == cpu_out.dtype
    rtol, atol = TOL[cpu_out.dtype]
    scale = max(cpu_out.float().abs().max().item(), 1.0)
    torch.testing.assert_close(npu_out.cpu().float(), cpu_out.float(), rtol=rtol, atol=atol * scale)


# --- each policy on several ops: (name, op, input shapes)

LOWER_PRECISION_OPS = [
    ("mm", torch.mm, [(5, 7), (7, 3)]),
    ("matmul", torch.matmul, [(2, 5, 7), (7, 3)]),
    ("addmm", torch.addmm, [(5, 3), (5, 7), (7, 3)]),
    ("bmm", torch.bmm, [(2, 5, 7), (2, 7, 3)]),
    ("baddbmm", torch.baddbmm, [(2, 5, 3), (2, 5, 7), (2, 7, 3)]),
    ("linear", F.linear, [(4, 6), (3, 6), (3,)]),
    ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), [(2, 3, 6, 6), (4, 3, 3, 3)]),
    ("conv1d", F.conv1d, [(2, 3, 9), (4, 3, 3)]),
    ("prelu", F.prelu, [(2, 3, 4), (3,)]),
    ("sdpa", F.scaled_dot_product_attention, [(2, 2, 5, 8), (2, 2, 5, 8), (2, 2, 5, 8)]),
]

FP32_OPS = [
    ("exp", torch.exp, [(4, 5)]),
    ("log", torch.log, [(4, 5)]),
    ("pow", lambda x: torch.pow(x, 2), [(4, 5)]),
    ("rsqrt", torch.rsqrt, [(4, 5)]),
    ("layer_norm", lambda x: F.layer_norm(x, (5,)), [(4, 5)]),
    ("group_norm", lambda x: F.group_norm(x, 2), [(2, 4, 3)]),
    ("mse_loss", F.mse_loss, [(4, 5), (4, 5)]),
    ("l1_loss", F.l1_loss, [(4, 5), (4, 5)]),
    ("bce_with_logits", F.binary_cross_entropy_with_logits, [(4, 5), (4, 5)]),
    ("logsumexp", lambda x: torch.logsumexp(x, 1), [(4, 5)]),
]

# Ops whose dtype argument is set to float32 (the tensor is not cast).
FP32_DTYPE_OPS = [
    ("softmax", lambda x: torch.softmax(x, 1), [(4, 5)]),
    ("log_softmax", lambda x: F.log_softmax(x, 1), [(4, 5)]),
    ("cumsum", lambda x: torch.cumsum(x, 0), [(4, 5)]),
    ("sum", torch.sum, [(4, 5)]),
    ("sum_dim", lambda x: x.sum(1), [(4, 5)]),
    ("linalg_vector_norm", torch.linalg.vector_norm, [(4, 5)]),
    ("norm", lambda x: x.norm(), [(4, 5)]),
    ("norm_dim", lambda x: x.norm(dim=1), [(4, 5)]),
]


@pytest.mark.parametrize("dtype", LOW, ids=str)
@pytest.mark.parametrize("name,op,shapes", LOWER_PRECISION_OPS, ids=[c[0] for c in LOWER_PRECISION_OPS])
def test_lower_precision_ops_compute_in_the_autocast_dtype(name, op, shapes, dtype):
    inputs = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    with torch.autocast("npu", dtype=dtype):
        out = op(*npu(*inputs))
    assert_matches(out, op(*[t.to(dtype) for t in inputs]))


@pytest.mark.parametrize("dtype", LOW, ids=str)
@pytest.mark.parametrize("name,op,shapes", FP32_OPS + FP32_DTYPE_OPS,
                         ids=[c[0] for c in FP32_OPS + FP32_DTYPE_OPS])
def test_float32_ops_compute_in_float32_from_reduced_inputs(name, op, shapes, dtype):
    # Positive inputs, so log and rsqrt are defined.
    inputs = [(rand(*s, seed=i).abs() + 0.5).to(dtype) for i, s in enumerate(shapes)]
    with torch.autocast("npu", dtype=dtype):
        out = op(*npu(*inputs))
    assert_matches(out, op(*[t.float() for t in inputs]))


@pytest.mark.parametrize("dtype", LOW, ids=str)
def test_explicit_dtype_argument_is_kept(dtype):
    x = rand(4, 5).to(dtype)
    with torch.autocast("npu", dtype=dtype):
        assert torch.softmax(x.npu(), 1, dtype=dtype).dtype == dtype
        assert x.npu().sum(dtype=torch.float64).dtype == torch.float64


@pytest.mark.parametrize("dtype", LOW, ids=str)
def test_promote_ops_run_in_the_widest_input_type(dtype):
    a32, b, c = rand(4, 5), rand(4, 5, seed=1).to(dtype), rand(4, 5, seed=2).to(dtype)
    with torch.autocast("npu", dtype=dtype):
        mixed = torch.addcmul(*npu(a32, b, c))
        reduced = torch.addcmul(*npu(a32.to(dtype), b, c))
        cat = torch.cat(npu(a32, b))
        stack = torch.stack(npu(b, a32))
        index_copy = a32.npu().index_copy(0, torch.tensor([2, 0]).npu(), b[:2].npu())
        atan2 = torch.atan2(*npu(b, a32))
    assert_matches(mixed, torch.addcmul(a32, b.float(), c.float()))
    assert_matches(reduced, torch.addcmul(a32.to(dtype), b, c))
    assert_matches(cat, torch.cat([a32, b.float()]))
    assert_matches(stack, torch.stack([b.float(), a32]))
    assert_matches(index_copy, a32.index_copy(0, torch.tensor([2, 0]), b[:2].float()))
    assert_matches(atan2, torch.atan2(b.float(), a32))


def test_float32_autocast_dtype_runs_lower_precision_ops_in_float32():
    # torch_npu accepts dtype=torch.float32: the lower-precision list then
    # computes in float32 (reduced inputs are widened), promote joins in float32.
    a, b = rand(4, 4).half(), rand(4, 4, seed=1).to(torch.bfloat16)
    with torch.autocast("npu", dtype=torch.float32):
        out = torch.mm(*npu(a, a))
        mixed = torch.addcmul(*npu(a.float(), a, b))
    assert_matches(out, torch.mm(a.float(), a.float()))
    assert_matches(mixed, torch.addcmul(a.float(), a.float(), b.float()))


def test_promote_refuses_the_other_reduced_type():
    # Under float16 autocast a bfloat16 input is neither float32 nor the
    # autocast dtype; as on CUDA, the op refuses (and says what to do).
    b, c = rand(3, seed=1).to(torch.bfloat16), rand(3, seed=2).half()
    with torch.autocast("npu", dtype=torch.float16):
        with pytest.raises(RuntimeError, match=r"aten::addcmul got a BFloat16 input.*float32 or Half"):
            torch.addcmul(*npu(b, c, c))


@pytest.mark.parametrize("dtype", LOW, ids=str)
def test_other_tensors_and_ops_are_left_alone(dtype):
    x = rand(4, 4)
    with torch.autocast("npu", dtype=dtype):
        # float64 and integer inputs are never cast.
        assert torch.mm(*npu(x.double(), x.double())).dtype == torch.float64
        assert torch.cumsum(torch.arange(6).npu(), 0).dtype == torch.int64
        # Ops without a rule keep their inputs' dtype.
        assert (x.npu() + x.npu()).dtype == torch.float32
        assert torch.relu(x.npu().to(dtype)).dtype == dtype
        # CPU tensors are not npu autocast's business.
        assert torch.mm(x, x).dtype == torch.float32


def test_binary_cross_entropy_is_refused_with_the_alternative():
    p, t = torch.rand(4).npu(), torch.rand(4).npu()
    with torch.autocast("npu"):
        with pytest.raises(RuntimeError, match="binary_cross_entropy.*binary_cross_entropy_with_logits"):
            F.binary_cross_entropy(p, t)
    assert_matches(F.binary_cross_entropy(p, t), F.binary_cross_entropy(p.cpu(), t.cpu()))


def test_every_rule_names_an_existing_overload():
    # An m.impl for a schema this torch lacks would be dangling (a typo or an
    # op PyTorch removed); the ones checked here are from each policy.
    assert not [d for d in torch._C._dispatch_find_dangling_impls() if "AutocastPrivateUse1" in d]
    for name in ("aten::conv2d", "aten::_convolution.deprecated", "aten::pow.Tensor_Scalar", "aten::softmax.int",
                 "aten::norm.ScalarOpt_dim", "aten::cat", "aten::index_put", "aten::binary_cross_entropy"):
        assert torch._C._dispatch_has_kernel_for_dispatch_key(name, "AutocastPrivateUse1"), name
    assert not torch._C._dispatch_has_kernel_for_dispatch_key("aten::add.Tensor", "AutocastPrivateUse1")


# --- regions: nesting, enabled=False, defaults, the torch_npu spellings


def test_nesting_and_enabled_false():
    a = rand(4, 4).npu()
    assert not torch.npu.is_autocast_enabled()
    with torch.autocast("npu", dtype=torch.float16):
        assert torch.npu.is_autocast_enabled()
        assert torch.mm(a, a).dtype == torch.float16
        with torch.autocast("npu", enabled=False):
            assert not torch.npu.is_autocast_enabled()
            out = torch.mm(a, a)
            assert out.dtype == torch.float32
            torch.testing.assert_close(out.cpu(), torch.mm(a.cpu(), a.cpu()))
            with torch.npu.amp.autocast(dtype=torch.bfloat16):
                assert torch.mm(a, a).dtype == torch.bfloat16
            assert torch.mm(a, a).dtype == torch.float32
        assert torch.mm(a, a).dtype == torch.float16
        # An npu region does not switch CPU autocast on, and the other way round.
        assert torch.mm(a.cpu(), a.cpu()).dtype == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.mm(a, a).dtype == torch.float32
    assert not torch.npu.is_autocast_enabled()
    assert torch.mm(a, a).dtype == torch.float32


def test_torch_npu_amp_autocast_as_decorator_and_default_dtype():
    @torch.npu.amp.autocast()
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x @ x

    a = rand(3, 3).npu()
    assert forward(a).dtype == torch.float16
    assert torch.npu.get_autocast_dtype() == torch.float16
    torch.npu.set_autocast_dtype(torch.bfloat16)
    try:
        with torch.autocast("npu"):
            assert (a @ a).dtype == torch.bfloat16
    finally:
        torch.npu.set_autocast_dtype(torch.float16)
    with pytest.raises(ValueError, match="dtype must be one of"):
        torch.npu.set_autocast_dtype(torch.float64)


def test_set_autocast_enabled_switches_the_thread_state():
    a = rand(3, 3).npu()
    torch.npu.set_autocast_enabled(True)
    try:
        assert torch.npu.is_autocast_enabled()
        assert (a @ a).dtype == torch.float16
    finally:
        torch.npu.set_autocast_enabled(False)
    assert (a @ a).dtype == torch.float32


def test_api_surface_and_torch_npu_names():
    import torch_npu

    assert torch.npu.get_amp_supported_dtype() == [torch.float16, torch.bfloat16, torch.float32]
    assert not torch.npu.amp.amp_definitely_not_available()
    assert torch.npu.is_bf16_supported() is True  # the default SoC is a 910B
    assert torch_npu.npu.amp.GradScaler is torch.npu.amp.GradScaler
    assert torch_npu.npu.amp.autocast is torch.npu.amp.autocast
    assert issubclass(torch.npu.amp.GradScaler, torch.amp.GradScaler)


def test_a_soc_without_bfloat16_offers_float16_autocast_only():
    result = run_json("""
        import warnings
        a = torch.ones(2, 2, device="npu")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.autocast("npu", dtype=torch.bfloat16):
                bf16_region = str((a @ a).dtype)
        with torch.autocast("npu", dtype=torch.float16):
            fp16_region = str((a @ a).dtype)
        print(json.dumps([torch.npu.is_bf16_supported(), [str(d) for d in torch.npu.get_amp_supported_dtype()],
                          bf16_region, fp16_region, any("Disabling autocast" in str(w.message) for w in caught)]))
    """, env={"NPU_EMU_SOC": "Ascend910A"})
    assert result == [False, ["torch.float16", "torch.float32"], "torch.float32", "torch.float16", True]


def test_unsupported_autocast_dtype_disables_with_pytorchs_warning():
    a = rand(3, 3).npu()
    with pytest.warns(UserWarning, match="npu Autocast only supports dtypes of"):
        with torch.autocast("npu", dtype=torch.float64):
            assert (a @ a).dtype == torch.float32


class CountCasts(TorchDispatchMode):
    """Records the shape of every tensor cast (aten._to_copy) below autograd."""

    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._to_copy.default:
            self.shapes.append(tuple(args[0].shape))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_weight_casts_are_cached_within_the_region(cache_enabled):
    weight = nn.Parameter(rand(3, 4).npu())
    x = rand(2, 4).npu()
    with CountCasts() as casts:
        with torch.autocast("npu", cache_enabled=cache_enabled):
            first = F.linear(x, weight)
            second = F.linear(x, weight)
        with torch.autocast("npu", cache_enabled=cache_enabled):
            F.linear(x, weight)
    torch.testing.assert_close(first.cpu(), second.cpu(), rtol=0, atol=0)
    weight_casts = casts.shapes.count((3, 4))
    # Cached: once per region (the cache is cleared when the outer region exits).
    assert weight_casts == (2 if cache_enabled else 3)
    assert casts.shapes.count((2, 4)) == 3  # activations are never cached


# --- training: backward through autocast, GradScaler


def make_mlp(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))


@pytest.mark.parametrize("dtype", LOW, ids=str)
def test_backward_through_autocast_matches_cpu_autocast(dtype):
    x, target = rand(5, 6), rand(5, 3, seed=1)
    grads = {}
    for device in ("cpu", "npu"):
        model = make_mlp(0).to(device)
        with torch.autocast(device, dtype=dtype):
            out = model(x.to(device))
            assert out.dtype == dtype
            loss = F.mse_loss(out, target.to(device))
            assert loss.dtype == torch.float32
        loss.backward()
        grads[device] = [p.grad for p in model.parameters()]
    for g_npu, g_cpu in zip(grads["npu"], grads["cpu"]):
        assert g_npu.dtype == torch.float32  # gradients come back in the parameters' dtype
        rtol, atol = TOL[dtype]
        torch.testing.assert_close(g_npu.cpu(), g_cpu, rtol=rtol, atol=atol * max(g_cpu.abs().max().item(), 1))


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_activation_checkpointing_recomputes_under_the_same_autocast_state(use_reentrant):
    from torch.utils.checkpoint import checkpoint

    grads = []
    for checkpointed in (False, True):
        model = make_mlp(0).npu()
        x = rand(5, 6).npu().requires_grad_()  # reentrant checkpointing needs an input that requires grad
        with torch.autocast("npu", dtype=torch.bfloat16):
            out = checkpoint(model, x, use_reentrant=use_reentrant) if checkpointed else model(x)
            assert out.dtype == torch.bfloat16
        out.float().pow(2).sum().backward()
        grads.append([x.grad.cpu()] + [p.grad.cpu() for p in model.parameters()])
    # The recomputation ran in bfloat16 too: the same gradients, bit for bit.
    for g_plain, g_checkpointed in zip(*grads):
        assert torch.equal(g_plain, g_checkpointed)


@pytest.mark.parametrize("make_scaler", [lambda **kw: torch.amp.GradScaler("npu", **kw),
                                         lambda **kw: torch.npu.amp.GradScaler(**kw)],
                         ids=["torch.amp", "torch.npu.amp"])
def test_grad_scaler_steps_skips_infs_and_adjusts_the_scale(make_scaler):
    x, target = rand(5, 6), rand(5, 3, seed=1)
    kwargs = dict(init_scale=1024.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
    models = {d: make_mlp(0).to(d) for d in ("cpu", "npu")}
    optims = {d: torch.optim.AdamW(m.parameters(), lr=1e-2) for d, m in models.items()}
    scalers = {"cpu": torch.amp.GradScaler("cpu", **kwargs), "npu": make_scaler(**kwargs)}
    # Steps 0, 1, 3 are finite; step 2 poisons one gradient with inf.
    for step in range(4):
        for device, model in models.items():
            optims[device].zero_grad()
            loss = F.mse_loss(model(x.to(device)), target.to(device))
            scalers[device].scale(loss).backward()
            if step == 2:
                model[0].weight.grad[0, 0] = float("inf")
            before = [p.detach().clone() for p in model.parameters()]
            scalers[device].unscale_(optims[device])
            if step == 0:
                # unscale_ divides by the scale: the true gradient of the loss.
                (reference,) = torch.autograd.grad(F.mse_loss(model(x.to(device)), target.to(device)),
                                                   model[2].bias)
                torch.testing.assert_close(model[2].bias.grad, reference, rtol=1e-5, atol=1e-6)
            scalers[device].step(optims[device])
            scalers[device].update()
            unchanged = all(torch.equal(b, p.detach()) for b, p in zip(before, model.parameters()))
            assert unchanged == (step == 2), (device, step)
        # 1024 -> 2048 after two good steps, halved by the inf step, then one good step.
        expected_scale = {0: 1024.0, 1: 2048.0, 2: 1024.0, 3: 1024.0}[step]
        assert scalers["npu"].get_scale() == scalers["cpu"].get_scale() == expected_scale
    for p_npu, p_cpu in zip(models["npu"].parameters(), models["cpu"].parameters()):
        torch.testing.assert_close(p_npu.detach().cpu(), p_cpu.detach(), rtol=1e-4, atol=1e-5)


def test_static_grad_scaler_keeps_its_scale():
    model = make_mlp(0).npu()
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.npu.amp.GradScaler(init_scale=128.0, growth_interval=1, dynamic=False)
    for step in range(3):
        optim.zero_grad()
        with torch.npu.amp.autocast():
            loss = model(rand(4, 6).npu()).float().pow(2).mean()
        scaler.scale(loss).backward()
        if step == 1:
            model[2].bias.grad[0] = float("nan")
        before = model[2].bias.detach().clone()
        scaler.step(optim)
        scaler.update()
        assert torch.equal(before, model[2].bias.detach()) == (step == 1)
        assert scaler.get_scale() == 128.0
