// The matrix-product schemas PyTorch has no structured meta function for
// (ops/table/matmul.yaml's `impl:` entries): addbmm, mv, dot, vdot and addr
// in their functional, in-place and out= forms. Each checks its arguments
// with the rules CPU applies (ranks, sizes, dtypes, addr's scalar rules and
// type promotion), shapes the result, then launches the aclnn op, or runs
// the CPU fallback when the dtype is not among the op's.
#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/core/op_registration/adaption.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/TypeProperties.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/matmul_args.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

using npu::table::kCubeKeepDtype;
using npu::table::plain;

bool native(const npu::AclnnCapability& cap, const char* schema, at::ScalarType dtype) {
  const std::array<at::ScalarType, 1> dtypes{dtype};
  return npu::run_native(cap, schema, dtypes);
}

// PyTorch's device check of a native function's wrapper (the one CUDA's
// kernels get): the same words, the argument and the method named.
void check_same_device(const char* op, std::initializer_list<std::pair<const char*, const at::Tensor*>> ts) {
  std::optional<at::Device> common;
  for (const auto& [name, t] : ts) c10::impl::check_and_update_common_device(common, *t, op, name);
}

// --- addbmm ------------------------------------------------------------------

// CPU's rules: 3-D batches of one count whose matrices multiply; every
// tensor of one dtype; self broadcasts to [m, n].
std::array<int64_t, 2> check_addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2) {
  TORCH_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  TORCH_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
              batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  TORCH_CHECK(self.scalar_type() == batch1.scalar_type() && batch1.scalar_type() == batch2.scalar_type(),
              "addbmm: expected self, batch1 and batch2 to have the same dtype, but got ", self.scalar_type(), ", ",
              batch1.scalar_type(), " and ", batch2.scalar_type());
  check_same_device("addbmm", {{"self", &self}, {"batch1", &batch1}, {"batch2", &batch2}});
  const std::array<int64_t, 2> shape{batch1.size(1), batch2.size(2)};
  (void)at::expand_size(self, shape, "addbmm");
  return shape;
}

void launch_addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                   const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& out) {
  NPU_RUN(aclnnAddbmm, plain(self), plain(batch1), plain(batch2), beta, alpha, out, kCubeKeepDtype);
}

// --- mv ----------------------------------------------------------------------

void check_mv(const at::Tensor& self, const at::Tensor& vec) {
  TORCH_CHECK(self.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got 1, ", self.dim(), ", ",
              vec.dim());
  TORCH_CHECK(self.size(1) == vec.size(0), "size mismatch, got input (", self.size(0), "), mat (", self.size(0),
              "x", self.size(1), "), vec (", vec.size(0), ")");
  TORCH_CHECK(self.scalar_type() == vec.scalar_type(), "mv: expected self and vec to have the same dtype, but got ",
              self.scalar_type(), " and ", vec.scalar_type());
  check_same_device("mv", {{"self", &self}, {"vec", &vec}});
}

// --- dot / vdot --------------------------------------------------------------

void check_dot(const char* op, const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), op,
              " : expected both vectors to have same dtype, but found ", self.scalar_type(), " and ",
              other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(),
              " and ", other.numel(), " elements respectively");
  check_same_device(op, {{"self", &self}, {std::string_view(op).rfind("dot", 0) == 0 ? "tensor" : "other", &other}});
}

// vdot of real vectors is dot (CANN serves it with aclnnDot); complex ones
// need the conjugate, npu-emu's aclnnVdot.
bool launch_dot(bool conjugate, const char* schema, const at::Tensor& self, const at::Tensor& other,
                const at::Tensor& out) {
  if (conjugate && self.is_complex()) {
    if (!native(npu::table::caps::aclnnVdot, schema, self.scalar_type())) return false;
    NPU_RUN(aclnnVdot, plain(self), plain(other), out);
    return true;
  }
  if (!native(npu::table::caps::aclnnDot, schema, self.scalar_type())) return false;
  NPU_RUN(aclnnDot, plain(self), plain(other), out);
  return true;
}

at::Tensor dot_functional(bool conjugate, const char* schema, const at::Tensor& self, const at::Tensor& other) {
  check_dot(schema, self, other);
  at::Tensor out = empty_npu({}, self.scalar_type(), self.device());
  if (!launch_dot(conjugate, schema, self, other, out)) return npu::fallback_call<at::Tensor>(schema, self, other);
  return out;
}

at::Tensor& dot_into(bool conjugate, const char* schema, const at::Tensor& self, const at::Tensor& other,
                     at::Tensor& out) {
  check_dot(schema, self, other);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "result dtype ", out.scalar_type(),
              " does not match input dtype ", self.scalar_type());
  check_same_device(schema, {{"self", &self}, {"out", &out}});
  at::native::resize_output(out, {});
  if (!launch_dot(conjugate, schema, self, other, out)) {
    return npu::fallback_call<at::Tensor&>(schema, self, other, out);
  }
  return out;
}

// --- addr --------------------------------------------------------------------

// CPU's rules for addr's scalars in the result dtype.
void check_addr_scalar(at::ScalarType dtype, const at::Scalar& scalar, const char* name) {
  if (dtype == at::kBool) return;  // bool results run on the fallback, which checks them
  TORCH_CHECK(!scalar.isBoolean(), "Boolean ", name, " only supported for Boolean results.");
  TORCH_CHECK(at::isFloatingType(dtype) || at::isComplexType(dtype) || scalar.isIntegral(true),
              "For integral input tensors, argument ", name, " must not be a floating point number.");
}

struct AddrPlan {
  at::ScalarType common;
  std::array<int64_t, 2> shape;
};

// Ranks, devices, the common dtype (addr promotes like a pointwise op over
// self, vec1 and vec2) and the shape self broadcasts to.
AddrPlan check_addr(const at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2, const at::Scalar& beta,
                    const at::Scalar& alpha) {
  TORCH_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  TORCH_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  check_same_device("addr", {{"self", &self}, {"vec1", &vec1}, {"vec2", &vec2}});
  const at::ScalarType common = at::native::result_type({self, vec1, vec2});
  check_addr_scalar(common, beta, "beta");
  check_addr_scalar(common, alpha, "alpha");
  const std::array<int64_t, 2> shape{vec1.size(0), vec2.size(0)};
  (void)at::expand_size(self, shape, "addr");
  return {common, shape};
}

at::Tensor as_dtype(const at::Tensor& t, at::ScalarType dtype) {
  return t.scalar_type() == dtype ? plain(t) : plain(t).to(dtype);
}

// Computes into `out` (of the common dtype and the product's shape).
void launch_addr(const AddrPlan& plan, const at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2,
                 const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& out) {
  NPU_RUN(aclnnAddr, as_dtype(self, plan.common), as_dtype(vec1, plan.common), as_dtype(vec2, plan.common), beta,
          alpha, out);
}

}  // namespace

at::Tensor& addbmm_out(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                       const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  const auto shape = check_addbmm(self, batch1, batch2);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "addbmm: expected out to have dtype ", self.scalar_type(),
              ", but got ", out.scalar_type());
  check_same_device("addbmm", {{"self", &self}, {"out", &out}});
  if (!native(npu::table::caps::aclnnAddbmm, "addbmm.out", self.scalar_type())) {
    return npu::fallback_call<at::Tensor&>("addbmm.out", self, batch1, batch2, beta, alpha, out);
  }
  at::native::resize_output(out, shape);
  launch_addbmm(self, batch1, batch2, beta, alpha, out);
  return out;
}

at::Tensor addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                  const at::Scalar& alpha) {
  const auto shape = check_addbmm(self, batch1, batch2);
  if (!native(npu::table::caps::aclnnAddbmm, "addbmm", self.scalar_type())) {
    return npu::fallback_call<at::Tensor>("addbmm", self, batch1, batch2, beta, alpha);
  }
  at::Tensor out = empty_npu(shape, self.scalar_type(), self.device());
  launch_addbmm(self, batch1, batch2, beta, alpha, out);
  return out;
}

at::Tensor& addbmm_(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                    const at::Scalar& alpha) {
  const auto shape = check_addbmm(self, batch1, batch2);
  TORCH_CHECK(self.sizes() == at::IntArrayRef(shape), "addbmm_: self of shape ", self.sizes(),
              " must have the product's shape ", at::IntArrayRef(shape));
  if (!native(npu::table::caps::aclnnInplaceAddbmm, "addbmm_", self.scalar_type())) {
    return npu::fallback_call<at::Tensor&>("addbmm_", self, batch1, batch2, beta, alpha);
  }
  NPU_RUN(aclnnInplaceAddbmm, self, plain(batch1), plain(batch2), beta, alpha, kCubeKeepDtype);
  return self;
}

at::Tensor mv(const at::Tensor& self, const at::Tensor& vec) {
  check_mv(self, vec);
  if (!native(npu::table::caps::aclnnMv, "mv", self.scalar_type())) {
    return npu::fallback_call<at::Tensor>("mv", self, vec);
  }
  at::Tensor out = empty_npu({self.size(0)}, vec.scalar_type(), vec.device());
  NPU_RUN(aclnnMv, plain(self), plain(vec), out, kCubeKeepDtype);
  return out;
}

at::Tensor& mv_out(const at::Tensor& self, const at::Tensor& vec, at::Tensor& out) {
  check_mv(self, vec);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "mv: expected out to have dtype ", self.scalar_type(),
              ", but got ", out.scalar_type());
  check_same_device("mv", {{"self", &self}, {"out", &out}});
  if (!native(npu::table::caps::aclnnMv, "mv.out", self.scalar_type())) {
    return npu::fallback_call<at::Tensor&>("mv.out", self, vec, out);
  }
  at::native::resize_output(out, {self.size(0)});
  NPU_RUN(aclnnMv, plain(self), plain(vec), out, kCubeKeepDtype);
  return out;
}

at::Tensor dot(const at::Tensor& self, const at::Tensor& tensor) { return dot_functional(false, "dot", self, tensor); }

at::Tensor& dot_out(const at::Tensor& self, const at::Tensor& tensor, at::Tensor& out) {
  return dot_into(false, "dot.out", self, tensor, out);
}

at::Tensor vdot(const at::Tensor& self, const at::Tensor& other) { return dot_functional(true, "vdot", self, other); }

at::Tensor& vdot_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return dot_into(true, "vdot.out", self, other, out);
}

at::Tensor addr(const at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2, const at::Scalar& beta,
                const at::Scalar& alpha) {
  const AddrPlan plan = check_addr(self, vec1, vec2, beta, alpha);
  if (!native(npu::table::caps::aclnnAddr, "addr", plan.common)) {
    return npu::fallback_call<at::Tensor>("addr", self, vec1, vec2, beta, alpha);
  }
  at::Tensor out = empty_npu(plan.shape, plan.common, vec1.device());
  launch_addr(plan, self, vec1, vec2, beta, alpha, out);
  return out;
}

at::Tensor& addr_out(const at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2, const at::Scalar& beta,
                     const at::Scalar& alpha, at::Tensor& out) {
  const AddrPlan plan = check_addr(self, vec1, vec2, beta, alpha);
  TORCH_CHECK(at::canCast(plan.common, out.scalar_type()), "result type ", plan.common,
              " can't be cast to the desired output type ", out.scalar_type());
  check_same_device("addr", {{"self", &self}, {"out", &out}});
  if (!native(npu::table::caps::aclnnAddr, "addr.out", plan.common)) {
    return npu::fallback_call<at::Tensor&>("addr.out", self, vec1, vec2, beta, alpha, out);
  }
  at::native::resize_output(out, plan.shape);
  if (out.scalar_type() == plan.common) {
    launch_addr(plan, self, vec1, vec2, beta, alpha, out);
  } else {
    // CPU casts the common-dtype result into out.
    const at::Tensor staged = empty_npu(plan.shape, plan.common, out.device());
    launch_addr(plan, self, vec1, vec2, beta, alpha, staged);
    out.copy_(staged);
  }
  return out;
}

at::Tensor& addr_(at::Tensor& self, const at::Tensor& vec1, const at::Tensor& vec2, const at::Scalar& beta,
                  const at::Scalar& alpha) {
  const AddrPlan plan = check_addr(self, vec1, vec2, beta, alpha);
  TORCH_CHECK(self.sizes() == at::IntArrayRef(plan.shape), "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", at::IntArrayRef(plan.shape));
  TORCH_CHECK(at::canCast(plan.common, self.scalar_type()), "result type ", plan.common,
              " can't be cast to the desired output type ", self.scalar_type());
  if (plan.common != self.scalar_type() || !native(npu::table::caps::aclnnInplaceAddr, "addr_", plan.common)) {
    return npu::fallback_call<at::Tensor&>("addr_", self, vec1, vec2, beta, alpha);
  }
  NPU_RUN(aclnnInplaceAddr, self, as_dtype(vec1, plan.common), as_dtype(vec2, plan.common), beta, alpha);
  return self;
}

}  // namespace npu::ops
