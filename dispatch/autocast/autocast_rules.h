// torch.autocast("npu"): which aten op runs in which precision. One row per
// op overload; dispatch/autocast/autocast_kernel.cpp registers one boxed
// kernel per row on the AutocastPrivateUse1 key and every other op falls
// through untouched.
//
// The rows are the facts of PyTorch's CUDA autocast lists (the op lists
// AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32, AT_FORALL_FP32_SET_OPT_DTYPE,
// AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE and AT_FORALL_PROMOTE in
// ATen/autocast_mode.h, and the ban on binary_cross_entropy) for torch 2.13,
// so npu code sees the precision choices a CUDA user expects. CUDA-only
// kernels (cudnn_convolution*) are left out; cat, stack and index_copy are
// added as promote ops, as PyTorch's CPU list has them, so a float16/float32
// mix is joined in float32 also by their out= paths.
// tests/python/test_amp.py checks the table against the dispatcher (every row
// names an existing overload) and checks each policy on several ops.
#pragma once

#include <array>
#include <string_view>

namespace npu::autocast {

enum class Policy {
  // Floating npu inputs are cast to the autocast dtype (float16/bfloat16).
  LowerPrecision,
  // Floating npu inputs are cast to float32.
  Fp32,
  // The op's optional `dtype` argument is set to float32 when the caller left
  // it unset and the first input is a floating npu tensor (softmax, sum, ...).
  Fp32SetOptDtype,
  // The op is redispatched to `redispatch_overload`, which takes the same
  // arguments plus a trailing dtype: float32 for a floating npu input.
  Fp32AppendDtype,
  // All floating npu inputs are cast to the widest floating dtype among them.
  Promote,
  // Refused inside an enabled region (unsafe in reduced precision).
  Banned,
};

struct Rule {
  std::string_view op;        // "aten::name"
  std::string_view overload;  // "" for the default overload
  Policy policy;
  std::string_view redispatch_overload = {};  // Fp32AppendDtype only
};

inline constexpr std::array kRules{
    // --- lower precision: convolutions, matrix products, RNN cells, attention
    Rule{"aten::_convolution", "deprecated", Policy::LowerPrecision},
    Rule{"aten::_convolution", "", Policy::LowerPrecision},
    Rule{"aten::conv1d", "", Policy::LowerPrecision},
    Rule{"aten::conv2d", "", Policy::LowerPrecision},
    Rule{"aten::conv3d", "", Policy::LowerPrecision},
    Rule{"aten::conv_tbc", "", Policy::LowerPrecision},
    Rule{"aten::conv_transpose1d", "", Policy::LowerPrecision},
    Rule{"aten::conv_transpose2d", "input", Policy::LowerPrecision},
    Rule{"aten::conv_transpose3d", "input", Policy::LowerPrecision},
    Rule{"aten::convolution", "", Policy::LowerPrecision},
    Rule{"aten::prelu", "", Policy::LowerPrecision},
    Rule{"aten::addmm", "", Policy::LowerPrecision},
    Rule{"aten::addmv", "", Policy::LowerPrecision},
    Rule{"aten::addr", "", Policy::LowerPrecision},
    Rule{"aten::matmul", "", Policy::LowerPrecision},
    Rule{"aten::einsum", "", Policy::LowerPrecision},
    Rule{"aten::mm", "", Policy::LowerPrecision},
    Rule{"aten::mv", "", Policy::LowerPrecision},
    Rule{"aten::linalg_vecdot", "", Policy::LowerPrecision},
    Rule{"aten::linear", "", Policy::LowerPrecision},
    Rule{"aten::addbmm", "", Policy::LowerPrecision},
    Rule{"aten::baddbmm", "", Policy::LowerPrecision},
    Rule{"aten::bmm", "", Policy::LowerPrecision},
    Rule{"aten::chain_matmul", "", Policy::LowerPrecision},
    Rule{"aten::linalg_multi_dot", "", Policy::LowerPrecision},
    Rule{"aten::_thnn_fused_lstm_cell", "", Policy::LowerPrecision},
    Rule{"aten::_thnn_fused_gru_cell", "", Policy::LowerPrecision},
    Rule{"aten::lstm_cell", "", Policy::LowerPrecision},
    Rule{"aten::gru_cell", "", Policy::LowerPrecision},
    Rule{"aten::rnn_tanh_cell", "", Policy::LowerPrecision},
    Rule{"aten::rnn_relu_cell", "", Policy::LowerPrecision},
    Rule{"aten::_scaled_dot_product_flash_attention", "", Policy::LowerPrecision},
    Rule{"aten::scaled_dot_product_attention", "", Policy::LowerPrecision},

    // --- float32: ranges float16 overflows, reductions, norms, losses, upsampling
    Rule{"aten::acos", "", Policy::Fp32},
    Rule{"aten::asin", "", Policy::Fp32},
    Rule{"aten::cosh", "", Policy::Fp32},
    Rule{"aten::erfinv", "", Policy::Fp32},
    Rule{"aten::exp", "", Policy::Fp32},
    Rule{"aten::expm1", "", Policy::Fp32},
    Rule{"aten::log", "", Policy::Fp32},
    Rule{"aten::log10", "", Policy::Fp32},
    Rule{"aten::log2", "", Policy::Fp32},
    Rule{"aten::log1p", "", Policy::Fp32},
    Rule{"aten::reciprocal", "", Policy::Fp32},
    Rule{"aten::rsqrt", "", Policy::Fp32},
    Rule{"aten::sinh", "", Policy::Fp32},
    Rule{"aten::tan", "", Policy::Fp32},
    Rule{"aten::pow", "Tensor_Scalar", Policy::Fp32},
    Rule{"aten::pow", "Tensor_Tensor", Policy::Fp32},
    Rule{"aten::pow", "Scalar", Policy::Fp32},
    Rule{"aten::softplus", "", Policy::Fp32},
    Rule{"aten::layer_norm", "", Policy::Fp32},
    Rule{"aten::native_layer_norm", "", Policy::Fp32},
    Rule{"aten::rms_norm", "", Policy::Fp32},
    Rule{"aten::group_norm", "", Policy::Fp32},
    Rule{"aten::frobenius_norm", "dim", Policy::Fp32},
    Rule{"aten::nuclear_norm", "", Policy::Fp32},
    Rule{"aten::nuclear_norm", "dim", Policy::Fp32},
    Rule{"aten::cosine_similarity", "", Policy::Fp32},
    Rule{"aten::poisson_nll_loss", "", Policy::Fp32},
    Rule{"aten::cosine_embedding_loss", "", Policy::Fp32},
    Rule{"aten::nll_loss", "", Policy::Fp32},
    Rule{"aten::nll_loss2d", "", Policy::Fp32},
    Rule{"aten::hinge_embedding_loss", "", Policy::Fp32},
    Rule{"aten::kl_div", "", Policy::Fp32},
    Rule{"aten::l1_loss", "", Policy::Fp32},
    Rule{"aten::smooth_l1_loss", "", Policy::Fp32},
    Rule{"aten::huber_loss", "", Policy::Fp32},
    Rule{"aten::mse_loss", "", Policy::Fp32},
    Rule{"aten::margin_ranking_loss", "", Policy::Fp32},
    Rule{"aten::multilabel_margin_loss", "", Policy::Fp32},
    Rule{"aten::soft_margin_loss", "", Policy::Fp32},
    Rule{"aten::triplet_margin_loss", "", Policy::Fp32},
    Rule{"aten::multi_margin_loss", "", Policy::Fp32},
    Rule{"aten::binary_cross_entropy_with_logits", "", Policy::Fp32},
    Rule{"aten::dist", "", Policy::Fp32},
    Rule{"aten::pdist", "", Policy::Fp32},
    Rule{"aten::cdist", "", Policy::Fp32},
    Rule{"aten::renorm", "", Policy::Fp32},
    Rule{"aten::logsumexp", "", Policy::Fp32},
    Rule{"aten::upsample_nearest1d", "", Policy::Fp32},
    Rule{"aten::_upsample_nearest_exact1d", "", Policy::Fp32},
    Rule{"aten::upsample_nearest2d", "", Policy::Fp32},
    Rule{"aten::_upsample_nearest_exact2d", "", Policy::Fp32},
    Rule{"aten::upsample_nearest3d", "", Policy::Fp32},
    Rule{"aten::_upsample_nearest_exact3d", "", Policy::Fp32},
    Rule{"aten::upsample_linear1d", "", Policy::Fp32},
    Rule{"aten::upsample_bilinear2d", "", Policy::Fp32},
    Rule{"aten::_upsample_bilinear2d_aa", "", Policy::Fp32},
    Rule{"aten::upsample_trilinear3d", "", Policy::Fp32},
    Rule{"aten::upsample_bicubic2d", "", Policy::Fp32},
    Rule{"aten::_upsample_bicubic2d_aa", "", Policy::Fp32},

    // --- float32 through the op's own dtype argument
    Rule{"aten::prod", "", Policy::Fp32SetOptDtype},
    Rule{"aten::prod", "dim_int", Policy::Fp32SetOptDtype},
    Rule{"aten::softmax", "int", Policy::Fp32SetOptDtype},
    Rule{"aten::log_softmax", "int", Policy::Fp32SetOptDtype},
    Rule{"aten::cumprod", "", Policy::Fp32SetOptDtype},
    Rule{"aten::cumsum", "", Policy::Fp32SetOptDtype},
    Rule{"aten::linalg_vector_norm", "", Policy::Fp32SetOptDtype},
    Rule{"aten::linalg_matrix_norm", "", Policy::Fp32SetOptDtype},
    Rule{"aten::linalg_matrix_norm", "str_ord", Policy::Fp32SetOptDtype},
    Rule{"aten::sum", "", Policy::Fp32SetOptDtype},
    Rule{"aten::sum", "dim_IntList", Policy::Fp32SetOptDtype},

    // --- float32 through the overload that takes a dtype
    Rule{"aten::norm", "Scalar", Policy::Fp32AppendDtype, "ScalarOpt_dtype"},
    Rule{"aten::norm", "ScalarOpt_dim", Policy::Fp32AppendDtype, "ScalarOpt_dim_dtype"},

    // --- widest input type
    Rule{"aten::addcdiv", "", Policy::Promote},
    Rule{"aten::addcmul", "", Policy::Promote},
    Rule{"aten::atan2", "", Policy::Promote},
    Rule{"aten::bilinear", "", Policy::Promote},
    Rule{"aten::cross", "", Policy::Promote},
    Rule{"aten::dot", "", Policy::Promote},
    Rule{"aten::vdot", "", Policy::Promote},
    Rule{"aten::grid_sampler", "", Policy::Promote},
    Rule{"aten::index_put", "", Policy::Promote},
    Rule{"aten::tensordot", "", Policy::Promote},
    Rule{"aten::scatter_add", "", Policy::Promote},
    Rule{"aten::cat", "", Policy::Promote},
    Rule{"aten::stack", "", Policy::Promote},
    Rule{"aten::index_copy", "", Policy::Promote},

    // --- refused: its input is usually a sigmoid output, which float16 rounds to 0 or 1
    Rule{"aten::binary_cross_entropy", "", Policy::Banned},
};

}  // namespace npu::autocast
