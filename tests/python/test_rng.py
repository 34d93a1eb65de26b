"""npu random numbers: seeding, state round trips, per-device generators,
native (not CPU fallback) kernels and distribution sanity."""

from __future__ import annotations

import math

import pytest
import torch

import npu_emu
from npu_subprocess import run_json

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def native(op: str) -> int:
    return npu_emu._C._native_counts().get(op, 0)


def test_manual_seed_reproduces_randn():
    torch.npu.manual_seed(0)
    a = torch.randn(5, device="npu")
    torch.npu.manual_seed(0)
    b = torch.randn(5, device="npu")
    assert torch.equal(a.cpu(), b.cpu())
    c = torch.randn(5, device="npu")
    assert not torch.equal(a.cpu(), c.cpu())


@pytest.mark.parametrize("make", [
    lambda: torch.rand(100, device="npu"),
    lambda: torch.randn(7, 9, device="npu", dtype=torch.float64),
    lambda: torch.randint(-5, 5, (100,), device="npu"),
    lambda: torch.randperm(50, device="npu"),
    lambda: torch.bernoulli(torch.full((100,), 0.3, device="npu")),
    lambda: torch.empty(100, device="npu").bernoulli_(0.7),
    lambda: torch.empty(100, device="npu").exponential_(2.0),
    lambda: torch.empty(100, device="npu").random_(),
    lambda: torch.nn.functional.dropout(torch.ones(100, device="npu"), 0.5),
], ids=["rand", "randn", "randint", "randperm", "bernoulli_tensor", "bernoulli_scalar", "exponential", "random",
        "dropout"])
def test_every_random_op_is_reproducible_after_seeding(make):
    torch.npu.manual_seed(1234)
    a = make().cpu()
    torch.npu.manual_seed(1234)
    b = make().cpu()
    assert torch.equal(a, b)


def test_rng_state_round_trip():
    torch.npu.manual_seed(7)
    torch.rand(10, device="npu")
    state = torch.npu.get_rng_state()
    assert state.dtype == torch.uint8 and state.shape == (16,) and state.device.type == "cpu"
    a = torch.rand(10, device="npu").cpu()
    b = torch.randn(3, device="npu").cpu()
    torch.npu.set_rng_state(state)
    assert torch.equal(torch.rand(10, device="npu").cpu(), a)
    assert torch.equal(torch.randn(3, device="npu").cpu(), b)


def test_state_layout_is_seed_then_offset():
    torch.npu.manual_seed(0x0102030405060708)
    state = torch.npu.get_rng_state()
    seed, offset = state.view(torch.int64).tolist()
    assert seed == 0x0102030405060708 and offset == 0
    torch.rand(10, device="npu")  # 10 elements consume 4 counter words each
    assert torch.npu.get_rng_state().view(torch.int64).tolist()[1] == 40


def test_initial_seed_and_seed():
    torch.npu.manual_seed(42)
    assert torch.npu.initial_seed() == 42
    torch.npu.seed()
    s = torch.npu.initial_seed()
    torch.npu.manual_seed(s)
    assert torch.npu.initial_seed() == s
    torch.npu.seed_all()
    torch.npu.manual_seed_all(5)
    assert torch.npu.initial_seed() == 5


def test_torch_manual_seed_seeds_npu_too():
    torch.manual_seed(3)
    a = torch.rand(4, device="npu").cpu()
    torch.manual_seed(3)
    assert torch.equal(torch.rand(4, device="npu").cpu(), a)


def test_explicit_generator():
    g = torch.Generator(device="npu")
    g.manual_seed(11)
    a = torch.rand(6, device="npu", generator=g).cpu()
    g.manual_seed(11)
    b = torch.rand(6, device="npu", generator=g).cpu()
    assert torch.equal(a, b)
    torch.npu.manual_seed(11)  # the default generator with the same seed: same numbers
    assert torch.equal(torch.rand(6, device="npu").cpu(), a)


def test_bad_state_is_rejected():
    with pytest.raises(RuntimeError, match="16 bytes"):
        torch.npu.set_rng_state(torch.zeros(8, dtype=torch.uint8))
    with pytest.raises(TypeError):
        torch.npu.set_rng_state([0] * 16)


def test_devices_have_independent_generators():
    result = run_json("""
        torch.npu.manual_seed_all(9)
        a0 = torch.rand(5, device="npu:0").cpu()
        states = torch.npu.get_rng_state_all()
        a1 = torch.rand(5, device="npu:1").cpu()
        torch.npu.set_device(1)
        torch.npu.manual_seed(100)  # only device 1
        b1 = torch.rand(5, device="npu:1").cpu()
        b0 = torch.rand(5, device="npu:0").cpu()
        torch.npu.set_rng_state_all(states)
        c1 = torch.rand(5, device="npu:1").cpu()
        print(json.dumps({"same_seed_same_numbers": torch.equal(a0, a1), "reseed_changes_1": not torch.equal(a1, b1),
                          "device0_unaffected": not torch.equal(a0, b0), "restored": torch.equal(a1, c1),
                          "n_states": len(states)}))
    """, env={"NPU_EMU_DEVICE_COUNT": "2"})
    assert result == {"same_seed_same_numbers": True, "reseed_changes_1": True, "device0_unaffected": True,
                      "restored": True, "n_states": 2}


def test_random_ops_run_natively():
    before = {op: native(op) for op in ("aclnnInplaceUniform", "aclnnInplaceNormal", "aclnnInplaceRandom",
                                         "aclnnRandperm", "aclnnInplaceBernoulli", "aclnnInplaceBernoulliTensor",
                                         "aclnnInplaceExponential", "aclnnDropout")}
    torch.rand(3, device="npu")
    torch.randn(3, device="npu")
    torch.randint(0, 3, (3,), device="npu")
    torch.randperm(3, device="npu")
    torch.empty(3, device="npu").bernoulli_(0.5)
    torch.bernoulli(torch.rand(3, device="npu"))
    torch.empty(3, device="npu").exponential_()
    torch.native_dropout(torch.ones(3, device="npu"), 0.5, True)
    for op, count in before.items():
        assert native(op) > count, op


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_range_and_moments(dtype):
    x = torch.empty(200_000, device="npu", dtype=dtype).uniform_(-2, 6).cpu().double()
    assert x.min() >= -2 and x.max() < 6
    assert abs(x.mean().item() - 2.0) < 0.05
    assert abs(x.std().item() - 8 / math.sqrt(12)) < 0.05


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_moments(dtype):
    x = torch.empty(200_000, device="npu", dtype=dtype).normal_(1.5, 3.0).cpu().double()
    assert abs(x.mean().item() - 1.5) < 0.05
    assert abs(x.std().item() - 3.0) < 0.05


def test_normal_tensor_forms():
    mean = torch.arange(4, dtype=torch.float32, device="npu").repeat(50_000)
    x = torch.normal(mean, 0.5).cpu().view(-1, 4)
    assert torch.allclose(x.mean(0), torch.arange(4, dtype=torch.float32), atol=0.02)
    std = torch.tensor([0.0, 2.0], device="npu").repeat(50_000)
    y = torch.normal(3.0, std).cpu().view(-1, 2)
    assert torch.all(y[:, 0] == 3.0) and abs(y[:, 1].std().item() - 2.0) < 0.05
    z = torch.normal(mean, torch.full_like(mean, 2.0)).cpu()
    assert abs((z - torch.arange(4).repeat(50_000)).std().item() - 2.0) < 0.05
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.empty(3, device="npu").normal_(0, -1)


def test_randint_and_random_bounds():
    x = torch.randint(-3, 4, (100_000,), device="npu").cpu()
    assert x.dtype == torch.int64
    assert x.min().item() == -3 and x.max().item() == 3
    assert abs(x.double().mean().item()) < 0.05
    u8 = torch.empty(100_000, dtype=torch.uint8, device="npu").random_().cpu()
    assert u8.min().item() == 0 and u8.max().item() == 255
    b = torch.empty(1000, dtype=torch.bool, device="npu").random_().cpu()
    assert 0 < b.sum().item() < 1000
    f = torch.empty(1000, dtype=torch.float16, device="npu").random_(10).cpu()
    assert f.min().item() >= 0 and f.max().item() <= 9 and torch.equal(f, f.round())
    with pytest.raises(RuntimeError, match="'from' to be less than 'to'"):
        torch.empty(3, device="npu").random_(5, 5)


def test_randperm_is_a_permutation():
    for n, dtype in ((1, torch.int64), (1000, torch.int64), (500, torch.int32), (200, torch.float32)):
        p = torch.randperm(n, device="npu", dtype=dtype).cpu()
        assert p.dtype == dtype
        assert torch.equal(p.sort().values, torch.arange(n, dtype=dtype))
    assert torch.randperm(0, device="npu").numel() == 0
    with pytest.raises(RuntimeError, match="n is too large"):
        torch.randperm(300, device="npu", dtype=torch.uint8)


def test_bernoulli_frequencies_and_checks():
    x = torch.empty(200_000, device="npu").bernoulli_(0.3).cpu()
    assert set(x.unique().tolist()) <= {0.0, 1.0}
    assert abs(x.mean().item() - 0.3) < 0.01
    p = torch.tensor([0.0, 0.5, 1.0], device="npu").repeat(50_000)
    y = torch.bernoulli(p).cpu().view(-1, 3)
    assert y[:, 0].sum() == 0 and y[:, 2].sum() == 50_000
    assert abs(y[:, 1].mean().item() - 0.5) < 0.01
    ints = torch.zeros(1000, dtype=torch.int32, device="npu").bernoulli_(0.5).cpu()
    assert set(ints.unique().tolist()) == {0, 1}
    with pytest.raises(RuntimeError, match="p to be in"):
        torch.empty(3, device="npu").bernoulli_(1.5)


def test_exponential_mean():
    x = torch.empty(200_000, device="npu").exponential_(4.0).cpu()
    assert x.min() >= 0
    assert abs(x.mean().item() - 0.25) < 0.005
    with pytest.raises(RuntimeError, match="lambda > 0.0"):
        torch.empty(3, device="npu").exponential_(0)


def test_dropout_forward_backward_against_the_mask():
    x = torch.randn(100_000, device="npu", requires_grad=True)
    out, mask = torch.native_dropout(x, 0.25, True)
    assert mask.dtype == torch.bool and mask.shape == x.shape
    keep = mask.cpu()
    assert abs(keep.double().mean().item() - 0.75) < 0.01
    expected = torch.where(keep, x.detach().cpu() / 0.75, torch.zeros(()))
    assert torch.allclose(out.detach().cpu(), expected)
    y = torch.nn.functional.dropout(x, 0.25, training=True)
    y.sum().backward()
    grads = torch.unique(x.grad.cpu())
    assert grads.numel() == 2 and torch.allclose(grads, torch.tensor([0.0, 1 / 0.75]))
    ev_out, ev_mask = torch.native_dropout(x.detach(), 0.25, False)
    assert torch.equal(ev_out.cpu(), x.detach().cpu()) and bool(ev_mask.all())
    assert torch.equal(torch.nn.functional.dropout(x, 1.0).cpu(), torch.zeros(100_000))


def test_dropout_eval_and_module():
    m = torch.nn.Dropout(0.5).npu()
    x = torch.ones(10, device="npu")
    m.eval()
    assert torch.equal(m(x).cpu(), torch.ones(10))
    m.train()
    vals = set(m(x).cpu().unique().tolist())
    assert vals <= {0.0, 2.0}


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_random_without_bounds_draws_as_random_from_zero_to_the_dtypes_limit(dtype):
    """random_() runs aclnnInplaceRandomWithoutFromTo, whose bounds come from
    the dtype inside the op; random_(0, None) passes dispatch's bounds to
    aclnnInplaceRandom: the same generator state gives the same numbers."""
    before = native("aclnnInplaceRandomWithoutFromTo")
    torch.npu.manual_seed(11)
    unbounded = torch.empty(4096, dtype=dtype, device="npu").random_().cpu()
    torch.npu.manual_seed(11)
    from_zero = torch.empty(4096, dtype=dtype, device="npu").random_(0, None).cpu()
    assert native("aclnnInplaceRandomWithoutFromTo") == before + 1
    assert torch.equal(unbounded, from_zero)
    assert unbounded.double().min() >= 0
    digits = {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24, torch.float64: 53}  # significand bits
    if dtype in digits:
        assert unbounded.double().max() <= 2 ** digits[dtype]
