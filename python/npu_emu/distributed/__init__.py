"""Distributed training on npu: an `hccl` process group whose bytes travel
through PyTorch's gloo, with npu tensors staged through host memory.

`install()` runs at backend activation (npu_emu._backend) and registers the
`hccl` backend name for the npu device with torch.distributed."""

from npu_emu.distributed.registration import install
from npu_emu.distributed.work import HcclWorkError

__all__ = ["HcclWorkError", "install"]
