"""torch_npu.contrib's modules that are plain PyTorch in effect, with the
constructor arguments and submodule/buffer names torch_npu gives them (so
their checkpoints load)."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from npu_emu.npu.error_codes import ErrCode, ops_error


class Mish(nn.Module):
    """x * tanh(softplus(x)) (torch.nn.Mish)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.mish(x)


class SiLU(nn.Module):
    """x * sigmoid(x) (torch.nn.SiLU)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


Swish = SiLU


class LabelSmoothingCrossEntropy(nn.Module):
    """Softmax cross entropy against a smoothed one-hot target (1 - smooth_factor
    on the class, smooth_factor / (num_classes - 1) elsewhere), averaged over
    the batch in float32."""

    def __init__(self, num_classes: int = 1000, smooth_factor: float = 0.0) -> None:
        super().__init__()
        if num_classes < 2:
            raise ValueError(f"LabelSmoothingCrossEntropy: num_classes must be at least 2; got {num_classes}"
                             + ops_error(ErrCode.VALUE))
        self.on_value = 1.0 - smooth_factor
        self.off_value = smooth_factor / (num_classes - 1)

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        target_dist = torch.full_like(pred, self.off_value)
        target_dist.scatter_(1, target.long().unsqueeze(1), self.on_value)
        loss = -(target_dist * F.log_softmax(pred, dim=1)).sum(dim=1)
        return loss.mean(dim=0, dtype=torch.float32)


class ChannelShuffle(nn.Module):
    """Concatenates x1 and x2 on the channels (together `in_channels`) and
    interleaves the `groups` channel groups; split_shuffle returns the result
    as two halves."""

    def __init__(self, in_channels: int, groups: int = 2, split_shuffle: bool = True) -> None:
        super().__init__()
        if groups < 1 or in_channels % groups:
            raise ValueError(f"ChannelShuffle: in_channels ({in_channels}) must be a multiple of groups ({groups})"
                             + ops_error(ErrCode.VALUE))
        self.split_shuffle = split_shuffle
        self.group_len = in_channels // groups
        self.register_buffer("out_channels",
                             torch.arange(in_channels).reshape(groups, self.group_len).t().reshape(-1),
                             persistent=False)

    def forward(self, x1: torch.Tensor, x2: torch.Tensor):
        x = torch.cat([x1, x2], dim=1)
        order = self.out_channels.to(x.device)
        if self.split_shuffle:
            return x.index_select(1, order[:self.group_len]), x.index_select(1, order[self.group_len:])
        return x.index_select(1, order)


def _autopad(kernel, padding):
    if padding is not None:
        return padding
    return kernel // 2 if isinstance(kernel, int) else [k // 2 for k in kernel]


class _FocusConv(nn.Module):
    """Conv2d (no bias) -> BatchNorm2d -> LeakyReLU(0.1) (or identity)."""

    def __init__(self, c1: int, c2: int, k=1, s=1, p=None, g: int = 1, act: bool = True) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, _autopad(k, p), groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.LeakyReLU(0.1, inplace=True) if act else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class Focus(nn.Module):
    """YOLOv5's Focus: the four pixel-parity sub-images stacked on the channels,
    then a convolution block."""

    def __init__(self, c1: int, c2: int, k=1, s=1, p=None, g: int = 1, act: bool = True) -> None:
        super().__init__()
        self.conv = _FocusConv(c1 * 4, c2, k, s, p, g, act)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = [x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]]
        return self.conv(torch.cat(parts, dim=1))


class NpuDropPath(nn.Module):
    """Stochastic depth: in training, each sample's x is zeroed with probability
    drop_prob and the rest scaled by 1 / (1 - drop_prob)."""

    def __init__(self, drop_prob: float | None = None) -> None:
        super().__init__()
        self.drop_prob = drop_prob or 0.0
        self.keep_prob = 1 - self.drop_prob

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.drop_prob == 0.0 or not self.training:
            return x
        shape = (x.shape[0],) + (1,) * (x.dim() - 1)
        keep = torch.floor(torch.rand(shape, dtype=x.dtype, device=x.device) + self.keep_prob)
        return x.div(self.keep_prob) * keep

    # torch_npu's side stream for pre-generated masks (set by enable_droppath_ensemble).
    droppath_stream: torch.Stream | None = None

    @classmethod
    def enable_droppath_ensemble(cls, model: nn.Module) -> None:
        """torch_npu pre-generates the random masks on a side stream; npu-emu
        draws them in forward (same distribution), so this only creates the
        stream torch_npu exposes as NpuDropPath.droppath_stream."""
        if cls.droppath_stream is None:
            cls.droppath_stream = torch.npu.Stream()


class BiLSTM(nn.Module):
    """A forward and a backward single-direction LSTM over (seq, batch, input),
    outputs concatenated on the features."""

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__()
        self.fw_rnn = nn.LSTM(input_size, hidden_size, bidirectional=False)
        self.bw_rnn = nn.LSTM(input_size, hidden_size, bidirectional=False)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        forward_out, _ = self.fw_rnn(inputs)
        backward_out, _ = self.bw_rnn(torch.flip(inputs, [0]))
        return torch.cat((forward_out, torch.flip(backward_out, [0])), 2)


def _int32_batch_counter(module: nn.modules.batchnorm._BatchNorm) -> None:
    # torch_npu keeps num_batches_tracked as int32 (its checkpoints have it so).
    if module.track_running_stats:
        module.num_batches_tracked = torch.tensor(0, dtype=torch.int32)


class FastBatchNorm1d(nn.BatchNorm1d):
    """nn.BatchNorm1d with an int32 num_batches_tracked."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats)
        _int32_batch_counter(self)


class FastBatchNorm2d(nn.BatchNorm2d):
    """nn.BatchNorm2d with an int32 num_batches_tracked."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats)
        _int32_batch_counter(self)


class FastBatchNorm3d(nn.BatchNorm3d):
    """nn.BatchNorm3d with an int32 num_batches_tracked."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats)
        _int32_batch_counter(self)
