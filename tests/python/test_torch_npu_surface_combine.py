"""torch_npu.utils.npu_combine_tensors / get_part_combined_tensor /
is_combined_tensor_valid on npu-emu's module: tensors become views of one
flat buffer, so an update of the buffer is an update of every tensor."""

from __future__ import annotations

import pytest
import torch

import npu_emu  # noqa: F401
from torch_npu.utils import get_part_combined_tensor, is_combined_tensor_valid, npu_combine_tensors


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_combined_buffer_aliases_every_tensor(dtype):
    cpu = [torch.randn(2, 3).to(dtype), torch.randn(4).to(dtype), torch.randn(3, 1, 2).to(dtype)]
    tensors = [t.npu() for t in cpu]
    combined = npu_combine_tensors(tensors)
    assert combined.shape == (6 + 4 + 6,) and combined.dtype == dtype
    assert torch.equal(combined.cpu(), torch.cat([t.reshape(-1) for t in cpu]))
    assert is_combined_tensor_valid(combined, tensors)
    combined.mul_(2)  # one update reaches every tensor
    for t, c in zip(tensors, cpu):
        assert t.shape == c.shape and torch.equal(t.cpu(), c * 2)
    part = get_part_combined_tensor(combined, 6, 4)
    part.add_(1)
    assert torch.equal(tensors[1].cpu(), cpu[1] * 2 + 1)
    with pytest.raises(RuntimeError, match=r"\(index \+ size\) \(17\) > torch_npu.get_storage_size"):
        get_part_combined_tensor(combined, 13, 4)


def test_combine_without_copy_and_edge_cases():
    a, b = torch.ones(3, device="npu"), torch.ones(2, 2, device="npu")
    combined = npu_combine_tensors([a, b], require_copy_value=False)
    assert torch.equal(a.cpu(), torch.zeros(3)) and torch.equal(combined.cpu(), torch.zeros(7))
    assert npu_combine_tensors([]) is None
    assert get_part_combined_tensor(None, 0, 4) is None
    assert not is_combined_tensor_valid(combined, [torch.ones(1, device="npu")])
    with pytest.raises(RuntimeError, match="same dtype"):
        npu_combine_tensors([torch.ones(2, device="npu"), torch.ones(2, device="npu", dtype=torch.float16)])
    with pytest.raises(RuntimeError, match="must be on NPU, got cpu"):
        npu_combine_tensors([torch.ones(2)])
    with pytest.raises(RuntimeError, match="contiguous"):
        npu_combine_tensors([torch.ones(2, 3, device="npu").t()])
