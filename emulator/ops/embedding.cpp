// The embedding family's task makers (kernels/embedding/embedding.h): shapes
// and dtypes are checked on the host; index values when the task runs.
#include "emulator/ops/embedding.h"

#include <optional>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/embedding/embedding.h"

namespace npu::emu {

namespace kn = kernels;

namespace {

void require_indices(const aclTensor* indices) {
  require_tensor(indices, "indices");
  require_dtype(indices, "indices", "int32 or int64",
                [](kn::DType d) { return d == kn::DType::Int32 || d == kn::DType::Int64; });
}

}  // namespace

TaskBody embedding_task(const aclTensor* weight, const aclTensor* indices, aclTensor* out) {
  require_tensor(weight, "weight");
  require_indices(indices);
  require_tensor(out, "out");
  if (weight->view_dims.size() != 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "weight must be 2-dim, got " + kn::shape_str(weight->view_dims));
  }
  kn::Shape shape = indices->view_dims;
  shape.push_back(weight->view_dims[1]);
  require_shape(out, shape, "out");
  if (out->view().dtype != weight->view().dtype) fail(ACLNN_ERR_PARAM_INVALID, "out must have weight's dtype");
  return [o = out->view(), w = weight->view(), iv = indices->view()] { kn::embedding(o, w, iv); };
}

TaskBody embedding_dense_backward_task(const aclTensor* grad, const aclTensor* indices, uint64_t numWeights,
                                       uint64_t paddingIdx, bool scaleGradByFreq, aclTensor* out) {
  require_tensor(grad, "grad");
  require_floating(grad, "grad");
  require_indices(indices);
  require_tensor(out, "out");
  const kn::Shape& g = grad->view_dims;
  // CANN: grad's leading dims, flattened, match indices flattened.
  if (g.empty() || grad->view().numel() != indices->view().numel() * g.back()) {
    fail(ACLNN_ERR_PARAM_INVALID, "grad must have shape indices.shape + [D], got grad " + kn::shape_str(g) +
                                      " and indices " + kn::shape_str(indices->view_dims));
  }
  const auto rows = static_cast<int64_t>(numWeights);
  require_shape(out, kn::Shape{rows, g.back()}, "out");
  if (out->view().dtype != grad->view().dtype) fail(ACLNN_ERR_PARAM_INVALID, "out must have grad's dtype");
  const auto padding = static_cast<int64_t>(paddingIdx);
  return [o = out->view(), gv = grad->view(), iv = indices->view(), padding, scaleGradByFreq] {
    kn::embedding_dense_backward(o, gv, iv, padding, scaleGradByFreq);
  };
}

TaskBody embedding_renorm_task(aclTensor* selfRef, const aclTensor* indices, double maxNorm, double normType) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "selfRef");
  require_indices(indices);
  if (selfRef->view_dims.size() != 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "selfRef must be 2-dim, got " + kn::shape_str(selfRef->view_dims));
  }
  return [s = selfRef->view(), iv = indices->view(), maxNorm, normType] {
    kn::embedding_renorm(s, iv, maxNorm, normType);
  };
}

namespace {

kn::BagMode bag_mode_of(int64_t mode) {
  if (mode < 0 || mode > 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
  }
  return static_cast<kn::BagMode>(mode);
}

void require_1d(const aclTensor* t, const char* name) {
  if (t->view_dims.size() != 1) fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be 1-dim, got " + kn::shape_str(t->view_dims));
}

}  // namespace

TaskBody embedding_bag_task(const aclTensor* weight, const aclTensor* indices, const aclTensor* offsets,
                            bool scaleGradByFreq, int64_t mode, bool sparse, const aclTensor* perSampleWeights,
                            bool includeLastOffset, int64_t paddingIdx, aclTensor* output, aclTensor* offset2bag,
                            aclTensor* bagSize, aclTensor* maxIndices) {
  (void)scaleGradByFreq;  // gradient-only arguments: the forward does not depend on them
  (void)sparse;
  require_tensor(weight, "weight");
  require_floating(weight, "weight");
  require_indices(indices);
  require_indices(offsets);
  require_1d(indices, "indices");
  require_1d(offsets, "offsets");
  if (weight->view_dims.size() != 2) fail(ACLNN_ERR_PARAM_INVALID, "weight must be 2-dim, got " + kn::shape_str(weight->view_dims));
  const kn::BagMode m = bag_mode_of(mode);
  if (perSampleWeights != nullptr) {
    if (m != kn::BagMode::Sum) fail(ACLNN_ERR_PARAM_INVALID, "perSampleWeights is only supported for mode 0 (sum)");
    require_shape(perSampleWeights, indices->view_dims, "perSampleWeights");
  }
  const auto v = require_views<4>({{{output, "output"}, {offset2bag, "offset2bag"}, {bagSize, "bagSize"},
                                    {maxIndices, "maxIndices"}}});
  return [v, w = weight->view(), i = indices->view(), o = offsets->view(), p = optional_view(perSampleWeights), m,
          includeLastOffset, paddingIdx] {
    kn::embedding_bag(v[0], v[1], v[2], v[3], w, i, o, m, p ? &*p : nullptr, includeLastOffset, paddingIdx);
  };
}

TaskBody embedding_bag_dense_backward_task(const aclTensor* grad, const aclTensor* indices,
                                           const aclTensor* offset2bag, const aclTensor* bagSize,
                                           const aclTensor* maxIndices, uint64_t numWeights, bool scaleGradByFreq,
                                           int64_t mode, const aclTensor* perSampleWeights, int64_t paddingIdx,
                                           aclTensor* out) {
  require_tensor(grad, "grad");
  require_floating(grad, "grad");
  require_indices(indices);
  const kn::BagMode m = bag_mode_of(mode);
  const auto v = require_views<4>({{{offset2bag, "offset2bag"}, {bagSize, "bagSize"}, {maxIndices, "maxIndices"},
                                    {out, "out"}}});
  if (grad->view_dims.size() != 2) fail(ACLNN_ERR_PARAM_INVALID, "grad must be 2-dim [B, D], got " + kn::shape_str(grad->view_dims));
  require_shape(out, kn::Shape{static_cast<int64_t>(numWeights), grad->view_dims[1]}, "out");
  return [v, g = grad->view(), i = indices->view(), p = optional_view(perSampleWeights), m, scaleGradByFreq,
          paddingIdx] {
    kn::embedding_bag_dense_backward(v[3], g, i, v[0], v[1], v[2], scaleGradByFreq, m, p ? &*p : nullptr,
                                     paddingIdx);
  };
}

TaskBody embedding_bag_per_sample_weights_backward_task(const aclTensor* grad, const aclTensor* weight,
                                                        const aclTensor* indices, const aclTensor* offsets,
                                                        const aclTensor* offset2bag, int64_t mode, int64_t paddingIdx,
                                                        aclTensor* out) {
  require_tensor(offsets, "offsets");
  if (bag_mode_of(mode) != kn::BagMode::Sum) {
    fail(ACLNN_ERR_PARAM_INVALID, "per-sample weights are only supported for mode 0 (sum), got mode " + std::to_string(mode));
  }
  require_indices(indices);
  const auto v = require_views<4>({{{grad, "grad"}, {weight, "weight"}, {offset2bag, "offset2bag"}, {out, "out"}}});
  require_shape(out, indices->view_dims, "out");
  return [v, i = indices->view(), paddingIdx] {
    kn::embedding_bag_per_sample_weights_backward(v[3], v[0], v[1], i, v[2], paddingIdx);
  };
}

}  // namespace npu::emu
