#include "dispatch/format/storage_bindings.h"

#include <c10/core/DeviceGuard.h>

#include "acl/acl_rt.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_stream.h"

namespace npu {

namespace {

pybind11::dict describe(const at::Tensor& t) {
  const model::StorageDesc d = storage_desc(t);
  pybind11::dict out;
  out["base_sizes"] = d.base_sizes;
  out["base_strides"] = d.base_strides;
  out["storage_sizes"] = d.storage_sizes;
  out["origin_format"] = static_cast<int>(d.origin_format);
  out["npu_format"] = static_cast<int>(d.npu_format);
  out["origin_format_name"] = std::string(model::format_name(d.origin_format));
  out["npu_format_name"] = std::string(model::format_name(d.npu_format));
  out["dtype"] = std::string(model::dtype_name(d.dtype));
  return out;
}

// The storage's bytes exactly as the device holds them, shaped as storage_sizes.
at::Tensor physical_storage(const at::Tensor& t) {
  const model::StorageDesc d = storage_desc(t);
  c10::DeviceGuard guard(t.device());
  at::Tensor host = at::empty(d.storage_sizes, t.options().device(at::kCPU));
  const size_t bytes = std::min(host.nbytes(), t.storage().nbytes());
  if (bytes > 0) {
    NPU_CHECK(aclrtMemcpyAsync, host.data_ptr(), bytes, t.storage().data(), bytes, ACL_MEMCPY_DEVICE_TO_HOST,
              current_acl_stream());
  }
  synchronize_stream(current_stream(t.device().index()));
  return host;
}

pybind11::dict origin(const at::Tensor& t) {
  const FormatOrigin o = storage_origin(t);
  pybind11::dict out;
  out["op"] = pybind11::none();
  out["rule"] = pybind11::none();
  if (o.op != nullptr) out["op"] = std::string(o.op);
  if (o.rule != nullptr) out["rule"] = std::string(o.rule);
  out["traced_op"] = o.traced_op;
  return out;
}

}  // namespace

void bind_storage_debug(pybind11::module_& m) {
  m.def("_storage_desc", &describe);
  m.def("_storage_data", &physical_storage);
  m.def("_storage_origin", &origin);
  m.def("_has_private_format", [](const at::Tensor& t) { return t.is_privateuseone() && has_private_format(t); });
}

}  // namespace npu
