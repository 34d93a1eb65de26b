// The pooling family's task makers (kernels/pool/pool.h). Every argument is
// checked at GetWorkspaceSize time: list lengths and values, input rank,
// output shapes and dtypes; the tasks only compute.
#include "emulator/ops/pool.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/pool/pool.h"

namespace npu::emu {

namespace {

namespace kn = kernels;
using kernels::PoolParams;
using kernels::Shape;
using kernels::TensorView;

void require_same_dtype(const aclTensor* t, const char* name, const aclTensor* like, const char* like_name) {
  if (t->dtype != like->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " has dtype " + model::dtype_name(t->dtype) + ", expected " +
                                      like_name + "'s " + model::dtype_name(like->dtype));
  }
}

void require_indices(const aclTensor* indices) {
  require_dtype(indices, "indices", "int64 or int32",
                [](model::DType d) { return d == model::DType::Int64 || d == model::DType::Int32; });
}

PoolParams params(const char* op, int64_t rank, const aclIntArray* kernelSize, const aclIntArray* stride,
                  const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode) {
  return kn::pool_params(op, rank, int_values(kernelSize), int_values(stride), int_values(padding),
                         int_values(dilation), ceilMode);
}

// Checks shared by the backward ops: gradInput is self's, gradOutput the
// forward output's shape, both in self's dtype.
void check_backward(const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput, const Shape& pooled) {
  require_shape(gradInput, self->view_dims, "gradInput");
  require_same_dtype(gradInput, "gradInput", self, "self");
  require_shape(gradOutput, pooled, "gradOutput");
  require_same_dtype(gradOutput, "gradOutput", self, "self");
}

std::vector<int64_t> output_size(int64_t rank, const aclIntArray* outputSize) {
  std::vector<int64_t> size = int_values(outputSize);
  if (size.size() == 1) size.assign(static_cast<std::size_t>(rank), size[0]);
  if (static_cast<int64_t>(size.size()) != rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "outputSize must have 1 or " + std::to_string(rank) + " entries");
  }
  return size;
}

}  // namespace

TaskBody max_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                       const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                       aclTensor* indices) {
  const auto v = require_views<3>({{{self, "self"}, {out, "out"}, {indices, "indices"}}});
  const PoolParams p = params("max_pool", rank, kernelSize, stride, padding, dilation, ceilMode);
  const Shape shape = kn::pooled_shape("max_pool", v[0].sizes, p);
  require_shape(out, shape, "out");
  require_same_dtype(out, "out", self, "self");
  require_shape(indices, shape, "indices");
  require_indices(indices);
  return [v, p] { kn::max_pool(v[0], v[1], v[2], p); };
}

TaskBody max_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                const aclTensor* indices, const aclIntArray* kernelSize, const aclIntArray* stride,
                                const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode,
                                aclTensor* gradInput) {
  const auto v = require_views<4>(
      {{{gradOutput, "gradOutput"}, {self, "self"}, {indices, "indices"}, {gradInput, "gradInput"}}});
  const PoolParams p = params("max_pool backward", rank, kernelSize, stride, padding, dilation, ceilMode);
  const Shape pooled = kn::pooled_shape("max_pool backward", v[1].sizes, p);
  check_backward(gradOutput, self, gradInput, pooled);
  require_shape(indices, pooled, "indices");
  require_indices(indices);
  return [v, rank] { kn::max_pool_backward(v[0], v[2], v[3], rank); };
}

TaskBody avg_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                       const aclIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride,
                       aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  const PoolParams p = params("avg_pool", rank, kernelSize, stride, padding, nullptr, ceilMode);
  require_shape(out, kn::pooled_shape("avg_pool", v[0].sizes, p), "out");
  require_same_dtype(out, "out", self, "self");
  return [v, p, countIncludePad, divisorOverride] { kn::avg_pool(v[0], v[1], p, countIncludePad, divisorOverride); };
}

TaskBody avg_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                const aclIntArray* kernelSize, const aclIntArray* stride, const aclIntArray* padding,
                                bool ceilMode, bool countIncludePad, int64_t divisorOverride, aclTensor* gradInput) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {self, "self"}, {gradInput, "gradInput"}}});
  const PoolParams p = params("avg_pool backward", rank, kernelSize, stride, padding, nullptr, ceilMode);
  check_backward(gradOutput, self, gradInput, kn::pooled_shape("avg_pool backward", v[1].sizes, p));
  return [v, p, countIncludePad, divisorOverride] {
    kn::avg_pool_backward(v[0], v[2], p, countIncludePad, divisorOverride);
  };
}

TaskBody adaptive_avg_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* outputSize, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_shape(out, kn::adaptive_shape("adaptive_avg_pool", v[0].sizes, output_size(rank, outputSize)), "out");
  require_same_dtype(out, "out", self, "self");
  return [v, rank] { kn::adaptive_avg_pool(v[0], v[1], rank); };
}

TaskBody adaptive_avg_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                         aclTensor* gradInput) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {self, "self"}, {gradInput, "gradInput"}}});
  if (v[0].dim() != v[1].dim() || v[1].dim() <= rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "gradOutput and self must have one rank, above " + std::to_string(rank));
  }
  const std::vector<int64_t> size(v[0].sizes.end() - rank, v[0].sizes.end());
  check_backward(gradOutput, self, gradInput, kn::adaptive_shape("adaptive_avg_pool backward", v[1].sizes, size));
  return [v, rank] { kn::adaptive_avg_pool_backward(v[0], v[2], rank); };
}

TaskBody adaptive_max_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* outputSize, aclTensor* out,
                                aclTensor* indices) {
  const auto v = require_views<3>({{{self, "self"}, {out, "out"}, {indices, "indices"}}});
  const Shape shape = kn::adaptive_shape("adaptive_max_pool", v[0].sizes, output_size(rank, outputSize));
  require_shape(out, shape, "out");
  require_same_dtype(out, "out", self, "self");
  require_shape(indices, shape, "indices");
  require_indices(indices);
  return [v, rank] { kn::adaptive_max_pool(v[0], v[1], v[2], rank); };
}

TaskBody adaptive_max_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                         const aclTensor* indices, aclTensor* gradInput) {
  const auto v = require_views<4>(
      {{{gradOutput, "gradOutput"}, {self, "self"}, {indices, "indices"}, {gradInput, "gradInput"}}});
  if (v[0].dim() != v[1].dim() || v[1].dim() <= rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "gradOutput and self must have one rank, above " + std::to_string(rank));
  }
  const std::vector<int64_t> size(v[0].sizes.end() - rank, v[0].sizes.end());
  const Shape pooled = kn::adaptive_shape("adaptive_max_pool backward", v[1].sizes, size);
  check_backward(gradOutput, self, gradInput, pooled);
  require_shape(indices, pooled, "indices");
  require_indices(indices);
  return [v, rank] { kn::max_pool_backward(v[0], v[2], v[3], rank); };
}

}  // namespace npu::emu
