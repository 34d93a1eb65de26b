// The normalization family's task makers (kernels/norm/: batch_norm.h,
// row_norm.h for layer and RMS norm, group_norm.h).
#include "emulator/ops/norm.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>
#include <string>
#include <utility>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/norm/batch_norm.h"
#include "kernels/norm/group_norm.h"
#include "kernels/norm/row_norm.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

const kn::TensorView* ptr(const std::optional<kn::TensorView>& v) { return v ? &*v : nullptr; }

// A [C] parameter: absent, or C elements in one dim.
void require_channels(const aclTensor* t, int64_t c, const char* name) {
  if (t == nullptr) return;
  const kn::TensorView v = t->view();
  if (v.dim() != 1 || v.sizes[0] != c) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have shape [" + std::to_string(c) + "], got " +
                                      kn::shape_str(v.sizes));
  }
  if (!model::is_floating_point(v.dtype) || model::is_complex(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a floating point tensor");
  }
}

int64_t channels_of(const aclTensor* input) {
  require_tensor(input, "input");
  const kn::TensorView v = input->view();
  if (v.dim() < 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "input must have at least 2 dims ([N, C, ...]), got " + kn::shape_str(v.sizes));
  }
  if (!model::is_floating_point(v.dtype) || model::is_complex(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, "input must be a floating point tensor");
  }
  return v.sizes[1];
}

void require_floating_input(const aclTensor* t, const char* name) {
  require_tensor(t, name);
  const kn::TensorView v = t->view();
  if (!model::is_floating_point(v.dtype) || model::is_complex(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a floating point tensor");
  }
}

int64_t product(const kn::Shape& s, std::size_t from, std::size_t to) {
  int64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// A tensor that must hold `count` elements (statistics, affine parameters).
void require_numel(const aclTensor* t, int64_t count, const char* name) {
  if (t == nullptr) return;
  const kn::TensorView v = t->view();
  if (v.numel() != count) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have " + std::to_string(count) + " elements, got shape " +
                                      kn::shape_str(v.sizes));
  }
}

// The trailing dims of `input` that `normalized` names: their count, after
// checking they match (weight and bias, when given, have that shape).
int64_t normalized_dims(const aclTensor* input, const std::vector<int64_t>& normalized, const char* name) {
  const kn::Shape& dims = input->view_dims;
  const std::size_t k = normalized.size();
  bool ok = k >= 1 && k <= dims.size();
  for (std::size_t i = 0; ok && i < k; ++i) ok = dims[dims.size() - k + i] == normalized[i];
  if (!ok) {
    std::string shape = "[";
    for (std::size_t i = 0; i < k; ++i) shape += (i ? ", " : "") + std::to_string(normalized[i]);
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " " + shape + "] must be 1 or more trailing dims of input " +
                                      kn::shape_str(dims));
  }
  return static_cast<int64_t>(k);
}

void require_param_shape(const aclTensor* t, const std::vector<int64_t>& shape, const char* name) {
  if (t == nullptr) return;
  const kn::TensorView v = t->view();
  if (!std::equal(v.sizes.begin(), v.sizes.end(), shape.begin(), shape.end())) {
    kn::Shape s;
    for (int64_t d : shape) s.push_back(d);
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have shape " + kn::shape_str(s) + ", got " +
                                      kn::shape_str(v.sizes));
  }
}

// A backward's input and incoming gradient: both floating, of one shape.
void require_grad_of(const aclTensor* grad, const char* grad_name, const aclTensor* input, const char* input_name) {
  require_floating_input(input, input_name);
  require_floating_input(grad, grad_name);
  require_shape(grad, input->view_dims, grad_name);
}

// The mean and rstd a backward reads: both given, `count` elements each.
void require_saved_stats(const aclTensor* mean, const aclTensor* rstd, int64_t count) {
  require_tensor(mean, "mean");
  require_tensor(rstd, "rstd");
  require_numel(mean, count, "mean");
  require_numel(rstd, count, "rstd");
}

// A backward's gradient outputs (of the input, the weight, the bias) with
// their names, and the views of those wanted (outputMask, 3 entries, when
// given, else those not null; an output asked for must be given), checked:
// the input's gradient has `input_dims`, the others pass `check_param`.
using GradOuts = std::array<std::pair<const aclTensor*, const char*>, 3>;
using GradViews = std::array<std::optional<kn::TensorView>, 3>;
template <class CheckParam>
GradViews wanted_grads(const aclBoolArray* outputMask, const GradOuts& outs, const kn::Shape& input_dims,
                       CheckParam check_param) {
  if (outputMask != nullptr && outputMask->values.size() != 3) {
    fail(ACLNN_ERR_PARAM_INVALID, "outputMask must have 3 elements, got " + std::to_string(outputMask->values.size()));
  }
  GradViews views;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& [t, name] = outs[i];
    if (outputMask != nullptr ? !outputMask->values[i] : t == nullptr) continue;
    if (t == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " is null but outputMask asks for it");
    if (i == 0) {
      require_shape(t, input_dims, name);
    } else {
      check_param(t, name);
    }
    views[i] = optional_view(t);
  }
  return views;
}

template <class Args>
void set_grads(Args& a, const GradViews& grads) {
  a.grad_input = ptr(grads[0]);
  a.grad_weight = ptr(grads[1]);
  a.grad_bias = ptr(grads[2]);
}

// The task of the layer and group norm backwards, which read the forward's
// saved mean and rstd alike; `args` carries what is the op's own.
template <class Args>
TaskBody saved_stats_backward_task(const Args& args,
                                   void (*kernel)(const kn::TensorView&, const kn::TensorView&, const Args&),
                                   const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean,
                                   const aclTensor* rstd, const aclTensor* weight, const GradViews& grads) {
  return [args, kernel, g = gradOut->view(), in = input->view(), m = mean->view(), r = rstd->view(),
          w = optional_view(weight), grads] {
    Args a = args;
    a.mean = &m;
    a.rstd = &r;
    a.weight = ptr(w);
    set_grads(a, grads);
    kernel(g, in, a);
  };
}

// What batch norm reads in both directions besides its input (and, forward,
// the bias): the affine weight and the running or saved statistics.
struct BatchNormOperands {
  std::optional<kn::TensorView> weight, running_mean, running_var, save_mean, save_invstd;
  bool training;
  double eps;
  // The kernel's arguments (pointing into this object) for those operands.
  template <class Args>
  Args args() const {
    Args a;
    a.weight = ptr(weight);
    a.running_mean = ptr(running_mean);
    a.running_var = ptr(running_var);
    a.save_mean = ptr(save_mean);
    a.save_invstd = ptr(save_invstd);
    a.training = training;
    a.eps = eps;
    return a;
  }
};

}  // namespace

TaskBody batch_norm_task(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                         aclTensor* runningMean, aclTensor* runningVar, bool training, double momentum, double eps,
                         aclTensor* output, aclTensor* saveMean, aclTensor* saveInvstd) {
  const int64_t c = channels_of(input);
  require_tensor(output, "output");
  require_shape(output, input->view_dims, "output");
  require_channels(weight, c, "weight");
  require_channels(bias, c, "bias");
  require_channels(runningMean, c, "runningMean");
  require_channels(runningVar, c, "runningVar");
  if (!training && (runningMean == nullptr || runningVar == nullptr)) {
    fail(ACLNN_ERR_PARAM_NULLPTR, "runningMean and runningVar are required when training is false");
  }
  if (training) {
    require_channels(saveMean, c, "saveMean");
    require_channels(saveInvstd, c, "saveInvstd");
  }
  // Eval mode saves no statistics.
  return [in = input->view(), out = output->view(), b = optional_view(bias), momentum,
          operands = BatchNormOperands{optional_view(weight), optional_view(runningMean), optional_view(runningVar),
                                       training ? optional_view(saveMean) : std::nullopt,
                                       training ? optional_view(saveInvstd) : std::nullopt, training, eps}] {
    auto a = operands.args<kn::BatchNormForward>();
    a.bias = ptr(b);
    a.momentum = momentum;
    kn::batch_norm(out, in, a);
  };
}

TaskBody batch_norm_backward_task(const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight,
                                  const aclTensor* runningMean, const aclTensor* runningVar,
                                  const aclTensor* saveMean, const aclTensor* saveInvstd, bool training, double eps,
                                  const aclBoolArray* outputMask, aclTensor* gradInput, aclTensor* gradWeight,
                                  aclTensor* gradBias) {
  const int64_t c = channels_of(input);
  require_tensor(gradOut, "gradOut");
  require_shape(gradOut, input->view_dims, "gradOut");
  require_channels(weight, c, "weight");
  if (training) {
    require_tensor(saveMean, "saveMean");
    require_tensor(saveInvstd, "saveInvstd");
    require_channels(saveMean, c, "saveMean");
    require_channels(saveInvstd, c, "saveInvstd");
  } else {
    require_tensor(runningMean, "runningMean");
    require_tensor(runningVar, "runningVar");
    require_channels(runningMean, c, "runningMean");
    require_channels(runningVar, c, "runningVar");
  }
  const GradViews grads =
      wanted_grads(outputMask, {{{gradInput, "gradInput"}, {gradWeight, "gradWeight"}, {gradBias, "gradBias"}}},
                   input->view_dims, [c](const aclTensor* t, const char* name) { require_channels(t, c, name); });
  return [g = gradOut->view(), in = input->view(), grads,
          operands = BatchNormOperands{optional_view(weight), optional_view(runningMean), optional_view(runningVar),
                                       optional_view(saveMean), optional_view(saveInvstd), training, eps}] {
    auto a = operands.args<kn::BatchNormBackward>();
    set_grads(a, grads);
    kn::batch_norm_backward(g, in, a);
  };
}

TaskBody layer_norm_task(const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weight,
                         const aclTensor* bias, double eps, aclTensor* out, aclTensor* meanOut, aclTensor* rstdOut) {
  require_floating_input(input, "input");
  if (normalizedShape == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "normalizedShape must not be null");
  const std::vector<int64_t> shape = int_values(normalizedShape);
  const int64_t k = normalized_dims(input, shape, "normalizedShape");
  const kn::Shape& dims = input->view_dims;
  const int64_t rows = product(dims, 0, dims.size() - k);
  require_tensor(out, "out");
  require_shape(out, dims, "out");
  require_param_shape(weight, shape, "weightOptional");
  require_param_shape(bias, shape, "biasOptional");
  require_numel(meanOut, rows, "meanOutOptional");
  require_numel(rstdOut, rows, "rstdOutOptional");
  return [in = input->view(), o = out->view(), w = optional_view(weight), b = optional_view(bias),
          m = optional_view(meanOut), r = optional_view(rstdOut), k, eps] {
    kn::LayerNormForward a;
    a.normalized_dims = k;
    a.weight = ptr(w);
    a.bias = ptr(b);
    a.eps = eps;
    a.mean = ptr(m);
    a.rstd = ptr(r);
    kn::layer_norm(o, in, a);
  };
}

TaskBody layer_norm_backward_task(const aclTensor* gradOut, const aclTensor* input,
                                  const aclIntArray* normalizedShape, const aclTensor* mean, const aclTensor* rstd,
                                  const aclTensor* weight, const aclTensor* bias, const aclBoolArray* outputMask,
                                  aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias) {
  require_grad_of(gradOut, "gradOut", input, "input");
  if (normalizedShape == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "normalizedShape must not be null");
  const std::vector<int64_t> shape = int_values(normalizedShape);
  const int64_t k = normalized_dims(input, shape, "normalizedShape");
  const kn::Shape& dims = input->view_dims;
  const int64_t rows = product(dims, 0, dims.size() - k);
  require_saved_stats(mean, rstd, rows);
  require_param_shape(weight, shape, "weightOptional");
  require_param_shape(bias, shape, "biasOptional");
  const GradViews grads = wanted_grads(
      outputMask, {{{gradInput, "gradInputOut"}, {gradWeight, "gradWeightOut"}, {gradBias, "gradBiasOut"}}}, dims,
      [&shape](const aclTensor* t, const char* name) { require_param_shape(t, shape, name); });
  kn::LayerNormBackward a;
  a.normalized_dims = k;
  return saved_stats_backward_task(a, &kn::layer_norm_backward, gradOut, input, mean, rstd, weight, grads);
}

namespace {

kn::GroupNormShape group_shape(const aclTensor* input, int64_t n, int64_t c, int64_t hxw, int64_t group) {
  const kn::Shape& dims = input->view_dims;
  if (dims.size() < 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "self must have at least 2 dims ([N, C, ...]), got " + kn::shape_str(dims));
  }
  if (dims[0] != n || dims[1] != c || product(dims, 2, dims.size()) != hxw) {
    fail(ACLNN_ERR_PARAM_INVALID, "self of shape " + kn::shape_str(dims) + " does not match N=" + std::to_string(n) +
                                      ", C=" + std::to_string(c) + ", HxW=" + std::to_string(hxw));
  }
  if (group <= 0 || c % group != 0) {
    fail(ACLNN_ERR_PARAM_INVALID,
         "group must be positive and divide C=" + std::to_string(c) + ", got " + std::to_string(group));
  }
  return kn::GroupNormShape{n, c, hxw, group};
}

}  // namespace

TaskBody group_norm_task(const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, int64_t n, int64_t c,
                         int64_t hxw, int64_t group, double eps, aclTensor* out, aclTensor* meanOut,
                         aclTensor* rstdOut) {
  require_floating_input(self, "self");
  const kn::GroupNormShape shape = group_shape(self, n, c, hxw, group);
  require_tensor(out, "out");
  require_shape(out, self->view_dims, "out");
  require_channels(gamma, c, "gamma");
  require_channels(beta, c, "beta");
  require_tensor(meanOut, "meanOut");
  require_tensor(rstdOut, "rstdOut");
  require_numel(meanOut, n * group, "meanOut");
  require_numel(rstdOut, n * group, "rstdOut");
  return [in = self->view(), o = out->view(), w = optional_view(gamma), b = optional_view(beta), m = meanOut->view(),
          r = rstdOut->view(), shape, eps] {
    kn::GroupNormForward a;
    a.shape = shape;
    a.weight = ptr(w);
    a.bias = ptr(b);
    a.eps = eps;
    a.mean = &m;
    a.rstd = &r;
    kn::group_norm(o, in, a);
  };
}

TaskBody group_norm_backward_task(const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean,
                                  const aclTensor* rstd, const aclTensor* gamma, int64_t n, int64_t c, int64_t hxw,
                                  int64_t group, const aclBoolArray* outputMask, aclTensor* gradInput,
                                  aclTensor* gradGamma, aclTensor* gradBeta) {
  require_grad_of(gradOut, "gradOut", input, "input");
  const kn::GroupNormShape shape = group_shape(input, n, c, hxw, group);
  require_saved_stats(mean, rstd, n * group);
  require_channels(gamma, c, "gamma");
  const GradViews grads = wanted_grads(
      outputMask, {{{gradInput, "gradInput"}, {gradGamma, "gradGammaOut"}, {gradBeta, "gradBetaOut"}}},
      input->view_dims, [c](const aclTensor* t, const char* name) { require_channels(t, c, name); });
  kn::GroupNormBackward a;
  a.shape = shape;
  return saved_stats_backward_task(a, &kn::group_norm_backward, gradOut, input, mean, rstd, gamma, grads);
}

namespace {

// The trailing dims gamma spans: gamma's shape must end x's.
int64_t rms_dims(const aclTensor* x, const aclTensor* gamma) {
  require_tensor(gamma, "gamma");
  const kn::Shape& g = gamma->view_dims;
  const std::vector<int64_t> shape(g.begin(), g.end());
  return normalized_dims(x, shape, "gamma's shape");
}

int64_t leading_rows(const aclTensor* x, int64_t k) {
  const kn::Shape& dims = x->view_dims;
  return product(dims, 0, dims.size() - k);
}

}  // namespace

TaskBody rms_norm_task(const aclTensor* x, const aclTensor* gamma, double epsilon, const aclTensor* yOut,
                       const aclTensor* rstdOut) {
  require_floating_input(x, "x");
  const int64_t k = rms_dims(x, gamma);
  require_tensor(yOut, "yOut");
  require_shape(yOut, x->view_dims, "yOut");
  require_numel(rstdOut, leading_rows(x, k), "rstdOut");
  return [in = x->view(), y = yOut->view(), w = gamma->view(), r = optional_view(rstdOut), k, epsilon] {
    kn::RmsNormForward a;
    a.normalized_dims = k;
    a.weight = &w;
    a.eps = epsilon;
    a.rstd = ptr(r);
    kn::rms_norm(y, in, a);
  };
}

TaskBody rms_norm_grad_task(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* gamma,
                            const aclTensor* dxOut, const aclTensor* dgammaOut) {
  require_grad_of(dy, "dy", x, "x");
  const int64_t k = rms_dims(x, gamma);
  require_tensor(rstd, "rstd");
  require_numel(rstd, leading_rows(x, k), "rstd");
  if (dxOut != nullptr) require_shape(dxOut, x->view_dims, "dxOut");
  if (dgammaOut != nullptr) require_shape(dgammaOut, gamma->view_dims, "dgammaOut");
  return [g = dy->view(), in = x->view(), r = rstd->view(), w = gamma->view(), dx = optional_view(dxOut),
          dw = optional_view(dgammaOut), k] {
    kn::RmsNormBackward a;
    a.normalized_dims = k;
    a.rstd = &r;
    a.weight = &w;
    a.grad_input = ptr(dx);
    a.grad_weight = ptr(dw);
    kn::rms_norm_backward(g, in, a);
  };
}

}  // namespace npu::emu
