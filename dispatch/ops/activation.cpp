// The activation schemas PyTorch has no structured meta or iterator builder
// for (ops/table/activation*.yaml, `impl:`): log_sigmoid_forward (two
// outputs), glu_backward (iterators over the halves) and
// _prelu_kernel_backward (a two-output iterator) and rrelu_with_noise (its
// training draws from the npu generator). The checks and result shapes are CPU's;
// each decides native or fallback before launching.
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/philox_reserve.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

void check_same_dtype(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b,
                      const char* b_name) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), op, "(): expected ", b_name, " to have ", a_name, "'s dtype ",
              a.scalar_type(), ", got ", b.scalar_type());
}

void log_sigmoid_launch(const at::Tensor& self, at::Tensor& output, at::Tensor& buffer) {
  NPU_RUN(aclnnLogSigmoidForward, self, output, buffer);
}

// CPU's glu checks: a positive rank and an even size along dim.
int64_t glu_backward_dim(const at::Tensor& self, int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "glu does not support 0-dimensional tensors");
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(self.size(d) % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ",
              self.size(d));
  return d;
}

void check_glu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t d) {
  check_npu("glu_backward", "grad_output", grad_output);
  check_npu("glu_backward", "self", self);
  check_same_dtype("glu_backward", self, "self", grad_output, "grad_output");
  std::vector<int64_t> half = self.sizes().vec();
  half[static_cast<std::size_t>(d)] /= 2;
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(half), "glu_backward(): grad_output has shape ",
              grad_output.sizes(), ", expected ", at::IntArrayRef(half));
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> log_sigmoid_forward(const at::Tensor& self) {
  check_npu("log_sigmoid_forward", "self", self);
  if (!npu::run_native(caps::aclnnLogSigmoidForward, "log_sigmoid_forward", {self.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>("log_sigmoid_forward", self);
  }
  at::Tensor output = at::empty_like(self);
  at::Tensor buffer = at::empty_like(self, at::MemoryFormat::Contiguous);
  log_sigmoid_launch(self, output, buffer);
  return {std::move(output), std::move(buffer)};
}

std::tuple<at::Tensor&, at::Tensor&> log_sigmoid_forward_out(const at::Tensor& self, at::Tensor& output,
                                                             at::Tensor& buffer) {
  check_npu("log_sigmoid_forward", "self", self);
  check_npu("log_sigmoid_forward", "output", output);
  check_npu("log_sigmoid_forward", "buffer", buffer);
  if (!npu::run_native(caps::aclnnLogSigmoidForward, "log_sigmoid_forward.output", {self.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor&, at::Tensor&>>("log_sigmoid_forward.output", self, output,
                                                                      buffer);
  }
  check_same_dtype("log_sigmoid_forward", self, "self", output, "output");
  check_same_dtype("log_sigmoid_forward", self, "self", buffer, "buffer");
  at::assert_no_internal_overlap(output);
  at::assert_no_overlap(output, self);
  at::assert_no_overlap(buffer, self);
  output.resize_as_(self);
  buffer.resize_as_(self, at::MemoryFormat::Contiguous);
  TORCH_CHECK(buffer.is_contiguous(), "Contiguous buffer required for log_sigmoid with out parameter");
  log_sigmoid_launch(self, output, buffer);
  return std::forward_as_tuple(output, buffer);
}

at::Tensor& glu_backward_out(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim,
                             at::Tensor& grad_input) {
  check_npu("glu_backward", "grad_input", grad_input);
  if (!npu::run_native(caps::aclnnGluBackward, "glu_backward.grad_input", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("glu_backward.grad_input", grad_output, self, dim, grad_input);
  }
  const int64_t d = glu_backward_dim(self, dim);
  check_glu_backward(grad_output, self, d);
  check_same_dtype("glu_backward", self, "self", grad_input, "grad_input");
  at::assert_no_internal_overlap(grad_input);
  at::assert_no_overlap(grad_input, self);
  at::assert_no_overlap(grad_input, grad_output);
  grad_input.resize_as_(self);
  NPU_RUN(aclnnGluBackward, grad_output, self, d, grad_input);
  return grad_input;
}

at::Tensor glu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  if (!npu::run_native(caps::aclnnGluBackward, "glu_backward", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("glu_backward", grad_output, self, dim);
  }
  const int64_t d = glu_backward_dim(self, dim);
  check_glu_backward(grad_output, self, d);
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  NPU_RUN(aclnnGluBackward, grad_output, self, d, grad_input);
  return grad_input;
}

std::tuple<at::Tensor, at::Tensor> prelu_kernel_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                                         const at::Tensor& weight) {
  check_npu("_prelu_kernel_backward", "grad_output", grad_output);
  check_npu("_prelu_kernel_backward", "self", self);
  check_npu("_prelu_kernel_backward", "weight", weight);
  if (!npu::run_native(caps::aclnnPreluBackward, "_prelu_kernel_backward", {self.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>("_prelu_kernel_backward", grad_output, self,
                                                                  weight);
  }
  // CPU's iterator: one dtype for all operands, outputs at the broadcast shape.
  check_same_dtype("_prelu_kernel_backward", self, "self", weight, "weight");
  check_same_dtype("_prelu_kernel_backward", self, "self", grad_output, "grad_output");
  const auto shape = at::infer_size(at::infer_size(self.sizes(), weight.sizes()), grad_output.sizes());
  // prelu reshapes weight to broadcast to self: the results then have self's
  // shape, and take its layout as CPU's iterator gives them.
  const bool like_self = self.sizes() == at::IntArrayRef(shape);
  at::Tensor grad_self = like_self ? at::empty_like(self) : at::empty(shape, self.options());
  at::Tensor grad_weight = like_self ? at::empty_like(self) : at::empty(shape, weight.options());
  NPU_RUN(aclnnPreluBackward, grad_output, self, weight, grad_self, grad_weight);
  return {std::move(grad_self), std::move(grad_weight)};
}

namespace {

void check_rrelu(const at::Tensor& self, const at::Tensor& noise, const at::Tensor& out) {
  check_npu("rrelu_with_noise", "self", self);
  check_npu("rrelu_with_noise", "noise", noise);
  check_npu("rrelu_with_noise", "out", out);
  TORCH_CHECK(self.sym_sizes() == noise.sym_sizes(), "noise tensor shape must match self tensor shape. Got self.shape = ",
              self.sym_sizes(), " noise.shape = ", noise.sym_sizes());
  check_same_dtype("rrelu_with_noise", self, "self", noise, "noise");
  check_same_dtype("rrelu_with_noise", self, "self", out, "out");
}

bool rrelu_native(const char* schema, const at::Tensor& self) {
  return npu::run_native(caps::aclnnRReluWithNoise, schema, {self.scalar_type()});
}

// Draws from the generator only in training (evaluation is deterministic).
void rrelu_launch(const at::Tensor& self, const at::Tensor& noise, const at::Scalar& lower, const at::Scalar& upper,
                  bool training, const std::optional<at::Generator>& generator, const at::Tensor& out) {
  if (self.numel() == 0) return;
  const PhiloxSlice rng = training ? reserve(generator, self.device(), self.numel()) : PhiloxSlice{0, 0};
  NPU_RUN(aclnnRReluWithNoise, self, noise, lower, upper, training, static_cast<int64_t>(rng.seed),
          static_cast<int64_t>(rng.offset), out);
}

}  // namespace

at::Tensor& rrelu_with_noise_out(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                 const at::Scalar& upper, bool training, std::optional<at::Generator> generator,
                                 at::Tensor& out) {
  if (!rrelu_native("rrelu_with_noise.out", self)) {
    return npu::fallback_call<at::Tensor&>("rrelu_with_noise.out", self, noise, lower, upper, training, generator,
                                           out);
  }
  check_rrelu(self, noise, out);
  at::assert_no_overlap(out, noise);
  at::native::resize_output(out, self.sizes());
  rrelu_launch(self, noise, lower, upper, training, generator, out);
  return out;
}

at::Tensor rrelu_with_noise(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower, const at::Scalar& upper,
                            bool training, std::optional<at::Generator> generator) {
  if (!rrelu_native("rrelu_with_noise", self)) {
    return npu::fallback_call<at::Tensor>("rrelu_with_noise", self, noise, lower, upper, training, generator);
  }
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  check_rrelu(self, noise, out);
  rrelu_launch(self, noise, lower, upper, training, generator, out);
  return out;
}

at::Tensor& rrelu_with_noise_(at::Tensor& self, at::Tensor& noise, const at::Scalar& lower, const at::Scalar& upper,
                              bool training, std::optional<at::Generator> generator) {
  if (!rrelu_native("rrelu_with_noise_", self)) {
    return npu::fallback_call<at::Tensor&>("rrelu_with_noise_", self, noise, lower, upper, training, generator);
  }
  check_rrelu(self, noise, self);
  rrelu_launch(self, noise, lower, upper, training, generator, self);
  return self;
}

}  // namespace npu::ops
