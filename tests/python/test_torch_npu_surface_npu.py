"""torch.npu / torch_npu.npu names from torch_npu 2.13's torch_npu.npu.__all__
that need no hardware, and torch_npu's submodule imports."""

from __future__ import annotations

import ctypes
import importlib
import sys

import pytest
import torch

import npu_emu  # noqa: F401
import torch_npu

# torch_npu 2.13.0's torch_npu.npu.__all__ (the wheel's public names).
WHEEL_NPU_ALL = """
is_initialized init set_dump synchronize device_count can_device_access_peer set_device current_device
get_device_name get_device_properties get_device_capability mem_get_info is_available device device_of
StreamContext stream set_stream current_stream default_stream set_sync_debug_mode get_sync_debug_mode
set_task_queue_enable get_task_queue_enable init_dump utilization finalize_dump manual_seed manual_seed_all seed
seed_all initial_seed caching_allocator_alloc caching_allocator_delete get_per_process_memory_fraction
set_per_process_memory_fraction empty_cache empty_virt_addr_cache memory_stats memory_stats_as_nested_dict
reset_accumulated_memory_stats reset_peak_memory_stats reset_max_memory_allocated reset_max_memory_cached
memory_allocated max_memory_allocated memory_reserved max_memory_reserved memory_cached max_memory_cached
memory_snapshot memory_summary MemPool use_mem_pool get_allocator_backend NPUPluggableAllocator
change_current_allocator Stream Event set_option CubeMathType set_aoe set_compile_mode set_mm_bmm_format_nd
get_mm_bmm_format_nd get_npu_overflow_flag clear_npu_overflow_flag stress_detect get_rng_state set_rng_state
get_rng_state_all set_rng_state_all is_jit_compile_false get_amp_supported_dtype is_autocast_enabled
is_bf16_supported set_autocast_enabled get_autocast_dtype set_autocast_dtype BoolStorage ByteStorage ShortStorage
LongStorage IntStorage HalfStorage CharStorage DoubleStorage FloatStorage BoolTensor ByteTensor CharTensor
DoubleTensor FloatTensor HalfTensor IntTensor LongTensor ShortTensor BFloat16Tensor BFloat16Storage
current_blas_handle stop_device restart_device check_uce_in_memory config matmul conv
enable_deterministic_with_backward disable_deterministic_with_backward mstx SyncLaunchStream NPUGraph graph
graph_pool_handle is_current_stream_capturing make_graphed_callables ExternalEvent ExternalStream
graph_task_group_begin graph_task_group_end graph_task_update_begin graph_task_update_end set_device_limit
get_device_limit set_stream_limit reset_stream_limit get_stream_limit ipc_collect obfuscation_initialize
obfuscation_finalize obfuscation_calculate set_op_timeout_ms host_empty_cache host_memory_stats
host_memory_stats_as_nested_dict reset_accumulated_host_memory_stats reset_peak_host_memory_stats
set_deterministic_level use_compatible_impl are_compatible_impl_enabled NpuGraphOpHandler
register_npu_graph_handler super_kernel_scope_begin super_kernel_scope_end npurt
""".split()
# Every name is provided.
NOT_PROVIDED: set[str] = set()


def test_every_wheel_name_but_the_profiling_submodules_exists():
    missing = [n for n in WHEEL_NPU_ALL if not hasattr(torch.npu, n)]
    assert sorted(missing) == sorted(NOT_PROVIDED)
    listed = set(torch.npu.__all__)
    assert [n for n in WHEEL_NPU_ALL if n not in NOT_PROVIDED and n not in listed] == []


@pytest.mark.parametrize("name", ["torch_npu.npu", "torch_npu.npu.amp", "torch_npu.npu.utils",
                                  "torch_npu.npu.memory", "torch_npu.testing.testcase", "torch_npu.optim",
                                  "torch_npu.utils.collect_env", "torch_npu._C"])
def test_submodules_import(name):
    module = importlib.import_module(name)
    assert sys.modules[name] is module


def test_submodule_imports_are_the_device_modules_not_copies():
    import torch_npu.npu.amp
    import torch_npu.npu.utils

    assert torch_npu.npu is torch.npu
    assert torch_npu.npu.amp is torch.npu.amp
    assert torch_npu.npu.utils is torch.npu.utils
    assert torch_npu.npu.amp.GradScaler is torch.npu.amp.GradScaler


@pytest.mark.parametrize("name,dtype", [("FloatTensor", torch.float32), ("HalfTensor", torch.float16),
                                        ("LongTensor", torch.int64), ("BoolTensor", torch.bool),
                                        ("BFloat16Tensor", torch.bfloat16), ("DoubleTensor", torch.float64)])
def test_tensor_types_build_and_recognise_npu_tensors(name, dtype):
    cls = getattr(torch.npu, name)
    empty = cls(2, 3)
    assert empty.shape == (2, 3) and empty.dtype == dtype and empty.device.type == "npu"
    data = cls([1, 0, 1])
    assert torch.equal(data.cpu(), torch.tensor([1, 0, 1], dtype=dtype))
    assert isinstance(data, cls)
    assert not isinstance(data.cpu(), cls)
    assert not isinstance(torch.zeros(1, dtype=torch.int8, device="npu"), cls)
    assert data.type() == f"torch.npu.{name}"


def test_stream_context_selects_and_restores_the_stream():
    s = torch.npu.Stream()
    before = torch.npu.current_stream()
    ctx = torch.npu.StreamContext(s)
    with ctx:
        assert torch.npu.current_stream() == s
        y = torch.ones(4, device="npu") * 2
    assert torch.npu.current_stream() == before
    s.synchronize()
    assert torch.equal(y.cpu(), torch.full((4,), 2.0))
    with torch.npu.stream(None):
        assert torch.npu.current_stream() == before
    assert isinstance(torch.npu.stream(s), torch.npu.StreamContext)


def test_allocator_backend_and_fraction():
    assert torch.npu.get_allocator_backend() == "native"
    before = torch.npu.get_per_process_memory_fraction()
    torch.npu.set_per_process_memory_fraction(0.75)
    try:
        assert torch.npu.get_per_process_memory_fraction() == 0.75
    finally:
        torch.npu.set_per_process_memory_fraction(before)


def test_host_memory_stats_count_pinned_allocations():
    torch.npu.host_empty_cache()
    torch.npu.reset_peak_host_memory_stats()
    before = torch.npu.host_memory_stats()
    pinned = torch.empty(1 << 16, dtype=torch.uint8).pin_memory()
    during = torch.npu.host_memory_stats()
    assert during["active_bytes.current"] - before.get("active_bytes.current", 0) >= 1 << 16
    assert during["num_host_alloc"] > before.get("num_host_alloc", 0)
    assert torch.npu.host_memory_stats_as_nested_dict()["active_requests"]["current"] >= 1
    del pinned
    after = torch.npu.host_memory_stats()
    assert after["active_bytes.current"] == before.get("active_bytes.current", 0)
    assert after["active_bytes.peak"] >= 1 << 16


@pytest.mark.parametrize("call", [lambda: torch.npu.NPUGraph(), lambda: torch.npu.graph(None),
                                  lambda: torch.npu.make_graphed_callables(None, ()), lambda: torch.npu.MemPool(),
                                  lambda: torch.npu.stop_device(0), lambda: torch.npu.set_aoe("/tmp")])
def test_hardware_features_raise_one_clear_error(call):
    with pytest.raises(RuntimeError, match=r"(?s)not supported by npu-emu.*ERR00007 PTA feature not supported"):
        call()


def test_graph_capture_is_never_active():
    assert torch.npu.is_current_stream_capturing() is False


def test_cann_version_and_comparison():
    version = torch_npu.npu.utils.get_cann_version()
    assert version  # the stand-in's version, e.g. 9.1.0
    assert torch_npu.npu.utils._is_gte_cann_version("8.0.RC1")
    assert not torch_npu.npu.utils._is_gte_cann_version("99.0.0")
    with pytest.raises(ValueError, match="version="):
        torch_npu.npu.utils._is_gte_cann_version("latest")
    with pytest.raises(ValueError, match="module="):
        torch_npu.npu.utils.get_cann_version("GPU")


def test_options_and_hf32_switches():
    torch.npu.set_option({"MM_BMM_ND_ENABLE": "disable"})
    try:
        assert torch.npu.get_mm_bmm_format_nd() is False
    finally:
        torch.npu.set_mm_bmm_format_nd(True)
    with pytest.raises(TypeError, match="ERR00001"):
        torch.npu.set_option(["not", "a", "dict"])
    torch.npu.matmul.allow_hf32 = True
    try:
        assert torch.npu.matmul.allow_hf32 is True
    finally:
        torch.npu.matmul.allow_hf32 = False
    with pytest.raises(TypeError, match="allow_hf32 must be a bool"):
        torch.npu.conv.allow_hf32 = 1
    torch.npu.matmul.cube_math_type = torch.npu.CubeMathType.USE_HF32
    assert torch.npu.matmul.cube_math_type == torch.npu.CubeMathType.USE_HF32


def test_sync_debug_mode_round_trip_and_bad_value():
    torch.npu.set_sync_debug_mode("warn")
    try:
        assert torch.npu.get_sync_debug_mode() == 1
    finally:
        torch.npu.set_sync_debug_mode(0)
    with pytest.raises(RuntimeError, match="debug_mode"):
        torch.npu.set_sync_debug_mode("loud")


@pytest.mark.parametrize("kind", ["flash", "math", "mem_efficient"])
def test_sdp_switches_round_trip(kind):
    enable, enabled = getattr(torch.npu, f"enable_{kind}_sdp"), getattr(torch.npu, f"{kind}_sdp_enabled")
    before = enabled()
    try:
        enable(not before)
        assert enabled() is (not before)
        assert getattr(torch.backends.cuda, f"{kind}_sdp_enabled")() is (not before)
    finally:
        enable(before)


def test_default_generator_and_soc_version():
    g = torch.npu.get_default_generator(0)
    assert g is torch.npu.default_generators[0] and g.device == torch.device("npu", 0)
    torch.npu.manual_seed(5)
    assert g.initial_seed() == 5
    assert torch.npu.get_soc_version() == torch_npu._C._npu_get_soc_version() == 220


@pytest.mark.parametrize("mark,inside", [("enable", True), ("disable", False)])
def test_deterministic_with_backward_switches_in_forward_and_back_in_backward(mark, inside):
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(not inside)
    try:
        x = torch.ones(2, 2, device="npu", requires_grad=True)
        y = getattr(torch.npu, f"{mark}_deterministic_with_backward")(x * 2)
        assert torch.are_deterministic_algorithms_enabled() is inside
        assert torch.equal(y.detach().cpu(), torch.full((2, 2), 2.0))
        (y * 3).sum().backward()
        assert torch.are_deterministic_algorithms_enabled() is (not inside)
        assert torch.equal(x.grad.cpu(), torch.full((2, 2), 6.0))
    finally:
        torch.use_deterministic_algorithms(before)


def test_aclnn_allow_hf32_is_the_conv_switch():
    before = torch.npu.conv.allow_hf32
    try:
        torch.npu.conv.allow_hf32 = False
        assert torch.npu.aclnn.allow_hf32 is False
        with torch.npu.aclnn.flags(allow_hf32=True):
            assert torch.npu.conv.allow_hf32 is True and torch.npu.aclnn.allow_hf32 is True
        assert torch.npu.conv.allow_hf32 is False
    finally:
        torch.npu.conv.allow_hf32 = before


def test_mstx_markers_are_accepted_with_range_ids():
    first = torch.npu.mstx.range_start("step")
    second = torch.npu.mstx.range_start("step")
    assert first > 0 and second != first
    torch.npu.mstx.range_end(first)
    pushed = torch.npu.mstx.range_push("outer")
    assert torch.npu.mstx.range_pop() == pushed
    with pytest.warns(UserWarning, match="Invalid message"):
        assert torch.npu.mstx.range_start("") == 0  # torch_npu's value for a refused range

    @torch.npu.mstx.mstx_range("fn")
    def double(x):
        return x * 2

    assert double(3) == 6


def test_device_properties_uuid_is_stable_per_device():
    first = torch.npu.get_device_properties(0).uuid
    assert len(str(first)) == 36 and len(first.bytes) == 16
    assert torch.npu.get_device_properties("npu:0").uuid == first
    if torch.npu.device_count() > 1:
        assert torch.npu.get_device_properties(1).uuid != first


def test_npurt_creates_streams_external_stream_can_wrap():
    rt = torch.npu.npurt()
    assert rt is torch.npu.npurt() and rt is torch_npu._C._npurt
    handle = ctypes.c_void_p()
    assert rt.npuStreamCreate(ctypes.addressof(handle)) == 0
    try:
        assert handle.value
        external = torch.npu.ExternalStream(handle.value)
        assert external.npu_stream == handle.value
        with torch.npu.stream(external):
            y = torch.arange(6.0, device="npu") * 3
        external.synchronize()
        assert torch.equal(y.cpu(), torch.arange(6.0) * 3)
    finally:
        assert rt.npuStreamDestroy(handle.value) == 0
    with pytest.raises(RuntimeError, match="npuHostRegister .*not supported by npu-emu"):
        rt.npuHostRegister(0, 4096, 0)
