"""torch_npu.testing.testcase: the base class of torch_npu's unit tests.

`assertEqual(x, y, prec)` is torch_npu's absolute-tolerance comparison (not
PyTorch's rtol/atol one) and `assertRtolEqual` its mixed relative/absolute rule
(see rtol.py). `setUpClass` selects the device named by SET_NPU_DEVICE (default
npu:0); `setUp` seeds torch and random with SEED (default 666).
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
import unittest
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from numbers import Number
from typing import Any

import expecttest
import numpy as np
import torch

from npu_emu.torch_npu_compat.testing.common_utils import is_iterable, set_npu_device
from npu_emu.torch_npu_compat.testing.rtol import RtolMismatch, check_rtol_equal

__all__ = ["TestCase", "run_tests"]


def run_tests() -> None:
    """Runs the calling module's tests with unittest (the command line picks tests)."""
    unittest.main(argv=sys.argv)


class TestCase(expecttest.TestCase):
    _precision = 1e-5
    maxDiff = None
    exact_dtype = False

    @property
    def precision(self) -> float:
        return self._precision

    @precision.setter
    def precision(self, prec: float) -> None:
        self._precision = prec

    @classmethod
    def setUpClass(cls) -> None:
        cls.npu_device = set_npu_device()

    def setUp(self) -> None:
        seed = int(os.getenv("SEED", "666"))
        torch.manual_seed(seed)
        random.seed(seed)

    # -- torch_npu's comparisons ------------------------------------------------

    def assertRtolEqual(self, x: Any, y: Any, prec: float = 1e-4, prec16: float = 1e-3,
                        auto_trans_dtype: bool = False, message: str | None = None) -> None:
        try:
            check_rtol_equal(x, y, prec, prec16, auto_trans_dtype)
        except RtolMismatch as err:
            self.fail(f"{message}: {err}" if message else str(err))

    def assertEqual(self, x: Any, y: Any, prec: float | str | None = None, message: str = "",
                    allow_inf: bool = False, exact_dtype: bool | None = None) -> None:
        if isinstance(prec, str) and not message:
            prec, message = None, prec
        tolerance = self.precision if prec is None else float(prec)
        exact = self.exact_dtype if exact_dtype is None else exact_dtype
        self._assert_close(x, y, tolerance, message, allow_inf, exact)

    def assertAlmostEqual(self, x: Any, y: Any, places: int | None = None, msg: str | None = None,
                          delta: float | None = None, allow_inf: bool | None = None) -> None:
        prec = 10 ** (-places) if places else delta
        self.assertEqual(x, y, prec, msg or "", bool(allow_inf))

    def assertNotEqual(self, x: Any, y: Any, prec: float | str | None = None, message: str = "") -> None:
        if isinstance(prec, str) and not message:
            prec, message = None, prec
        tolerance = self.precision if prec is None else float(prec)
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.size() != y.size():
                return
            self.assertGreater(x.numel(), 0)
            diff = self._abs_diff(x.detach().cpu(), y.detach().cpu().to(x.dtype))
            if diff is not None:
                self.assertGreaterEqual(diff.max().item(), tolerance, message)
            return
        if isinstance(x, Number) and isinstance(y, Number):
            self.assertGreaterEqual(abs(x - y), tolerance, message)
            return
        super().assertNotEqual(x, y, message)

    def assertTensorsSlowEqual(self, x: torch.Tensor, y: torch.Tensor, prec: float | None = None,
                               message: str = "") -> None:
        """Same size and every element within `prec` (default: self.precision),
        compared one by one in float64 on the CPU."""
        unittest.TestCase.assertEqual(self, x.size(), y.size(), message)
        a = x.detach().cpu().to(torch.float64).reshape(-1).tolist()
        b = y.detach().cpu().to(torch.float64).reshape(-1).tolist()
        tolerance = self.precision if prec is None else prec
        worst = max((abs(p - q) for p, q in zip(a, b)), default=0.0)
        self.assertLessEqual(worst, tolerance, message)

    def assertObjectIn(self, obj: Any, iterable: Any) -> None:
        if not any(elem is obj for elem in iterable):
            raise AssertionError("object not found in iterable")

    def assertExpectedRaises(self, exc_type: type[BaseException], call_fn: Callable[..., Any],
                             *args: Any, **kwargs: Any) -> None:
        subname = kwargs.pop("subname", None)
        try:
            call_fn(*args, **kwargs)
        except exc_type as err:
            self.assertExpected(str(err), subname)
            return
        self.fail("Did not raise when expected to")

    def assertNotWarn(self, call_fn: Callable[[], Any], msg: str = "") -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call_fn()
        self.assertTrue(len(caught) == 0, msg)

    def assertWarns(self, call_fn: Any, msg: str = "") -> Any:  # type: ignore[override]
        # torch_npu's form takes a callable; unittest's form (an exception
        # class, usable as a context manager) still works.
        if isinstance(call_fn, type) and issubclass(call_fn, Warning):
            return super().assertWarns(call_fn, msg) if msg else super().assertWarns(call_fn)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call_fn()
        self.assertTrue(len(caught) > 0, msg)
        return None

    @contextlib.contextmanager
    def maybeWarnsRegex(self, category: type[Warning], regex: str = "") -> Iterator[None]:
        """Fails on any warning except the expected `category`/`regex` ones."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", message=regex, category=category)
            yield
        if caught:
            self.fail("Caught unexpected warnings:\n" + "\n".join(
                warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line) for w in caught))

    # -- helpers ----------------------------------------------------------------

    @staticmethod
    def _abs_diff(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor | None:
        """|a - b| with NaN pairs as 0, or None when the NaN positions differ."""
        if a.dtype == torch.bool:
            a, b = a.to(torch.int32), b.to(torch.int32)
        if a.dtype in (torch.float16, torch.bfloat16):
            a, b = a.float(), b.float()
        if a.dtype.is_floating_point or a.dtype.is_complex:
            nan = torch.isnan(a)
            if not torch.equal(nan, torch.isnan(b)):
                return None
            diff = (a - b).abs()
            diff[nan] = 0
            return diff.real if diff.is_complex() else diff
        if not a.dtype.is_signed and a.dtype != torch.bool:
            a, b = a.to(torch.int64), b.to(torch.int64)
        return (a - b).abs()

    def _assert_tensors_close(self, x: torch.Tensor, y: torch.Tensor, prec: float, message: str,
                              allow_inf: bool, exact_dtype: bool) -> None:
        unittest.TestCase.assertEqual(self, x.size(), y.size(), message)
        if exact_dtype:
            unittest.TestCase.assertEqual(self, x.dtype, y.dtype, message)
        if (x.dtype == torch.bool) != (y.dtype == torch.bool):
            raise TypeError("Was expecting both tensors to be bool type.")
        if x.numel() == 0:
            return
        a = x.detach().cpu()
        b = y.detach().cpu().to(a.dtype)
        if allow_inf and (a.dtype.is_floating_point or a.dtype.is_complex):
            inf = torch.isinf(a)
            self.assertTrue(torch.equal(inf, torch.isinf(b)) and torch.equal(a[inf], b[inf]), message)
            a, b = a.clone(), b.clone()
            a[inf] = 0
            b[inf] = 0
        diff = self._abs_diff(a, b)
        self.assertTrue(diff is not None, message or "NaNs are not at the same positions")
        self.assertLessEqual(diff.max().item(), prec, message)

    def _assert_close(self, x: Any, y: Any, prec: float, message: str, allow_inf: bool, exact: bool) -> None:
        if isinstance(x, torch.Tensor) and isinstance(y, Number):
            x = x.item()
        elif isinstance(y, torch.Tensor) and isinstance(x, Number):
            y = y.item()
        if isinstance(x, torch.Tensor) and isinstance(y, np.ndarray):
            y = torch.from_numpy(y)
        elif isinstance(y, torch.Tensor) and isinstance(x, np.ndarray):
            x = torch.from_numpy(x)
        if isinstance(x, Number) and isinstance(y, Number) and not isinstance(x, bool | np.bool_):
            if abs(x) == float("inf") or abs(y) == float("inf"):
                if not allow_inf:
                    self.fail(f"Expected finite numeric values - x={x}, y={y}")
                unittest.TestCase.assertEqual(self, x, y, message)
                return
            unittest.TestCase.assertLessEqual(self, abs(x - y), prec, message)
        elif isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            self._assert_tensors_close(x, y, prec, message, allow_inf, exact)
        elif isinstance(x, (str, bytes, set, np.bool_, bool)) or isinstance(y, (str, bytes, set, np.bool_, bool)):
            unittest.TestCase.assertEqual(self, x, y, message)
        elif isinstance(x, dict) and isinstance(y, dict):
            if isinstance(x, OrderedDict) and isinstance(y, OrderedDict):
                self._assert_close(list(x.items()), list(y.items()), prec, message, allow_inf, exact)
            else:
                unittest.TestCase.assertEqual(self, set(x), set(y), message)
                for key in x:
                    self._assert_close(x[key], y[key], prec, message, allow_inf, exact)
        elif is_iterable(x) and is_iterable(y) and not isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor):
            x_items, y_items = list(x), list(y)
            unittest.TestCase.assertEqual(self, len(x_items), len(y_items), message)
            for a, b in zip(x_items, y_items):
                self._assert_close(a, b, prec, message, allow_inf, exact)
        else:
            unittest.TestCase.assertEqual(self, x, y, message)
