// Pooling over 1 to 3 trailing spatial dims of a (C, *spatial) or
// (N, C, *spatial) tensor: max (with the flat index of each maximum within
// its input plane, as PyTorch CPU gives it), average (count_include_pad,
// divisor_override) and the adaptive forms, forward and backward.
// Operands may have any strides (contiguous, channels_last, sliced); planes
// (N*C) run in parallel. Reduced floats compute in float, as CPU does.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// The input a forward pooling reads: a strided view, or (block > 0) a
// channel-blocked one, NC1HWC0's layout: `view` holds the logical sizes
// [N, C, H, W] and strides {N, 1, H, W} of the storage [N, C1, H, W, C0],
// channel c sitting at (c / block) * block_stride + c % block.
struct PoolInput {
  PoolInput(const TensorView& v) : view(v) {}  // NOLINT: a plain view is the usual input
  PoolInput(const TensorView& v, int64_t block_size, int64_t stride) : view(v), block(block_size), block_stride(stride) {}
  TensorView view;
  int64_t block = 0;
  int64_t block_stride = 0;
};

// A sliding-window pooling's parameters, one entry per spatial dim.
struct PoolParams {
  Shape kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

// Expands the int lists the ops take (one value for every dim, or one per
// spatial dim; an empty stride means the kernel size) and checks them
// (kernel, stride, dilation > 0, padding >= 0 and at most half the effective
// kernel). `op` names the op in errors; avg pooling has no dilation (pass {}).
PoolParams pool_params(const char* op, int64_t rank, const std::vector<int64_t>& kernel,
                       const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                       const std::vector<int64_t>& dilation, bool ceil_mode);

// The shape pooling `self` gives: its leading dims, then each spatial dim
// pooled as PyTorch does (ceil_mode drops a last window starting in the right
// padding). Throws if self's rank is not rank+1 or rank+2, a non-batch dim
// is empty, or an output size is below 1.
Shape pooled_shape(const char* op, const Shape& self, const PoolParams& p);

// The shape adaptive pooling to `output_size` (rank entries, >= 0) gives.
Shape adaptive_shape(const char* op, const Shape& self, const std::vector<int64_t>& output_size);

// indices must be int64 or int32 (CANN's aclnnMaxPool2dWithIndices' choice).
void max_pool(const PoolInput& self, const TensorView& out, const TensorView& indices, const PoolParams& p);
void adaptive_max_pool(const PoolInput& self, const TensorView& out, const TensorView& indices, int64_t rank);
// grad_input = 0, then grad_output scattered (added) to each index of its
// plane; the max pools' backward, sliding or adaptive. `rank` spatial dims.
void max_pool_backward(const TensorView& grad_output, const TensorView& indices, const TensorView& grad_input,
                       int64_t rank);

// divisor_override 0 = none; any other value (negative too, as in PyTorch)
// divides every window.
void avg_pool(const PoolInput& self, const TensorView& out, const PoolParams& p, bool count_include_pad,
              int64_t divisor_override);
void avg_pool_backward(const TensorView& grad_output, const TensorView& grad_input, const PoolParams& p,
                       bool count_include_pad, int64_t divisor_override);
void adaptive_avg_pool(const PoolInput& self, const TensorView& out, int64_t rank);
void adaptive_avg_pool_backward(const TensorView& grad_output, const TensorView& grad_input, int64_t rank);

}  // namespace npu::kernels
