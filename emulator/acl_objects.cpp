#include "emulator/acl_objects.h"

#include "emulator/acl_error.h"

npu::kernels::TensorView aclTensor::view() const {
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
