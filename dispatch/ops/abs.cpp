// aten::abs in its three forms, served by aclnnAbs (ops/table/unary.yaml).
// PyTorch has no structured meta function for abs: CPU's abs_out runs
// TensorIterator's unary_op (one dtype for self and out), except that a
// complex self gives a real result, written into a real out by hand. The
// same rules are followed here, then the launch (or the CPU fallback).
#include <array>

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace {

// Shapes `out` for abs(self) as CPU's abs_out does, with CPU's errors.
void shape_abs_out(const at::Tensor& self, at::Tensor& out) {
  if (self.is_complex() && !out.is_complex()) {
    const at::ScalarType real = c10::toRealValueType(self.scalar_type());
    TORCH_CHECK(at::canCast(real, out.scalar_type()), "result type ", real,
                " can't be cast to the desired output type ", out.scalar_type());
    TORCH_CHECK(out.device() == self.device(), "out= tensor is on ", out.device(), " but the op runs on ",
                self.device());
    at::native::resize_output(out, self.sizes());
    at::assert_no_internal_overlap(out);
    return;
  }
  (void)at::TensorIterator::unary_op(out, self);
}

// The kernel reads a complex self as it is: complex128 is not among aclnnAbs's dtypes.
bool abs_native(const char* schema, const at::Tensor& self) {
  const std::array<at::ScalarType, 1> dtypes{self.scalar_type()};
  return npu::run_native(npu::table::caps::aclnnAbs, schema, dtypes);
}

// aclnnAbs computes in the result dtype and converts into out, as CPU's
// complex branch does through its temporary.
void launch_abs(const at::Tensor& self, const at::Tensor& out) {
  NPU_RUN(aclnnAbs, *npu::table::device_operand(self, out.device(), self.scalar_type()), out);
}

}  // namespace

at::Tensor& abs_out(const at::Tensor& self, at::Tensor& out) {
  shape_abs_out(self, out);
  if (!abs_native("abs.out", self)) return npu::fallback_call<at::Tensor&>("abs.out", self, out);
  launch_abs(self, out);
  return out;
}

at::Tensor abs(const at::Tensor& self) {
  // CPU: a complex self's real result is empty_like(self) (its layout, when
  // dense), any other self's is left to unary_op to shape.
  at::Tensor result;
  if (!self.is_complex()) {
    result = npu::table::new_output(self.scalar_type(), self, at::Tensor());
  } else if (self.is_non_overlapping_and_dense()) {
    result = empty_strided_npu(self.sizes(), self.strides(), c10::toRealValueType(self.scalar_type()), self.device());
  } else {
    result = empty_npu(self.sizes(), c10::toRealValueType(self.scalar_type()), self.device());
  }
  shape_abs_out(self, result);
  if (!abs_native("abs", self)) return npu::fallback_call<at::Tensor>("abs", self);
  launch_abs(self, result);
  return result;
}

at::Tensor& abs_(at::Tensor& self) {
  TORCH_CHECK(!self.is_complex(), "In-place abs is not supported for complex tensors.");
  shape_abs_out(self, self);
  if (!abs_native("abs_", self)) return npu::fallback_call<at::Tensor&>("abs_", self);
  launch_abs(self, self);
  return self;
}

}  // namespace npu::ops
