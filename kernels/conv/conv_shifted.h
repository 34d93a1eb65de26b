// Stride-1 convolutions as shifted GEMMs ("implicit GEMM"): no column matrix.
//
// The image is copied once into a zero-padded channels-last grid
// [rows][grid_w][C]. In that grid the values a kernel row kh reads for output
// position q = ho * grid_w + wo, over all kernel columns kw and channels c,
// are one contiguous run of kw_size * C values starting at pixel q + kh *
// grid_w: so the column matrix of kernel row kh is the grid itself read as a
// matrix with row stride C (rows overlap), and
//   out[q, :] = sum over kh of grid_kh[q, (kw, c)] * W_kh[(kw, c), :]
// is kh_size GEMMs on the grid in place. Output rows with wo >= out_w (the
// grid's padding columns) are computed and dropped. The input gradient is the
// same product on the padded output gradient with the flipped, transposed
// weight. Where AVX-512 runs, the product is the tile GEMM
// (conv_tile_gemm.h) reading A's rows from the grid in place and skipping
// the dropped positions; elsewhere kh_size GEMM engine products.
//
// The convolution kernels (conv.cpp) take this path for plain, ungrouped,
// 1-d and 2-d convolutions of stride 1 and dilation 1 whose kernel has more
// than one position (shifted_applies); everything else runs im2col + GEMM.
#pragma once

#include "kernels/conv/conv.h"

namespace npu::kernels::conv {

// Whether the shifted passes handle this (plain) convolution of `input` by `weight`.
bool shifted_applies(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p, bool transposed);

// Whether the forward alone runs shifted at any stride (dilation 1): on the
// tile GEMM (float32 compute), whose rows are read at any pixel; the
// strided input gradient is no plain convolution and stays with im2col.
bool strided_forward_applies(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p,
                             bool transposed);

// output = conv(input, weight) + bias; requires shifted_applies or
// strided_forward_applies.
void shifted_convolution(const ConvOperand& input, const ConvOperand& weight, const TensorView* bias,
                         const ConvOperand& output, const ConvParams& p);

// grad_input = the input gradient of that convolution for grad_output;
// requires shifted_applies (the weight and bias gradients stay with im2col
// + GEMM, whose long inner dimension already suits the GEMM engine).
void shifted_input_grad(const ConvOperand& grad_output, const ConvOperand& weight, const ConvOperand& grad_input,
                        const ConvParams& p);

// Whether the weight gradient runs on the tile GEMM (tile_weight_grad): the
// shapes of strided_forward_applies.
bool tile_weight_grad_applies(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p,
                              bool transposed);

// grad_weight = the weight gradient of that convolution for grad_output and
// input, on the tile GEMM; requires tile_weight_grad_applies.
void tile_weight_grad(const ConvOperand& grad_output, const ConvOperand& input, const ConvOperand& grad_weight,
                      const ConvParams& p);

}  // namespace npu::kernels::conv
