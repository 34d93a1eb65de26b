// Argument handling shared by the reduction, indexing, shape and sort
// entries: reading aclIntArray / aclTensorList / aclDataType parameters and
// the dtype checks those families make at GetWorkspaceSize time. Every
// failure is an AclError with the aclnn code, naming the parameter.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "acl/acl_base.h"
#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"

namespace npu::emu {

// Null-checks each (tensor, parameter name) and returns the tensors' views.
template <std::size_t N>
std::array<kernels::TensorView, N> require_views(const std::array<std::pair<const aclTensor*, const char*>, N>& ts) {
  std::array<kernels::TensorView, N> views;
  for (std::size_t i = 0; i < N; ++i) {
    require_tensor(ts[i].first, ts[i].second);
    views[i] = ts[i].first->view();
  }
  return views;
}

// The view of an optional tensor parameter (null: nullopt).
inline std::optional<kernels::TensorView> optional_view(const aclTensor* t) {
  if (t == nullptr) return std::nullopt;
  return t->view();
}

// Runs a kernel's shape/dtype check at GetWorkspaceSize time: what it rejects
// is the caller's argument error (ACLNN_ERR_PARAM_INVALID with its message).
template <class F>
void checked(F&& check) {
  try {
    std::forward<F>(check)();
  } catch (const kernels::KernelError& e) {
    fail(ACLNN_ERR_PARAM_INVALID, e.what());
  }
}

// A task lambda as std::function, for task makers that still return
// std::function<void()> (prepare_op takes it as a TaskBody; its capture is
// heap-allocated). Makers returning TaskBody return the lambda itself.
template <class F>
std::function<void()> task(F&& f) {
  return std::function<void()>(std::forward<F>(f));
}

// The values of an optional aclIntArray (null reads as empty).
std::vector<int64_t> int_values(const aclIntArray* array);

// The element views of a tensor list; null entries are nullopt.
std::vector<std::optional<kernels::TensorView>> list_views(const aclTensorList* list, const char* name);

// The views of a tensor list whose entries must all be present.
std::vector<kernels::TensorView> required_views(const aclTensorList* list, const char* name);

// An aclDataType parameter that must be supported and equal out's dtype
// (the aclnn contract for dtype= arguments).
model::DType require_dtype_param(aclDataType dtype, const aclTensor* out);

// ACLNN_ERR_PARAM_INVALID unless the tensor's dtype passes `ok`; `what`
// describes the accepted dtypes for the message.
template <class Pred>
void require_dtype(const aclTensor* t, const char* name, const char* what, Pred ok);

void reject_complex(const aclTensor* t, const char* name);
void require_floating(const aclTensor* t, const char* name);

// `out` (named `name`) must have the shape a and b broadcast to; `what`
// names them in the message when they do not broadcast.
void require_broadcast_shape(const aclTensor* out, const char* name, const kernels::Shape& a, const kernels::Shape& b,
                             const char* what);

// Integer-valued aclScalar (e.g. cumprod's dim).
int64_t int_scalar(const aclScalar* s, const char* name);

[[noreturn]] void fail_dtype(const aclTensor* t, const char* name, const char* what);

template <class Pred>
void require_dtype(const aclTensor* t, const char* name, const char* what, Pred ok) {
  if (!ok(t->dtype)) fail_dtype(t, name, what);
}

}  // namespace npu::emu
