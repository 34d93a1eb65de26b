"""Argument errors raise at the call that passed the argument.

An argument that is wrong before any data is read (a dtype the op does not
support, a bad shape or dim) is refused by the aclnn entry's
...GetWorkspaceSize, so the call raises CPU's exception type, nothing is
queued, and the stream stays usable: a later, unrelated op and a synchronize
raise nothing. Only errors that depend on tensor contents (an index out of
range) surface later, at the next synchronization of the stream that ran
the op, naming that op.

The kernel delay makes a task that was queued (instead of refused) still be
pending when the call returns, so "raised at the call" is observable.
"""

from __future__ import annotations

from typing import Callable

import pytest
import torch

ARGUMENT_ERRORS: dict[str, Callable[[str], object]] = {
    "arange_complex64": lambda d: torch.arange(5, dtype=torch.complex64, device=d),
    "arange_bool": lambda d: torch.arange(5, dtype=torch.bool, device=d),
    "arange_out_complex64": lambda d: torch.arange(0, 3, out=torch.empty(0, dtype=torch.complex64, device=d)),
    "linspace_bool": lambda d: torch.linspace(0, 1, 5, dtype=torch.bool, device=d),
    "arange_zero_step": lambda d: torch.arange(0, 5, 0, device=d),
    "arange_wrong_sign": lambda d: torch.arange(0, 5, -1, device=d),
    "linspace_negative_steps": lambda d: torch.linspace(0, 1, -1, device=d),
    "bitwise_not_float": lambda d: torch.ones(3, device=d).bitwise_not(),
    "round_decimals_int": lambda d: torch.ones(3, dtype=torch.long, device=d).round(decimals=2),
    "amax_complex": lambda d: torch.ones(3, dtype=torch.complex64, device=d).amax(),
    "sort_complex": lambda d: torch.ones(3, dtype=torch.complex64, device=d).sort(),
    "topk_k_too_large": lambda d: torch.ones(3, device=d).topk(5),
    "var_int": lambda d: torch.ones(3, dtype=torch.long, device=d).var(),
    "cumsum_bad_dim": lambda d: torch.ones(3, device=d).cumsum(2),
    "gather_index_too_large": lambda d: torch.gather(torch.ones(3, 3, device=d), 1,
                                                     torch.zeros(4, 4, dtype=torch.long, device=d)),
    "index_select_bad_dim": lambda d: torch.index_select(torch.ones(3, device=d), 3,
                                                         torch.zeros(1, dtype=torch.long, device=d)),
    "flip_repeated_dim": lambda d: torch.ones(3, 3, device=d).flip([0, 0]),
    "cat_mismatched_shapes": lambda d: torch.cat([torch.ones(2, 3, device=d), torch.ones(2, 4, device=d)]),
    "normal_long": lambda d: torch.empty(3, dtype=torch.long, device=d).normal_(),
    "uniform_bool": lambda d: torch.empty(3, dtype=torch.bool, device=d).uniform_(),
    "rand_long": lambda d: torch.rand(3, dtype=torch.long, device=d),
    "random_complex": lambda d: torch.empty(3, dtype=torch.complex64, device=d).random_(),
    "randperm_bool": lambda d: torch.randperm(4, dtype=torch.bool, device=d),
    "randint_bool_out_of_bounds": lambda d: torch.randint(0, 3, (3,), dtype=torch.bool, device=d),
    "randint_int8_out_of_bounds": lambda d: torch.randint(0, 300, (3,), dtype=torch.int8, device=d),
    "random_uint8_negative_from": lambda d: torch.empty(3, dtype=torch.uint8, device=d).random_(-1, 3),
    "where_long_condition": lambda d: torch.where(torch.ones(3, dtype=torch.long, device=d),
                                                  torch.ones(3, device=d), 0.0),
}


def _cpu_exception(case: Callable[[str], object]) -> type[Exception]:
    try:
        case("cpu")
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    raise AssertionError("the case must be one CPU refuses")


@pytest.mark.parametrize("name", sorted(ARGUMENT_ERRORS))
def test_argument_error_raises_at_the_call_and_leaves_the_stream_usable(name, delay_us):
    case = ARGUMENT_ERRORS[name]
    expected = _cpu_exception(case)
    x = torch.arange(4.0, device="npu")
    torch.npu.synchronize()
    delay_us(20_000)
    with pytest.raises(expected):
        case("npu")
    # nothing of the refused op was queued: an unrelated op runs and the
    # synchronize reports nothing
    y = x * 2
    torch.npu.synchronize()
    assert y.cpu().tolist() == [0.0, 2.0, 4.0, 6.0]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.bool])
def test_unsupported_range_dtype_names_the_op_and_dtype(dtype):
    # aclnnArange lacks these dtypes: the call goes to CPU's arange, which
    # refuses them with its own error naming the op and the dtype.
    with pytest.raises(NotImplementedError) as cpu:
        torch.arange(5, dtype=dtype)
    with pytest.raises(NotImplementedError, match="arange") as npu:
        torch.arange(5, dtype=dtype, device="npu")
    assert str(cpu.value) in str(npu.value)


def test_data_dependent_error_surfaces_on_the_stream_that_ran_the_op(delay_us):
    side = torch.npu.Stream()
    x = torch.arange(4.0, device="npu")
    index = torch.tensor([7], device="npu")
    torch.npu.synchronize()
    delay_us(20_000)
    with torch.npu.stream(side):
        bad = torch.index_select(x, 0, index)  # the index's value is read only when the task runs
    unrelated = x + 1  # the current stream, untouched by the failure
    torch.npu.current_stream().synchronize()
    assert unrelated.cpu().tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match="aclnnIndexSelect"):
        side.synchronize()
    del bad
    # reported once: the stream runs the next op cleanly
    with torch.npu.stream(side):
        again = x * 3
    side.synchronize()
    torch.npu.synchronize()
    assert again.cpu().tolist() == [0.0, 3.0, 6.0, 9.0]
