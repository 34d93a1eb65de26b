// Convolution on npu (ops/table/conv.yaml). PyTorch's at::_convolution and
// at::convolution_backward check the arguments, turn padding='same' into
// explicit padding, decompose complex convolutions into real ones, and send
// a PrivateUse1 tensor to convolution_overrideable /
// convolution_backward_overrideable: these launch aclnnConvolution /
// aclnnConvolutionBackward. Neither schema has a meta function; the output
// shape comes from ATen's own conv_output_size / conv_input_size.
//
// Formats, as torch_npu: an activation in NC1HWC0 (NDC1HWC0 for 3-d) and a
// weight in FRACTAL_Z (FRACTAL_Z_3D) reach the entry in their layouts, and an
// NC1HWC0 / NDC1HWC0 input gives an output (and a grad_input) in the same
// format. Other private formats go as base-format copies.
#include <ATen/native/ConvUtils.h>

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

Format activation_format(int64_t rank) { return rank == 5 ? Format::NDC1HWC0 : Format::NC1HWC0; }
Format weight_format(int64_t rank) { return rank == 5 ? Format::FRACTAL_Z_3D : Format::FRACTAL_Z; }

// `t` as the entry takes it: itself when it is in a base format or is the
// whole storage of the private format the entry reads natively; otherwise
// its values in the base format.
at::Tensor as_entry_takes(const at::Tensor& t, Format native) {
  if (!t.defined() || !has_private_format(t)) return t;
  const model::StorageDesc desc = storage_desc(t);
  if (desc.npu_format == native && covers_storage(t, desc)) return t;
  return to_base_format(t);
}

bool in_format(const at::Tensor& t, Format f) { return has_private_format(t) && storage_desc(t).npu_format == f; }

// A result shaped `sizes` in the format torch_npu gives it: `like`'s
// activation format when `like` is in it (and internal formats are allowed),
// else a base-format tensor in `like`'s suggested memory format.
at::Tensor new_activation(at::IntArrayRef sizes, const at::Tensor& like) {
  const Format blocked = activation_format(like.dim());
  if (in_format(like, blocked) && allow_internal_format()) {
    return empty_with_format(sizes, like.scalar_type(), like.device(), blocked);
  }
  return at::empty(sizes, like.options().memory_format(like.suggest_memory_format()));
}

std::vector<int64_t> ints(c10::SymIntArrayRef v) {
  const at::IntArrayRef concrete = C10_AS_INTARRAYREF_SLOW(v);
  return concrete.vec();
}

}  // namespace

at::Tensor convolution_overrideable(const at::Tensor& input, const at::Tensor& weight,
                                    const std::optional<at::Tensor>& bias, c10::SymIntArrayRef stride,
                                    c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation, bool transposed,
                                    c10::SymIntArrayRef output_padding, c10::SymInt groups) {
  if (!npu::run_native(caps::aclnnConvolution, "convolution_overrideable", {input.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("convolution", input, weight, bias, stride, padding, dilation, transposed,
                                          output_padding, groups);
  }
  const std::vector<int64_t> s = ints(stride), p = ints(padding), d = ints(dilation), op = ints(output_padding);
  const int64_t g = groups.guard_int(__FILE__, __LINE__);
  const std::vector<int64_t> sizes =
      transposed ? at::native::conv_input_size(input.sizes(), weight.sizes(), p, op, s, d, g)
                 : at::native::conv_output_size(input.sizes(), weight.sizes(), p, s, d);
  const at::Tensor in = as_entry_takes(input, activation_format(input.dim()));
  const at::Tensor w = as_entry_takes(weight, weight_format(weight.dim()));
  at::Tensor out = new_activation(sizes, in);
  NPU_RUN(aclnnConvolution, in, w, bias, at::IntArrayRef(s), at::IntArrayRef(p), at::IntArrayRef(d), transposed,
          at::IntArrayRef(op), g, out, kCubeMathType);
  return out;
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
  const std::vector<int64_t> s = ints(stride), p = ints(padding), d = ints(dilation), op = ints(output_padding);
  const int64_t g = groups.guard_int(__FILE__, __LINE__);
  const Format blocked = activation_format(input.dim());
  const at::Tensor go = as_entry_takes(grad_output, blocked);
  const at::Tensor in = as_entry_takes(input, blocked);
  const at::Tensor w = as_entry_takes(weight, weight_format(weight.dim()));
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = new_activation(input.sizes(), in);
  if (output_mask[1]) grad_weight = at::empty(weight.sizes(), weight.options().memory_format(at::MemoryFormat::Contiguous));
  const std::vector<int64_t> bias_sizes{grad_output.size(1)};
  if (output_mask[2]) grad_bias = at::empty(bias_sizes, grad_output.options());
  NPU_RUN(aclnnConvolutionBackward, go, in, w, at::IntArrayRef(bias_sizes), at::IntArrayRef(s), at::IntArrayRef(p),
          at::IntArrayRef(d), transposed, at::IntArrayRef(op), static_cast<int>(g), output_mask, kCubeMathType,
          std::optional<at::Tensor>(grad_input), std::optional<at::Tensor>(grad_weight),
          std::optional<at::Tensor>(grad_bias));
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace npu::ops
