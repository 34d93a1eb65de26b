#include "emulator/op_args.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"

namespace npu::emu {

std::vector<int64_t> int_values(const aclIntArray* array) {
  return array != nullptr ? array->values : std::vector<int64_t>{};
}

std::vector<std::optional<kernels::TensorView>> list_views(const aclTensorList* list, const char* name) {
  if (list == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " is a null aclTensorList");
  std::vector<std::optional<kernels::TensorView>> views;
  for (const auto& t : list->tensors) {
    views.push_back(t ? std::optional<kernels::TensorView>(t->view()) : std::nullopt);
  }
  return views;
}

std::vector<kernels::TensorView> required_views(const aclTensorList* list, const char* name) {
  std::vector<kernels::TensorView> views;
  for (const auto& v : list_views(list, name)) {
    if (!v) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " holds a null aclTensor");
    views.push_back(*v);
  }
  return views;
}

model::DType require_dtype_param(aclDataType dtype, const aclTensor* out) {
  const auto d = model::dtype_from_acl(dtype);
  if (!d) fail(ACLNN_ERR_PARAM_INVALID, "unsupported dtype " + std::to_string(static_cast<int>(dtype)));
  if (*d != out->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("dtype ") + model::dtype_name(*d) + " must equal out's dtype " +
                                      model::dtype_name(out->dtype));
  }
  return *d;
}

void fail_dtype(const aclTensor* t, const char* name, const char* what) {
  fail(ACLNN_ERR_PARAM_INVALID,
       std::string(name) + " must be " + what + ", got " + model::dtype_name(t->dtype));
}

void reject_complex(const aclTensor* t, const char* name) {
  require_dtype(t, name, "a non-complex tensor", [](model::DType d) { return !model::is_complex(d); });
}

void require_floating(const aclTensor* t, const char* name) {
  require_dtype(t, name, "a floating point tensor", [](model::DType d) { return model::is_floating_point(d); });
}

void require_broadcast_shape(const aclTensor* out, const char* name, const kernels::Shape& a, const kernels::Shape& b,
                             const char* what) {
  kernels::Shape shape;
  try {
    shape = kernels::broadcast_shapes(a, b);
  } catch (const kernels::KernelError& e) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + " do not broadcast: " + e.what());
  }
  require_shape(out, shape, name);
}

int64_t int_scalar(const aclScalar* s, const char* name) {
  require_scalar(s, name);
  if (!model::is_integral(s->dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be an integer scalar, got " + model::dtype_name(s->dtype));
  }
  return s->value().to<int64_t>();
}

}  // namespace npu::emu
