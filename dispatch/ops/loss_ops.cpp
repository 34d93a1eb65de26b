// The losses of ops/table/loss.yaml served by `impl:` (PyTorch has no meta
// function for them): argument checks, result shapes and dtypes are CPU's;
// the computation is one aclnn op.
#include <optional>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/LossMulti.h>
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/loss_ops.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;
using OptTensor = std::optional<at::Tensor>;

namespace {

void check_reduction(int64_t reduction, const char* op) {
  TORCH_CHECK(reduction >= 0 && reduction <= 2, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
              reduction);
}

// The unreduced loss's shape: self and target broadcast.
std::vector<int64_t> loss_shape(const at::Tensor& self, const at::Tensor& target) {
  return at::infer_size(self.sizes(), target.sizes());
}

// A loss result: the unreduced shape for reduction none, else 0-dim.
at::Tensor new_loss(c10::IntArrayRef unreduced, int64_t reduction, const at::TensorOptions& options) {
  return reduction == 0 ? at::empty(unreduced, options) : at::empty({}, options);
}

void resize_loss(at::Tensor& out, c10::IntArrayRef unreduced, int64_t reduction) {
  at::native::resize_output(out, reduction == 0 ? unreduced : c10::IntArrayRef{});
}

// The gradient's shape: self, target and grad_output broadcast (CPU's
// TensorIterator over the three).
std::vector<int64_t> grad_shape(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target) {
  return at::infer_size(at::infer_size(self.sizes(), target.sizes()), grad_output.sizes());
}

at::ScalarType loss_dtype(const at::Tensor& self, const at::Tensor& target) {
  return at::result_type(self, target);
}

void check_huber_delta(double delta) {
  TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.")
}

void check_bce(const at::Tensor& self, const at::Tensor& target, const OptTensor& weight) {
  TORCH_CHECK(self.numel() == target.numel(), "binary_cross_entropy: target (", target.sizes(),
              ") must have the same number of elements as self (", self.sizes(), ")");
  if (weight && weight->defined()) {
    TORCH_CHECK(at::is_expandable_to(weight->sizes(), self.sizes()), "binary_cross_entropy: weight ", weight->sizes(),
                " must broadcast to self ", self.sizes());
  }
}

}  // namespace

// ---- the pointwise losses' backwards (mse, smooth_l1, huber) ----

namespace {

// What tells them apart: smooth_l1's beta and huber's delta are `param`.
struct LossBackwardOp {
  const char* name;
  const npu::AclnnCapability& cap;
  bool has_param;
  void (*launch)(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                 double param, const at::Tensor& grad_input);
};

const LossBackwardOp& op_of(LossBackward loss) {
  static const LossBackwardOp ops[] = {
      {"mse_loss_backward", caps::aclnnMseLossBackward, false,
       [](const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target, int64_t reduction, double,
          const at::Tensor& grad_input) {
         NPU_RUN(aclnnMseLossBackward, grad_output, self, target, reduction, grad_input);
       }},
      {"smooth_l1_loss_backward", caps::aclnnSmoothL1LossBackward, true,
       [](const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target, int64_t reduction,
          double beta, const at::Tensor& grad_input) {
         NPU_RUN(aclnnSmoothL1LossBackward, grad_output, self, target, reduction, beta, grad_input);
       }},
      {"huber_loss_backward", caps::aclnnHuberLossBackward, true,
       [](const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target, int64_t reduction,
          double delta, const at::Tensor& grad_input) {
         NPU_RUN(aclnnHuberLossBackward, grad_output, self, target, reduction, delta, grad_input);
       }},
  };
  return ops[static_cast<int>(loss)];
}

// The fallback with the schema's own arguments (mse's take no param).
template <class R, class... Out>
R loss_backward_fallback(const LossBackwardOp& op, const char* schema, const at::Tensor& grad_output,
                         const at::Tensor& self, const at::Tensor& target, int64_t reduction, double param,
                         Out&... grad_input) {
  if (!op.has_param) return npu::fallback_call<R>(schema, grad_output, self, target, reduction, grad_input...);
  return npu::fallback_call<R>(schema, grad_output, self, target, reduction, param, grad_input...);
}

}  // namespace

at::Tensor pointwise_loss_backward(LossBackward loss, const char* schema, const at::Tensor& grad_output,
                                   const at::Tensor& self, const at::Tensor& target, int64_t reduction, double param) {
  const LossBackwardOp& op = op_of(loss);
  if (!npu::run_native(op.cap, schema, {self.scalar_type()})) {
    return loss_backward_fallback<at::Tensor>(op, schema, grad_output, self, target, reduction, param);
  }
  check_reduction(reduction, op.name);
  at::Tensor grad_input = at::empty(grad_shape(grad_output, self, target), self.options());
  op.launch(grad_output, self, target, reduction, param, grad_input);
  return grad_input;
}

at::Tensor& pointwise_loss_backward_out(LossBackward loss, const char* schema, const at::Tensor& grad_output,
                                        const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                                        double param, at::Tensor& grad_input) {
  const LossBackwardOp& op = op_of(loss);
  if (!npu::run_native(op.cap, schema, {self.scalar_type()})) {
    return loss_backward_fallback<at::Tensor&>(op, schema, grad_output, self, target, reduction, param, grad_input);
  }
  check_reduction(reduction, op.name);
  at::native::resize_output(grad_input, grad_shape(grad_output, self, target));
  op.launch(grad_output, self, target, reduction, param, grad_input);
  return grad_input;
}

// ---- huber_loss ----

at::Tensor& huber_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double delta,
                           at::Tensor& out) {
  if (!npu::run_native(caps::aclnnHuberLoss, "huber_loss.out", {loss_dtype(self, target)})) {
    return npu::fallback_call<at::Tensor&>("huber_loss.out", self, target, reduction, delta, out);
  }
  check_reduction(reduction, "huber_loss");
  check_huber_delta(delta);
  resize_loss(out, loss_shape(self, target), reduction);
  NPU_RUN(aclnnHuberLoss, self, target, reduction, delta, out);
  return out;
}

at::Tensor huber_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double delta) {
  const at::ScalarType dtype = loss_dtype(self, target);
  if (!npu::run_native(caps::aclnnHuberLoss, "huber_loss", {dtype})) {
    return npu::fallback_call<at::Tensor>("huber_loss", self, target, reduction, delta);
  }
  check_reduction(reduction, "huber_loss");
  check_huber_delta(delta);
  at::Tensor out = new_loss(loss_shape(self, target), reduction, self.options().dtype(dtype));
  NPU_RUN(aclnnHuberLoss, self, target, reduction, delta, out);
  return out;
}

// ---- binary_cross_entropy ----

at::Tensor& binary_cross_entropy_out(const at::Tensor& self, const at::Tensor& target, const OptTensor& weight,
                                     int64_t reduction, at::Tensor& out) {
  if (!npu::run_native(caps::aclnnBinaryCrossEntropy, "binary_cross_entropy.out", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("binary_cross_entropy.out", self, target, weight, reduction, out);
  }
  check_reduction(reduction, "binary_cross_entropy");
  check_bce(self, target, weight);
  resize_loss(out, self.sizes(), reduction);
  NPU_RUN(aclnnBinaryCrossEntropy, self, target.reshape_as(self), weight, reduction, out);
  return out;
}

at::Tensor binary_cross_entropy(const at::Tensor& self, const at::Tensor& target, const OptTensor& weight,
                                int64_t reduction) {
  if (!npu::run_native(caps::aclnnBinaryCrossEntropy, "binary_cross_entropy", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("binary_cross_entropy", self, target, weight, reduction);
  }
  check_reduction(reduction, "binary_cross_entropy");
  check_bce(self, target, weight);
  at::Tensor out = new_loss(self.sizes(), reduction, self.options());
  NPU_RUN(aclnnBinaryCrossEntropy, self, target.reshape_as(self), weight, reduction, out);
  return out;
}

at::Tensor& binary_cross_entropy_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                              const at::Tensor& target, const OptTensor& weight, int64_t reduction,
                                              at::Tensor& grad_input) {
  if (!npu::run_native(caps::aclnnBinaryCrossEntropyBackward, "binary_cross_entropy_backward.grad_input",
                       {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("binary_cross_entropy_backward.grad_input", grad_output, self, target,
                                           weight, reduction, grad_input);
  }
  check_reduction(reduction, "binary_cross_entropy_backward");
  check_bce(self, target, weight);
  at::native::resize_output(grad_input, self.sizes());
  NPU_RUN(aclnnBinaryCrossEntropyBackward, grad_output, self, target.reshape_as(self), weight, reduction, grad_input);
  return grad_input;
}

at::Tensor binary_cross_entropy_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                         const at::Tensor& target, const OptTensor& weight, int64_t reduction) {
  if (!npu::run_native(caps::aclnnBinaryCrossEntropyBackward, "binary_cross_entropy_backward",
                       {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("binary_cross_entropy_backward", grad_output, self, target, weight,
                                          reduction);
  }
  check_reduction(reduction, "binary_cross_entropy_backward");
  check_bce(self, target, weight);
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  NPU_RUN(aclnnBinaryCrossEntropyBackward, grad_output, self, target.reshape_as(self), weight, reduction, grad_input);
  return grad_input;
}

// ---- binary_cross_entropy_with_logits ----

at::Tensor binary_cross_entropy_with_logits(const at::Tensor& self, const at::Tensor& target, const OptTensor& weight,
                                            const OptTensor& pos_weight, int64_t reduction) {
  const at::ScalarType dtype = loss_dtype(self, target);
  if (!npu::run_native(caps::aclnnBinaryCrossEntropyWithLogits, "binary_cross_entropy_with_logits", {dtype})) {
    return npu::fallback_call<at::Tensor>("binary_cross_entropy_with_logits", self, target, weight, pos_weight,
                                          reduction);
  }
  check_reduction(reduction, "binary_cross_entropy_with_logits");
  const std::vector<int64_t> shape = loss_shape(self, target);
  for (const OptTensor* w : {&weight, &pos_weight}) {
    if (*w && (*w)->defined()) {
      TORCH_CHECK(at::is_expandable_to((*w)->sizes(), shape), "binary_cross_entropy_with_logits: ",
                  w == &weight ? "weight " : "pos_weight ", (*w)->sizes(), " must broadcast to ", c10::IntArrayRef(shape));
    }
  }
  at::Tensor out = new_loss(shape, reduction, self.options().dtype(dtype));
  NPU_RUN(aclnnBinaryCrossEntropyWithLogits, self, target, weight, pos_weight, reduction, out);
  return out;
}

// ---- multi_margin_loss ----

namespace {

struct MarginShape {
  int64_t nframe;
  int64_t dim;
};

MarginShape check_multi_margin(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                               const OptTensor& weight, int64_t reduction) {
  check_reduction(reduction, "multi_margin_loss");
  TORCH_CHECK(p.toLong() == 1 || p.toLong() == 2, "only p == 1 and p == 2 supported");
  // CPU's own shape check (ATen/native/LossMulti.h): the same rules (an
  // empty class dimension is refused at the call) and the same messages.
  MarginShape s{0, 0};
  at::native::multi_margin_loss_shape_check(s.nframe, s.dim, self.dim(), self, target, weight);
  TORCH_CHECK(target.scalar_type() == at::kLong, "multi_margin_loss: expected target of dtype int64, got ",
              target.scalar_type());
  return s;
}

std::vector<int64_t> margin_loss_shape(const at::Tensor& target, int64_t nframe, int64_t reduction) {
  if (reduction == 0 && target.dim() > 0) return {nframe};
  return {};
}

}  // namespace

at::Tensor& multi_margin_loss_out(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                                  const at::Scalar& margin, const OptTensor& weight, int64_t reduction,
                                  at::Tensor& out) {
  if (!npu::run_native(caps::aclnnMultiMarginLoss, "multi_margin_loss.out", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("multi_margin_loss.out", self, target, p, margin, weight, reduction, out);
  }
  const MarginShape s = check_multi_margin(self, target, p, weight, reduction);
  at::native::resize_output(out, margin_loss_shape(target, s.nframe, reduction));
  NPU_RUN(aclnnMultiMarginLoss, self, target, p.toLong(), margin.toDouble(), weight, reduction, out);
  return out;
}

// The functional forms fill a fresh output through the out= forms: one
// check, resize and launch for both.
at::Tensor multi_margin_loss(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                             const at::Scalar& margin, const OptTensor& weight, int64_t reduction) {
  at::Tensor out = at::empty({0}, self.options());
  return multi_margin_loss_out(self, target, p, margin, weight, reduction, out);
}

at::Tensor& multi_margin_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                           const at::Tensor& target, const at::Scalar& p, const at::Scalar& margin,
                                           const OptTensor& weight, int64_t reduction, at::Tensor& grad_input) {
  if (!npu::run_native(caps::aclnnMultiMarginLossBackward, "multi_margin_loss_backward.grad_input",
                       {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("multi_margin_loss_backward.grad_input", grad_output, self, target, p,
                                           margin, weight, reduction, grad_input);
  }
  check_multi_margin(self, target, p, weight, reduction);
  at::native::resize_output(grad_input, self.sizes());
  NPU_RUN(aclnnMultiMarginLossBackward, grad_output, self, target, p.toLong(), margin.toDouble(), weight, reduction,
          grad_input);
  return grad_input;
}

at::Tensor multi_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                      const at::Scalar& p, const at::Scalar& margin, const OptTensor& weight,
                                      int64_t reduction) {
  at::Tensor grad_input = at::empty({0}, self.options());
  return multi_margin_loss_backward_out(grad_output, self, target, p, margin, weight, reduction, grad_input);
}

// ---- multilabel_margin_loss ----

namespace {

int64_t check_multilabel(const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  check_reduction(reduction, "multilabel_margin_loss");
  // CPU's own shape check (ATen/native/LossMulti.h), rules and messages.
  int64_t nframe = 0;
  int64_t dim = 0;
  at::native::multilabel_margin_loss_shape_check(nframe, dim, self.dim(), self, target);
  TORCH_CHECK(target.scalar_type() == at::kLong, "multilabel_margin_loss: expected target of dtype int64, got ",
              target.scalar_type());
  return nframe;
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&> multilabel_margin_loss_forward_out(const at::Tensor& self,
                                                                        const at::Tensor& target, int64_t reduction,
                                                                        at::Tensor& output, at::Tensor& is_target) {
  if (!npu::run_native(caps::aclnnMultilabelMarginLoss, "multilabel_margin_loss_forward.output",
                       {self.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor&, at::Tensor&>>("multilabel_margin_loss_forward.output", self,
                                                                    target, reduction, output, is_target);
  }
  const int64_t nframe = check_multilabel(self, target, reduction);
  at::native::resize_output(output, reduction == 0 && target.dim() > 1 ? std::vector<int64_t>{nframe}
                                                                       : std::vector<int64_t>{});
  at::native::resize_output(is_target, target.sizes());
  NPU_RUN(aclnnMultilabelMarginLoss, self, target, reduction, output, is_target);
  return {output, is_target};
}

std::tuple<at::Tensor, at::Tensor> multilabel_margin_loss_forward(const at::Tensor& self, const at::Tensor& target,
                                                                  int64_t reduction) {
  if (!npu::run_native(caps::aclnnMultilabelMarginLoss, "multilabel_margin_loss_forward", {self.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>("multilabel_margin_loss_forward", self, target,
                                                                  reduction);
  }
  const int64_t nframe = check_multilabel(self, target, reduction);
  at::Tensor output = reduction == 0 && target.dim() > 1 ? at::empty({nframe}, self.options())
                                                         : at::empty({}, self.options());
  at::Tensor is_target = at::empty(target.sizes(), self.options());
  NPU_RUN(aclnnMultilabelMarginLoss, self, target, reduction, output, is_target);
  return {std::move(output), std::move(is_target)};
}

at::Tensor& multilabel_margin_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                const at::Tensor& target, int64_t reduction,
                                                const at::Tensor& is_target, at::Tensor& grad_input) {
  if (!npu::run_native(caps::aclnnMultilabelMarginLossBackward, "multilabel_margin_loss_backward.grad_input",
                       {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("multilabel_margin_loss_backward.grad_input", grad_output, self, target,
                                           reduction, is_target, grad_input);
  }
  check_multilabel(self, target, reduction);
  TORCH_CHECK(is_target.sizes() == target.sizes(), "inconsistent is_target size: ", is_target.sizes(),
              " for target of size: ", target.sizes());
  at::native::resize_output(grad_input, self.sizes());
  NPU_RUN(aclnnMultilabelMarginLossBackward, grad_output, self, target, reduction, is_target, grad_input);
  return grad_input;
}

at::Tensor multilabel_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                           const at::Tensor& target, int64_t reduction, const at::Tensor& is_target) {
  if (!npu::run_native(caps::aclnnMultilabelMarginLossBackward, "multilabel_margin_loss_backward",
                       {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("multilabel_margin_loss_backward", grad_output, self, target, reduction,
                                          is_target);
  }
  check_multilabel(self, target, reduction);
  TORCH_CHECK(is_target.sizes() == target.sizes(), "inconsistent is_target size: ", is_target.sizes(),
              " for target of size: ", target.sizes());
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  NPU_RUN(aclnnMultilabelMarginLossBackward, grad_output, self, target, reduction, is_target, grad_input);
  return grad_input;
}

}  // namespace npu::ops
