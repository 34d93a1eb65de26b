"""Optimizer ops run natively on npu, one launch per tensor list, and match CPU.

- torch.optim's foreach paths (AdamW/Adam, SGD with momentum and nesterov,
  RMSprop, Adagrad) and fused paths (Adam/AdamW, SGD, Adagrad), and
  clip_grad_norm_(foreach=True), step params of mixed shapes (0-dim, 0-size,
  non-contiguous) in float32, float16 and bfloat16 on npu and on CPU with
  the same implementation; results agree within float tolerance.
- The number of native launches of a step does not grow with the number of
  parameters (one launch per list), counted with npu_emu.debug.native_report.
- The _foreach_* ops one by one (functional and in place, Scalar /
  ScalarList / List / Tensor overloads) match CPU, including the cases that
  keep PyTorch's per-tensor loop (integer tensors, type-promoting scalars).
- GradScaler's ops against their mathematical definition: found_inf set by
  inf/NaN, gradients unscaled, scale backed off / grown after the interval.

Every test forbids the CPU fallback (native_only). Tolerances: npu and CPU
round differently only where PyTorch's CPU kernels fuse multiply-adds or
accumulate in another order (a few float32 ulps; reduced floats within a
couple of their ulps of the largest value).
"""

from __future__ import annotations

import copy
import math

import pytest
import torch

import npu_emu  # noqa: F401
from npu_emu import debug
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")

TOL = {torch.float32: (2e-5, 2e-6), torch.float64: (1e-12, 1e-12), torch.float16: (2e-3, 2e-3),
       torch.bfloat16: (1.6e-2, 1.6e-2)}
SHAPES = [(3, 4), (5,), (), (0, 3), (2, 3, 2)]


def close(npu_t: torch.Tensor, cpu_t: torch.Tensor, steps: int = 1) -> None:
    assert npu_t.device.type == "npu"
    assert npu_t.dtype == cpu_t.dtype and npu_t.shape == cpu_t.shape
    rtol, atol = TOL.get(cpu_t.dtype, (0, 0))
    if cpu_t.dtype in (torch.float16, torch.bfloat16) and cpu_t.numel() > 0:
        largest = cpu_t.float().abs().nan_to_num(0, 0, 0).max().item()
        atol = max(atol, 2 * steps * torch.finfo(cpu_t.dtype).eps * largest)
    torch.testing.assert_close(npu_t.cpu(), cpu_t, rtol=rtol * steps, atol=atol * steps, equal_nan=True)


def rand(shape, dtype, seed: int, low: float = -1.0, high: float = 1.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)


def make_params(dtypes, seed: int = 0, count: int = len(SHAPES)) -> list[torch.Tensor]:
    params = []
    for d, dtype in enumerate(dtypes):
        for i in range(count):
            shape = SHAPES[i % len(SHAPES)]
            params.append(rand(shape, dtype, seed + 31 * d + i).requires_grad_())
    return params


def set_grads(params, step: int) -> None:
    for i, p in enumerate(params):
        g = rand(p.shape, p.dtype, 1000 * step + i)
        p.grad = g.to(p.device)


OPTIMIZERS = {
    "adamw": (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.1)),
    "adamw_amsgrad_maximize": (torch.optim.AdamW, dict(lr=1e-2, amsgrad=True, maximize=True)),
    "adam_wd": (torch.optim.Adam, dict(lr=1e-2, weight_decay=0.05)),
    "sgd_nesterov": (torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "sgd_momentum_dampening": (torch.optim.SGD, dict(lr=0.1, momentum=0.8, dampening=0.2)),
    "sgd_plain": (torch.optim.SGD, dict(lr=0.1)),
    "rmsprop_centered": (torch.optim.RMSprop, dict(lr=1e-2, momentum=0.9, centered=True, weight_decay=0.1)),
    "rmsprop": (torch.optim.RMSprop, dict(lr=1e-2)),
    "adagrad": (torch.optim.Adagrad, dict(lr=0.1, weight_decay=0.1, lr_decay=0.01)),
}
FUSED = {"adamw", "adamw_amsgrad_maximize", "adam_wd", "sgd_nesterov", "sgd_momentum_dampening", "sgd_plain",
         "adagrad"}


def cases():
    for name in OPTIMIZERS:
        yield name, "foreach"
        if name in FUSED:
            yield name, "fused"


def run_steps(name: str, impl: str, params, steps: int):
    cls, kwargs = OPTIMIZERS[name]
    opt = cls(params, **kwargs, **{impl: True})
    for step in range(steps):
        set_grads(params, step)
        opt.step()
    return opt


@pytest.mark.parametrize("name,impl", list(cases()))
def test_optimizer_step_matches_cpu(name, impl):
    dtypes = [torch.float32, torch.float16, torch.bfloat16]
    cpu_params = make_params(dtypes)
    npu_params = [p.detach().to("npu").requires_grad_() for p in cpu_params]
    opt_c = run_steps(name, impl, cpu_params, 3)
    opt_n = run_steps(name, impl, npu_params, 3)
    for p_n, p_c in zip(npu_params, cpu_params):
        close(p_n.detach(), p_c.detach(), steps=3)
    for p_n, p_c in zip(npu_params, cpu_params):
        for key, v_c in opt_c.state[p_c].items():
            v_n = opt_n.state[p_n][key]
            if isinstance(v_c, torch.Tensor) and v_c.is_floating_point() and v_c.dim() > 0:
                close(v_n, v_c, steps=3)


def step_launches(name: str, impl: str, count: int) -> dict[str, int]:
    params = [p.detach().to("npu").requires_grad_() for p in make_params([torch.float32], count=count)]
    opt = run_steps(name, impl, params, 1)  # creates the state
    set_grads(params, 1)
    debug.reset_reports()
    opt.step()
    return debug.native_report()


@pytest.mark.parametrize("name,impl", list(cases()))
def test_one_launch_per_list(name, impl):
    """A step launches as many ops for 15 parameters as for 5: one per list, none per tensor."""
    few, many = step_launches(name, impl, 5), step_launches(name, impl, 15)
    assert few == many
    family = "aclnnFused" if impl == "fused" else "aclnnForeach"
    assert any(op.startswith(family) for op in few), few


def test_clip_grad_norm_matches_cpu_with_one_launch_per_list():
    for norm_type in (2.0, 1.0, math.inf):
        cpu_params = make_params([torch.float32, torch.float16])
        if math.isinf(norm_type):  # no identity: an empty gradient is an error on CPU too
            cpu_params = [p for p in cpu_params if p.numel() > 0]
        npu_params = [p.detach().to("npu").requires_grad_() for p in cpu_params]
        set_grads(cpu_params, 0)
        set_grads(npu_params, 0)
        for p in cpu_params + npu_params:
            p.grad.mul_(3)
        total_c = torch.nn.utils.clip_grad_norm_(cpu_params, 1.0, norm_type=norm_type, foreach=True)
        debug.reset_reports()
        total_n = torch.nn.utils.clip_grad_norm_(npu_params, 1.0, norm_type=norm_type, foreach=True)
        launches = debug.native_report()
        close(total_n, total_c)
        for p_n, p_c in zip(npu_params, cpu_params):
            close(p_n.grad, p_c.grad)
        # One norm launch and one scaling launch per dtype group (2 groups).
        assert launches.get("aclnnForeachNorm") == 2
        assert launches.get("aclnnForeachMulScalar") == 2


# ---- the foreach ops one by one --------------------------------------------------


def lists(dtype, n_lists: int, positive: bool = False, seed: int = 0):
    low = 0.5 if positive else -2.0
    shapes = [(4, 3), (7,), (), (0,), (2, 5)]
    out = []
    for k in range(n_lists):
        ts = [rand(s, dtype, seed + 17 * k + i, low, 2.0) for i, s in enumerate(shapes)]
        ts[0] = ts[0].t()  # non-contiguous
        out.append(ts)
    return out


SCALARS = [0.5, -1.25, 3.0, 2, True]
# (op, args after self: "L" a list, "S" a scalar, "SL" a scalar list, "T" a 0-dim tensor), extra kwargs
OPS = [
    ("add", ["S"], {}), ("add", ["SL"], {}), ("add", ["L"], {"alpha": 0.5}), ("add", ["L"], {}),
    ("add", ["T"], {}), ("sub", ["L"], {"alpha": 0.5}), ("sub", ["L"], {}),
    ("mul", ["S"], {}), ("mul", ["SL"], {}), ("mul", ["L"], {}), ("mul", ["T"], {}),
    ("div", ["S"], {}), ("div", ["SL"], {}), ("div", ["L"], {}),
    ("maximum", ["L"], {}), ("sqrt", [], {}), ("neg", [], {}),
    ("addcmul", ["L", "L", "S"], {}), ("addcmul", ["L", "L", "SL"], {}),
    ("addcdiv", ["L", "L", "S"], {}), ("addcdiv", ["L", "L", "SL"], {}),
    ("lerp", ["L", "S"], {}),
]


def build_args(kinds, dtype, device, seed):
    args = []
    for k, kind in enumerate(kinds):
        if kind == "L":
            args.append([t.to(device) for t in lists(dtype, 1, positive=True, seed=seed + 100 * k)[0]])
        elif kind == "S":
            args.append(0.75)
        elif kind == "SL":
            args.append(SCALARS)
        elif kind == "T":
            args.append(torch.tensor(1.5, dtype=dtype).to(device))
    return args


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("op,kinds,kwargs", OPS, ids=[f"{o}-{'_'.join(k) or 'unary'}" for o, k, _ in OPS])
def test_foreach_op_matches_cpu(op, kinds, kwargs, dtype):
    self_c = lists(dtype, 1, positive=op == "sqrt")[0]
    args_c = build_args(kinds, dtype, "cpu", seed=1)
    self_n = [t.to("npu") for t in self_c]
    args_n = build_args(kinds, dtype, "npu", seed=1)
    fn, fn_ = getattr(torch, f"_foreach_{op}"), getattr(torch, f"_foreach_{op}_")
    debug.reset_reports()
    res_n = fn(self_n, *args_n, **kwargs)
    launch = debug.native_report()
    res_c = fn(self_c, *args_c, **kwargs)
    for r_n, r_c in zip(res_n, res_c):
        close(r_n, r_c)
    # One launch for the whole list (plus, for ScalarList addc*, the copy of the scalars).
    assert sum(n for name, n in launch.items() if name.startswith("aclnnForeach")) == 1, launch
    fn_(self_n, *args_n, **kwargs)
    fn_(self_c, *args_c, **kwargs)
    for t_n, t_c in zip(self_n, self_c):
        close(t_n, t_c)


@pytest.mark.parametrize("ord", [2, 1, 0, math.inf, -math.inf, 3.5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_foreach_norm_matches_cpu(ord, dtype):
    xs = lists(dtype, 1)[0]
    if math.isinf(ord):
        xs = [t for t in xs if t.numel() > 0]  # no identity: CPU raises for empty tensors
    debug.reset_reports()
    res_n = torch._foreach_norm([t.to("npu") for t in xs], ord)
    assert debug.native_report().get("aclnnForeachNorm") == 1
    for r_n, r_c in zip(res_n, torch._foreach_norm(xs, ord)):
        close(r_n, r_c)


def test_foreach_norm_inf_of_empty_tensor_raises_like_cpu():
    xs = [torch.ones(3), torch.empty(0)]
    with pytest.raises(RuntimeError, match="empty"):
        torch._foreach_norm(xs, math.inf)
    with pytest.raises(RuntimeError, match="empty"):
        torch._foreach_norm([t.to("npu") for t in xs], math.inf)


def test_integer_and_promoting_cases_keep_cpu_semantics():
    """Integer lists and float scalars on integer tensors take PyTorch's per-tensor loop: CPU's dtypes."""
    ints = [torch.arange(6, dtype=torch.int32).reshape(2, 3), torch.arange(4, dtype=torch.int64)]
    ints_n = [t.to("npu") for t in ints]
    for fn, args in ((torch._foreach_add, (2,)), (torch._foreach_mul, ([1.5, 2.5],)), (torch._foreach_add, (ints,))):
        args_n = tuple([t.to("npu") for t in a] if isinstance(a, list) and isinstance(a[0], torch.Tensor) else a
                       for a in args)
        for r_n, r_c in zip(fn(ints_n, *args_n), fn(ints, *args)):
            assert r_n.dtype == r_c.dtype
            assert torch.equal(r_n.cpu(), r_c)
    with pytest.raises(RuntimeError):
        torch._foreach_mul_([t.clone() for t in ints], [1.5, 2.5])
    with pytest.raises(RuntimeError):
        torch._foreach_mul_([t.clone() for t in ints_n], [1.5, 2.5])
    # A 0-dim float64 factor promotes 0-dim entries only (as two tensors), the others keep their dtype.
    xs, factor = [torch.tensor(2.0), torch.ones(3)], torch.tensor(1.5, dtype=torch.float64)
    res_n = torch._foreach_mul([t.to("npu") for t in xs], factor.to("npu"))
    for r_n, r_c in zip(res_n, torch._foreach_mul(xs, factor)):
        assert r_n.dtype == r_c.dtype
        assert torch.equal(r_n.cpu(), r_c)
    # Mixed dtypes along a position: CPU's promotion (float16 + float32 -> float32).
    a, b = [torch.ones(3, dtype=torch.float16)], [torch.full((3,), 0.1)]
    r_n = torch._foreach_add([a[0].to("npu")], [b[0].to("npu")])[0]
    assert r_n.dtype == torch._foreach_add(a, b)[0].dtype
    torch.testing.assert_close(r_n.cpu(), torch._foreach_add(a, b)[0])


def test_mismatched_lists_raise_like_cpu():
    a = [torch.ones(2), torch.ones(3)]
    with pytest.raises(RuntimeError) as cpu_err:
        torch._foreach_add(a, a[:1])
    with pytest.raises(RuntimeError) as npu_err:
        torch._foreach_add([t.to("npu") for t in a], [a[0].to("npu")])
    assert str(npu_err.value) == str(cpu_err.value)


# ---- GradScaler's ops ---------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, None])
def test_non_finite_check_and_unscale(bad):
    """Grads are multiples of 1/8 times powers of two: value * inv_scale is exact in every dtype."""
    dtypes = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
    grads = [torch.arange(-4, 4, dtype=torch.float64).mul(0.125 * 2 ** i).to(d) for i, d in enumerate(dtypes)]
    expected = [g.double() * 0.25 for g in grads]
    if bad is not None:
        grads[2][3] = bad
    grads_n = [g.to("npu") for g in grads]
    found_inf = torch.zeros((), device="npu")
    inv_scale = torch.full((), 0.25, device="npu")
    debug.reset_reports()
    torch._amp_foreach_non_finite_check_and_unscale_(grads_n, found_inf, inv_scale)
    assert debug.native_report() == {"aclnnForeachNonFiniteCheckAndUnscale": 1}
    assert found_inf.item() == (0.0 if bad is None else 1.0)
    for i, (g, e) in enumerate(zip(grads_n, expected)):
        got = g.cpu().double()
        if bad is not None and i == 2:
            assert (math.isnan(got[3]) if math.isnan(bad) else got[3].item() == bad)
            got[3], e[3] = 0.0, 0.0
        assert torch.equal(got, e)
    # found_inf is only ever set, never reset.
    clean = [torch.ones(3, device="npu")]
    torch._amp_foreach_non_finite_check_and_unscale_(clean, found_inf, inv_scale)
    assert found_inf.item() == (0.0 if bad is None else 1.0)


def test_amp_update_scale_backoff_and_growth():
    scale = torch.full((), 1024.0, device="npu")
    tracker = torch.zeros((), dtype=torch.int32, device="npu")
    found = torch.zeros((), device="npu")

    def update(found_value: float) -> tuple[float, int]:
        found.fill_(found_value)
        out = torch._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 3)
        assert out is scale
        return scale.item(), int(tracker.item())

    assert update(1.0) == (512.0, 0)      # inf/NaN seen: back off, tracker reset
    assert update(0.0) == (512.0, 1)      # clean steps count...
    assert update(0.0) == (512.0, 2)
    assert update(0.0) == (1024.0, 0)     # ... and the third grows the scale
    assert update(0.0) == (1024.0, 1)
    assert update(1.0) == (512.0, 0)
    # A grown scale that would overflow float32 is kept, the tracker still resets.
    scale.fill_(3.0e38)
    tracker.fill_(2)
    assert update(0.0) == (pytest.approx(3.0e38, rel=1e-7), 0)


def test_fused_adam_skips_step_on_found_inf_and_unscales_grads():
    """grad_scale divides the gradients (stored back); found_inf == 1 leaves everything untouched."""
    params = [rand((4, 3), torch.float32, 1), rand((5,), torch.float32, 2)]
    grads = [rand(p.shape, torch.float32, 10 + i) * 8 for i, p in enumerate(params)]
    def state(device):
        ps = [p.to(device) for p in params]
        gs = [g.to(device) for g in grads]
        avgs = [torch.zeros_like(p) for p in ps]
        sqs = [torch.zeros_like(p) for p in ps]
        steps = [torch.ones((), device=device) for _ in ps]
        return ps, gs, avgs, sqs, steps
    kw = dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False)
    for found in (0.0, 1.0):
        c, n = state("cpu"), state("npu")
        for (ps, gs, avgs, sqs, steps), dev in ((c, "cpu"), (n, "npu")):
            torch._fused_adamw_(ps, gs, avgs, sqs, [], steps, **kw,
                                grad_scale=torch.full((), 8.0, device=dev), found_inf=torch.full((), found, device=dev))
        for lists_n, lists_c in zip(n, c):
            for t_n, t_c in zip(lists_n, lists_c):
                close(t_n, t_c)
        if found == 1.0:
            for p_n, p in zip(n[0], params):
                assert torch.equal(p_n.cpu(), p)


def test_fused_optimizer_with_tensor_lr_matches_cpu():
    cpu_params = make_params([torch.float32])
    npu_params = [p.detach().to("npu").requires_grad_() for p in cpu_params]
    for params in (cpu_params, npu_params):
        opt = torch.optim.AdamW(params, lr=torch.tensor(0.01), fused=True)
        for step in range(2):
            set_grads(params, step)
            opt.step()
    for p_n, p_c in zip(npu_params, cpu_params):
        close(p_n.detach(), p_c.detach(), steps=2)


def test_adamw_foreach_small_transformer_native():
    """AdamW(foreach) on a small transformer's ~40 parameter tensors: CPU's numbers, one launch per list."""
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0), num_layers=3)
    npu_model = copy.deepcopy(model).to("npu")
    params_c, params_n = list(model.parameters()), list(npu_model.parameters())
    assert len(params_c) >= 36
    opt_c = torch.optim.AdamW(params_c, lr=1e-3, foreach=True)
    opt_n = torch.optim.AdamW(params_n, lr=1e-3, foreach=True)
    for step in range(2):
        set_grads(params_c, step)
        set_grads(params_n, step)
        opt_c.step()
        debug.reset_reports()
        opt_n.step()
    launches = debug.native_report()
    # A handful of list launches, not one per tensor.
    assert sum(launches.values()) < len(params_n), launches
    for p_n, p_c in zip(params_n, params_c):
        close(p_n.detach(), p_c.detach(), steps=2)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_fused_adam_strided_and_contiguous_tensors_give_the_same_bits(dtype, amsgrad):
    """The kernel's contiguous (SIMD) path and its strided path compute the same operations in the same order."""
    def run(transposed: bool):
        made = []
        for k in range(5 if amsgrad else 4):
            base = rand((6, 7), dtype, 50 + k, 0.1, 1.0).to("npu")
            made.append([base.t().contiguous() if not transposed else base.t()])
        steps = [torch.full((), 3.0, device="npu")]
        params, grads, avgs, sqs = made[:4]
        torch._fused_adamw_(params, grads, avgs, sqs, made[4] if amsgrad else [], steps, lr=0.1, beta1=0.9,
                            beta2=0.999, weight_decay=0.01, eps=1e-8, amsgrad=amsgrad, maximize=False,
                            grad_scale=torch.full((), 2.0, device="npu"))
        return [t[0].cpu() for t in made]
    for a, b in zip(run(False), run(True)):
        assert torch.equal(a, b)


def test_fused_adamw_with_grad_scaler_state_matches_cpu():
    """The scaler's grad_scale/found_inf as GradScaler hands them to a fused optimizer: skipped steps roll back."""
    cpu_params = make_params([torch.float32, torch.bfloat16])
    npu_params = [p.detach().to("npu").requires_grad_() for p in cpu_params]
    for params, dev in ((cpu_params, "cpu"), (npu_params, "npu")):
        opt = torch.optim.AdamW(params, lr=0.01, weight_decay=0.1, fused=True)
        for step, found in enumerate((0.0, 1.0, 0.0)):
            set_grads(params, step)
            for p in params:
                p.grad.mul_(4)
            opt.grad_scale = torch.full((), 4.0, device=dev)
            opt.found_inf = torch.full((), found, device=dev)
            opt.step()
    for p_n, p_c in zip(npu_params, cpu_params):
        close(p_n.detach(), p_c.detach(), steps=3)
        close(p_n.grad, p_c.grad)


@pytest.mark.parametrize("op", ["addcdiv", "addcmul"])
def test_scalarlist_forms_do_not_wait_for_the_device(op, delay_us):
    """The per-tensor scalars reach the device without synchronizing the stream (AdamW calls this every step)."""
    xs = [torch.ones(4, device="npu"), torch.ones(2, device="npu")]
    torch.npu.synchronize()
    delay_us(300_000)  # every kernel stays in flight for a while
    getattr(torch, f"_foreach_{op}_")(xs, xs, xs, [0.5, 2.0])
    assert not torch.npu.current_stream().query()  # returned before the device finished
    torch.npu.synchronize()
    expected = [1 + 0.5 * 1, 1 + 2.0 * 1]
    assert [x.cpu().tolist() for x in xs] == [[expected[0]] * 4, [expected[1]] * 2]


def test_lists_sharing_memory_across_positions_match_cpu():
    """PyTorch updates the positions one after the other; a list whose positions share memory keeps that order,
    while views of one flat buffer that do not overlap (flattened parameters) still take one launch."""
    def cases(device):
        a = torch.arange(6, dtype=torch.float32, device=device)
        b = torch.ones(6, device=device) * 10
        torch._foreach_add_([a, a], 1.0)                    # the same tensor twice: + 2
        torch._foreach_add_([a, b], [b, a])                 # b reads the new a
        flat = torch.ones(10, device=device)
        torch._foreach_mul_([flat[2:8], flat[4:6]], 3.0)    # partial overlap between positions
        return [a, b, flat]
    debug.reset_reports()
    results = cases("npu")
    # Concurrent positions could happen to run in order: the loop (no list launch) is what guarantees it.
    assert not any(op.startswith("aclnnForeach") for op in debug.native_report()), debug.native_report()
    for r_n, r_c in zip(results, cases("cpu")):
        assert torch.equal(r_n.cpu(), r_c)
    flat = torch.ones(12, device="npu")
    debug.reset_reports()
    torch._foreach_add_([flat[:4], flat[4:9], flat[9:]], 2.0)
    assert debug.native_report() == {"aclnnForeachAddScalarV2": 1}
    assert torch.equal(flat.cpu(), torch.full((12,), 3.0))
