#include "emulator/acl_objects.h"

#include "device_model/format.h"
#include "device_model/storage_desc.h"
#include "emulator/acl_error.h"

void aclTensor::require_base_format_slow() const {
  const std::optional<npu::model::Format> f = npu::model::format_from_acl(format);
  if (f && npu::model::is_private_format(*f)) {
    npu::emu::fail(ACLNN_ERR_PARAM_INVALID,
                   "a tensor in the private format " + npu::model::format_label(*f) + " of shape " +
                       npu::kernels::shape_str(view_dims) +
                       " reached an entry that reads only base formats (its storage dims " +
                       npu::kernels::shape_str(storage_dims) + " are not the view's layout)");
  }
}

void aclTensor::require_empty_view() const {
  for (const int64_t d : view_dims) {
    if (d == 0) return;
  }
  npu::emu::fail(ACLNN_ERR_PARAM_NULLPTR,
                 "a tensor of shape " + npu::kernels::shape_str(view_dims) + " with elements has a null data address");
}

namespace npu::emu {

void require_tensor(const aclTensor* t, const char* name) {
  if (t == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " is a null aclTensor");
}

void require_scalar(const aclScalar* s, const char* name) {
  if (s == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " is a null aclScalar");
}

}  // namespace npu::emu
