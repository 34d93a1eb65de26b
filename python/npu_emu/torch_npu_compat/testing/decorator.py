"""torch_npu.testing.decorator: per-dtype / per-format test generation.

`@Dtypes(torch.float, torch.half)` and `@Formats(0, 3)` mark a test method;
`@instantiate_tests` on the class replaces each marked method by one test per
combination, named test_x_float32 / test_x_3 ..., passing the values to the
method's parameters whose names contain "dtype" / "format" (and
device="npu" when it has a `device` parameter)."""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["Dtypes", "Formats", "instantiate_tests"]


class Dtypes:
    def __init__(self, *args: torch.dtype) -> None:
        if not args:
            raise RuntimeError("No dtypes given")
        if not all(isinstance(arg, torch.dtype) for arg in args):
            raise RuntimeError(f"Unknown dtype in {args}")
        self.args = args

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.dtypes = self.args  # type: ignore[attr-defined]
        return fn


class Formats:
    def __init__(self, *args: int) -> None:
        if not args:
            raise RuntimeError("No formats given")
        self.args = args

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.formats = self.args  # type: ignore[attr-defined]
        return fn


def _bind(func: Callable[..., Any], name: str, kwargs: dict[str, Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def test(self: Any) -> Any:
        return func(self, **kwargs)

    test.__name__ = name
    return test


def _parameter_for(key: str, parameters: list[str]) -> str:
    matches = [p for p in parameters if key in p]
    if len(matches) != 1:
        raise RuntimeError(f"Multiple matches for {key}" if matches else f"no parameter of the test takes {key}")
    return matches[0]


def instantiate_tests(cls: type | None = None, **_: Any) -> Any:
    def expand(target: type) -> type:
        for name, func in list(vars(target).items()):
            axes = {key: getattr(func, attr) for key, attr in (("dtype", "dtypes"), ("format", "formats"))
                    if hasattr(func, attr)}
            if not axes:
                continue
            parameters = inspect.getfullargspec(func).args
            for values in itertools.product(*axes.values()):
                kwargs: dict[str, Any] = {"device": "npu"} if "device" in parameters else {}
                test_name = name
                for key, value in zip(axes, values):
                    test_name += "_" + (str(value).split(".")[1] if key == "dtype" else str(value))
                    kwargs[_parameter_for(key, parameters)] = value
                setattr(target, test_name, _bind(func, test_name, kwargs))
            delattr(target, name)
        return target

    return expand(cls) if cls is not None else expand
