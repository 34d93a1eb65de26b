// The embedding family's task makers (kernels/embedding/embedding.h): shapes
// and dtypes are checked on the host; index values when the task runs.
#include "emulator/ops/embedding.h"

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

}  // namespace npu::emu
