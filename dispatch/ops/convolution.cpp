// Convolution on npu (ops/table/conv.yaml), registered as torch_npu does:
// `convolution` and `convolution_backward` themselves launch aclnnConvolution
// / aclnnConvolutionBackward when the arguments are plain ones (checked
// here); anything else goes to PyTorch's composite kernels, which check the
// arguments with PyTorch's messages and send npu tensors to
// convolution_overrideable / convolution_backward_overrideable (also served
// here). padding='same' and complex convolutions are resolved above
// `convolution` (F.conv*). No schema has a meta function; output shapes come
// from ATen's own conv_output_size / conv_input_size.
//
// Formats, as torch_npu: an activation in NC1HWC0 (NDC1HWC0 for 3-d) and a
// weight in FRACTAL_Z (FRACTAL_Z_3D) reach the entry in their layouts, and an
// NC1HWC0 / NDC1HWC0 input gives an output (and a grad_input) in the same
// format. Other private formats go as base-format copies.
#include <ATen/native/ConvUtils.h>
#include <ATen/ops/convolution_backward_native.h>
#include <ATen/ops/convolution_native.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/format/format_cast.h"
#include "dispatch/format/format_config.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/acl_args.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

namespace caps = npu::table::caps;
using model::Format;

// cubeMathType ALLOW_FP32_DOWN_PRECISION is what torch_npu passes by default;
// npu-emu computes in float32 or wider whatever it says.
constexpr int8_t kCubeMathType = 1;

// The blocked formats the entry reads in place, by rank: 2-d and 3-d
// convolutions only (a 1-d tensor in them is stored padded to 4-d, which
// the entry does not address; it gets a base-format copy).
Format activation_format(int64_t rank) {
  return rank == 5 ? Format::NDC1HWC0 : rank == 4 ? Format::NC1HWC0 : Format::Undefined;
}
Format weight_format(int64_t rank) {
  return rank == 5 ? Format::FRACTAL_Z_3D : rank == 4 ? Format::FRACTAL_Z : Format::Undefined;
}

// `t` as the entry takes it: itself when it is in a base format or is the
// whole storage of the private format the entry reads natively; otherwise
// its values in the base format.
at::Tensor as_entry_takes(const at::Tensor& t, Format native) {
  if (!t.defined() || !has_private_format(t)) return t;
  const model::StorageDesc desc = storage_desc(t);
  if (desc.npu_format == native && covers_storage(t, desc)) return t;
  return to_base_format(t);
}

bool in_format(const at::Tensor& t, Format f) {
  return f != Format::Undefined && has_private_format(t) && storage_desc(t).npu_format == f;
}

// The memory format CPU gives a convolution's results (output, grad_input,
// grad_weight): channels-last when the input or the weight is, as its oneDNN
// and slow 2-d kernels decide; 3-d convolutions only through oneDNN (float,
// bfloat16), CPU's slow 3-d kernels (double, half) give contiguous results.
at::MemoryFormat conv_memory_format(const at::Tensor& input, const at::Tensor& weight) {
  const bool onednn_3d = input.scalar_type() == at::kFloat || input.scalar_type() == at::kBFloat16;
  const at::MemoryFormat channels_last = input.dim() == 4                ? at::MemoryFormat::ChannelsLast
                                         : input.dim() == 5 && onednn_3d ? at::MemoryFormat::ChannelsLast3d
                                                                         : at::MemoryFormat::Contiguous;
  if (channels_last == at::MemoryFormat::Contiguous) return channels_last;
  const bool either = input.suggest_memory_format() == channels_last || weight.suggest_memory_format() == channels_last;
  return either ? channels_last : at::MemoryFormat::Contiguous;
}

// A result shaped `sizes` in the format torch_npu gives it: `like`'s
// activation format when `like` is in it (and internal formats are allowed),
// else a base-format tensor in CPU's memory format for `like` and `weight`.
at::Tensor new_activation(at::IntArrayRef sizes, const at::Tensor& like, const at::Tensor& weight) {
  const Format blocked = activation_format(like.dim());
  if (in_format(like, blocked) && allow_internal_format()) {
    const FormatReason reason("aten::convolution", "a convolution result takes its NC1HWC0/NDC1HWC0 input's format "
                                                   "when allow_internal_format is on");
    return empty_with_format(sizes, like.scalar_type(), like.device(), blocked);
  }
  return at::empty(sizes, like.options().memory_format(conv_memory_format(like, weight)));
}

std::vector<int64_t> ints(c10::SymIntArrayRef v) {
  const at::IntArrayRef concrete = C10_AS_INTARRAYREF_SLOW(v);
  return concrete.vec();
}

struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

ConvArgs conv_args(c10::SymIntArrayRef stride, c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation,
                   bool transposed, c10::SymIntArrayRef output_padding, const c10::SymInt& groups) {
  return {ints(stride), ints(padding), ints(dilation), ints(output_padding), transposed,
          groups.guard_int(__FILE__, __LINE__)};
}

// The output's shape; only for arguments plain_forward accepted.
std::vector<int64_t> output_sizes(const at::Tensor& input, const at::Tensor& weight, const ConvArgs& a) {
  return a.transposed ? at::native::conv_input_size(input.sizes(), weight.sizes(), a.padding, a.output_padding,
                                                    a.stride, a.dilation, a.groups)
                      : at::native::conv_output_size(input.sizes(), weight.sizes(), a.padding, a.stride, a.dilation);
}

// Whether `convolution` can launch the entry directly: npu tensors of one
// real dtype, [N > 0, C > 0, spatial...] of rank 3-5, one parameter value
// per spatial dim, channels and groups that fit, and a non-empty output.
// Everything else is PyTorch's composite's business (its checks and
// messages, its handling of empty batches).
bool plain_forward(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                   const ConvArgs& a) {
  const int64_t dim = input.dim();
  if (dim < 3 || dim > 5 || weight.dim() != dim || !input.is_privateuseone() || !weight.is_privateuseone()) {
    return false;
  }
  if (input.is_complex() || weight.scalar_type() != input.scalar_type()) return false;
  const auto spatial = static_cast<std::size_t>(dim - 2);
  if (a.stride.size() != spatial || a.padding.size() != spatial || a.dilation.size() != spatial ||
      (a.transposed && a.output_padding.size() != spatial) || a.groups <= 0) {
    return false;
  }
  for (std::size_t d = 0; d < spatial; ++d) {
    if (a.stride[d] <= 0 || a.dilation[d] <= 0 || a.padding[d] < 0) return false;
    if (a.transposed && (a.output_padding[d] < 0 ||
                         (a.output_padding[d] >= a.stride[d] && a.output_padding[d] >= a.dilation[d]))) {
      return false;
    }
  }
  if (input.size(0) <= 0 || input.size(1) <= 0 || weight.size(0) % a.groups != 0) return false;
  const int64_t in_channels = a.transposed ? weight.size(0) : weight.size(1) * a.groups;
  const int64_t out_channels = a.transposed ? weight.size(1) * a.groups : weight.size(0);
  if (input.size(1) != in_channels) return false;
  if (bias && bias->defined() &&
      (!bias->is_privateuseone() || bias->dim() != 1 || bias->size(0) != out_channels ||
       bias->scalar_type() != input.scalar_type())) {
    return false;
  }
  for (std::size_t d = 0; d < spatial; ++d) {
    const int64_t k = weight.size(static_cast<int64_t>(d) + 2);
    if (k <= 0) return false;
    if (!a.transposed && input.size(static_cast<int64_t>(d) + 2) + 2 * a.padding[d] < a.dilation[d] * (k - 1) + 1) {
      return false;
    }
  }
  for (int64_t s : output_sizes(input, weight, a)) {
    if (s <= 0) return false;
  }
  return true;
}

at::Tensor launch_forward(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                          const ConvArgs& a) {
  const std::vector<int64_t> sizes = output_sizes(input, weight, a);
  const at::Tensor in = as_entry_takes(input, activation_format(input.dim()));
  const at::Tensor w = as_entry_takes(weight, weight_format(weight.dim()));
  at::Tensor out = new_activation(sizes, in, weight);
  NPU_RUN(aclnnConvolution, in, w, bias, at::IntArrayRef(a.stride), at::IntArrayRef(a.padding),
          at::IntArrayRef(a.dilation), a.transposed, at::IntArrayRef(a.output_padding), a.groups, out,
          kCubeMathType);
  return out;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> launch_backward(const at::Tensor& grad_output,
                                                               const at::Tensor& input, const at::Tensor& weight,
                                                               const ConvArgs& a, std::array<bool, 3> output_mask) {
  const Format blocked = activation_format(input.dim());
  const at::Tensor go = as_entry_takes(grad_output, blocked);
  const at::Tensor in = as_entry_takes(input, blocked);
  const at::Tensor w = as_entry_takes(weight, weight_format(weight.dim()));
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = new_activation(input.sizes(), in, weight);
  // The weight's gradient is a base-format tensor whatever the weight's
  // storage format, laid out in the convolution's memory format as CPU lays
  // it (channels-last when the input or the weight is).
  if (output_mask[1]) {
    grad_weight = at::empty(weight.sizes(), weight.options().memory_format(conv_memory_format(input, weight)));
  }
  const std::vector<int64_t> bias_sizes{grad_output.size(1)};
  if (output_mask[2]) grad_bias = at::empty(bias_sizes, grad_output.options());
  NPU_RUN(aclnnConvolutionBackward, go, in, w, at::IntArrayRef(bias_sizes), at::IntArrayRef(a.stride),
          at::IntArrayRef(a.padding), at::IntArrayRef(a.dilation), a.transposed, at::IntArrayRef(a.output_padding),
          static_cast<int>(a.groups), output_mask, kCubeMathType, std::optional<at::Tensor>(grad_input),
          std::optional<at::Tensor>(grad_weight), std::optional<at::Tensor>(grad_bias));
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                       c10::SymIntArrayRef stride, c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation,
                       bool transposed, c10::SymIntArrayRef output_padding, c10::SymInt groups) {
  const ConvArgs a = conv_args(stride, padding, dilation, transposed, output_padding, groups);
  if (!plain_forward(input, weight, bias, a)) {
    return at::native::convolution(input, weight, bias, a.stride, a.padding, a.dilation, a.transposed,
                                   a.output_padding, a.groups);
  }
  if (!npu::run_native(caps::aclnnConvolution, "convolution", {input.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("convolution", input, weight, bias, stride, padding, dilation, transposed,
                                          output_padding, groups);
  }
  return launch_forward(input, weight, bias, a);
}

at::Tensor convolution_overrideable(const at::Tensor& input, const at::Tensor& weight,
                                    const std::optional<at::Tensor>& bias, c10::SymIntArrayRef stride,
                                    c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation, bool transposed,
                                    c10::SymIntArrayRef output_padding, c10::SymInt groups) {
  // CPU has no convolution_overrideable: a dtype the entry lacks runs CPU's `convolution`.
  if (!npu::run_native(caps::aclnnConvolution, "convolution_overrideable", {input.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("convolution", input, weight, bias, stride, padding, dilation, transposed,
                                          output_padding, groups);
  }
  return launch_forward(input, weight, bias, conv_args(stride, padding, dilation, transposed, output_padding, groups));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    at::OptionalSymIntArrayRef bias_sizes, c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
    c10::SymIntArrayRef dilation, bool transposed, c10::SymIntArrayRef output_padding, c10::SymInt groups,
    std::array<bool, 3> output_mask) {
  const ConvArgs a = conv_args(stride, padding, dilation, transposed, output_padding, groups);
  const bool plain = plain_forward(input, weight, std::nullopt, a) && grad_output.is_privateuseone() &&
                     grad_output.scalar_type() == input.scalar_type() &&
                     grad_output.sizes() == at::IntArrayRef(output_sizes(input, weight, a));
  if (!plain) {
    std::optional<std::vector<int64_t>> sizes;
    if (bias_sizes) sizes = ints(*bias_sizes);
    return at::native::convolution_backward(grad_output, input, weight,
                                            sizes ? at::OptionalIntArrayRef(*sizes) : at::OptionalIntArrayRef(),
                                            a.stride, a.padding, a.dilation, a.transposed, a.output_padding,
                                            a.groups, output_mask);
  }
  if (!npu::run_native(caps::aclnnConvolutionBackward, "convolution_backward", {input.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        "convolution_backward", grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, output_mask);
  }
  return launch_backward(grad_output, input, weight, a, output_mask);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward_overrideable(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, c10::SymIntArrayRef stride,
    c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation, bool transposed, c10::SymIntArrayRef output_padding,
    c10::SymInt groups, std::array<bool, 3> output_mask) {
  if (!npu::run_native(caps::aclnnConvolutionBackward, "convolution_backward_overrideable", {input.scalar_type()})) {
    const std::optional<c10::SymIntArrayRef> bias_sizes =
        output_mask[2] ? std::optional<c10::SymIntArrayRef>(grad_output.sym_sizes().slice(1, 1)) : std::nullopt;
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        "convolution_backward", grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, output_mask);
  }
  return launch_backward(grad_output, input, weight,
                         conv_args(stride, padding, dilation, transposed, output_padding, groups), output_mask);
}

}  // namespace npu::ops
