"""torch_npu.contrib.function / contrib.module and torch_npu._inductor on
npu-emu's own module: the plain-PyTorch-expressible names against
references written from their documented semantics, the Ascend-only ones
refused by name."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import npu_emu  # noqa: F401
import torch_npu
from npu_emu.npu.not_supported import NpuEmuNotSupportedError


def _boxes_xyxy(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    low = torch.randint(0, 50, (n, 2), generator=g).float()
    return torch.cat([low, low + torch.randint(1, 40, (n, 2), generator=g).float()], dim=1)


def _pair_iou(a: list[float], b: list[float]) -> tuple[float, float]:
    """(overlap, union) of two (x1, y1, x2, y2) boxes, one pair at a time."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    overlap = w * h
    return overlap, (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - overlap


@pytest.mark.parametrize("mode", ["iou", "ptiou"])
def test_npu_iou_every_pair(mode):
    from torch_npu.contrib.function import npu_iou

    b1, b2 = _boxes_xyxy(5, 0), _boxes_xyxy(3, 1)
    out = npu_iou(b1.npu(), b2.npu(), mode=mode).cpu()
    assert out.shape == (5, 3) and out.dtype == torch.float32
    for i in range(5):
        for j in range(3):
            overlap, union = _pair_iou(b1[i].tolist(), b2[j].tolist())
            expected = (overlap + 0.001) / (union + 0.001) if mode == "iou" else overlap / (union + 0.001)
            assert out[i, j].item() == pytest.approx(expected, rel=1e-5)
    scaled = npu_iou((b1 / 100).npu(), (b2 / 100).npu(), mode=mode, is_normalized=True, normalized_scale=100.0)
    torch.testing.assert_close(scaled.cpu(), out, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="mode must be one of 'iou', 'ptiou'"):
        npu_iou(b1.npu(), b2.npu(), mode="giou")


def test_npu_giou_matches_formula_and_has_gradients():
    from torch_npu.contrib.function import npu_giou

    centres = torch.tensor([[0.0, 0.0, 10.0, 10.0], [10.0, 10.0, 20.0, 20.0], [32.0, 32.0, 6.0, 10.0]])
    others = torch.tensor([[0.0, 0.0, 10.0, 20.0], [0.0, 10.0, 10.0, 10.0], [10.0, 10.0, 20.0, 20.0]])
    x = centres.npu().requires_grad_()
    out = npu_giou(x, others.npu())
    assert out.shape == (3, 1)
    for i in range(3):
        a = [centres[i, 0] - centres[i, 2] / 2, centres[i, 1] - centres[i, 3] / 2,
             centres[i, 0] + centres[i, 2] / 2, centres[i, 1] + centres[i, 3] / 2]
        b = [others[i, 0] - others[i, 2] / 2, others[i, 1] - others[i, 3] / 2,
             others[i, 0] + others[i, 2] / 2, others[i, 1] + others[i, 3] / 2]
        a, b = [float(v) for v in a], [float(v) for v in b]
        overlap, union = _pair_iou(a, b)
        enclosing = (max(a[2], b[2]) - min(a[0], b[0])) * (max(a[3], b[3]) - min(a[1], b[1]))
        assert out[i, 0].item() == pytest.approx(overlap / union - (enclosing - union) / enclosing, rel=1e-5)
    out.sum().backward()
    assert x.grad is not None and x.grad.device.type == "npu" and torch.isfinite(x.grad.cpu()).all()


def test_tensor_helpers_match_plain_pytorch():
    from torch_npu.contrib.function import matmul_transpose, npu_fast_condition_index_put, roll

    x = torch.randn(2, 5, 6, 3)
    torch.testing.assert_close(roll(x.npu(), shifts=(-2, 3), dims=(1, 2)).cpu(), torch.roll(x, (-2, 3), (1, 2)))
    with pytest.raises(ValueError, match=r"dims must be \(1, 2\)"):
        roll(x.npu(), shifts=(1, 1), dims=(0, 3))
    a, b = torch.randn(3, 4, 5), torch.randn(3, 6, 5)
    torch.testing.assert_close(matmul_transpose(a.npu(), b.npu()).cpu(), a @ b.transpose(-2, -1))
    cond = x > 0.5
    out = npu_fast_condition_index_put(x.npu(), cond.npu(), 7.0).cpu()
    assert torch.equal(out, torch.where(cond, torch.full_like(x, 7.0), x))
    with pytest.raises(TypeError, match="condition must be torch.bool"):
        npu_fast_condition_index_put(x.npu(), cond.int().npu(), 1.0)


def test_fuse_add_softmax_dropout_without_dropout():
    from torch_npu.contrib.function import fuse_add_softmax_dropout

    scores, mask = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 4, 8)
    out = fuse_add_softmax_dropout(False, torch.nn.Dropout(0.5).eval(), mask.npu(), scores.npu(), 16)
    torch.testing.assert_close(out.cpu(), F.softmax(mask + scores / math.sqrt(16), dim=-1))


def test_modules_match_plain_pytorch():
    from torch_npu.contrib.module import (BiLSTM, ChannelShuffle, FastBatchNorm2d, Focus,
                                          LabelSmoothingCrossEntropy, Mish, NpuDropPath, SiLU, Swish)

    x = torch.randn(4, 6, 8, 8)
    torch.testing.assert_close(Mish()(x.npu()).cpu(), F.mish(x))
    torch.testing.assert_close(SiLU()(x.npu()).cpu(), F.silu(x))
    assert Swish is SiLU
    # Channels 0..5 of cat(x1, x2) in 2 groups of 3 interleave as 0 3 1 4 2 5.
    x1, x2 = x[:, :3], x[:, 3:]
    first, second = ChannelShuffle(6, groups=2)(x1.npu(), x2.npu())
    assert torch.equal(torch.cat([first, second], 1).cpu(), x[:, [0, 3, 1, 4, 2, 5]])
    assert torch.equal(ChannelShuffle(6, 2, split_shuffle=False)(x1.npu(), x2.npu()).cpu(), x[:, [0, 3, 1, 4, 2, 5]])

    pred, target = torch.randn(5, 10), torch.tensor([1, 0, 9, 3, 3])
    smooth = LabelSmoothingCrossEntropy(num_classes=10, smooth_factor=0.1)
    dist = torch.full((5, 10), 0.1 / 9).scatter_(1, target[:, None], 0.9)
    expected = -(dist * pred.log_softmax(1)).sum(1).mean()
    assert smooth(pred.npu(), target.npu()).item() == pytest.approx(expected.item(), rel=1e-5)

    focus = Focus(6, 4, k=3)
    focus.eval()
    cpu_focus = Focus(6, 4, k=3)
    cpu_focus.load_state_dict(focus.state_dict())
    cpu_focus.eval()
    torch.testing.assert_close(focus.npu()(x.npu()).cpu(), cpu_focus(x), rtol=1e-4, atol=1e-5)
    assert "conv.conv.weight" in focus.state_dict() and "conv.bn.running_mean" in focus.state_dict()

    bn = FastBatchNorm2d(6).npu()
    bn(x.npu())
    assert bn.num_batches_tracked.dtype == torch.int32 and bn.num_batches_tracked.item() == 1

    drop = NpuDropPath(0.5)
    drop.eval()
    assert drop(x.npu()) is not None and torch.equal(drop(x.npu()).cpu(), x)
    drop.train()
    NpuDropPath.enable_droppath_ensemble(nn.Sequential(drop))
    assert isinstance(NpuDropPath.droppath_stream, torch.npu.Stream)
    kept = drop(x.npu()).cpu()
    for i in range(4):  # each sample is dropped whole or scaled by 1 / keep_prob
        assert torch.equal(kept[i], torch.zeros_like(x[i])) or torch.allclose(kept[i], x[i] * 2)

    seq = torch.randn(7, 2, 5)
    lstm = BiLSTM(5, 3)
    out = lstm.npu()(seq.npu()).cpu()
    lstm_cpu = BiLSTM(5, 3)
    lstm_cpu.load_state_dict({k: v.cpu() for k, v in lstm.state_dict().items()})
    fw, _ = lstm_cpu.fw_rnn(seq)
    bw, _ = lstm_cpu.bw_rnn(seq.flip(0))
    torch.testing.assert_close(out, torch.cat([fw, bw.flip(0)], 2), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("path,name,args", [
    ("torch_npu.contrib.module", "ROIAlign", ((7, 7), 1.0, 0)),
    ("torch_npu.contrib.module", "DCNv2", (4, 4, 3)),
    ("torch_npu.contrib.module", "LinearWeightQuant", (4, 4)),
    ("torch_npu.contrib.module", "MultiheadAttention", (8, 2)),
    ("torch_npu.contrib.function", "npu_multiclass_nms", (torch.zeros(1, 4),)),
    ("torch_npu.contrib.function", "npu_bbox_coder_encode_xyxy2xywh", (torch.zeros(1, 4), torch.zeros(1, 4))),
])
def test_ascend_only_names_are_refused_by_name(path, name, args):
    import importlib

    target = getattr(importlib.import_module(path), name)
    with pytest.raises(NpuEmuNotSupportedError, match=rf"torch_npu\.contrib\.\w+\.{name} .*not supported by npu-emu"):
        target(*args)


def test_contrib_exports_torch_npus_names():
    import torch_npu.contrib.function as function
    import torch_npu.contrib.module as module

    for mod in (function, module):
        missing = [n for n in mod.__all__ if not hasattr(mod, n)]
        assert not missing
    assert torch_npu.contrib.npu_iou is function.npu_iou and torch_npu.contrib.Mish is module.Mish
    from torch_npu.contrib.module.channel_shuffle import ChannelShuffle
    assert ChannelShuffle is module.ChannelShuffle


def test_inductor_import_warns_and_compile_refuses_clearly():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import importlib
        import sys
        sys.modules.pop("torch_npu._inductor", None)
        sys.modules.pop("npu_emu.torch_npu_compat._inductor", None)
        inductor = importlib.import_module("torch_npu._inductor")
    assert any("torch.compile(backend='inductor') is not supported on npu" in str(w.message) for w in caught)
    with pytest.raises(NpuEmuNotSupportedError, match=r"torch_npu\._inductor\.config is not supported by npu-emu"):
        inductor.config  # noqa: B018

    def f(x):
        return torch.sin(x) * 2 + 1

    x = torch.randn(8, device="npu")
    torch.testing.assert_close(torch.compile(f, backend="eager")(x).cpu(), f(x.cpu()))
