// npu_emu._C: the Python face of the dispatch layer. Thin bindings only; the
// logic lives in runtime/, memory/, ops/ and fallback/.
#include <torch/csrc/Event.h>
#include <torch/csrc/utils/pybind.h>

#include "device_model/soc_profile.h"
#include "dispatch/debug/format_trace.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/fallback/op_counters.h"
#include "dispatch/format/format_config.h"
#include "dispatch/format/storage_bindings.h"
#include "dispatch/memory/npu_allocator.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_stream.h"
#include "dispatch/sparse/sparse_fallback.h"

namespace py = pybind11;

namespace npu {

void bind_memory(py::module& m);  // memory_bindings.cpp
void bind_random(py::module& m);  // random_bindings.cpp
void bind_autograd_drain(py::module& m);  // autograd_drain.cpp
namespace trace {
void bind(py::module& m);  // debug/format_trace.cpp: _set_format_trace, _format_trace_on
}  // namespace trace

namespace {

py::dict device_properties(c10::DeviceIndex device) {
  check_device_index(device);
  const char* soc = NPU_ACL(aclrtGetSocName)();
  TORCH_CHECK(soc != nullptr, "aclrtGetSocName returned nothing");
  const auto total = npu_allocator().getMemoryInfo(device).second;
  py::dict d;
  d["name"] = std::string(soc);
  d["total_memory"] = total;
  try {
    const auto& p = model::soc_profile(soc);
    d["cube_core_num"] = p.cube_core_num;
    d["vector_core_num"] = p.vector_core_num;
    d["L2_cache_size"] = p.l2_cache_bytes;
    d["allow_internal_format_default"] = p.allow_internal_format_default;
  } catch (const std::invalid_argument&) {
    // A SoC this project has no profile for (real hardware): report what ACL told us.
    d["cube_core_num"] = 0;
    d["vector_core_num"] = 0;
    d["L2_cache_size"] = 0;
    d["allow_internal_format_default"] = false;
  }
  return d;
}

}  // namespace
}  // namespace npu

PYBIND11_MODULE(_C, m) {
  m.doc() = "npu-emu's PyTorch extension (dispatch layer)";
  npu::register_sparse_fallbacks();
  m.def("_load_driver", [](const std::string& mode, const std::string& emu_library) {
    npu::driver::load(mode, emu_library);
    npu::check_acl(NPU_ACL(aclInit)(nullptr), "aclInit");
  });
  m.def("_driver_mode", [] { return npu::driver::driver().mode; });
  m.def("_driver_libraries", [] { return npu::driver::driver().libraries; });
  m.def("_driver_has_op", [](const std::string& name) { return npu::driver::has_op(name); });
  m.def("_device_count", [] { return static_cast<int>(npu::device_count()); });
  m.def("_is_in_bad_fork", &npu::in_bad_fork);
  m.def("_current_device", [] { return static_cast<int>(npu::current_device()); });
  m.def("_set_device", [](int d) { npu::set_device(static_cast<c10::DeviceIndex>(d)); });
  m.def("_synchronize", [](int d) {
    py::gil_scoped_release no_gil;
    npu::synchronize_device(static_cast<c10::DeviceIndex>(d));
  });
  m.def("_soc_name", [] { return std::string(NPU_ACL(aclrtGetSocName)()); });
  m.def("_device_properties", [](int d) { return npu::device_properties(static_cast<c10::DeviceIndex>(d)); });
  m.def("_mem_get_info", [](int d) { return npu::npu_allocator().getMemoryInfo(static_cast<c10::DeviceIndex>(d)); });
  m.def("_external_stream", [](int device, uintptr_t handle) {
    const c10::Stream s = npu::external_stream(static_cast<c10::DeviceIndex>(device), reinterpret_cast<aclrtStream>(handle));
    return py::make_tuple(s.id(), static_cast<int>(s.device_index()), static_cast<int>(s.device_type()));
  });
  m.def("_stream_handle", [](int64_t id, int device) {
    const c10::Stream s(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(device)), id);
    return reinterpret_cast<uintptr_t>(npu::acl_stream(s));
  });
  // torch.Event.elapsed_time accepts only an exact torch.Event as its argument;
  // torch.npu.Event is a subclass (for torch_npu's repr), so it times here.
  m.def("_event_elapsed_time", [](const py::handle& start, const py::handle& end) {
    TORCH_CHECK(THPEvent_Check(start.ptr()) && THPEvent_Check(end.ptr()),
                "elapsed_time: expected torch.Event objects, got ", py::str(py::type::of(start)).cast<std::string>(),
                " and ", py::str(py::type::of(end)).cast<std::string>());
    return reinterpret_cast<THPEvent*>(start.ptr())->event.elapsedTime(reinterpret_cast<THPEvent*>(end.ptr())->event);
  });
  m.def("_npu_device_type", [] { return static_cast<int>(c10::DeviceType::PrivateUse1); });
  m.def("_allow_internal_format", &npu::allow_internal_format);
  m.def("_set_allow_internal_format", &npu::set_allow_internal_format);
  npu::bind_storage_debug(m);
  npu::trace::bind(m);
  m.def("_fallback_counts", &npu::fallback_counts);
  m.def("_native_counts", &npu::native_counts);
  m.def("_reset_op_counters", &npu::reset_op_counters);
  m.def("_set_fallback_mode", &npu::set_fallback_mode);
  m.def("_fallback_mode", &npu::fallback_mode_name);
  // Test hook (tests/python/test_capability_fallback.py): the return types of
  // npu::fallback_call that no op reaches yet (a list, none, bool, a scalar),
  // and a tensor list reference argument.
  m.def("_test_fallback_call_returns", [](const at::Tensor& x, const at::Tensor& y) {
    const std::vector<at::Tensor> sums =
        npu::fallback_call<std::vector<at::Tensor>>("_foreach_add.List", at::TensorList{x, y}, at::TensorList{y, x},
                                                     at::Scalar(2));
    std::vector<at::Tensor> scaled{x.clone(), y.clone()};
    npu::fallback_call<void>("_foreach_mul_.List", at::TensorList(scaled), at::TensorList{y, x});
    const bool equal = npu::fallback_call<bool>("equal", x, y);
    const at::Scalar first = npu::fallback_call<at::Scalar>("_local_scalar_dense", x[0][0]);
    const at::Tensor joined = npu::fallback_call<at::Tensor>("cat", at::ITensorListRef(scaled), int64_t{0});
    return py::make_tuple(sums, scaled, equal, first.toDouble(), joined);
  });
  npu::bind_memory(m);
  npu::bind_random(m);
  npu::bind_autograd_drain(m);
  m.def("_set_kernel_delay_us", [](uint64_t us) {
    // Emulator-only knob: absent on real CANN, where it is a clear error.
    npu::check_acl(NPU_ACL(aclemuSetKernelDelayUs)(us), "aclemuSetKernelDelayUs");
  });
}
