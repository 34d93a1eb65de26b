// Convolution kernels (aclnnConvolution, aclnnConvolutionBackward): im2col /
// col2im plus GEMMs: for large images one GEMM per (image, group), images in
// parallel; for small images (few column positions) the columns of all images
// side by side and one GEMM per group, which the GEMM engine parallelises.
//
// A convolution pairs a "column side" tensor A and an "image side" tensor B
// through the weight matrix W of each group (rows: A's channels of the group,
// columns: B's channels of the group times the kernel positions):
//   A = W * im2col(B)            (plain forward; transposed backward-input)
//   B = col2im(W^T * A)          (plain backward-input; transposed forward)
//   dW = sum_n A * im2col(B)^T   (backward-weight, both)
// Plain: A = output, B = input, W = weight [Cout, Cin/g, k...].
// Transposed: A = input, B = output, W = weight [Cin, Cout/g, k...].
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels::conv {

// One tensor of a convolution as the kernels address it: element
// (i, c, x...) is at data + outer[i] + channel[c] + sum_d spatial_strides[d] * x_d
// (in elements). Strided base-format views and the channel-blocked layouts
// (NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_Z_3D) all have this separable form,
// so every kernel reads and writes them in place.
struct ConvOperand {
  void* data = nullptr;
  DType dtype = DType::Float32;
  std::vector<int64_t> outer;    // per index of dim 0 (batch; weight: its dim 0)
  std::vector<int64_t> channel;  // per index of dim 1
  Shape spatial;                 // sizes of the spatial dims
  Shape spatial_strides;

  int64_t size0() const { return static_cast<int64_t>(outer.size()); }
  int64_t size1() const { return static_cast<int64_t>(channel.size()); }
};

// The operand of a strided base-format view [dim0, dim1, spatial...].
ConvOperand strided_operand(const TensorView& v);

// Per spatial dim (1 to 3 of them).
struct ConvParams {
  Shape stride, padding, dilation;
  int64_t groups = 1;
  // float16/bfloat16 only: round the col2im pass's columns and each of its
  // sums to the dtype (else float32 throughout, one rounding at the end).
  // PyTorch's CPU does so in its slow path (no oneDNN): npu follows it there
  // to give CPU's results (the emulator entry decides when).
  bool round_intermediates = false;
  // Whether stride-1 convolutions may run as shifted GEMMs (conv_shifted.h);
  // false forces im2col + GEMM (the fallback for the weight gradient of a
  // non-finite input, and the reference the tests compare the two with).
  bool shifted = true;
  // Whether the shifted passes may use the AVX-512 tile GEMM (where it
  // runs); false runs them on the GEMM engine, as on other CPUs (tests).
  bool tile_gemm = true;
};

// The spatial sizes of the column side for an image side of `image` sizes
// and a kernel of `kernel` sizes: (image + 2 pad - dil (k - 1) - 1) / stride + 1.
Shape column_sizes(const Shape& image, const Shape& kernel, const ConvParams& p);

// output = conv(input, weight) + bias (bias: 1-D over output channels, or null).
void convolution(const ConvOperand& input, const ConvOperand& weight, const TensorView* bias,
                 const ConvOperand& output, const ConvParams& p, bool transposed);

// The gradients selected by non-null pointers. grad_bias is 1-D over output channels.
void convolution_backward(const ConvOperand& grad_output, const ConvOperand& input, const ConvOperand& weight,
                          const ConvOperand* grad_input, const ConvOperand* grad_weight, const TensorView* grad_bias,
                          const ConvParams& p, bool transposed);

// The column matrix of image `n`, channels [c_begin, c_begin + channels) of
// `image`: row (c, k) for each channel and kernel position (row-major over
// the kernel), one column per column-side position; zero where the kernel
// reads padding. `col` holds channels * prod(kernel) * prod(columns) values.
template <class Acc>
void im2col(const ConvOperand& image, int64_t n, int64_t c_begin, int64_t channels, const Shape& kernel,
            const Shape& columns, const ConvParams& p, Acc* col);

// The adjoint of im2col: adds every column entry into the image position it
// was read from (padding entries are dropped). `image` is contiguous
// [channels, image spatial...] and is accumulated into.
template <class Acc>
void col2im(const Acc* col, int64_t channels, const Shape& image_sizes, const Shape& kernel, const Shape& columns,
            const ConvParams& p, Acc* image);

}  // namespace npu::kernels::conv
