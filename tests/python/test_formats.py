"""Private formats through the torch_npu API: layouts bit-exact against an
index map written from FORMATS.md, and torch_npu's rules."""

import copy

import pytest
import torch
import torch_npu

import npu_emu
from conftest import make_tensor


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def nc1hwc0_reference(x: torch.Tensor) -> torch.Tensor:
    """FORMATS.md: off = (((n*C1 + c/16)*H + h)*W + w)*16 + c%16, zero padded."""
    n, c, h, w = x.shape
    out = torch.zeros(n, cdiv(c, 16), h, w, 16, dtype=x.dtype)
    for ci in range(c):
        out[:, ci // 16, :, :, ci % 16] = x[:, ci]
    return out


def nz_reference(x: torch.Tensor, c0: int = 16) -> torch.Tensor:
    """FORMATS.md: pad to [..., M1*16, K1*C0], reshape [..., M1, 16, K1, C0], transpose to [..., K1, M1, 16, C0]."""
    *batch, m, k = x.shape
    m1, k1 = cdiv(m, 16), cdiv(k, c0)
    padded = torch.zeros(*batch, m1 * 16, k1 * c0, dtype=x.dtype)
    padded[..., :m, :k] = x
    return padded.reshape(*batch, m1, 16, k1, c0).transpose(-4, -2).transpose(-3, -2).contiguous()


def test_acceptance_nc1hwc0():
    x = torch.randn(2, 17, 5, 5)
    y = torch_npu.npu_format_cast(x.npu(), 3)
    assert torch_npu.get_npu_format(y) == 3
    data = npu_emu.storage_data(y)
    assert data.shape == (2, 2, 5, 5, 16)
    assert torch.equal(data, nc1hwc0_reference(x))  # every padded slot zero
    assert torch.equal(y.cpu(), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8, torch.int64], ids=str)
@pytest.mark.parametrize("shape", [(8, 100, 30), (1, 16, 16), (3, 1, 33)])
def test_fractal_nz_layout(dtype, shape):
    x = make_tensor(shape, dtype)
    y = torch_npu.npu_format_cast(x.npu(), torch_npu.Format.FRACTAL_NZ)
    c0 = 32 if dtype.itemsize == 1 else 16
    assert torch.equal(npu_emu.storage_data(y), nz_reference(x, c0))
    assert torch.equal(y.cpu(), x)
    assert torch_npu.get_storage_size(y) == nz_reference(x, c0).numel()


def test_published_shape_check():
    y = torch_npu.npu_format_cast(torch.randn(8, 100, 30).half().npu(), 29)
    assert tuple(npu_emu.storage_desc(y).storage_sizes) == (8, 2, 7, 16, 16)
    z = torch_npu.npu_format_cast(torch.randn(31, 17, 4, 4).npu(), 4)
    assert tuple(npu_emu.storage_desc(z).storage_sizes) == (32, 2, 16, 16)


def test_rules_clone_views_copies_and_relabel():
    x = torch.randn(2, 17, 5, 5)
    y = torch_npu.npu_format_cast(x.npu(), 3)
    assert torch_npu.get_npu_format(y.clone()) == 3
    assert torch.equal((y * 2).cpu(), x * 2)  # ops read the logical values
    h = torch_npu.npu_format_cast(torch.zeros(2, 17, 5, 5).npu(), 3)
    h.copy_(x)  # H2D keeps the destination's format
    assert torch_npu.get_npu_format(h) == 3 and torch.equal(h.cpu(), x)
    v = y.view(2, -1)  # a view shares the storage and never re-lays it
    assert torch_npu.get_npu_format(y) == 3 and torch.equal(v.cpu(), x.view(2, -1))
    nd = torch.randn(2, 3, 4, 5).npu()
    assert torch_npu.get_npu_format(nd) == 0  # guessed from the rank
    assert torch_npu.get_npu_format(torch.randn(3, 4).npu()) == 2
    torch_npu.npu_format_cast_(nd, 2)  # base to base: a relabel
    assert torch_npu.get_npu_format(nd) == 2


def test_nz_below_2d_falls_back_with_a_warning():
    with pytest.warns(UserWarning):
        y = torch_npu.npu_format_cast(torch.randn(7).npu(), 29)
    assert torch_npu.get_npu_format(y) == 2


def test_allow_internal_format_governs_empty_with_format():
    old = torch.npu.config.allow_internal_format
    try:
        assert old is False  # Ascend910B1's default
        with pytest.warns(UserWarning, match="allow_internal_format"):
            e = torch_npu.empty_with_format((4, 16), dtype=torch.float32, device="npu", acl_format=29)
        assert torch_npu.get_npu_format(e) == 2
        kept = torch_npu.unsafe_empty_with_format((4, 16), device="npu", acl_format=29, keep_format=True)
        assert torch_npu.get_npu_format(kept) == 29
        torch.npu.config.allow_internal_format = True
        e = torch_npu.empty_with_format((4, 16), dtype=torch.float32, device="npu", acl_format=29)
        assert torch_npu.get_npu_format(e) == 29
    finally:
        torch.npu.config.allow_internal_format = old


def test_autograd_gradient_in_input_format():
    a = torch_npu.npu_format_cast(torch.randn(3, 4).npu(), 2).requires_grad_()
    b = torch_npu.npu_format_cast(a, 29)
    (b * 3).sum().backward()
    assert torch_npu.get_npu_format(a.grad) == 2
    assert torch.equal(a.grad.cpu(), torch.full((3, 4), 3.0))


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match=r"NDC1HWC0 \(32\).*\[2, 3, 4, 5\]"):
        torch_npu.npu_format_cast(torch.randn(2, 3, 4, 5).npu(), 32)
    with pytest.raises(ValueError, match="99"):
        torch_npu.npu_format_cast(torch.randn(2, 3).npu(), 99)
    with pytest.raises(RuntimeError, match="expects an npu tensor.*shape"):
        torch_npu.npu_format_cast(torch.randn(2, 3), 29)
    assert torch_npu.get_npu_format(torch.ones(2, 2).npu()) == 2  # still working


def fractal_z_reference(x: torch.Tensor) -> torch.Tensor:
    """FORMATS.md: off = (((c/16)*H + h)*W + w)*(N1*16*16) + n*16 + c%16, zero padded."""
    n, c, h, w = x.shape
    c1, n1 = cdiv(c, 16), cdiv(n, 16)
    padded = torch.zeros(n1 * 16, c1 * 16, h, w, dtype=x.dtype)
    padded[:n, :c] = x
    # [N1*16, C1, 16(c0), H, W] -> [C1, H, W, N1*16, c0]
    return padded.reshape(n1 * 16, c1, 16, h, w).permute(1, 3, 4, 0, 2).reshape(c1 * h * w, n1, 16, 16)


def layout_reference(x: torch.Tensor, fmt: int) -> torch.Tensor:
    """The physical storage FORMATS.md gives `x` (CPU, logical values) in `fmt`."""
    return {29: nz_reference, 3: nc1hwc0_reference, 4: fractal_z_reference}[fmt](x)


def assert_storage_is(t: torch.Tensor, fmt: int, desc, expected: torch.Tensor) -> None:
    """`t`'s storage: still `fmt` with descriptor `desc`, laid out as `expected`'s values are in `fmt`."""
    assert torch_npu.get_npu_format(t) == fmt
    assert npu_emu.storage_desc(t) == desc
    assert torch.equal(npu_emu.storage_data(t), layout_reference(expected, fmt))


# Views of a private-format tensor share its storage; reading one (natively,
# through a copy, or through the CPU fallback) works on a base-format copy and
# never rewrites the storage: format, descriptor and bytes stay as they were.
VIEWS_2D = {
    "t": lambda a: a.t(),
    "permute": lambda a: a.permute(1, 0),
    "transpose": lambda a: a.transpose(0, 1),
    "view": lambda a: a.view(-1),
    "slice": lambda a: a[3:30, 2:19:3],
    "select": lambda a: a[5],
    "unsqueeze": lambda a: a.unsqueeze(0)[:, ::2],
}
VIEWS_4D = {
    "permute": lambda a: a.permute(0, 2, 3, 1),
    "transpose": lambda a: a.transpose(1, 3),
    "mT": lambda a: a.mT,
    "view": lambda a: a.view(a.shape[0], -1),
    "slice": lambda a: a[1:, 2:17:2, :, 1:],
    "select": lambda a: a[:, 3],
}
VIEW_CASES = [((33, 20), 29, name, f) for name, f in VIEWS_2D.items()] + [
    (shape, fmt, name, f) for shape, fmt in [((2, 19, 5, 3), 3), ((20, 6, 3, 3), 4)] for name, f in VIEWS_4D.items()
]


@pytest.mark.parametrize("shape,fmt,name,view", VIEW_CASES, ids=[f"{c[1]}-{c[2]}" for c in VIEW_CASES])
def test_reading_a_view_leaves_the_private_storage_alone(shape, fmt, name, view):
    cpu = make_tensor(shape, torch.float32)
    x = torch_npu.npu_format_cast(cpu.npu(), fmt)
    desc = npu_emu.storage_desc(x)
    v = view(x)
    assert_storage_is(x, fmt, desc, cpu)
    expected = view(cpu)
    reads = {
        "cpu": lambda t: t.cpu(),
        "native op": lambda t: (t * 2 + 1).cpu(),
        "reduction": lambda t: t.sum(0).cpu(),
        "contiguous": lambda t: t.contiguous().cpu(),
        "fallback": lambda t: torch.special.ndtr(t).cpu(),
    }
    for what, read in reads.items():
        assert torch.allclose(read(v), read(expected), rtol=1e-6, atol=1e-5), what
        assert_storage_is(x, fmt, desc, cpu)
    assert torch.equal(torch_npu.npu_format_cast(v, 2).cpu(), expected)
    assert_storage_is(x, fmt, desc, cpu)


def test_ops_never_change_their_inputs_format():
    cpu = make_tensor((33, 20), torch.float32)
    x = torch_npu.npu_format_cast(cpu.npu(), 29)
    desc = npu_emu.storage_desc(x)
    other = make_tensor((20, 33), torch.float32, seed=1)
    results = [x + x, x.t() * other.npu(), torch.cat([x, x.t().t()]), x.t().mm(x), x.clone(), x.abs().max()]
    expected = [cpu + cpu, cpu.t() * other, torch.cat([cpu, cpu]), cpu.t().mm(cpu), cpu, cpu.abs().max()]
    for got, want in zip(results, expected):
        assert torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-4)
    assert_storage_is(x, 29, desc, cpu)


IN_PLACE = {
    "add_": lambda a, b: a.add_(b, alpha=0.5),
    "mul_": lambda a, b: a.mul_(2.5),
    "addcdiv_": lambda a, b: a.addcdiv_(b, b.abs() + 1, value=-0.25),
    "clamp_": lambda a, b: a.clamp_(-3, 4),
    "copy_": lambda a, b: a.copy_(b),
    "zero_": lambda a, b: a.zero_(),
    "slice mul_": lambda a, b: a[2:9].mul_(-3),
    "transposed add_": lambda a, b: a.t().add_(b.t()),
    "column fill_": lambda a, b: a[:, 4].fill_(7),
    "lerp_ on a view": lambda a, b: a[::2].lerp_(b[::2], 0.3),
    "fallback on a view": lambda a, b: a[1::3].hypot_(b[1::3]),
    "foreach": lambda a, b: torch._foreach_mul_([a], 1.5),
}


@pytest.mark.parametrize("op", IN_PLACE.values(), ids=IN_PLACE.keys())
def test_in_place_ops_write_back_in_the_private_format(op):
    a_cpu = make_tensor((33, 20), torch.float32)
    b_cpu = make_tensor((33, 20), torch.float32, seed=1)
    a = torch_npu.npu_format_cast(a_cpu.npu(), 29)
    desc = npu_emu.storage_desc(a)
    op(a, b_cpu.npu())
    op(a_cpu, b_cpu)
    assert torch_npu.get_npu_format(a) == 29 and npu_emu.storage_desc(a) == desc
    assert torch.allclose(a.cpu(), a_cpu, rtol=1e-6, atol=1e-6)
    assert torch.equal(npu_emu.storage_data(a), nz_reference(a.cpu()))  # padding still zero


@pytest.mark.parametrize("optimizer", ["SGD", "AdamW"])
def test_linear_with_an_nz_weight_trains_like_cpu_and_keeps_its_format(optimizer):
    torch.manual_seed(0)
    cpu_model = torch.nn.Linear(20, 33)
    model = copy.deepcopy(cpu_model).npu()
    torch_npu.npu_format_cast_(model.weight.data, 29)
    desc = npu_emu.storage_desc(model.weight)
    storage = model.weight.untyped_storage().data_ptr()

    def make(params):
        if optimizer == "SGD":
            return torch.optim.SGD(params, lr=0.1, momentum=0.9)
        return torch.optim.AdamW(params, lr=0.05, weight_decay=0.1)

    opt, cpu_opt = make(model.parameters()), make(cpu_model.parameters())

    def still_nz():
        assert torch_npu.get_npu_format(model.weight) == 29
        assert npu_emu.storage_desc(model.weight) == desc
        assert model.weight.untyped_storage().data_ptr() == storage

    for step in range(3):
        x = make_tensor((7, 20), torch.float32, seed=step) / 10
        loss = torch.nn.functional.linear(x.npu(), model.weight, model.bias).square().mean()
        cpu_loss = cpu_model(x).square().mean()
        still_nz()
        loss.backward()
        cpu_loss.backward()
        still_nz()
        assert torch.allclose(loss.cpu(), cpu_loss.detach(), rtol=1e-5)
        assert torch.allclose(model.weight.grad.cpu(), cpu_model.weight.grad, rtol=1e-4, atol=1e-6)
        opt.step()
        cpu_opt.step()
        opt.zero_grad()
        cpu_opt.zero_grad()
        still_nz()
        assert torch.allclose(model.weight.detach().cpu(), cpu_model.weight.detach(), rtol=1e-5, atol=1e-6)
        assert torch.allclose(model.bias.detach().cpu(), cpu_model.bias.detach(), rtol=1e-5, atol=1e-6)
    assert torch.equal(npu_emu.storage_data(model.weight), nz_reference(model.weight.detach().cpu()))


@pytest.mark.parametrize("shape,fmt", [((33, 20), 29), ((2, 19, 5, 3), 3), ((20, 6, 3, 3), 4)])
def test_deepcopy_keeps_the_format_values_and_bytes(shape, fmt):
    cpu = make_tensor(shape, torch.float32)
    x = torch_npu.npu_format_cast(cpu.npu(), fmt)
    c = copy.deepcopy(x)
    assert torch_npu.get_npu_format(c) == fmt
    assert npu_emu.storage_desc(c) == npu_emu.storage_desc(x)
    assert torch.equal(npu_emu.storage_data(c), npu_emu.storage_data(x))
    assert torch.equal(c.cpu(), cpu)
    c.mul_(2)  # a copy, not an alias
    assert torch.equal(x.cpu(), cpu) and torch.equal(c.cpu(), cpu * 2)
    module = torch.nn.Linear(20, 33).npu()
    torch_npu.npu_format_cast_(module.weight.data, 29)
    clone = copy.deepcopy(module)
    assert torch_npu.get_npu_format(clone.weight) == 29
    assert torch.equal(clone.weight.detach().cpu(), module.weight.detach().cpu())


COLUMN_VIEWS = {
    "first column": lambda a: a[:, :1],
    "inner column": lambda a: a[:, 2:3],
    "column of a transpose": lambda a: a.t().contiguous().t()[:, :1],
    "inner column of a transpose": lambda a: a.t().contiguous().t()[:, 3:4],
    "column of a transposed view": lambda a: a.view(13, 12).t()[:, 5:6],
    "batched column": lambda a: a.view(3, 13, 4)[:, :, 1:2],
}


# Where the [N, 4] tensor lives: a plain tensor, a storage described as 4-D
# NCHW (a conv-shaped [N, 4, 1, 1] that went through a cast), an NZ storage.
COLUMN_SOURCES = {
    "plain": lambda c: c.npu(),
    "NCHW storage": lambda c: torch_npu.npu_format_cast(
        torch_npu.npu_format_cast(c.view(-1, 4, 1, 1).npu(), 3), 0).view(c.shape),
    "NZ storage": lambda c: torch_npu.npu_format_cast(c.npu(), 29),
}


@pytest.mark.parametrize("source", COLUMN_SOURCES.values(), ids=COLUMN_SOURCES.keys())
@pytest.mark.parametrize("view", COLUMN_VIEWS.values(), ids=COLUMN_VIEWS.keys())
def test_nz_cast_of_a_column_view(view, source):
    cpu = make_tensor((39, 4), torch.float32)
    x = source(cpu)
    fmt, desc, data = torch_npu.get_npu_format(x), npu_emu.storage_desc(x), npu_emu.storage_data(x)
    y = torch_npu.npu_format_cast(view(x), 29)
    expected = view(cpu)
    assert torch_npu.get_npu_format(y) == 29 and y.shape == expected.shape
    assert torch.equal(npu_emu.storage_data(y), nz_reference(expected))
    assert torch.equal(y.cpu(), expected)
    assert torch.equal(torch_npu.npu_format_cast(y, 2).cpu(), expected)
    # The source is untouched.
    assert torch_npu.get_npu_format(x) == fmt and npu_emu.storage_desc(x) == desc
    assert torch.equal(npu_emu.storage_data(x), data) and torch.equal(x.cpu(), cpu)


@pytest.mark.parametrize("shape,fmt", [((2, 19, 5, 3), 3), ((20, 6, 3, 3), 4)], ids=["NC1HWC0", "FRACTAL_Z"])
def test_in_place_ops_on_views_of_4d_private_storages(shape, fmt):
    cpu = make_tensor(shape, torch.float32)
    x = torch_npu.npu_format_cast(cpu.npu(), fmt)
    desc = npu_emu.storage_desc(x)
    for op in (lambda a: a[:, 2:17:3].mul_(-2), lambda a: a.permute(0, 2, 3, 1)[..., 4].fill_(5),
               lambda a: a[1].add_(a[0]), lambda a: a.transpose(1, 2).hypot_(a.transpose(1, 2))):
        op(x)
        op(cpu)
        assert_storage_is(x, fmt, desc, cpu)
        assert torch.allclose(x.cpu(), cpu, rtol=1e-6, atol=1e-6)


def test_dtype_views_of_a_private_storage():
    cpu = make_tensor((33, 20), torch.float32)
    x = torch_npu.npu_format_cast(cpu.npu(), 29)
    assert torch.equal(x.view(torch.int32).cpu(), cpu.view(torch.int32))  # same element size: same layout
    assert torch.equal((x.view(torch.int32) ^ 1).cpu(), cpu.view(torch.int32) ^ 1)
    # A dtype view as an operand of a native op, next to the storage read as float.
    assert torch.equal(torch.where(x > 0, x.view(torch.int32), 7).cpu(), torch.where(cpu > 0, cpu.view(torch.int32), 7))
    with pytest.raises(RuntimeError, match=r"FRACTAL_NZ \(29\).*element size.*npu_format_cast\(t, 2\)"):
        x.view(torch.int16).cpu()
    assert torch_npu.get_npu_format(x) == 29 and torch.equal(x.cpu(), cpu)


# Private formats below the seam: an op whose aclnn entry takes private formats
# gets a whole private-format tensor as it is (format and storage dims) and
# computes on it itself; dispatch launches no format cast around it, and an
# input's storage (bytes, descriptor, format) is never written.
def format_casts_during(f) -> int:
    """How many aclnnNpuFormatCast launches `f()` made."""
    before = npu_emu.native_report().get("aclnnNpuFormatCast", 0)
    f()
    torch.npu.synchronize()
    return npu_emu.native_report().get("aclnnNpuFormatCast", 0) - before


def private_input(shape, fmt, seed=0):
    cpu = make_tensor(shape, torch.float32, seed=seed)
    x = torch_npu.npu_format_cast(cpu.npu(), fmt)
    return cpu, x, npu_emu.storage_desc(x), npu_emu.storage_data(x)


def assert_untouched(x, fmt, desc, data):
    assert torch_npu.get_npu_format(x) == fmt
    assert npu_emu.storage_desc(x) == desc
    assert torch.equal(npu_emu.storage_data(x), data)


BINARY_ON_PRIVATE = {
    "add": lambda a, b: a + b,
    "sub alpha": lambda a, b: torch.sub(a, b, alpha=2),
    "mul": lambda a, b: b * a,
    "maximum": torch.maximum,
    "scalar": lambda a, b: a * 3,
    "compare": lambda a, b: a > b,
}
EXACT_UNARY = {"neg": torch.neg, "abs": torch.abs, "relu": torch.relu, "floor": torch.floor, "sign": torch.sign}


@pytest.mark.parametrize("op", BINARY_ON_PRIVATE.values(), ids=BINARY_ON_PRIVATE.keys())
@pytest.mark.parametrize("shape,fmt", [((33, 20), 29), ((2, 3, 17, 20), 29), ((2, 19, 5, 3), 3)],
                         ids=["NZ", "NZ batched", "NC1HWC0"])
def test_binary_op_on_a_private_input_launches_no_format_cast(op, shape, fmt):
    cpu, x, desc, data = private_input(shape, fmt)
    other = make_tensor(shape, torch.float32, seed=1)
    out = []
    assert format_casts_during(lambda: out.append(op(x, other.npu()))) == 0
    assert torch.equal(out[0].cpu(), op(cpu, other))  # float32 add/sub/mul/max are exact
    assert_untouched(x, fmt, desc, data)


@pytest.mark.parametrize("op", EXACT_UNARY.values(), ids=EXACT_UNARY.keys())
@pytest.mark.parametrize("shape,fmt", [((2, 19, 5, 3), 3), ((20, 6, 3, 3), 4), ((33, 20), 29)],
                         ids=["NC1HWC0", "FRACTAL_Z", "NZ"])
def test_unary_op_on_a_private_input_launches_no_format_cast(op, shape, fmt):
    cpu, x, desc, data = private_input(shape, fmt)
    out = []
    assert format_casts_during(lambda: out.append(op(x))) == 0
    assert torch.equal(out[0].cpu(), op(cpu))
    assert_untouched(x, fmt, desc, data)


# Ternary ops: exact ones compare equal, the others (float arithmetic CPU may
# vectorize with FMA) closely.
TERNARY_ON_PRIVATE = {
    "where": (lambda a, b: torch.where(a > 0, a, b), True),
    "clamp": (lambda a, b: a.clamp(-0.5, 0.5), True),
    "clamp_min": (lambda a, b: torch.clamp_min(a, 0.25), True),
    "clamp tensors": (lambda a, b: a.clamp(b, b + 1), True),
    "lerp": (lambda a, b: torch.lerp(a, b, 0.3), False),
    "addcmul": (lambda a, b: torch.addcmul(a, a, b, value=0.5), False),
    "addcdiv": (lambda a, b: torch.addcdiv(b, a, b.abs() + 1), False),
}


@pytest.mark.parametrize("op,exact", TERNARY_ON_PRIVATE.values(), ids=TERNARY_ON_PRIVATE.keys())
@pytest.mark.parametrize("shape,fmt", [((33, 20), 29), ((2, 19, 5, 3), 3)], ids=["NZ", "NC1HWC0"])
def test_ternary_op_on_a_private_input_launches_no_format_cast(op, exact, shape, fmt):
    cpu, x, desc, data = private_input(shape, fmt)
    other = make_tensor(shape, torch.float32, seed=1)
    out = []
    assert format_casts_during(lambda: out.append(op(x, other.npu()))) == 0
    if exact:
        assert torch.equal(out[0].cpu(), op(cpu, other))
    else:
        torch.testing.assert_close(out[0].cpu(), op(cpu, other))

# Shape and sort entries are table ops too: they read a whole private input
# themselves (values exact: they move elements, they do not compute).
SHAPE_SORT_ON_PRIVATE = {
    "cat": lambda a: torch.cat([a, a * 0 + 1], 0),
    "flip": lambda a: torch.flip(a, [0, -1]),
    "roll": lambda a: torch.roll(a, 3, -1),
    "tril": lambda a: torch.tril(a, 1),
    "sort": lambda a: torch.sort(a, -1, descending=True)[0],
    "topk": lambda a: torch.topk(a, 2, 0)[1],
}


@pytest.mark.parametrize("op", SHAPE_SORT_ON_PRIVATE.values(), ids=SHAPE_SORT_ON_PRIVATE.keys())
@pytest.mark.parametrize("shape,fmt", [((33, 20), 29), ((2, 19, 5, 3), 3)], ids=["NZ", "NC1HWC0"])
def test_shape_and_sort_ops_on_a_private_input_launch_no_format_cast(op, shape, fmt):
    cpu, x, desc, data = private_input(shape, fmt)
    out = []
    assert format_casts_during(lambda: out.append(op(x))) == 0
    assert torch.equal(out[0].cpu(), op(cpu))
    assert_untouched(x, fmt, desc, data)


def test_a_transposed_nz_tensor_is_passed_as_it_is():
    cpu, x, desc, data = private_input((33, 20), 29)
    other = make_tensor((20, 33), torch.float32, seed=1)
    out = []
    assert format_casts_during(lambda: out.append(x.t() + other.npu())) == 0
    assert torch.equal(out[0].cpu(), cpu.t() + other)
    assert_untouched(x, 29, desc, data)


IN_PLACE_ON_PRIVATE = {
    "add_": lambda a, b: a.add_(b, alpha=0.5),
    "mul_ scalar": lambda a, b: a.mul_(-2),
    "transposed sub_": lambda a, b: a.mT.sub_(b.mT),
    "neg_": lambda a, b: a.neg_(),
    "out=": lambda a, b: torch.add(b, b, out=a),
    "clamp_ tensor bound": lambda a, b: a.clamp_(max=b),
    "where out=": lambda a, b: torch.where(b > 0, b, a, out=a),
    # Partial writes: the elements not written keep their values.
    "masked_fill_": lambda a, b: a.masked_fill_(b > 0, 0.5),
    "index_put_": lambda a, b: a.index_put_((torch.tensor([1, 0], device=a.device),), b[:2]),
}


@pytest.mark.parametrize("op", IN_PLACE_ON_PRIVATE.values(), ids=IN_PLACE_ON_PRIVATE.keys())
@pytest.mark.parametrize("shape,fmt", [((33, 20), 29), ((2, 19, 5, 3), 3)], ids=["NZ", "NC1HWC0"])
def test_in_place_op_on_a_whole_private_tensor_computes_in_its_format(op, shape, fmt):
    cpu, a, desc, _ = private_input(shape, fmt)
    b_cpu = make_tensor(shape, torch.float32, seed=1)
    b = b_cpu.npu()
    assert format_casts_during(lambda: op(a, b)) == 0
    op(cpu, b_cpu)
    assert torch_npu.get_npu_format(a) == fmt and npu_emu.storage_desc(a) == desc
    assert torch.equal(a.cpu(), cpu)
    assert torch.equal(npu_emu.storage_data(a), layout_reference(cpu, fmt))  # padding still zero


@pytest.mark.parametrize("op", [lambda a, m: a.addr_(m[:, 0], m[0], beta=0.5),
                                lambda a, m: a.addbmm_(m[None, :, :4], m[None, :4, :], beta=0.5)],
                         ids=["addr_", "addbmm_"])
def test_in_place_products_read_their_private_format_self(op):
    cpu, a, desc, _ = private_input((33, 20), 29)
    m_cpu = make_tensor((33, 20), torch.float32, seed=1)
    op(a, m_cpu.npu())
    op(cpu, m_cpu)
    assert torch_npu.get_npu_format(a) == 29
    torch.testing.assert_close(a.cpu(), cpu)


def test_a_slice_of_an_nz_tensor_as_input_is_read_from_a_copy_never_written_back():
    cpu, x, desc, data = private_input((33, 20), 29)
    out = []
    # One cast: the base-format copy the slice is read from; nothing is laid back.
    assert format_casts_during(lambda: out.append(x[3:30, 2:19:3] + 1)) == 1
    assert torch.equal(out[0].cpu(), cpu[3:30, 2:19:3] + 1)
    assert_untouched(x, 29, desc, data)


@pytest.mark.parametrize("op", [lambda v, b: v.add_(b), lambda v, b: torch.mul(b, 2, out=v), lambda v, b: v.abs_()],
                         ids=["add_", "mul out=", "abs_"])
def test_a_slice_of_an_nz_tensor_as_in_place_output(op):
    cpu, x, desc, _ = private_input((33, 20), 29)
    b_cpu = make_tensor((27, 6), torch.float32, seed=1)
    op(x[3:30, 2:19:3], b_cpu.npu())
    op(cpu[3:30, 2:19:3], b_cpu)
    assert torch_npu.get_npu_format(x) == 29 and npu_emu.storage_desc(x) == desc
    assert torch.equal(x.cpu(), cpu)
    assert torch.equal(npu_emu.storage_data(x), nz_reference(cpu))


# aclnnInplaceUniform & co. declare their selfRef const, as CANN does: they
# write it all the same, whole or through a view of a private storage.
RANDOM_IN_PLACE = {
    "uniform_": lambda t: t.uniform_(10, 11),
    "normal_": lambda t: t.normal_(10, 0.01),
    "bernoulli_": lambda t: t.bernoulli_(1.0).add_(9.5),
}


@pytest.mark.parametrize("op", RANDOM_IN_PLACE.values(), ids=RANDOM_IN_PLACE.keys())
@pytest.mark.parametrize("view", [lambda a: a, lambda a: a[2:5], lambda a: a.t()[1:4]], ids=["whole", "rows", "cols"])
def test_random_in_place_ops_write_private_storages(op, view):
    cpu, x, desc, _ = private_input((33, 20), 29)
    op(view(x))
    expected = cpu.clone()
    view(expected).fill_(float("nan"))  # the written elements
    got = x.cpu()
    written = expected.isnan()
    assert bool(((got[written] > 9) & (got[written] < 12)).all())
    assert torch.equal(got[~written], cpu[~written])
    assert torch_npu.get_npu_format(x) == 29 and npu_emu.storage_desc(x) == desc
    assert torch.equal(npu_emu.storage_data(x), nz_reference(got))


@pytest.mark.parametrize("op", RANDOM_IN_PLACE.values(), ids=RANDOM_IN_PLACE.keys())
def test_random_in_place_op_on_a_whole_private_tensor_launches_no_format_cast(op):
    """The entry writes its const selfRef's private storage itself (staged as an output)."""
    _, x, desc, _ = private_input((33, 20), 29)
    assert format_casts_during(lambda: op(x)) == 0
    got = x.cpu()
    assert bool(((got > 9) & (got < 12)).all())
    assert torch_npu.get_npu_format(x) == 29 and npu_emu.storage_desc(x) == desc
    assert torch.equal(npu_emu.storage_data(x), nz_reference(got))


def launches_during(f) -> dict:
    """aclnn op -> native launches `f()` made."""
    before = dict(npu_emu.native_report())
    f()
    torch.npu.synchronize()
    return {op: n - before.get(op, 0) for op, n in npu_emu.native_report().items() if n != before.get(op, 0)}


def test_copy_of_dense_values_into_a_whole_private_tensor_is_one_format_cast():
    cpu, x, desc, _ = private_input((33, 20), 29)
    src_cpu = make_tensor((33, 20), torch.float32, seed=1)
    src = src_cpu.npu()
    assert launches_during(lambda: x.copy_(src)) == {"aclnnNpuFormatCast": 1}
    # An op of the table writes a whole NZ tensor in place below the seam: no
    # format cast around it.
    assert launches_during(lambda: x.clamp_(-1, 1)) == {"aclnnClamp": 1}
    assert npu_emu.storage_desc(x) == desc
    assert torch.equal(x.cpu(), src_cpu.clamp(-1, 1))
    assert torch.equal(npu_emu.storage_data(x), nz_reference(src_cpu.clamp(-1, 1)))


FILLS_ON_PRIVATE = {
    "zero_": (lambda t: t.zero_(), "aclnnInplaceZero"),
    "fill_ scalar": (lambda t: t.fill_(-1.25), "aclnnInplaceFillScalar"),
    "fill_ device value": (lambda t: t.fill_(torch.tensor(2.5).npu() if t.is_npu else torch.tensor(2.5)),
                           "aclnnInplaceFillTensor"),
}


@pytest.mark.parametrize("op, aclnn", FILLS_ON_PRIVATE.values(), ids=FILLS_ON_PRIVATE.keys())
@pytest.mark.parametrize("shape,fmt", [((33, 20), 29), ((2, 19, 5, 3), 3)], ids=["NZ", "NC1HWC0"])
def test_fill_of_a_whole_private_tensor_is_one_launch_in_its_format(op, aclnn, shape, fmt):
    """The fill entries take a whole private tensor as it is: no format cast
    around them, the format kept, padding zero."""
    cpu, x, desc, _ = private_input(shape, fmt)
    assert launches_during(lambda: op(x)) == {aclnn: 1}
    op(cpu)
    assert torch_npu.get_npu_format(x) == fmt and npu_emu.storage_desc(x) == desc
    assert torch.equal(x.cpu(), cpu)
    reference = nz_reference(cpu) if fmt == 29 else nc1hwc0_reference(cpu)
    assert torch.equal(npu_emu.storage_data(x), reference)


_FIRST_PRIVATE_FORMAT = """
import torch, npu_emu, torch_npu
x = torch.randn(2, 17, 5, 5)
a = x.npu()
for _ in range(50):
    a + a  # launches before any storage holds a private format
y = torch_npu.npu_format_cast(a, 3)  # the process's first private format
assert torch_npu.get_npu_format(y) == 3
# A view of part of the private storage must reach the op as a base-format
# copy, the whole tensor as it is: both need the launch to see the format.
assert torch.equal((y[1] + 1).cpu(), x[1] + 1)
assert torch.equal((y * 2).cpu(), x * 2)
y[0].mul_(3)
expected = x.clone()
expected[0] *= 3
assert torch.equal(y.cpu(), expected)
print("ok")
"""


def test_first_private_format_after_plain_launches():
    """The launch path skips the per-tensor format check until some storage
    holds a private format: in a fresh process, the first one (made after
    launches on plain tensors) is seen by the next launches."""
    from conftest import run_python

    done = run_python(_FIRST_PRIVATE_FORMAT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
