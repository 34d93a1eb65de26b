"""The argument descriptions a launch makes (aclTensor/aclScalar) stay right
when the launch path shares or reuses them.

add/sub's alpha is almost always the integer 1: dispatch describes it once
and every launch on every thread passes that one aclScalar. A scalar list
(the foreach ops' ScalarList forms) owns and destroys its scalars, so a 1 in
a list must be a description of its own: if the list destroyed the shared
one, the emulator would hand the freed description out again for the next
scalar and later `a + b` would silently add alpha * b with another alpha.
Integer results: every comparison is exact.
"""

from __future__ import annotations

import threading

import pytest
import torch

import npu_emu  # noqa: F401
from native_guard import native_only  # noqa: F401

pytestmark = pytest.mark.usefixtures("native_only")


def _operands(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-1000, 1000, (64,), generator=g, dtype=torch.int64),
            torch.randint(-1000, 1000, (64,), generator=g, dtype=torch.int64))


def _check_alpha_ops(a: torch.Tensor, b: torch.Tensor) -> None:
    na, nb = a.npu(), b.npu()
    for got, expected in (
        (na + nb, a + b),
        (torch.add(na, nb, alpha=1), torch.add(a, b, alpha=1)),
        (torch.add(na, nb, alpha=3), torch.add(a, b, alpha=3)),
        (torch.sub(na, nb), torch.sub(a, b)),
        (torch.sub(na, nb, alpha=-2), torch.sub(a, b, alpha=-2)),
        (na.add(5), a.add(5)),
    ):
        assert torch.equal(got.cpu(), expected)


def test_alpha_one_survives_scalar_lists_holding_one() -> None:
    a, b = _operands(0)
    xs = [torch.arange(8, dtype=torch.int64) + i for i in range(3)]
    for scalars in ([1, 1, 1], [1, 7, 1], [2, 1, -4]):
        got = torch._foreach_add([x.npu() for x in xs], scalars)
        for g, x, s in zip(got, xs, scalars):
            assert torch.equal(g.cpu(), x + s)
        # Scalars made after the list was destroyed take its descriptions.
        _check_alpha_ops(a, b)


def test_alpha_one_from_several_threads() -> None:
    failures: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            a, b = _operands(seed)
            for _ in range(20):
                _check_alpha_ops(a, b)
                torch._foreach_add([a.npu()], [1])
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
