// The fused optimizer family's task makers (kernels/optim/fused_optim.h).
// Host checks: every list as long as params, each state tensor shaped and
// typed as its parameter; step counts are 1-element real tensors read when
// the task runs (the optimizer increments them just before the step).
#include "emulator/ops/optim.h"

#include <optional>
#include <string>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/core/scalar.h"
#include "kernels/optim/fused_optim.h"

namespace npu::emu {

namespace kn = kernels;

namespace {

std::string at_index(const char* name, std::size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

// The parameters' views, each list's entry filled in by `field`.
class ItemBuilder {
 public:
  explicit ItemBuilder(const aclTensorList* params) {
    const auto views = required_views(params, "params");
    items_.resize(views.size());
    for (std::size_t i = 0; i < views.size(); ++i) {
      if (!model::is_floating_point(views[i].dtype)) {
        fail(ACLNN_ERR_PARAM_INVALID, at_index("params", i) + " has dtype " + model::dtype_name(views[i].dtype) +
                                          "; the fused optimizers take floating parameters");
      }
      items_[i].param = views[i];
    }
  }

  // A list shaped and typed as params, into items[i].*field.
  void add(const aclTensorList* list, const char* name, kn::TensorView kn::OptimItem::*field) {
    const auto views = required_views(list, name);
    require_length(views.size(), name);
    for (std::size_t i = 0; i < views.size(); ++i) {
      const kn::TensorView& p = items_[i].param;
      if (views[i].dtype != p.dtype || views[i].sizes != p.sizes) {
        fail(ACLNN_ERR_PARAM_INVALID, at_index(name, i) + " (" + model::dtype_name(views[i].dtype) + ", " +
                                          kn::shape_str(views[i].sizes) + ") must match " + at_index("params", i) +
                                          " (" + model::dtype_name(p.dtype) + ", " + kn::shape_str(p.sizes) + ")");
      }
      items_[i].*field = views[i];
    }
  }

  // 1-element step counts, read by the task.
  std::vector<kn::TensorView> steps(const aclTensorList* list, const char* name) {
    auto views = required_views(list, name);
    require_length(views.size(), name);
    for (std::size_t i = 0; i < views.size(); ++i) {
      if (views[i].numel() != 1 || model::is_complex(views[i].dtype)) {
        fail(ACLNN_ERR_PARAM_INVALID, at_index(name, i) + " must be a 1-element real tensor");
      }
    }
    return views;
  }

  std::vector<kn::OptimItem> take() { return std::move(items_); }

 private:
  void require_length(std::size_t n, const char* name) const {
    if (n != items_.size()) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " holds " + std::to_string(n) + " tensors, params holds " +
                                        std::to_string(items_.size()));
    }
  }
  std::vector<kn::OptimItem> items_;
};

double read_value(const kn::TensorView& v) { return kn::Scalar::from_raw(v.data, v.dtype).to<double>(); }

// An optional 1-element float32 tensor (grad_scale, found_inf).
std::optional<kn::TensorView> optional_float(const aclTensor* t, const char* name) {
  if (t == nullptr) return std::nullopt;
  const kn::TensorView v = t->view();
  if (v.numel() != 1 || v.dtype != model::DType::Float32) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a 1-element float32 tensor, got " +
                                      model::dtype_name(v.dtype) + " " + kn::shape_str(v.sizes));
  }
  return v;
}

// What every fused step does first, when it runs: skip the whole step on
// found_inf == 1 (GradScaler saw inf/NaN), else read grad_scale and the steps.
struct StepInputs {
  std::optional<kn::TensorView> grad_scale, found_inf;
  std::vector<kn::TensorView> steps;

  bool skip() const { return found_inf && *found_inf->ptr<float>() == 1.0f; }
  std::optional<float> scale() const {
    return grad_scale ? std::optional<float>(*grad_scale->ptr<float>()) : std::nullopt;
  }
  void read_steps(std::vector<kn::OptimItem>& items) const {
    for (std::size_t i = 0; i < steps.size(); ++i) items[i].step = read_value(steps[i]);
  }
};

}  // namespace

TaskBody fused_adam_task(aclTensorList* params, aclTensorList* grads, aclTensorList* expAvgs,
                         aclTensorList* expAvgSqs, aclTensorList* maxExpAvgSqs, const aclTensorList* stateSteps,
                         double lr, double beta1, double beta2, double weightDecay, double eps, bool amsgrad,
                         bool maximize, bool decoupledWeightDecay, const aclTensor* gradScaleOptional,
                         const aclTensor* foundInfOptional) {
  ItemBuilder b(params);
  b.add(grads, "grads", &kn::OptimItem::grad);
  b.add(expAvgs, "expAvgs", &kn::OptimItem::state1);
  b.add(expAvgSqs, "expAvgSqs", &kn::OptimItem::state2);
  if (amsgrad) b.add(maxExpAvgSqs, "maxExpAvgSqs", &kn::OptimItem::state3);
  StepInputs in{optional_float(gradScaleOptional, "gradScaleOptional"),
                optional_float(foundInfOptional, "foundInfOptional"), b.steps(stateSteps, "stateSteps")};
  const kn::AdamConfig cfg{lr, beta1, beta2, weightDecay, eps, amsgrad, maximize, decoupledWeightDecay};
  return [items = b.take(), in = std::move(in), cfg]() mutable {
    if (in.skip()) return;
    in.read_steps(items);
    kn::fused_adam(items, cfg, in.scale());
  };
}

TaskBody fused_sgd_task(aclTensorList* params, aclTensorList* grads, aclTensorList* momentumBuffers,
                        double weightDecay, double momentum, double lr, double dampening, bool nesterov,
                        bool maximize, bool isFirstStep, const aclTensor* gradScaleOptional,
                        const aclTensor* foundInfOptional) {
  ItemBuilder b(params);
  b.add(grads, "grads", &kn::OptimItem::grad);
  if (momentum != 0) b.add(momentumBuffers, "momentumBuffers", &kn::OptimItem::state1);
  StepInputs in{optional_float(gradScaleOptional, "gradScaleOptional"),
                optional_float(foundInfOptional, "foundInfOptional"), {}};
  const kn::SgdConfig cfg{weightDecay, momentum, lr, dampening, nesterov, maximize, isFirstStep};
  return [items = b.take(), in = std::move(in), cfg] {
    if (in.skip()) return;
    kn::fused_sgd(items, cfg, in.scale());
  };
}

TaskBody fused_adagrad_task(aclTensorList* params, aclTensorList* grads, aclTensorList* stateSums,
                            const aclTensorList* stateSteps, double lr, double lrDecay, double weightDecay,
                            double eps, bool maximize, const aclTensor* gradScaleOptional,
                            const aclTensor* foundInfOptional) {
  ItemBuilder b(params);
  b.add(grads, "grads", &kn::OptimItem::grad);
  b.add(stateSums, "stateSums", &kn::OptimItem::state1);
  StepInputs in{optional_float(gradScaleOptional, "gradScaleOptional"),
                optional_float(foundInfOptional, "foundInfOptional"), b.steps(stateSteps, "stateSteps")};
  const kn::AdagradConfig cfg{lr, lrDecay, weightDecay, eps, maximize};
  return [items = b.take(), in = std::move(in), cfg]() mutable {
    if (in.skip()) return;
    in.read_steps(items);
    kn::fused_adagrad(items, cfg, in.scale());
  };
}

TaskBody apply_adamw_v2_task(aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, aclTensor* maxGradNormOptionalRef,
                             const aclTensor* grad, const aclTensor* step, float lr, float beta1, float beta2,
                             float weightDecay, float eps, bool amsgrad, bool maximize) {
  kn::OptimItem item;
  item.param = require_views<1>({{{varRef, "varRef"}}})[0];
  if (!model::is_floating_point(item.param.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("varRef has dtype ") + model::dtype_name(item.param.dtype) +
                                      "; aclnnApplyAdamWV2 takes float16, bfloat16 or float32");
  }
  const auto like_var = [&](const aclTensor* t, const char* name) {
    const kn::TensorView v = require_views<1>({{{t, name}}})[0];
    if (v.dtype != item.param.dtype || v.sizes != item.param.sizes) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " (" + model::dtype_name(v.dtype) + ", " +
                                        kn::shape_str(v.sizes) + ") must match varRef (" +
                                        model::dtype_name(item.param.dtype) + ", " +
                                        kn::shape_str(item.param.sizes) + ")");
    }
    return v;
  };
  item.state1 = like_var(mRef, "mRef");
  item.state2 = like_var(vRef, "vRef");
  item.grad = like_var(grad, "grad");
  if (amsgrad) {
    if (maxGradNormOptionalRef == nullptr) {
      fail(ACLNN_ERR_PARAM_NULLPTR, "maxGradNormOptionalRef is required when amsgrad is true");
    }
    item.state3 = like_var(maxGradNormOptionalRef, "maxGradNormOptionalRef");
  }
  const kn::TensorView count = require_views<1>({{{step, "step"}}})[0];
  if (count.numel() != 1 || (count.dtype != model::DType::Int64 && count.dtype != model::DType::Float32)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("step must be a 1-element int64 or float32 tensor, got ") +
                                      model::dtype_name(count.dtype) + " " + kn::shape_str(count.sizes));
  }
  const kn::AdamConfig cfg{lr, beta1, beta2, weightDecay, eps, amsgrad, maximize, true};
  return [item, count, cfg]() mutable {
    // CANN's step counts the steps taken before this one (torch_npu passes
    // PyTorch's already incremented count minus 1): this step is step + 1.
    item.step = read_value(count) + 1.0;
    kn::fused_adam({item}, cfg, std::nullopt);
  };
}

}  // namespace npu::emu
