"""nn.EmbeddingBag's forward on the real torch_npu (aclnnEmbeddingBag) matches
CPU in every mode. torch_npu makes the offset2bag output empty for mode sum
without padding_idx (CANN leaves it unwritten); the emulator used to fail the
asynchronous task on it, which surfaced at a later synchronize."""

import pytest
import torch
import torch_npu  # noqa: F401


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag_forward_matches_cpu(mode, padding_idx, include_last_offset):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(6, 3, mode=mode, padding_idx=padding_idx, include_last_offset=include_last_offset)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
    offsets = torch.tensor([0, 3, 5, 8]) if include_last_offset else torch.tensor([0, 3, 5])
    with torch.no_grad():
        want = bag(indices, offsets)
        got = bag.to("npu")(indices.npu(), offsets.npu())
    torch.testing.assert_close(got.cpu(), want)
    # The next synchronizing op still runs (no failed task left behind).
    assert torch.equal((torch.arange(3.).npu() + 1).cpu(), torch.arange(3.) + 1)


def test_embedding_bag_with_per_sample_weights():
    torch.manual_seed(1)
    bag = torch.nn.EmbeddingBag(5, 2, mode="sum")
    indices, offsets = torch.tensor([0, 1, 4, 2]), torch.tensor([0, 2])
    weights = torch.rand(4)
    with torch.no_grad():
        want = bag(indices, offsets, per_sample_weights=weights)
        got = bag.to("npu")(indices.npu(), offsets.npu(), per_sample_weights=weights.npu())
    torch.testing.assert_close(got.cpu(), want)
