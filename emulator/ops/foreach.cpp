// The foreach family's task makers (kernels/optim/foreach.h). Every list is
// checked on the host: equal lengths, and for each position the same shape
// and the same floating dtype in every list.
#include "emulator/ops/foreach.h"

#include <string>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/core/scalar.h"

namespace npu::emu {

namespace kn = kernels;
using kn::ForeachFn;
using kn::ForeachItem;

namespace {

std::string at_index(const char* name, std::size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

// The lists' views, checked against out: one entry per tensor of out, the
// same shape and floating dtype.
struct Lists {
  std::vector<kn::TensorView> out;
  std::vector<std::vector<kn::TensorView>> in;
};

Lists check_lists(std::initializer_list<std::pair<const aclTensorList*, const char*>> inputs,
                  const aclTensorList* out) {
  Lists lists{required_views(out, "out"), {}};
  for (const auto& [list, name] : inputs) {
    lists.in.push_back(required_views(list, name));
    if (lists.in.back().size() != lists.out.size()) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " holds " + std::to_string(lists.in.back().size()) +
                                        " tensors, out holds " + std::to_string(lists.out.size()));
    }
  }
  for (std::size_t i = 0; i < lists.out.size(); ++i) {
    const kn::TensorView& o = lists.out[i];
    if (!model::is_floating_point(o.dtype)) {
      fail(ACLNN_ERR_PARAM_INVALID, at_index("out", i) + " has dtype " + model::dtype_name(o.dtype) +
                                        "; the foreach ops take float16, bfloat16, float32 or float64 tensors");
    }
    std::size_t k = 0;
    for (const auto& [list, name] : inputs) {
      const kn::TensorView& v = lists.in[k++][i];
      if (v.dtype != o.dtype || v.sizes != o.sizes) {
        fail(ACLNN_ERR_PARAM_INVALID, at_index(name, i) + " (" + model::dtype_name(v.dtype) + ", " +
                                          kn::shape_str(v.sizes) + ") must match " + at_index("out", i) + " (" +
                                          model::dtype_name(o.dtype) + ", " + kn::shape_str(o.sizes) + ")");
      }
      (void)list;
    }
  }
  return lists;
}

std::vector<ForeachItem> items_of(const Lists& lists, double scalar) {
  std::vector<ForeachItem> items(lists.out.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].out = lists.out[i];
    if (!lists.in.empty()) items[i].a = lists.in[0][i];
    if (lists.in.size() > 1) items[i].b = lists.in[1][i];
    if (lists.in.size() > 2) items[i].c = lists.in[2][i];
    items[i].scalar = scalar;
  }
  return items;
}

double real_scalar(const aclScalar* s, const char* name) {
  require_scalar(s, name);
  if (model::is_complex(s->dtype)) fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a real scalar");
  return s->value().to<double>();
}

// A scalar kept in device memory: a 1-element real tensor, read when the task runs.
kn::TensorView scalar_tensor(const aclTensor* t, const char* name) {
  require_tensor(t, name);
  const kn::TensorView v = t->view();
  if (v.numel() != 1 || model::is_complex(v.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a 1-element real tensor, got " +
                                      model::dtype_name(v.dtype) + " " + kn::shape_str(v.sizes));
  }
  return v;
}

double read_scalar(const kn::TensorView& v) { return kn::Scalar::from_raw(v.data, v.dtype).to<double>(); }

}  // namespace

TaskBody foreach_unary_task(ForeachFn fn, const aclTensorList* x, aclTensorList* out) {
  auto items = items_of(check_lists({{x, "x"}}, out), 0.0);
  return [fn, items = std::move(items)] { kn::foreach_pointwise(fn, items); };
}

TaskBody foreach_scalar_task(ForeachFn fn, const aclTensorList* x, const aclScalar* scalar, aclTensorList* out) {
  auto items = items_of(check_lists({{x, "x"}}, out), real_scalar(scalar, "scalar"));
  return [fn, items = std::move(items)] { kn::foreach_pointwise(fn, items); };
}

TaskBody foreach_scalar_tensor_task(ForeachFn fn, const aclTensorList* x, const aclTensor* scalar,
                                    aclTensorList* out) {
  const kn::TensorView s = scalar_tensor(scalar, "scalar");
  auto items = items_of(check_lists({{x, "x"}}, out), 0.0);
  return [fn, s, items = std::move(items)]() mutable {
    const double value = read_scalar(s);
    for (ForeachItem& it : items) it.scalar = value;
    kn::foreach_pointwise(fn, items);
  };
}

TaskBody foreach_scalar_list_task(ForeachFn fn, const aclTensorList* x, const aclScalarList* scalars,
                                  aclTensorList* out) {
  if (scalars == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "scalars is a null aclScalarList");
  auto items = items_of(check_lists({{x, "x"}}, out), 0.0);
  if (scalars->scalars.size() != items.size()) {
    fail(ACLNN_ERR_PARAM_INVALID, "scalars holds " + std::to_string(scalars->scalars.size()) +
                                      " values, x holds " + std::to_string(items.size()) + " tensors");
  }
  for (std::size_t i = 0; i < items.size(); ++i) items[i].scalar = real_scalar(scalars->scalars[i].get(), "scalars");
  return [fn, items = std::move(items)] { kn::foreach_pointwise(fn, items); };
}

TaskBody foreach_list_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2, const aclScalar* scalar,
                           aclTensorList* out) {
  const double s = scalar == nullptr ? 1.0 : real_scalar(scalar, "scalar");
  auto items = items_of(check_lists({{x1, "x1"}, {x2, "x2"}}, out), s);
  return [fn, items = std::move(items)] { kn::foreach_pointwise(fn, items); };
}

TaskBody foreach_list_alpha_tensor_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                                        const aclTensor* alpha, aclTensorList* out) {
  const kn::TensorView a = scalar_tensor(alpha, "alpha");
  auto items = items_of(check_lists({{x1, "x1"}, {x2, "x2"}}, out), 0.0);
  return [fn, a, items = std::move(items)]() mutable {
    const double value = read_scalar(a);
    for (ForeachItem& it : items) it.scalar = value;
    kn::foreach_pointwise(fn, items);
  };
}

TaskBody foreach_ternary_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                              const aclTensorList* x3, const aclScalar* scalar, aclTensorList* out) {
  auto items = items_of(check_lists({{x1, "x1"}, {x2, "x2"}, {x3, "x3"}}, out), real_scalar(scalar, "scalar"));
  return [fn, items = std::move(items)] { kn::foreach_pointwise(fn, items); };
}

TaskBody foreach_ternary_scalars_task(ForeachFn fn, const aclTensorList* x1, const aclTensorList* x2,
                                      const aclTensorList* x3, const aclTensor* scalars, aclTensorList* out) {
  require_tensor(scalars, "scalars");
  const kn::TensorView s = scalars->view();
  auto items = items_of(check_lists({{x1, "x1"}, {x2, "x2"}, {x3, "x3"}}, out), 0.0);
  if (s.dim() != 1 || s.sizes[0] != static_cast<int64_t>(items.size()) || model::is_complex(s.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, "scalars must be a 1-D real tensor of " + std::to_string(items.size()) +
                                      " values (one per tensor), got " + kn::shape_str(s.sizes));
  }
  return [fn, s, items = std::move(items)]() mutable {
    const auto* base = static_cast<const unsigned char*>(s.data);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const void* at = base + static_cast<int64_t>(i) * s.strides[0] * static_cast<int64_t>(s.itemsize());
      items[i].scalar = kn::Scalar::from_raw(at, s.dtype).to<double>();
    }
    kn::foreach_pointwise(fn, items);
  };
}

TaskBody foreach_norm_task(const aclTensorList* x, const aclScalar* p, aclTensorList* out) {
  const double ord = real_scalar(p, "scalar");
  std::vector<kn::TensorView> in = required_views(x, "x");
  std::vector<kn::TensorView> res = required_views(out, "out");
  if (in.size() != res.size()) {
    fail(ACLNN_ERR_PARAM_INVALID, "out holds " + std::to_string(res.size()) + " tensors, x holds " +
                                      std::to_string(in.size()));
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!model::is_floating_point(in[i].dtype) || !model::is_floating_point(res[i].dtype)) {
      fail(ACLNN_ERR_PARAM_INVALID, at_index("x", i) + " and " + at_index("out", i) + " must be floating, got " +
                                        model::dtype_name(in[i].dtype) + " and " + model::dtype_name(res[i].dtype));
    }
    if (res[i].numel() != 1) fail(ACLNN_ERR_PARAM_INVALID, at_index("out", i) + " must hold one element");
  }
  return [in = std::move(in), res = std::move(res), ord] { kn::foreach_norm(in, res, ord); };
}

TaskBody non_finite_check_and_unscale_task(const aclTensorList* scaledGrads, const aclTensor* foundInf,
                                           const aclTensor* inScale) {
  std::vector<kn::TensorView> grads = required_views(scaledGrads, "scaledGrads");
  const kn::TensorView found = scalar_tensor(foundInf, "foundInf");
  const kn::TensorView inv = scalar_tensor(inScale, "inScale");
  if (found.dtype != model::DType::Float32 || inv.dtype != model::DType::Float32) {
    fail(ACLNN_ERR_PARAM_INVALID, "foundInf and inScale must be float32, got " +
                                      std::string(model::dtype_name(found.dtype)) + " and " +
                                      model::dtype_name(inv.dtype));
  }
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (!model::is_floating_point(grads[i].dtype)) {
      fail(ACLNN_ERR_PARAM_INVALID, at_index("scaledGrads", i) + " must be floating, got " +
                                        model::dtype_name(grads[i].dtype));
    }
  }
  return [grads = std::move(grads), found, inv] { kn::foreach_non_finite_check_and_unscale(grads, found, inv); };
}

TaskBody amp_update_scale_task(const aclTensor* currentScale, const aclTensor* growthTracker,
                               const aclTensor* foundInf, double growthFactor, double backoffFactor,
                               int64_t growthInterval, const aclTensor* updatedScaleOut,
                               const aclTensor* updatedGrowthTrackerOut) {
  const kn::TensorView scale = scalar_tensor(currentScale, "currentScale");
  const kn::TensorView tracker = scalar_tensor(growthTracker, "growthTracker");
  const kn::TensorView found = scalar_tensor(foundInf, "foundInf");
  const kn::TensorView scale_out = scalar_tensor(updatedScaleOut, "updatedScaleOut");
  const kn::TensorView tracker_out = scalar_tensor(updatedGrowthTrackerOut, "updatedGrowthTrackerOut");
  if (scale.dtype != model::DType::Float32 || found.dtype != model::DType::Float32 ||
      scale_out.dtype != model::DType::Float32) {
    fail(ACLNN_ERR_PARAM_INVALID, "currentScale, foundInf and updatedScaleOut must be float32");
  }
  if (tracker.dtype != model::DType::Int32 || tracker_out.dtype != model::DType::Int32) {
    fail(ACLNN_ERR_PARAM_INVALID, "growthTracker and updatedGrowthTrackerOut must be int32");
  }
  return [=] {
    // The kernel updates in place: the outputs start as copies of the inputs.
    *scale_out.ptr<float>() = *scale.ptr<float>();
    *tracker_out.ptr<int32_t>() = *tracker.ptr<int32_t>();
    kn::amp_update_scale(scale_out, tracker_out, found, growthFactor, backoffFactor, growthInterval);
  };
}

}  // namespace npu::emu
