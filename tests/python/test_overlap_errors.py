"""In-place indexing ops refuse, at the call, arguments that share memory with
the tensor they write, exactly where CPU does (its "unsupported operation"
RuntimeError), and warn where CPU only warns (an expanded self). Natively
run ops check before launching; ops run through the CPU fallback see the
same aliasing on the CPU (arguments sharing an npu storage share one CPU
copy of it), so CPU's own checks decide. A refused call leaves self as it was.
"""

from __future__ import annotations

from typing import Callable

import pytest
import torch

OVERLAPPING: dict[str, Callable[[torch.Tensor, torch.Tensor], object]] = {
    # (y: float self of 6 elements, ind: int64 [2, 1, 0])
    "index_add_index_is_self": lambda y, ind: ind.index_add_(0, ind, ind.clone()),
    "index_put_value_is_view_of_self": lambda y, ind: y.index_put_((ind,), y[:3]),
    "index_put_scalar_value_is_view_of_self": lambda y, ind: y.index_put_((ind,), y[0]),
    "index_put_index_is_self": lambda y, ind: ind.index_put_((ind.clone(),), ind),
    "index_put_self_is_index": lambda y, ind: ind.index_put_((ind,), ind.clone()),
    "put_source_is_view_of_self": lambda y, ind: y.put_(ind, y[:3]),
    "put_index_is_self": lambda y, ind: ind.put_(ind, ind.clone()),
    "put_source_is_self": lambda y, ind: ind.put_(ind.clone(), ind),
    "index_fill_index_is_self": lambda y, ind: ind.index_fill_(0, ind, 0),
    "masked_fill_mask_overlaps_self": lambda y, ind: masked_fill_shifted(ind > 0),
}


def masked_fill_shifted(mask: torch.Tensor) -> torch.Tensor:
    """mask[1:] filled where mask[:-1] is set: the mask partly overlaps self."""
    return mask[1:].masked_fill_(mask[:-1], False)


@pytest.mark.parametrize("name", OVERLAPPING)
def test_overlapping_arguments_raise_like_cpu_at_the_call(name):
    op = OVERLAPPING[name]
    for device in ("cpu", "npu"):
        y = torch.arange(6, dtype=torch.float32, device=device)
        ind = torch.tensor([2, 1, 0], device=device)
        with pytest.raises(RuntimeError, match="unsupported operation"):
            op(y, ind)
        torch.npu.synchronize()  # nothing was queued that fails later
        assert torch.equal(y.cpu(), torch.arange(6, dtype=torch.float32))
        assert torch.equal(ind.cpu(), torch.tensor([2, 1, 0]))


@pytest.mark.parametrize("op", ["index_put_", "masked_fill_"])
def test_expanded_self_warns_like_cpu(op):
    x = torch.zeros(1, device="npu").expand(6)
    with pytest.warns(UserWarning, match=f"{op} on expanded tensors"):
        if op == "index_put_":
            x.index_put_((torch.tensor([2, 1, 0], device="npu"),), torch.ones(3, device="npu"))
        else:
            x.masked_fill_(torch.tensor([True, False] * 3, device="npu"), 1.0)
    assert x.cpu()[0].item() == 1.0


def test_fallback_op_reads_aliased_arguments_as_cpu_does():
    # torch.Tensor.put_ runs through the CPU fallback: a source that is a
    # non-overlapping view of another part of self must read self's data.
    cpu = torch.arange(8.0)
    npu = cpu.to("npu")
    index = torch.tensor([0, 1])
    cpu[:4].put_(index, cpu[4:6])
    npu[:4].put_(index.to("npu"), npu[4:6])
    assert torch.equal(npu.cpu(), cpu)


def test_index_put_values_on_another_device_raise_like_cpu_would():
    # CPU's TensorIterator refuses values on another device unless they are a
    # 0-dim CPU scalar; npu used to move them silently.
    b = torch.zeros(5, device="npu")
    idx = torch.tensor([0, 1])
    for accumulate in (False, True):
        with pytest.raises(RuntimeError, match="same device"):
            torch.index_put_(b, (idx,), torch.tensor([1.0, 2.0]), accumulate=accumulate)
    b[idx] = torch.tensor(3.0)  # a CPU scalar is fine
    assert torch.equal(b.cpu(), torch.tensor([3.0, 3.0, 0.0, 0.0, 0.0]))


@pytest.mark.parametrize("values", [[], [1.0, 2.0, 3.0]])
def test_index_put_reports_shape_before_dtype_like_cpu(values):
    for device in ("cpu", "npu"):
        a = torch.arange(0, 4, device=device)  # int64 self, float values of the wrong shape
        with pytest.raises(RuntimeError, match="shape mismatch"):
            a[a > -1] = torch.tensor(values).to(device)
