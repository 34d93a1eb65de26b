"""aclnnConstantPadNd on the real torch_npu: its hccl all_gather (and DDP's
parameter check, built on it) pads each buffer to a multiple of 512 bytes with
it, and `F.pad(mode="constant")` reaches it directly. Compared with CPU."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.int32, torch.bool])
@pytest.mark.parametrize("pad, value", [((0, 5), 0), ((2, 3), 7), ((1, -2, 0, 1), 2), ((-1, 0, 2, 2, 1, 0), 1)])
def test_constant_pad_matches_cpu(dtype, pad, value):
    x = (torch.arange(2 * 3 * 4) % 5).reshape(2, 3, 4).to(dtype)
    expected = F.pad(x, pad, mode="constant", value=value)
    got = F.pad(x.npu(), pad, mode="constant", value=value)
    assert got.dtype == expected.dtype and torch.equal(got.cpu(), expected)


def test_constant_pad_of_a_strided_view_matches_cpu():
    base = torch.arange(48.).reshape(6, 8)
    expected = F.pad(base[::2, 1::3], (1, 2, 0, 1), value=-1.5)
    assert torch.equal(F.pad(base.npu()[::2, 1::3], (1, 2, 0, 1), value=-1.5).cpu(), expected)
