#include "emulator/acl_objects.h"

#include "device_model/format.h"
#include "device_model/storage_desc.h"
#include "emulator/acl_error.h"

npu::kernels::TensorView aclTensor::view() const {
  // ND first: the format of nearly every argument, without a table lookup.
  const std::optional<npu::model::Format> f =
      format == ACL_FORMAT_ND ? std::optional(npu::model::Format::ND) : npu::model::format_from_acl(format);
  if (f && npu::model::is_private_format(*f)) {
    npu::emu::fail(ACLNN_ERR_PARAM_INVALID,
                   "a tensor in the private format " + npu::model::format_label(*f) + " of shape " +
                       npu::kernels::shape_str(view_dims) +
                       " reached an entry that reads only base formats (its storage dims " +
                       npu::kernels::shape_str(storage_dims) + " are not the view's layout)");
  }
  return unchecked_view();
}

npu::kernels::TensorView aclTensor::unchecked_view() const {
  // A description without an address is fine until something reads it.
  if (data == nullptr) {
    bool empty = false;
    for (const int64_t d : view_dims) empty = empty || d == 0;
    if (!empty) {
      npu::emu::fail(ACLNN_ERR_PARAM_NULLPTR, "a tensor of shape " + npu::kernels::shape_str(view_dims) +
                                                  " with elements has a null data address");
    }
  }
  return npu::kernels::TensorView{static_cast<char*>(data) + offset * static_cast<int64_t>(npu::model::itemsize(dtype)),
                                  dtype, view_dims, strides};
}

namespace npu::emu {

void require_tensor(const aclTensor* t, const char* name) {
  if (t == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " is a null aclTensor");
}

void require_scalar(const aclScalar* s, const char* name) {
  if (s == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " is a null aclScalar");
}

}  // namespace npu::emu
