"""The real torch_npu's npu_fusion_attention with dropout (keep_prob < 1),
sparse_mode 4 and pse on the CANN stand-in: torch_npu draws the keep mask
with aclnnDropoutGenMaskV2 and hands it to aclnnFlashAttentionScore(/Grad),
whose forward and backward are checked against a float64 reference that uses
the same mask (read back from the op with V = identity under the same
generator state, which gives the same seed/offset)."""

from __future__ import annotations

import torch
import torch_npu


def _rand(*shape, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).float()


def _keep_mask(b, n, s1, s2, keep_prob, seed):
    q, k = (_rand(b, n, s1, s2, seed=1) * 0.1).npu(), (_rand(b, n, s2, s2, seed=2) * 0.1).npu()
    v = torch.eye(s2).expand(b, n, s2, s2).contiguous().npu()
    torch.npu.manual_seed(seed)
    out, *_, seed_out, offset_out, numels = torch_npu.npu_fusion_attention(q, k, v, n, "BNSD", scale=1.0,
                                                                          keep_prob=keep_prob)
    return out.cpu() != 0, (seed_out, offset_out, numels)


def test_dropout_sparse_mode_4_and_pse_forward_backward():
    b, n, s1, s2, d, keep_prob, scale = 1, 2, 6, 16, 8, 0.7, 0.3
    keep, philox = _keep_mask(b, n, s1, s2, keep_prob, seed=21)
    assert philox[2] == b * n * s1 * s2
    q, k, v = _rand(b, n, s1, d, seed=3), _rand(b, n, s2, d, seed=4), _rand(b, n, s2, d, seed=5)
    pse, grad = _rand(1, n, s1, s2, seed=6), _rand(b, n, s1, d, seed=7)
    pre, nxt = 5, 1
    compressed = torch.ones(2048, 2048, dtype=torch.bool).triu(1)
    leaves = [t.npu().requires_grad_() for t in (q, k, v, pse)]
    torch.npu.manual_seed(21)
    out, *_, seed, offset, numels = torch_npu.npu_fusion_attention(
        leaves[0], leaves[1], leaves[2], n, "BNSD", pse=leaves[3], atten_mask=compressed.npu(), scale=scale,
        keep_prob=keep_prob, pre_tockens=pre, next_tockens=nxt, sparse_mode=4)
    assert (seed, offset, numels) == philox
    out.backward(grad.npu())

    refs = [t.double().requires_grad_() for t in (q, k, v, pse)]
    i, j = torch.arange(s1).unsqueeze(1), torch.arange(s2).unsqueeze(0)
    hidden = (j > i + (s2 - s1) + nxt) | (j < i + (s2 - s1) - pre)
    scores = ((refs[0] @ refs[1].transpose(-1, -2) + refs[3]) * scale).masked_fill(hidden, float("-inf"))
    expected = (torch.softmax(scores, -1) * keep.double() / keep_prob) @ refs[2]
    expected.backward(grad.double())
    torch.testing.assert_close(out.detach().cpu().double(), expected.detach(), rtol=1e-4, atol=1e-5)
    for got, want in zip(leaves, refs):
        torch.testing.assert_close(got.grad.cpu().double(), want.grad, rtol=1e-4, atol=1e-5)
