// The mask form of 2-d max pooling's indices (max_pool_mask.h).
#include "kernels/pool/max_pool_mask.h"

#include <cstring>
#include <string>

namespace npu::kernels {

namespace {

constexpr int64_t kBlock = 16;

// Offset (in elements) of the lead index `flat` (row-major over sizes[0..lead))
// in a view with the given strides.
int64_t lead_offset(const TensorView& v, int64_t lead, int64_t flat) {
  int64_t offset = 0;
  for (int64_t d = lead - 1; d >= 0; --d) {
    offset += (flat % v.sizes[d]) * v.strides[d];
    flat /= v.sizes[d];
  }
  return offset;
}

int64_t lead_count(const TensorView& v, int64_t lead) {
  int64_t n = 1;
  for (int64_t d = 0; d < lead; ++d) n *= v.sizes[d];
  return n;
}

void check(const TensorView& indices, const TensorView& mask, const PoolParams& p) {
  if (p.kernel.size() != 2) throw KernelError("max_pool mask: 2 pooled dims expected");
  if (indices.dtype != DType::Int64 || mask.dtype != DType::Int8) {
    throw KernelError("max_pool mask: int64 indices and an int8 mask expected");
  }
  const Shape pooled(indices.sizes.begin(), indices.sizes.end());
  if (mask.sizes != max_pool_mask_shape(pooled, p)) {
    throw KernelError("max_pool mask: mask of shape " + shape_str(mask.sizes) + ", expected " +
                      shape_str(max_pool_mask_shape(pooled, p)));
  }
}

}  // namespace

Shape max_pool_mask_shape(const Shape& pooled, const PoolParams& p) {
  if (pooled.size() < 2 || p.kernel.size() != 2) throw KernelError("max_pool mask: 2 pooled dims expected");
  Shape shape(pooled.begin(), pooled.end() - 2);
  const int64_t outputs = pooled[pooled.size() - 2] * pooled[pooled.size() - 1];
  shape.push_back(p.kernel[0] * p.kernel[1]);
  shape.push_back(((outputs + kBlock - 1) / kBlock + 1) * 2 * kBlock);
  return shape;
}

void max_pool_indices_to_mask(const TensorView& indices, const TensorView& mask, const PoolParams& p,
                              int64_t input_width) {
  check(indices, mask, p);
  const int64_t lead = indices.dim() - 2;
  const int64_t out_h = indices.sizes[lead], out_w = indices.sizes[lead + 1];
  const int64_t rows = mask.sizes[lead], row_len = mask.sizes[lead + 1];
  const int64_t planes = lead_count(indices, lead);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const int64_t* idx = indices.ptr<int64_t>() + lead_offset(indices, lead, plane);
    int8_t* m = mask.ptr<int8_t>() + lead_offset(mask, lead, plane);
    for (int64_t k = 0; k < rows; ++k) {
      for (int64_t b = 0; b < row_len; ++b) m[k * mask.strides[lead] + b * mask.strides[lead + 1]] = 0;
    }
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        const int64_t at = idx[oh * indices.strides[lead] + ow * indices.strides[lead + 1]];
        // The window element: distance from the window's origin in dilation steps.
        const int64_t dh = at / input_width - (oh * p.stride[0] - p.padding[0]);
        const int64_t dw = at % input_width - (ow * p.stride[1] - p.padding[1]);
        const int64_t k = (dh / p.dilation[0]) * p.kernel[1] + dw / p.dilation[1];
        m[k * mask.strides[lead] + (oh * out_w + ow) * mask.strides[lead + 1]] = 1;
      }
    }
  }
}

void max_pool_mask_to_indices(const TensorView& mask, const TensorView& indices, const PoolParams& p,
                              int64_t input_width) {
  check(indices, mask, p);
  const int64_t lead = indices.dim() - 2;
  const int64_t out_h = indices.sizes[lead], out_w = indices.sizes[lead + 1];
  const int64_t rows = mask.sizes[lead];
  const int64_t planes = lead_count(indices, lead);
  for (int64_t plane = 0; plane < planes; ++plane) {
    int64_t* idx = indices.ptr<int64_t>() + lead_offset(indices, lead, plane);
    const int8_t* m = mask.ptr<int8_t>() + lead_offset(mask, lead, plane);
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        const int64_t pos = (oh * out_w + ow) * mask.strides[lead + 1];
        int64_t k = 0;
        while (k < rows && m[k * mask.strides[lead] + pos] == 0) ++k;
        if (k == rows) {
          throw KernelError("max_pool mask: output (" + std::to_string(oh) + ", " + std::to_string(ow) +
                            ") of plane " + std::to_string(plane) +
                            " has no marked window element (indices must come from aclnnMaxPool2dWithMask)");
        }
        const int64_t ih = oh * p.stride[0] - p.padding[0] + (k / p.kernel[1]) * p.dilation[0];
        const int64_t iw = ow * p.stride[1] - p.padding[1] + (k % p.kernel[1]) * p.dilation[1];
        idx[oh * indices.strides[lead] + ow * indices.strides[lead + 1]] = ih * input_width + iw;
      }
    }
  }
}

}  // namespace npu::kernels
