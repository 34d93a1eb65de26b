// The _foreach_* schemas of ops/table/foreach.yaml: one aclnn launch per
// list. PyTorch runs these ops on CPU and on PrivateUse1 as a loop of
// per-tensor ops (its *_slow kernels); lists the foreach entries cannot
// take keep that loop, so results and errors stay CPU's: integer, bool or
// complex tensors (type promotion), mixed dtypes or shapes along a
// position, complex scalars, tensors on other devices, private formats,
// in-place targets with internal or partial overlap, empty lists.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <vector>

#include <ATen/MemoryOverlap.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_lerp_native.h>
#include <ATen/ops/_foreach_maximum_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_neg_native.h>
#include <ATen/ops/_foreach_norm_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/tensor.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/foreach_route.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

namespace caps = table::caps;
using at::TensorList;
using ScalarList = at::ArrayRef<at::Scalar>;
using List = at::ITensorListRef;

bool real(const at::Scalar& s) { return !s.isComplex(); }
bool all_real(ScalarList scalars) {
  for (const at::Scalar& s : scalars) {
    if (s.isComplex()) return false;
  }
  return true;
}

// A 0-dim real tensor on self's device: the scalar the .Tensor forms take (a
// 1-element tensor with dims would broadcast self's 0-dim entries). A 0-dim
// entry of self promotes with it as with any tensor (float16 * float32 is
// float32): the functional form then needs the loop for its result dtype;
// in place, the result is rounded back to the entry's dtype, and computing
// in the entry's opmath type (float for float16/bfloat16) is the same
// computation. Anything else (a CPU tensor, complex) keeps the loop.
bool device_scalar(const at::Tensor& t, TensorList self, bool in_place) {
  if (self.empty() || !t.defined() || t.dim() != 0 || t.device() != self[0].device() ||
      at::isComplexType(t.scalar_type()) || any_private_format(t)) {
    return false;
  }
  return std::all_of(self.begin(), self.end(), [&](const at::Tensor& s) {
    const at::ScalarType type = at::result_type(s, t);
    return type == s.scalar_type() || (in_place && at::isReducedFloatingType(s.scalar_type()) && type == at::kFloat);
  });
}

std::vector<at::Tensor> empty_results(TensorList self) {
  std::vector<at::Tensor> out;
  out.reserve(self.size());
  for (const at::Tensor& t : self) out.push_back(at::empty_like(t, at::MemoryFormat::Preserve));
  return out;
}

// The per-tensor scalars of a ScalarList form as a 1-D device tensor (the
// aclTensor CANN's Addc*ScalarList ops take), in float64 for float64 lists
// and float32 otherwise: the precision PyTorch's kernels use them in. Staged
// in pinned host memory so the copy stays in flight: a pageable source would
// make every call (two per AdamW step) wait for the stream.
at::Tensor scalars_tensor(ScalarList scalars, TensorList self) {
  const bool dbl = self[0].scalar_type() == at::kDouble;
  at::Tensor host = at::empty({static_cast<int64_t>(scalars.size())},
                              at::TensorOptions().dtype(dbl ? at::kDouble : at::kFloat).pinned_memory(true));
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    if (dbl) {
      host.data_ptr<double>()[i] = scalars[i].toDouble();
    } else {
      host.data_ptr<float>()[i] = static_cast<float>(scalars[i].toDouble());
    }
  }
  return host.to(self[0].device(), /*non_blocking=*/true);
}

// In place (out = self) when `ok`, else PyTorch's per-tensor loop.
template <class Launch, class Slow>
void in_place(const AclnnCapability& cap, const char* schema, std::initializer_list<TensorList> lists, bool ok,
              Launch launch, Slow slow) {
  const TensorList self = *lists.begin();
  if (!ok || !foreach_fast_route(lists, true) || !run_native(cap, schema, foreach_dtypes(self))) {
    slow();
    return;
  }
  const ListDeviceGuard guard(self);
  launch(at::ITensorListRef(self));
}

template <class Launch, class Slow>
std::vector<at::Tensor> functional(const AclnnCapability& cap, const char* schema,
                                   std::initializer_list<TensorList> lists, bool ok, Launch launch, Slow slow) {
  const TensorList self = *lists.begin();
  if (!ok || !foreach_fast_route(lists, false) || !run_native(cap, schema, foreach_dtypes(self))) return slow();
  const ListDeviceGuard guard(self);
  std::vector<at::Tensor> out = empty_results(self);
  launch(at::ITensorListRef(out));
  return out;
}

}  // namespace

std::vector<at::Tensor> foreach_add_scalar(TensorList self, const at::Scalar& scalar) {
  return functional(
      caps::aclnnForeachAddScalarV2, "_foreach_add.Scalar", {self}, real(scalar),
      [&](const List& out) { NPU_RUN(aclnnForeachAddScalarV2, List(self), scalar, out); },
      [&] { return at::native::foreach_tensor_add_scalar_kernel_slow(self, scalar); });
}

void foreach_add_scalar_(TensorList self, const at::Scalar& scalar) {
  in_place(
      caps::aclnnForeachAddScalarV2, "_foreach_add_.Scalar", {self}, real(scalar),
      [&](const List& out) { NPU_RUN(aclnnForeachAddScalarV2, List(self), scalar, out); },
      [&] { at::native::foreach_tensor_add_scalar_kernel_slow_(self, scalar); });
}

std::vector<at::Tensor> foreach_add_scalarlist(TensorList self, ScalarList scalars) {
  return functional(
      caps::aclnnForeachAddScalarList, "_foreach_add.ScalarList", {self},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) { NPU_RUN(aclnnForeachAddScalarList, List(self), scalars, out); },
      [&] { return at::native::foreach_tensor_add_scalarlist_kernel_slow(self, scalars); });
}

void foreach_add_scalarlist_(TensorList self, ScalarList scalars) {
  in_place(
      caps::aclnnForeachAddScalarList, "_foreach_add_.ScalarList", {self},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) { NPU_RUN(aclnnForeachAddScalarList, List(self), scalars, out); },
      [&] { at::native::foreach_tensor_add_scalarlist_kernel_slow_(self, scalars); });
}

std::vector<at::Tensor> foreach_add_list(TensorList self, TensorList other, const at::Scalar& alpha) {
  return functional(
      caps::aclnnForeachAddListV2, "_foreach_add.List", {self, other}, real(alpha),
      [&](const List& out) { NPU_RUN(aclnnForeachAddListV2, List(self), List(other), alpha, out); },
      [&] { return at::native::foreach_tensor_add_list_kernel_slow(self, other, alpha); });
}

void foreach_add_list_(TensorList self, TensorList other, const at::Scalar& alpha) {
  in_place(
      caps::aclnnForeachAddListV2, "_foreach_add_.List", {self, other}, real(alpha),
      [&](const List& out) { NPU_RUN(aclnnForeachAddListV2, List(self), List(other), alpha, out); },
      [&] { at::native::foreach_tensor_add_list_kernel_slow_(self, other, alpha); });
}

std::vector<at::Tensor> foreach_sub_list(TensorList self, TensorList other, const at::Scalar& alpha) {
  return functional(
      caps::aclnnForeachSubListV2, "_foreach_sub.List", {self, other}, real(alpha),
      [&](const List& out) { NPU_RUN(aclnnForeachSubListV2, List(self), List(other), alpha, out); },
      [&] { return at::native::foreach_tensor_sub_list_kernel_slow(self, other, alpha); });
}

void foreach_sub_list_(TensorList self, TensorList other, const at::Scalar& alpha) {
  in_place(
      caps::aclnnForeachSubListV2, "_foreach_sub_.List", {self, other}, real(alpha),
      [&](const List& out) { NPU_RUN(aclnnForeachSubListV2, List(self), List(other), alpha, out); },
      [&] { at::native::foreach_tensor_sub_list_kernel_slow_(self, other, alpha); });
}

std::vector<at::Tensor> foreach_add_tensor(TensorList self, const at::Tensor& other, const at::Scalar& alpha) {
  return functional(
      caps::aclnnForeachAddScalar, "_foreach_add.Tensor", {self}, device_scalar(other, self, false) && alpha.equal(1),
      [&](const List& out) { NPU_RUN(aclnnForeachAddScalar, List(self), other, out); },
      [&] { return at::native::foreach_tensor_add_tensor_kernel_slow(self, other, alpha); });
}

void foreach_add_tensor_(TensorList self, const at::Tensor& other, const at::Scalar& alpha) {
  in_place(
      caps::aclnnForeachAddScalar, "_foreach_add_.Tensor", {self}, device_scalar(other, self, true) && alpha.equal(1),
      [&](const List& out) { NPU_RUN(aclnnForeachAddScalar, List(self), other, out); },
      [&] { at::native::foreach_tensor_add_tensor_kernel_slow_(self, other, alpha); });
}

std::vector<at::Tensor> foreach_mul_scalar(TensorList self, const at::Scalar& scalar) {
  return functional(
      caps::aclnnForeachMulScalarV2, "_foreach_mul.Scalar", {self}, real(scalar),
      [&](const List& out) { NPU_RUN(aclnnForeachMulScalarV2, List(self), scalar, out); },
      [&] { return at::native::foreach_tensor_mul_scalar_kernel_slow(self, scalar); });
}

void foreach_mul_scalar_(TensorList self, const at::Scalar& scalar) {
  in_place(
      caps::aclnnForeachMulScalarV2, "_foreach_mul_.Scalar", {self}, real(scalar),
      [&](const List& out) { NPU_RUN(aclnnForeachMulScalarV2, List(self), scalar, out); },
      [&] { at::native::foreach_tensor_mul_scalar_kernel_slow_(self, scalar); });
}

std::vector<at::Tensor> foreach_mul_scalarlist(TensorList self, ScalarList scalars) {
  return functional(
      caps::aclnnForeachMulScalarList, "_foreach_mul.ScalarList", {self},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) { NPU_RUN(aclnnForeachMulScalarList, List(self), scalars, out); },
      [&] { return at::native::foreach_tensor_mul_scalarlist_kernel_slow(self, scalars); });
}

void foreach_mul_scalarlist_(TensorList self, ScalarList scalars) {
  in_place(
      caps::aclnnForeachMulScalarList, "_foreach_mul_.ScalarList", {self},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) { NPU_RUN(aclnnForeachMulScalarList, List(self), scalars, out); },
      [&] { at::native::foreach_tensor_mul_scalarlist_kernel_slow_(self, scalars); });
}

std::vector<at::Tensor> foreach_mul_list(TensorList self, TensorList other) {
  return functional(
      caps::aclnnForeachMulList, "_foreach_mul.List", {self, other}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachMulList, List(self), List(other), out); },
      [&] { return at::native::foreach_tensor_mul_list_kernel_slow(self, other); });
}

void foreach_mul_list_(TensorList self, TensorList other) {
  in_place(
      caps::aclnnForeachMulList, "_foreach_mul_.List", {self, other}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachMulList, List(self), List(other), out); },
      [&] { at::native::foreach_tensor_mul_list_kernel_slow_(self, other); });
}

std::vector<at::Tensor> foreach_mul_tensor(TensorList self, const at::Tensor& other) {
  return functional(
      caps::aclnnForeachMulScalar, "_foreach_mul.Tensor", {self}, device_scalar(other, self, false),
      [&](const List& out) { NPU_RUN(aclnnForeachMulScalar, List(self), other, out); },
      [&] { return at::native::foreach_tensor_mul_tensor_kernel_slow(self, other); });
}

void foreach_mul_tensor_(TensorList self, const at::Tensor& other) {
  in_place(
      caps::aclnnForeachMulScalar, "_foreach_mul_.Tensor", {self}, device_scalar(other, self, true),
      [&](const List& out) { NPU_RUN(aclnnForeachMulScalar, List(self), other, out); },
      [&] { at::native::foreach_tensor_mul_tensor_kernel_slow_(self, other); });
}

std::vector<at::Tensor> foreach_div_scalar(TensorList self, const at::Scalar& scalar) {
  return functional(
      caps::aclnnForeachDivScalarV2, "_foreach_div.Scalar", {self}, real(scalar),
      [&](const List& out) { NPU_RUN(aclnnForeachDivScalarV2, List(self), scalar, out); },
      [&] { return at::native::foreach_tensor_div_scalar_kernel_slow(self, scalar); });
}

void foreach_div_scalar_(TensorList self, const at::Scalar& scalar) {
  in_place(
      caps::aclnnForeachDivScalarV2, "_foreach_div_.Scalar", {self}, real(scalar),
      [&](const List& out) { NPU_RUN(aclnnForeachDivScalarV2, List(self), scalar, out); },
      [&] { at::native::foreach_tensor_div_scalar_kernel_slow_(self, scalar); });
}

std::vector<at::Tensor> foreach_div_scalarlist(TensorList self, ScalarList scalars) {
  return functional(
      caps::aclnnForeachDivScalarList, "_foreach_div.ScalarList", {self},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) { NPU_RUN(aclnnForeachDivScalarList, List(self), scalars, out); },
      [&] { return at::native::foreach_tensor_div_scalarlist_kernel_slow(self, scalars); });
}

void foreach_div_scalarlist_(TensorList self, ScalarList scalars) {
  in_place(
      caps::aclnnForeachDivScalarList, "_foreach_div_.ScalarList", {self},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) { NPU_RUN(aclnnForeachDivScalarList, List(self), scalars, out); },
      [&] { at::native::foreach_tensor_div_scalarlist_kernel_slow_(self, scalars); });
}

std::vector<at::Tensor> foreach_div_list(TensorList self, TensorList other) {
  return functional(
      caps::aclnnForeachDivList, "_foreach_div.List", {self, other}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachDivList, List(self), List(other), out); },
      [&] { return at::native::foreach_tensor_div_list_kernel_slow(self, other); });
}

void foreach_div_list_(TensorList self, TensorList other) {
  in_place(
      caps::aclnnForeachDivList, "_foreach_div_.List", {self, other}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachDivList, List(self), List(other), out); },
      [&] { at::native::foreach_tensor_div_list_kernel_slow_(self, other); });
}

std::vector<at::Tensor> foreach_maximum_list(TensorList self, TensorList other) {
  return functional(
      caps::aclnnForeachMaximumList, "_foreach_maximum.List", {self, other}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachMaximumList, List(self), List(other), out); },
      [&] { return at::native::foreach_tensor_clamp_min_list_kernel_slow(self, other); });
}

void foreach_maximum_list_(TensorList self, TensorList other) {
  in_place(
      caps::aclnnForeachMaximumList, "_foreach_maximum_.List", {self, other}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachMaximumList, List(self), List(other), out); },
      [&] { at::native::foreach_tensor_clamp_min_list_kernel_slow_(self, other); });
}

std::vector<at::Tensor> foreach_sqrt(TensorList self) {
  return functional(
      caps::aclnnForeachSqrt, "_foreach_sqrt", {self}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachSqrt, List(self), out); },
      [&] { return at::native::foreach_tensor_sqrt_slow(self); });
}

void foreach_sqrt_(TensorList self) {
  in_place(
      caps::aclnnForeachSqrt, "_foreach_sqrt_", {self}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachSqrt, List(self), out); },
      [&] { at::native::foreach_tensor_sqrt_slow_(self); });
}

std::vector<at::Tensor> foreach_neg(TensorList self) {
  return functional(
      caps::aclnnForeachNeg, "_foreach_neg", {self}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachNeg, List(self), out); },
      [&] { return at::native::foreach_tensor_neg_slow(self); });
}

void foreach_neg_(TensorList self) {
  in_place(
      caps::aclnnForeachNeg, "_foreach_neg_", {self}, true,
      [&](const List& out) { NPU_RUN(aclnnForeachNeg, List(self), out); },
      [&] { at::native::foreach_tensor_neg_slow_(self); });
}

std::vector<at::Tensor> foreach_addcmul_scalar(TensorList self, TensorList tensor1, TensorList tensor2,
    const at::Scalar& value) {
  return functional(
      caps::aclnnForeachAddcmulScalarV2, "_foreach_addcmul.Scalar", {self, tensor1, tensor2}, real(value),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcmulScalarV2, List(self), List(tensor1), List(tensor2), value, out);
      },
      [&] { return at::native::foreach_tensor_addcmul_scalar_slow(self, tensor1, tensor2, value); });
}

void foreach_addcmul_scalar_(TensorList self, TensorList tensor1, TensorList tensor2, const at::Scalar& value) {
  in_place(
      caps::aclnnForeachAddcmulScalarV2, "_foreach_addcmul_.Scalar", {self, tensor1, tensor2}, real(value),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcmulScalarV2, List(self), List(tensor1), List(tensor2), value, out);
      },
      [&] { at::native::foreach_tensor_addcmul_scalar_slow_(self, tensor1, tensor2, value); });
}

std::vector<at::Tensor> foreach_addcmul_scalarlist(TensorList self, TensorList tensor1, TensorList tensor2,
    ScalarList scalars) {
  return functional(
      caps::aclnnForeachAddcmulScalarList, "_foreach_addcmul.ScalarList", {self, tensor1, tensor2},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcmulScalarList, List(self), List(tensor1), List(tensor2),
                scalars_tensor(scalars, self), out);
      },
      [&] { return at::native::foreach_tensor_addcmul_scalarlist_slow(self, tensor1, tensor2, scalars); });
}

void foreach_addcmul_scalarlist_(TensorList self, TensorList tensor1, TensorList tensor2, ScalarList scalars) {
  in_place(
      caps::aclnnForeachAddcmulScalarList, "_foreach_addcmul_.ScalarList", {self, tensor1, tensor2},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcmulScalarList, List(self), List(tensor1), List(tensor2),
                scalars_tensor(scalars, self), out);
      },
      [&] { at::native::foreach_tensor_addcmul_scalarlist_slow_(self, tensor1, tensor2, scalars); });
}

std::vector<at::Tensor> foreach_addcdiv_scalar(TensorList self, TensorList tensor1, TensorList tensor2,
    const at::Scalar& value) {
  return functional(
      caps::aclnnForeachAddcdivScalarV2, "_foreach_addcdiv.Scalar", {self, tensor1, tensor2}, real(value),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcdivScalarV2, List(self), List(tensor1), List(tensor2), value, out);
      },
      [&] { return at::native::foreach_tensor_addcdiv_scalar_slow(self, tensor1, tensor2, value); });
}

void foreach_addcdiv_scalar_(TensorList self, TensorList tensor1, TensorList tensor2, const at::Scalar& value) {
  in_place(
      caps::aclnnForeachAddcdivScalarV2, "_foreach_addcdiv_.Scalar", {self, tensor1, tensor2}, real(value),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcdivScalarV2, List(self), List(tensor1), List(tensor2), value, out);
      },
      [&] { at::native::foreach_tensor_addcdiv_scalar_slow_(self, tensor1, tensor2, value); });
}

std::vector<at::Tensor> foreach_addcdiv_scalarlist(TensorList self, TensorList tensor1, TensorList tensor2,
    ScalarList scalars) {
  return functional(
      caps::aclnnForeachAddcdivScalarList, "_foreach_addcdiv.ScalarList", {self, tensor1, tensor2},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcdivScalarList, List(self), List(tensor1), List(tensor2),
                scalars_tensor(scalars, self), out);
      },
      [&] { return at::native::foreach_tensor_addcdiv_scalarlist_slow(self, tensor1, tensor2, scalars); });
}

void foreach_addcdiv_scalarlist_(TensorList self, TensorList tensor1, TensorList tensor2, ScalarList scalars) {
  in_place(
      caps::aclnnForeachAddcdivScalarList, "_foreach_addcdiv_.ScalarList", {self, tensor1, tensor2},
          all_real(scalars) && scalars.size() == self.size(),
      [&](const List& out) {
        NPU_RUN(aclnnForeachAddcdivScalarList, List(self), List(tensor1), List(tensor2),
                scalars_tensor(scalars, self), out);
      },
      [&] { at::native::foreach_tensor_addcdiv_scalarlist_slow_(self, tensor1, tensor2, scalars); });
}

std::vector<at::Tensor> foreach_lerp_scalar(TensorList self, TensorList tensors1, const at::Scalar& weight) {
  return functional(
      caps::aclnnForeachLerpScalar, "_foreach_lerp.Scalar", {self, tensors1}, real(weight),
      [&](const List& out) { NPU_RUN(aclnnForeachLerpScalar, List(self), List(tensors1), weight, out); },
      [&] { return at::native::foreach_tensor_lerp_list_kernel_slow(self, tensors1, weight); });
}

void foreach_lerp_scalar_(TensorList self, TensorList tensors1, const at::Scalar& weight) {
  in_place(
      caps::aclnnForeachLerpScalar, "_foreach_lerp_.Scalar", {self, tensors1}, real(weight),
      [&](const List& out) { NPU_RUN(aclnnForeachLerpScalar, List(self), List(tensors1), weight, out); },
      [&] { at::native::foreach_tensor_lerp_list_kernel_slow_(self, tensors1, weight); });
}

// A norm without an identity (order +-inf or negative) of an empty tensor
// is an error: the loop raises linalg.vector_norm's own.
std::vector<at::Tensor> foreach_norm(TensorList self, const at::Scalar& ord, std::optional<at::ScalarType> dtype) {
  bool ok = real(ord);
  if (ok) {
    const double p = ord.toDouble();
    for (const at::Tensor& t : self) {
      ok &= !(dtype && *dtype != t.scalar_type()) && !(t.numel() == 0 && (std::isinf(p) || p < 0));
    }
  }
  if (!ok || !foreach_fast_route({self}, false) ||
      !run_native(caps::aclnnForeachNorm, "_foreach_norm.Scalar", foreach_dtypes(self))) {
    return at::native::foreach_tensor_norm_slow(self, ord, dtype);
  }
  const ListDeviceGuard guard(self);
  std::vector<at::Tensor> out;
  out.reserve(self.size());
  for (const at::Tensor& t : self) out.push_back(at::empty({}, t.options()));
  NPU_RUN(aclnnForeachNorm, List(self), ord, at::ITensorListRef(out));
  return out;
}

// CUDA's checks and semantics: found_inf and inv_scale 1-element float32
// tensors on the grads' device; grads floating, any dtype mix (CUDA groups
// them by dtype; the one entry takes them all).
void amp_foreach_non_finite_check_and_unscale_(TensorList self, at::Tensor& found_inf, const at::Tensor& inv_scale) {
  TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(inv_scale.scalar_type() == at::kFloat, "inv_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  if (self.empty()) return;
  for (const at::Tensor& t : self) {
    TORCH_CHECK(t.device() == found_inf.device() && t.device() == inv_scale.device(),
                "_amp_foreach_non_finite_check_and_unscale_: scaled_grads, found_inf and inv_scale must be on one "
                "device; got ", t.device(), ", ", found_inf.device(), ", ", inv_scale.device());
    TORCH_CHECK(at::isFloatingType(t.scalar_type()), "_amp_foreach_non_finite_check_and_unscale_: scaled_grads "
                "must be floating point tensors, got ", t.scalar_type());
  }
  bool native = std::all_of(self.begin(), self.end(), [](const at::Tensor& t) {
    return t.is_privateuseone() && is_list_kernel_dtype(t.scalar_type()) && !any_private_format(t) &&
           at::has_internal_overlap(t) == at::MemOverlap::No;
  });
  native = native && found_inf.is_privateuseone() && !any_private_format(found_inf) &&
           !any_private_format(inv_scale) && !overlap_across_positions({self});
  if (!native || !run_native(caps::aclnnForeachNonFiniteCheckAndUnscale, "_amp_foreach_non_finite_check_and_unscale_",
                             foreach_dtypes(self))) {
    fallback_call<void>("_amp_foreach_non_finite_check_and_unscale_", self, found_inf, inv_scale);
    return;
  }
  const ListDeviceGuard guard(self);
  NPU_RUN(aclnnForeachNonFiniteCheckAndUnscale, List(self), found_inf, inv_scale);
}

at::Tensor& amp_update_scale_(at::Tensor& self, at::Tensor& growth_tracker, const at::Tensor& found_inf,
                              double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TORCH_CHECK(self.numel() == 1, "current_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(growth_tracker.scalar_type() == at::kInt, "growth_tracker must be an int tensor.");
  TORCH_CHECK(self.scalar_type() == at::kFloat, "current_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  const bool native = self.is_privateuseone() && growth_tracker.device() == self.device() &&
                      found_inf.device() == self.device() && !any_private_format(self) &&
                      !any_private_format(growth_tracker) && !any_private_format(found_inf);
  if (!native || !run_native(caps::aclnnAmpUpdateScale, "_amp_update_scale_", {at::kFloat})) {
    return fallback_call<at::Tensor&>("_amp_update_scale_", self, growth_tracker, found_inf, scale_growth_factor,
                                      scale_backoff_factor, growth_interval);
  }
  NPU_RUN(aclnnAmpUpdateScale, self, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor,
          growth_interval, self, growth_tracker);
  return self;
}

}  // namespace npu::ops
