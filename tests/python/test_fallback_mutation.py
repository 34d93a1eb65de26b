"""The CPU fallback writes back every argument an op's CPU kernel writes,
including those its schema does not annotate as mutable (native_batch_norm's
running_mean/running_var, batch_norm_update_stats'), so normalization layers
keep their running statistics on npu exactly as on CPU."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map

import npu_emu


@pytest.fixture(autouse=True)
def _allow():
    previous = npu_emu._C._fallback_mode()
    npu_emu._C._set_fallback_mode("allow")
    yield
    npu_emu._C._set_fallback_mode(previous)


def _input(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g) * 3 + 1.5  # mean and variance far from the initial 0 / 1


NORM_MODULES: dict[str, tuple[Callable[[], nn.Module], tuple[int, ...]]] = {
    "BatchNorm1d-2d-input": (lambda: nn.BatchNorm1d(5), (8, 5)),
    "BatchNorm1d-3d-input": (lambda: nn.BatchNorm1d(5, momentum=0.3), (4, 5, 7)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(3), (4, 3, 5, 6)),
    "BatchNorm2d-cumulative": (lambda: nn.BatchNorm2d(3, momentum=None), (2, 3, 4, 4)),
    "BatchNorm3d": (lambda: nn.BatchNorm3d(2, affine=False), (2, 2, 3, 4, 5)),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(4, track_running_stats=True), (3, 4, 9)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True), (2, 3, 5, 5)),
    "InstanceNorm3d": (lambda: nn.InstanceNorm3d(2, track_running_stats=True), (2, 2, 3, 4, 4)),
}


@pytest.mark.parametrize("name", list(NORM_MODULES))
def test_running_statistics_follow_cpu_through_training_and_are_used_in_eval(name):
    make, shape = NORM_MODULES[name]
    torch.manual_seed(0)
    cpu = make()
    npu = copy.deepcopy(cpu).to("npu")
    cpu_opt = torch.optim.SGD(cpu.parameters(), lr=0.1) if list(cpu.parameters()) else None
    npu_opt = torch.optim.SGD(npu.parameters(), lr=0.1) if list(npu.parameters()) else None
    for step in range(3):
        x = _input(shape, seed=step)
        grads = []
        for module, opt, data in ((cpu, cpu_opt, x.clone()), (npu, npu_opt, x.npu())):
            out = module(data.requires_grad_())  # a gradient even for modules without parameters
            (out * torch.arange(out.numel(), device=out.device).view(out.shape).float().sin()).sum().backward()
            grads.append(data.grad.cpu())
            if opt is not None:
                opt.step()
                opt.zero_grad()
        torch.testing.assert_close(grads[1], grads[0], msg=f"{name}: input gradient of step {step}")
    cpu_buffers = dict(cpu.named_buffers())
    npu_buffers = dict(npu.named_buffers())
    assert set(cpu_buffers) == set(npu_buffers) and {"running_mean", "running_var"} <= set(cpu_buffers)
    for key, expected in cpu_buffers.items():
        assert npu_buffers[key].device.type == "npu"
        torch.testing.assert_close(npu_buffers[key].cpu(), expected, msg=f"{name}.{key}")
    assert not torch.equal(cpu_buffers["running_mean"], torch.zeros_like(cpu_buffers["running_mean"]))
    # eval normalizes with the running statistics just compared
    cpu.eval()
    npu.eval()
    x = _input(shape, seed=10)
    torch.testing.assert_close(npu(x.npu()).cpu(), cpu(x))


def test_functional_batch_norm_updates_running_stats_in_place():
    x = _input((6, 4, 3), seed=1)
    stats = {dev: (torch.zeros(4, device=dev), torch.ones(4, device=dev)) for dev in ("cpu", "npu")}
    for dev, (mean, var) in stats.items():
        for _ in range(2):
            F.batch_norm(x.to(dev), mean, var, training=True, momentum=0.25)
    torch.testing.assert_close(stats["npu"][0].cpu(), stats["cpu"][0])
    torch.testing.assert_close(stats["npu"][1].cpu(), stats["cpu"][1])


def test_running_stats_that_are_views_are_written_through():
    """The write-back goes into the caller's tensor, wherever its storage is."""
    x = _input((5, 3), seed=2)
    buffers = {dev: torch.stack([torch.zeros(3), torch.ones(3)], dim=1).to(dev) for dev in ("cpu", "npu")}
    for dev, buf in buffers.items():
        F.batch_norm(x.to(dev), buf[:, 0], buf[:, 1], training=True, momentum=0.5)  # strided views
    torch.testing.assert_close(buffers["npu"].cpu(), buffers["cpu"])


RUNNING_STATS_OPS = {  # aten op -> call(input, running_mean, running_var)
    # CPU kernels writing the statistics without a schema annotation
    "native_batch_norm": lambda x, m, v: torch.ops.aten.native_batch_norm(x, None, None, m, v, True, 0.2, 1e-5),
    "native_batch_norm.out": lambda x, m, v: torch.ops.aten.native_batch_norm.out(
        x, None, None, m, v, True, 0.2, 1e-5, out=torch.empty_like(x), save_mean=x.new_empty(0),
        save_invstd=x.new_empty(0)),
    "batch_norm_update_stats": lambda x, m, v: torch.ops.aten.batch_norm_update_stats(x, m, v, 0.2),
    # the annotated ones (Tensor(a!)), written back by PyTorch's fallback itself
    "_native_batch_norm_legit": lambda x, m, v: torch.ops.aten._native_batch_norm_legit(x, None, None, m, v, True,
                                                                                       0.2, 1e-5),
    "_batch_norm_with_update": lambda x, m, v: torch.ops.aten._batch_norm_with_update(x, None, None, m, v, 0.2, 1e-5),
}


@pytest.mark.parametrize("op", list(RUNNING_STATS_OPS))
def test_aten_ops_writing_running_stats_match_cpu(op):
    """Called directly, the aten ops that update running statistics: outputs
    and the written arguments match CPU."""
    x = _input((7, 3, 4), seed=3)
    results = {}
    for dev in ("cpu", "npu"):
        mean, var = torch.full((3,), 0.5, device=dev), torch.full((3,), 2.0, device=dev)
        out = RUNNING_STATS_OPS[op](x.to(dev), mean, var)
        results[dev] = [t.cpu() for t in (*out, mean, var)]
    assert not torch.equal(results["cpu"][-2], torch.full((3,), 0.5))  # the op did update the statistics
    for npu_t, cpu_t in zip(results["npu"], results["cpu"]):
        torch.testing.assert_close(npu_t, cpu_t)


def test_eval_mode_leaves_running_stats_unchanged():
    bn = nn.BatchNorm2d(3).npu()
    bn.running_mean.fill_(0.25)
    bn.eval()
    bn(_input((2, 3, 4, 4), seed=4).npu())
    assert torch.equal(bn.running_mean.cpu(), torch.full((3,), 0.25))
    assert bn.num_batches_tracked.item() == 0


class _UnannotatedWrites(TorchDispatchMode):
    """Records the aten calls (run on the CPU) that change a tensor argument
    their schema does not mark as written, with the arguments as they were
    before the call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[torch._ops.OpOverload, tuple, dict, list[str]]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        before_args, before_kwargs = tree_map(_clone, (args, kwargs))
        out = func(*args, **kwargs)
        changed = [name for name, now, before in _unannotated_tensors(func, (args, kwargs), (before_args, before_kwargs))
                   if not _same(now, before)]
        if changed:
            self.calls.append((func, before_args, before_kwargs, changed))
        return out


def _clone(x):
    return x.clone() if isinstance(x, torch.Tensor) else x


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.nan_to_num(), b.nan_to_num()) and torch.equal(a.isnan(), b.isnan())


def _unannotated_tensors(func, now, before):
    """(argument name, value now, value before) for the tensor arguments of
    `func` whose schema has no write annotation."""
    (args, kwargs), (before_args, before_kwargs) = now, before
    for index, argument in enumerate(func._schema.arguments):
        if argument.alias_info is not None and argument.alias_info.is_write:
            continue
        if index < len(args):
            pair = args[index], before_args[index]
        elif argument.name in kwargs:
            pair = kwargs[argument.name], before_kwargs[argument.name]
        else:
            continue
        if isinstance(pair[0], torch.Tensor) and pair[0].layout == torch.strided:
            yield argument.name, *pair


def _train_modules_on_cpu() -> _UnannotatedWrites:
    """Every ModuleInfo module of PyTorch's test suite, in training mode, with
    its first sample inputs, on the CPU under the recorder."""
    from torch.testing._internal.common_modules import module_db  # slow to import: only for this audit

    recorder = _UnannotatedWrites()
    with recorder:
        for info in module_db:
            try:
                inputs = info.module_inputs_func(info, device="cpu", dtype=torch.float32, requires_grad=False,
                                                 training=True)[:2]
            except Exception:  # some sample generators need what this build lacks (CUDA, ...)
                continue
            for sample in inputs:
                if sample.forward_input is None:
                    continue
                try:
                    module = info.module_cls(*sample.constructor_input.args, **sample.constructor_input.kwargs)
                    module.train()
                    module(*sample.forward_input.args, **sample.forward_input.kwargs)
                except Exception:  # a sample meant to raise
                    continue
    return recorder


def test_every_unannotated_write_of_module_training_on_cpu_is_reproduced_on_npu():
    """Audits the CPU kernels instead of trusting a list: every aten call that
    wrote an unannotated argument while PyTorch's modules trained on the CPU is
    replayed on npu, where the written arguments (and outputs) must come out
    as on the CPU."""
    recorder = _train_modules_on_cpu()
    ops = {str(func) for func, *_ in recorder.calls}
    assert "aten.native_batch_norm.default" in ops  # the audit sees the known case
    for func, args, kwargs, changed in recorder.calls:
        expected_args, expected_kwargs = tree_map(_clone, (args, kwargs))
        expected_out = func(*expected_args, **expected_kwargs)
        npu_args, npu_kwargs = tree_map(lambda x: x.npu() if isinstance(x, torch.Tensor) else x, (args, kwargs))
        out = func(*npu_args, **npu_kwargs)
        for name, now, want in _unannotated_tensors(func, (npu_args, npu_kwargs), (expected_args, expected_kwargs)):
            torch.testing.assert_close(now.cpu(), want, msg=f"{func}: argument {name}", equal_nan=True)
        torch.testing.assert_close(tree_map(lambda x: x.cpu() if isinstance(x, torch.Tensor) else x, out),
                                   expected_out, msg=f"{func}: outputs", equal_nan=True)



def test_out_with_a_conj_bit_is_written_through_the_fallback(fallback_mode):
    """An out= tensor carrying the conj bit, which the Conjugate key passes
    through for linalg_solve_triangular.out, gets the result through the CPU
    fallback as on CPU (the fallback's copy-back used to be lost: out kept its
    old values), also when out is the right-hand side itself, as in
    test_linalg's test_linalg_solve_triangular."""
    fallback_mode("allow")
    torch.manual_seed(0)
    a = torch.randn(3, 3, dtype=torch.complex64).triu() + 4 * torch.eye(3)
    b = torch.randn(3, 2, dtype=torch.complex64)
    for rhs_is_out in (False, True):
        results = []
        for device in ("cpu", "npu"):
            rhs = b.clone().to(device).conj()
            out = rhs if rhs_is_out else torch.zeros(3, 2, dtype=torch.complex64, device=device).conj()
            returned = torch.linalg.solve_triangular(a.to(device), rhs, upper=True, out=out)
            assert returned is out and out.is_conj()
            results.append(out.cpu())
        torch.testing.assert_close(results[1], results[0])
        torch.testing.assert_close(results[1], torch.linalg.solve_triangular(a, b.conj(), upper=True))


def test_out_with_a_neg_bit_is_written_through_the_fallback(fallback_mode):
    """The same with the neg bit: npu writes the solution (CPU's kernel
    ignores the bit of its out and writes the negated solution)."""
    fallback_mode("allow")
    torch.manual_seed(0)
    a = torch.randn(3, 3, dtype=torch.complex64).triu() + 4 * torch.eye(3)
    b = torch.randn(3, 2, dtype=torch.complex64)
    out = torch.zeros(3, 2, dtype=torch.complex64, device="npu")._neg_view()
    torch.linalg.solve_triangular(a.npu(), b.npu(), upper=True, out=out)
    torch.testing.assert_close(out.cpu(), torch.linalg.solve_triangular(a, b, upper=True))
