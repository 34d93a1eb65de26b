"""torch_npu's `assertRtolEqual` rule, as a plain function.

The rule (torch_npu's documented test semantics): two results match when every
element is within `prec` absolutely, or every element within `prec` relative to
the larger magnitude of the pair; failing both, they still match when no more
than `prec * numel` elements miss either bound. float16 uses `prec16` and a
smaller denominator guard; bfloat16 pairs use allclose(rtol=atol=prec16); bool
and integer results compare with the same rule (bool exactly). NaNs must sit at
the same positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Number
from typing import Any

import numpy as np
import torch

# Added to the denominator of the relative error so that zeros divide safely.
_GUARD = 1e-9
_GUARD_FLOAT16 = 6e-8
_ACCEPTED = (np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64,
             np.float16, np.float32, np.float64)


class RtolMismatch(AssertionError):
    """Raised by check_rtol_equal; its text names what differs."""


def _to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _check_arrays(x: np.ndarray, y: np.ndarray, prec: float, prec16: float) -> None:
    if x.shape != y.shape:
        raise RtolMismatch(f"shape error: {x.shape} vs {y.shape}")
    if x.dtype != y.dtype:
        raise RtolMismatch(f"dtype error: {x.dtype} vs {y.dtype}")
    if x.dtype.type not in _ACCEPTED:
        raise RtolMismatch(f"dtype {x.dtype} is not compared; accepted dtypes are "
                           + ", ".join(np.dtype(t).name for t in _ACCEPTED))
    if x.dtype == np.bool_:
        if not np.array_equal(x, y):
            raise RtolMismatch(f"bool results differ at {int(np.sum(x != y))} of {x.size} elements")
        return
    bound, guard = (prec16, _GUARD_FLOAT16) if x.dtype == np.float16 else (prec, _GUARD)
    xf = x.astype(np.float64)
    yf = y.astype(np.float64)
    x_nan, y_nan = np.isnan(xf), np.isnan(yf)
    if not np.array_equal(x_nan, y_nan):
        raise RtolMismatch("NaNs are not at the same positions")
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(x_nan, 0.0, np.abs(yf - xf))
        rel = err / (np.maximum(np.abs(xf), np.abs(yf)) + guard)
    abs_miss = int(np.sum(~(err <= bound)))
    rel_miss = int(np.sum(~(rel <= bound)))
    allowed = x.size * bound
    if abs_miss and rel_miss and abs_miss > allowed and rel_miss > allowed:
        raise RtolMismatch(f"result error: {rel_miss} of {x.size} elements differ by more than {bound} relatively "
                           f"and {abs_miss} absolutely (max abs error {np.nanmax(err) if err.size else 0.0})")


def check_rtol_equal(x: Any, y: Any, prec: float = 1e-4, prec16: float = 1e-3,
                     auto_trans_dtype: bool = False) -> None:
    """Raises RtolMismatch unless `x` and `y` match under torch_npu's rule.
    Accepts tensors (any device), numpy arrays, numbers and sequences of them."""
    if isinstance(x, Sequence) and isinstance(y, Sequence) and not isinstance(x, str):
        if len(x) != len(y):
            raise RtolMismatch(f"sequence lengths differ: {len(x)} vs {len(y)}")
        for a, b in zip(x, y):
            check_rtol_equal(a, b, prec, prec16, auto_trans_dtype)
        return
    if isinstance(x, torch.Tensor) and isinstance(y, Sequence):
        y = torch.as_tensor(y, dtype=x.dtype)
    elif isinstance(x, Sequence) and isinstance(y, torch.Tensor):
        x = torch.as_tensor(x, dtype=y.dtype)
    if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
        if auto_trans_dtype:
            x = x.to(y.dtype)
        if x.dtype == torch.bfloat16 and y.dtype == torch.bfloat16:
            if x.shape != y.shape:
                raise RtolMismatch(f"shape error: {tuple(x.shape)} vs {tuple(y.shape)}")
            if not torch.allclose(x.detach().cpu(), y.detach().cpu(), rtol=prec16, atol=prec16):
                raise RtolMismatch(f"bfloat16 results differ by more than {prec16}")
            return
    elif isinstance(x, Number) and isinstance(y, Number):
        pass
    _check_arrays(_to_numpy(x), _to_numpy(y), prec, prec16)
