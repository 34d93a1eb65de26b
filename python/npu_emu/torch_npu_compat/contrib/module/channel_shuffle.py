"""torch_npu.contrib.module.channel_shuffle (torch_npu's module path)."""

from npu_emu.torch_npu_compat.contrib.module.layers import ChannelShuffle

__all__ = ["ChannelShuffle"]
