"""torch_npu.contrib.transfer_to_npu: importing it makes a script written for
CUDA run on npu unchanged.

- torch.cuda.* and torch.cuda.amp.* answer with torch.npu's functions
  (is_available, device_count, synchronize, Stream, Event, memory stats,
  autocast, GradScaler ...); torch.cuda.XTensor are torch.npu's tensor types;
- device="cuda[:i]" / torch.device("cuda") given to tensor factories,
  Tensor.to/new_*/pin_memory, Module.to/to_empty, torch.load(map_location),
  torch.autocast, torch.amp.GradScaler, torch.Generator and DDP's device_ids
  name the npu device;
- Tensor.cuda / Module.cuda are .npu, Tensor.is_cuda is .is_npu;
- torch.distributed.init_process_group(backend="nccl") uses "hccl".

Unlike torch_npu, torch.cuda.DoubleTensor stays float64 (npu-emu computes in
float64). What is not rewritten: device strings built inside C++ extensions,
and CUDA-only libraries (cuDNN settings, triton, NCCL objects).
"""

from __future__ import annotations

import functools
import types
import warnings
from typing import Any

import torch

from npu_emu.torch_npu_compat.contrib.cuda_device_args import on_npu, to_npu, wrap_attributes

__all__: list[str] = []

TORCH_FACTORIES = [
    "arange", "as_tensor", "bartlett_window", "blackman_window", "empty", "empty_like", "empty_strided", "eye",
    "from_file", "full", "full_like", "hamming_window", "hann_window", "kaiser_window", "linspace", "load",
    "logspace", "normal", "ones", "ones_like", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "randperm", "range", "scalar_tensor", "set_default_device", "sparse_coo_tensor", "sparse_csr_tensor", "tensor",
    "tril_indices", "triu_indices", "zeros", "zeros_like", "get_device_module", "sparse_compressed_tensor",
    "_sparse_coo_tensor_unsafe", "_sparse_csr_tensor_unsafe",
]
TENSOR_METHODS = ["new_empty", "new_empty_strided", "new_full", "new_ones", "new_tensor", "new_zeros", "to",
                  "pin_memory"]
MODULE_METHODS = ["to", "to_empty"]
CUDA_DEVICE_FUNCTIONS = [
    "can_device_access_peer", "caching_allocator_alloc", "current_stream", "default_stream", "get_device_capability",
    "get_device_name", "get_device_properties", "get_rng_state", "max_memory_allocated", "max_memory_reserved",
    "mem_get_info", "memory_allocated", "memory_reserved", "memory_stats", "memory_summary",
    "reset_max_memory_allocated", "reset_peak_memory_stats", "set_device", "set_per_process_memory_fraction",
    "set_rng_state", "synchronize",
]
AMP_NAMES = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def _patch_torch_cuda() -> None:
    npu = torch.npu
    for name in npu.__all__:
        value = getattr(npu, name)
        # Submodules (amp, memory, random) stay torch.cuda's: PyTorch itself
        # reaches into them (torch.cuda.amp.autocast_mode ...); their public
        # functions are replaced below instead.
        if not name.startswith("_") and not isinstance(value, types.ModuleType):
            setattr(torch.cuda, name, value)
    for name in ("is_available", "device_count", "current_device", "is_initialized", "empty_cache"):
        setattr(torch.cuda, name, getattr(npu, name))
    setattr(torch.cuda, "CUDAGraph", npu.NPUGraph)
    torch.cuda.default_generators = npu.random.default_generators
    torch._C._host_emptyCache = npu.host_empty_cache
    wrap_attributes(torch.cuda, CUDA_DEVICE_FUNCTIONS)
    torch.cuda.device = _device_class(npu.device)
    import torch.cuda.amp as cuda_amp

    for name in AMP_NAMES:
        setattr(cuda_amp, name, getattr(npu.amp, name))
    for name in ("get_rng_state", "set_rng_state", "manual_seed", "manual_seed_all", "seed", "initial_seed"):
        setattr(torch.cuda.random, name, getattr(torch.cuda, name))


def _device_class(npu_device: type) -> type:
    class device(npu_device):  # noqa: N801  (torch.cuda.device)
        def __init__(self, device: Any) -> None:
            super().__init__(to_npu(device))

    return device


def _patch_tensors_and_modules() -> None:
    # `with torch.device(...)` recognises factories by identity in a cached
    # set: fill it with the original functions before they are wrapped.
    import torch.utils._device as device_context

    device_context._device_constructors()
    device_context.DeviceContext.__init__ = on_npu(device_context.DeviceContext.__init__)
    wrap_attributes(torch, TORCH_FACTORIES)
    wrap_attributes(torch.Tensor, TENSOR_METHODS)
    wrap_attributes(torch.nn.Module, MODULE_METHODS)
    wrap_attributes(torch.fft, ["fftfreq", "rfftfreq"])
    torch.Tensor.cuda = torch.Tensor.npu
    torch.Tensor.is_cuda = torch.Tensor.is_npu
    torch.nn.Module.cuda = torch.nn.Module.npu
    torch.amp.autocast_mode.autocast.__init__ = on_npu(torch.amp.autocast_mode.autocast.__init__)
    torch.amp.GradScaler.__init__ = on_npu(torch.amp.GradScaler.__init__)
    torch.is_autocast_enabled = _on_npu_default(torch.is_autocast_enabled)
    torch.get_autocast_dtype = on_npu(torch.get_autocast_dtype)
    torch.set_autocast_dtype = on_npu(torch.set_autocast_dtype)
    torch.amp.custom_fwd = on_npu(torch.amp.custom_fwd)
    torch.amp.custom_bwd = on_npu(torch.amp.custom_bwd)
    torch.Generator = _generator_class()
    torch.Event = _event_class()
    torch.nn.parallel.DistributedDataParallel.__init__ = on_npu(torch.nn.parallel.DistributedDataParallel.__init__)


def _on_npu_default(fn: Any) -> Any:
    """torch.is_autocast_enabled(): a CUDA script asking about "cuda" (or with
    no device) asks about npu."""

    @functools.wraps(fn)
    def ask_npu(*args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            return fn("npu")
        return on_npu(fn)(*args, **kwargs)

    return ask_npu


def _generator_class() -> type:
    base = torch.Generator

    class _Meta(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, obj: object) -> bool:
            return isinstance(obj, base)

    class Generator(base, metaclass=_Meta):  # type: ignore[misc,valid-type]
        def __new__(cls, device: Any = "cpu") -> Any:
            return base(to_npu(device))

    Generator.__module__ = "torch"
    return Generator


def _event_class() -> type:
    """torch.Event(device="cuda") gives an npu event: a plain torch.Event, which
    PyTorch's stream methods require (not a subclass)."""
    base = torch.Event

    class _Meta(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, obj: object) -> bool:
            return isinstance(obj, base)

    class Event(base, metaclass=_Meta):  # type: ignore[misc,valid-type]
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            args = tuple(to_npu(a) if isinstance(a, (str, torch.device)) else a for a in args)
            if "device" in kwargs:
                kwargs["device"] = to_npu(kwargs["device"])
            return base(*args, **kwargs)

    Event.__module__ = "torch"
    return Event


def _npu_backend(backend: str) -> str:
    """A process-group backend string for npu: nccl is hccl, and the device
    of a per-device form ("cuda:nccl,cpu:gloo") is npu."""
    return backend.replace("nccl", "hccl").replace("cuda:", "npu:")


def _patch_distributed() -> None:
    if not torch.distributed.is_available():
        return
    import torch.distributed as dist

    original = dist.init_process_group

    @functools.wraps(original)
    def init_process_group(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], str):
            args = (_npu_backend(args[0]),) + args[1:]
        if isinstance(kwargs.get("backend"), str):
            kwargs["backend"] = _npu_backend(kwargs["backend"])
        return on_npu(original)(*args, **kwargs)

    if not getattr(original, "_npu_emu_cuda_rewrite", False):
        init_process_group._npu_emu_cuda_rewrite = True  # type: ignore[attr-defined]
        dist.init_process_group = init_process_group
    if hasattr(dist, "is_hccl_available"):
        dist.is_nccl_available = dist.is_hccl_available


def _init() -> None:
    _patch_torch_cuda()
    _patch_tensors_and_modules()
    _patch_distributed()
    warnings.warn("torch_npu.contrib.transfer_to_npu: torch.cuda.*, device='cuda', .cuda() and torch.cuda.amp now "
                  "run on npu", RuntimeWarning, stacklevel=2)


_init()
