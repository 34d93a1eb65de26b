"""torch.npu: the device module of the npu backend (torch_npu's names)."""

from npu_emu.npu import config
from npu_emu.npu.compile_mode import is_jit_compile_false, set_compile_mode
from npu_emu.npu.device import (
    NPUDeviceProperties,
    _lazy_init,
    can_device_access_peer,
    current_device,
    device,
    device_count,
    device_of,
    get_device_capability,
    get_device_name,
    get_device_properties,
    init,
    is_available,
    is_initialized,
    mem_get_info,
    set_device,
    synchronize,
)
from npu_emu.npu.streams import Event, ExternalStream, Stream, current_stream, default_stream, set_stream, stream

__all__ = [
    "Event", "ExternalStream", "NPUDeviceProperties", "Stream", "can_device_access_peer", "config",
    "current_device", "current_stream", "default_stream", "device", "device_count", "device_of",
    "get_device_capability", "get_device_name", "get_device_properties", "init", "is_available",
    "is_initialized", "is_jit_compile_false", "mem_get_info", "set_compile_mode", "set_device", "set_stream",
    "stream", "synchronize", "_lazy_init",
]

from npu_emu.npu.memory import (  # noqa: E402
    caching_allocator_alloc,
    caching_allocator_delete,
    empty_cache,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)
from npu_emu.npu import memory  # noqa: E402

__all__ += ["memory"] + memory.__all__

from npu_emu.npu.fork import _is_in_bad_fork  # noqa: E402  (torch.manual_seed asks torch.npu)
from npu_emu.npu.random import (  # noqa: E402
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from npu_emu.npu import random  # noqa: E402

__all__ += ["random"] + [n for n in random.__all__ if n != "default_generators"]

from npu_emu.npu import amp  # noqa: E402
from npu_emu.npu.amp import (  # noqa: E402
    get_amp_supported_dtype,
    get_autocast_dtype,
    is_autocast_enabled,
    is_bf16_supported,
    set_autocast_dtype,
    set_autocast_enabled,
)

__all__ += ["amp", "get_amp_supported_dtype", "get_autocast_dtype", "is_autocast_enabled", "is_bf16_supported",
            "set_autocast_dtype", "set_autocast_enabled"]

from npu_emu.npu import storage as _storage  # noqa: E402
from npu_emu.npu.storage import *  # noqa: E402,F401,F403  (torch.npu.FloatStorage ...)

__all__ += _storage.__all__


from npu_emu.npu import utils  # noqa: E402
from npu_emu.npu.utils import *  # noqa: E402,F401,F403  (StreamContext, get_cann_version, ...)
from npu_emu.npu import tensor_types as _tensor_types  # noqa: E402
from npu_emu.npu.tensor_types import *  # noqa: E402,F401,F403  (torch.npu.FloatTensor ...)
from npu_emu.npu import options as _options  # noqa: E402
from npu_emu.npu.options import *  # noqa: E402,F401,F403
from npu_emu.npu import graphs  # noqa: E402
from npu_emu.npu.graphs import *  # noqa: E402,F401,F403
from npu_emu.npu import host_memory as _host_memory  # noqa: E402
from npu_emu.npu.host_memory import *  # noqa: E402,F401,F403
from npu_emu.npu import allocator as _allocator  # noqa: E402
from npu_emu.npu.allocator import *  # noqa: E402,F401,F403
from npu_emu.npu import hardware_only as _hardware_only  # noqa: E402
from npu_emu.npu.hardware_only import *  # noqa: E402,F401,F403
from npu_emu.npu.memory import get_per_process_memory_fraction  # noqa: E402
from npu_emu.npu.random import default_generators, get_default_generator  # noqa: E402,F401  (torch_npu's names)
from npu_emu.npu.soc_version import get_soc_version  # noqa: E402,F401
from npu_emu.npu import backends  # noqa: E402
from npu_emu.npu.backends import *  # noqa: E402,F401,F403  (SDPA switches)
from npu_emu.npu import deterministic as _deterministic  # noqa: E402
from npu_emu.npu import aclnn  # noqa: E402,F401
from npu_emu.npu.device import _get_device_index  # noqa: E402,F401
from npu_emu.npu.mstx import mstx  # noqa: E402,F401  (profiling markers: accepted, recorded nowhere)
from npu_emu.npu.deterministic import *  # noqa: E402,F401,F403
from npu_emu.npu.npurt import npurt  # noqa: E402,F401  (raw runtime calls: streams)

__all__ += sorted(set(utils.__all__ + _tensor_types.__all__ + _options.__all__ + graphs.__all__
                      + _host_memory.__all__ + _allocator.__all__ + _hardware_only.__all__
                      + _deterministic.__all__ + ["mstx", "npurt"]) - set(__all__))


def __getattr__(name: str) -> type:
    # torch.compile's inductor asks the device module for its code generators
    # (torch.npu.Scheduling, ...); npu has none yet, see npu_emu.unsupported.
    from npu_emu import unsupported

    if name in unsupported.INDUCTOR_ATTRIBUTES:
        return unsupported.inductor_attribute(name)
    raise AttributeError(f"module 'torch.npu' has no attribute {name!r}")
