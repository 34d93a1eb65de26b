// The pooling family's task makers (kernels/pool/pool.h). Every argument is
// checked at GetWorkspaceSize time: list lengths and values, input rank,
// output shapes and dtypes; the tasks only compute.
#include "emulator/ops/pool.h"

#include <string>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/pool/max_pool_mask.h"
#include "kernels/pool/max_unpool.h"
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

// ... and, for a max pool's backward, indices (int64 or int32) of gradOutput's shape.
void check_max_backward(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices,
                        aclTensor* gradInput, const Shape& pooled) {
  check_backward(gradOutput, self, gradInput, pooled);
  require_shape(indices, pooled, "indices");
  require_indices(indices);
}

// A max pool's outputs: out in self's dtype and indices (int64 or int32),
// both of the pooled shape.
void check_max_outputs(aclTensor* out, aclTensor* indices, const aclTensor* self, const Shape& pooled) {
  require_shape(out, pooled, "out");
  require_same_dtype(out, "out", self, "self");
  require_shape(indices, pooled, "indices");
  require_indices(indices);
}

// The pooled shape an adaptive pool's backward reads off gradOutput's last
// `rank` dims (gradOutput and self have one rank, above `rank`).
Shape adaptive_pooled(const char* op, int64_t rank, const TensorView& grad_output, const aclTensor* self) {
  if (grad_output.dim() != static_cast<int64_t>(self->view_dims.size()) || grad_output.dim() <= rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "gradOutput and self must have one rank, above " + std::to_string(rank));
  }
  const std::vector<int64_t> size(grad_output.sizes.end() - rank, grad_output.sizes.end());
  return kn::adaptive_shape(op, self->view_dims, size);
}

std::vector<int64_t> output_size(int64_t rank, const aclIntArray* outputSize) {
  std::vector<int64_t> size = int_values(outputSize);
  if (size.size() == 1) size.assign(static_cast<std::size_t>(rank), size[0]);
  if (static_cast<int64_t>(size.size()) != rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "outputSize must have 1 or " + std::to_string(rank) + " entries");
  }
  return size;
}

// The input a forward pooling reads: a base-format view, or an NC1HWC0
// tensor's storage read in place (its channel blocks are contiguous, so the
// kernels pool it without a format transform). Other private formats are
// refused by name.
kn::PoolInput pool_input(const aclTensor* self, int64_t rank) {
  require_tensor(self, "self");
  if (self->format != ACL_FORMAT_NC1HWC0) return self->view();
  constexpr int64_t kC0 = 16;
  // A 3-d (C, H, W) tensor is stored as the 4-d [1, C, H, W] (FORMATS.md).
  const Shape& d = self->view_dims;
  const bool batched = d.size() == 4;
  if (rank != 2 || (d.size() != 4 && d.size() != 3) || self->offset != 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "self in NC1HWC0 must be a whole 3-d or 4-d tensor, got shape " +
                                      kn::shape_str(d) + " at offset " + std::to_string(self->offset));
  }
  const int64_t n = batched ? d[0] : 1, c1 = (d[d.size() - 3] + kC0 - 1) / kC0;
  const int64_t height = d[d.size() - 2], width = d[d.size() - 1];
  if (self->storage_dims != Shape{n, c1, height, width, kC0}) {
    fail(ACLNN_ERR_PARAM_INVALID, "self in NC1HWC0 of shape " + kn::shape_str(d) +
                                      " must have storage dims [N, C1, H, W, 16], got " +
                                      kn::shape_str(self->storage_dims));
  }
  const TensorView storage = self->unchecked_view();
  const int64_t plane = height * width * kC0;
  Shape strides{1, width * kC0, kC0};
  if (batched) strides.insert(strides.begin(), plane * c1);
  const TensorView v{storage.data, self->dtype, d, strides};
  return kn::PoolInput(v, kC0, plane);
}

// Backward entries read self's shape and dtype only: any format will do.
void require_shape_donor(const aclTensor* self) { require_tensor(self, "self"); }

}  // namespace

TaskBody max_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                       const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                       aclTensor* indices) {
  const kn::PoolInput x = pool_input(self, rank);
  const auto v = require_views<2>({{{out, "out"}, {indices, "indices"}}});
  const PoolParams p = params("max_pool", rank, kernelSize, stride, padding, dilation, ceilMode);
  check_max_outputs(out, indices, self, kn::pooled_shape("max_pool", x.view.sizes, p));
  return [x, v, p] { kn::max_pool(x, v[0], v[1], p); };
}

TaskBody max_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                const aclTensor* indices, const aclIntArray* kernelSize, const aclIntArray* stride,
                                const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode,
                                aclTensor* gradInput) {
  require_shape_donor(self);
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {indices, "indices"}, {gradInput, "gradInput"}}});
  const PoolParams p = params("max_pool backward", rank, kernelSize, stride, padding, dilation, ceilMode);
  check_max_backward(gradOutput, self, indices, gradInput, kn::pooled_shape("max_pool backward", self->view_dims, p));
  return [v, rank] { kn::max_pool_backward(v[0], v[1], v[2], rank); };
}

namespace {

void require_mask(const aclTensor* mask, const Shape& pooled, const PoolParams& p) {
  require_shape(mask, kn::max_pool_mask_shape(pooled, p), "indices");
  require_dtype(mask, "indices", "int8 (the mask form)", [](model::DType d) { return d == model::DType::Int8; });
}

// Contiguous int64 indices of `pooled`'s shape, the kernels' form; the mask
// ops convert between it and the mask inside their task.
struct IndexScratch {
  explicit IndexScratch(const Shape& pooled) : shape(pooled) {}
  TensorView view(std::vector<int64_t>& storage) const {
    storage.resize(static_cast<std::size_t>(kn::TensorView{nullptr, model::DType::Int64, shape, {}}.numel()));
    return TensorView{storage.data(), model::DType::Int64, shape, kn::contiguous_strides(shape)};
  }
  Shape shape;
};

}  // namespace

TaskBody max_pool_mask_task(const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                            const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                            aclTensor* indices) {
  require_tensor(self, "self");
  const TensorView x = self->view();
  const auto v = require_views<2>({{{out, "out"}, {indices, "indices"}}});
  const PoolParams p = params("max_pool2d with mask", 2, kernelSize, stride, padding, dilation, ceilMode);
  const Shape shape = kn::pooled_shape("max_pool2d with mask", x.sizes, p);
  require_shape(out, shape, "out");
  require_same_dtype(out, "out", self, "self");
  require_mask(indices, shape, p);
  const IndexScratch scratch(shape);
  const int64_t width = x.sizes[x.dim() - 1];
  return [x, v, p, scratch, width] {
    std::vector<int64_t> storage;
    const TensorView flat = scratch.view(storage);
    kn::max_pool(x, v[0], flat, p);
    kn::max_pool_indices_to_mask(flat, v[1], p, width);
  };
}

TaskBody max_pool_mask_backward_task(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices,
                                     const aclIntArray* kernelSize, const aclIntArray* stride,
                                     const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode,
                                     aclTensor* gradInput) {
  require_shape_donor(self);
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {indices, "indices"}, {gradInput, "gradInput"}}});
  const PoolParams p = params("max_pool2d with mask backward", 2, kernelSize, stride, padding, dilation, ceilMode);
  const Shape pooled = kn::pooled_shape("max_pool2d with mask backward", self->view_dims, p);
  check_backward(gradOutput, self, gradInput, pooled);
  require_mask(indices, pooled, p);
  const IndexScratch scratch(pooled);
  const int64_t width = self->view_dims.back();
  return [v, p, scratch, width] {
    std::vector<int64_t> storage;
    const TensorView flat = scratch.view(storage);
    kn::max_pool_mask_to_indices(v[1], flat, p, width);
    kn::max_pool_backward(v[0], flat, v[2], 2);
  };
}

TaskBody avg_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
                       const aclIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride,
                       aclTensor* out) {
  const kn::PoolInput x = pool_input(self, rank);
  const auto v = require_views<1>({{{out, "out"}}});
  const PoolParams p = params("avg_pool", rank, kernelSize, stride, padding, nullptr, ceilMode);
  require_shape(out, kn::pooled_shape("avg_pool", x.view.sizes, p), "out");
  require_same_dtype(out, "out", self, "self");
  return [x, v, p, countIncludePad, divisorOverride] { kn::avg_pool(x, v[0], p, countIncludePad, divisorOverride); };
}

TaskBody avg_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                const aclIntArray* kernelSize, const aclIntArray* stride, const aclIntArray* padding,
                                bool ceilMode, bool countIncludePad, int64_t divisorOverride, aclTensor* gradInput) {
  require_shape_donor(self);
  const auto v = require_views<2>({{{gradOutput, "gradOutput"}, {gradInput, "gradInput"}}});
  const PoolParams p = params("avg_pool backward", rank, kernelSize, stride, padding, nullptr, ceilMode);
  check_backward(gradOutput, self, gradInput, kn::pooled_shape("avg_pool backward", self->view_dims, p));
  return [v, p, countIncludePad, divisorOverride] {
    kn::avg_pool_backward(v[0], v[1], p, countIncludePad, divisorOverride);
  };
}

TaskBody adaptive_avg_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* outputSize, aclTensor* out) {
  const kn::PoolInput x = pool_input(self, rank);
  const auto v = require_views<1>({{{out, "out"}}});
  require_shape(out, kn::adaptive_shape("adaptive_avg_pool", x.view.sizes, output_size(rank, outputSize)), "out");
  require_same_dtype(out, "out", self, "self");
  return [x, v, rank] { kn::adaptive_avg_pool(x, v[0], rank); };
}

TaskBody adaptive_avg_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                         aclTensor* gradInput) {
  require_shape_donor(self);
  const auto v = require_views<2>({{{gradOutput, "gradOutput"}, {gradInput, "gradInput"}}});
  check_backward(gradOutput, self, gradInput, adaptive_pooled("adaptive_avg_pool backward", rank, v[0], self));
  return [v, rank] { kn::adaptive_avg_pool_backward(v[0], v[1], rank); };
}

TaskBody adaptive_max_pool_task(int64_t rank, const aclTensor* self, const aclIntArray* outputSize, aclTensor* out,
                                aclTensor* indices) {
  const kn::PoolInput x = pool_input(self, rank);
  const auto v = require_views<2>({{{out, "out"}, {indices, "indices"}}});
  check_max_outputs(out, indices, self,
                    kn::adaptive_shape("adaptive_max_pool", x.view.sizes, output_size(rank, outputSize)));
  return [x, v, rank] { kn::adaptive_max_pool(x, v[0], v[1], rank); };
}

TaskBody adaptive_max_pool_backward_task(int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                                         const aclTensor* indices, aclTensor* gradInput) {
  require_shape_donor(self);
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {indices, "indices"}, {gradInput, "gradInput"}}});
  check_max_backward(gradOutput, self, indices, gradInput,
                     adaptive_pooled("adaptive_max_pool backward", rank, v[0], self));
  return [v, rank] { kn::max_pool_backward(v[0], v[1], v[2], rank); };
}

TaskBody max_unpool_task(int64_t rank, const aclTensor* self, const aclTensor* indices, const aclIntArray* outputSize,
                         const aclIntArray* stride, const aclIntArray* padding, aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {indices, "indices"}, {out, "out"}}});
  const std::vector<int64_t> size = output_size(rank, outputSize);
  if (rank == 3) {
    const std::vector<int64_t> s = int_values(stride), p = int_values(padding);
    if (s.size() != 3 || p.size() != 3) fail(ACLNN_ERR_PARAM_INVALID, "stride and padding must have 3 entries");
    for (const int64_t x : s) {
      if (x <= 0) fail(ACLNN_ERR_PARAM_INVALID, "stride entries must be positive");
    }
  }
  const int64_t nd = v[0].dim();
  if (nd != rank + 1 && nd != rank + 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "self must be " + std::to_string(rank + 1) + "-d or " + std::to_string(rank + 2) +
                                      "-d, got shape " + kn::shape_str(v[0].sizes));
  }
  require_shape(indices, v[0].sizes, "indices");
  require_dtype(indices, "indices", "int64", [](model::DType d) { return d == model::DType::Int64; });
  require_same_dtype(out, "out", self, "self");
  Shape expected(v[0].sizes.begin(), v[0].sizes.end() - rank);
  for (const int64_t s : size) expected.push_back(s);
  require_shape(out, expected, "out");
  return [v, rank] { kn::max_unpool(v[0], v[1], v[2], rank); };
}

}  // namespace npu::emu
