// torch_npu's simple fused/custom ops as torch.ops.npu.* with op-plugin's
// schemas (op_plugin_functions.yaml). npu_fast_gelu (and fast_gelu) launch
// CANN's dedicated aclnnFastGelu / aclnnFastGeluBackward
// (ops/table/fused_simple.yaml); torch_npu's derivative of it
// (npu_fast_gelu_backward) is its autograd. Every other op is a composition
// of native aten ops or views, registered CompositeImplicitAutograd so
// autograd differentiates the composition (the same derivative torch_npu's
// derivatives.yaml names, where it names one). The schemas and which key
// each kernel serves are rows of ops/table/fused_simple.yaml (`schemas:`);
// the generated register_fused_simple.cpp registers these functions.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>
#include <torch/csrc/autograd/custom_function.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/capability.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

void check_real_floating(const char* op, const at::Tensor& t, const char* name) {
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op, ": ", name,
              " must be a real floating tensor (float16, bfloat16, float32 or float64), got ", t.scalar_type());
}

}  // namespace

// ---- npu_fast_gelu: aclnnFastGelu / aclnnFastGeluBackward --------------

at::Tensor fast_gelu_kernel(const at::Tensor& self) {
  check_real_floating("npu_fast_gelu", self, "self");
  TORCH_CHECK(npu::run_native(caps::aclnnFastGelu, "npu::npu_fast_gelu", {self.scalar_type()}),
              "npu_fast_gelu: the loaded ACL library has no aclnnFastGelu");
  at::Tensor out = at::empty(self.sizes(), self.options(), at::MemoryFormat::Contiguous);
  if (out.numel() > 0) NPU_RUN(aclnnFastGelu, self, out);
  return out;
}

at::Tensor fast_gelu_backward_kernel(const at::Tensor& grad, const at::Tensor& self) {
  check_real_floating("npu_fast_gelu_backward", self, "self");
  check_real_floating("npu_fast_gelu_backward", grad, "grad");
  TORCH_CHECK(grad.sizes() == self.sizes(), "npu_fast_gelu_backward: grad's shape ", grad.sizes(),
              " must equal self's shape ", self.sizes());
  TORCH_CHECK(npu::run_native(caps::aclnnFastGeluBackward, "npu::npu_fast_gelu_backward",
                              {self.scalar_type(), grad.scalar_type()}),
              "npu_fast_gelu_backward: the loaded ACL library has no aclnnFastGeluBackward");
  at::Tensor grad_input = at::empty(self.sizes(), self.options(), at::MemoryFormat::Contiguous);
  if (grad_input.numel() > 0) NPU_RUN(aclnnFastGeluBackward, grad, self, grad_input);
  return grad_input;
}

namespace {

at::Tensor call_fast_gelu_backward(const at::Tensor& grad, const at::Tensor& self) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("npu::npu_fast_gelu_backward", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  return op.call(grad, self);
}

at::Tensor call_fast_gelu(const at::Tensor& self) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("npu::npu_fast_gelu", "")
                             .typed<at::Tensor(const at::Tensor&)>();
  return op.call(self);
}

// torch_npu's derivative: self's gradient is npu_fast_gelu_backward(grad, self).
struct FastGeluFunction : torch::autograd::Function<FastGeluFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self) {
    ctx->save_for_backward({self});
    at::AutoDispatchBelowADInplaceOrView guard;
    return call_fast_gelu(self);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    return {call_fast_gelu_backward(grads[0], saved[0])};
  }
};

}  // namespace

at::Tensor fast_gelu_autograd(const at::Tensor& self) { return FastGeluFunction::apply(self); }

at::Tensor fast_gelu_alias(const at::Tensor& self) { return call_fast_gelu(self); }

// ---- activations: the aten ops of the same math ---------------------------

at::Tensor npu_gelu(const at::Tensor& self, c10::string_view approximate) { return at::gelu(self, approximate); }

at::Tensor npu_gelu_backward(const at::Tensor& grad_output, const at::Tensor& self, c10::string_view approximate) {
  return at::gelu_backward(grad_output, self, approximate);
}

at::Tensor npu_silu(const at::Tensor& self) { return at::silu(self); }

at::Tensor& npu_silu_(at::Tensor& self) { return at::silu_(self); }

// x1 is silu's result in torch_npu's signature; the derivative needs x0 only.
at::Tensor npu_silu_backward(const at::Tensor& grad_output, const at::Tensor& x0, const at::Tensor& /*x1*/) {
  return at::silu_backward(grad_output, x0);
}

at::Tensor npu_mish(const at::Tensor& self) { return at::mish(self); }

at::Tensor npu_mish_backward(const at::Tensor& grad, const at::Tensor& input) { return at::mish_backward(grad, input); }

// ---- dtype casts ------------------------------------------------------------

namespace {

at::ScalarType dtype_from_code(const char* op, int64_t code) {
  TORCH_CHECK(code >= 0 && code < static_cast<int64_t>(at::ScalarType::NumOptions), op,
              ": dtype must be a torch.dtype (or its ScalarType code), got ", code);
  return static_cast<at::ScalarType>(code);
}

// input_dtype names what self's bits hold when torch_npu stores a dtype
// PyTorch lacks (hifloat8, int4...) in another one: npu-emu has no such
// dtypes, so it may only repeat self's own dtype.
void check_input_dtype(const char* op, const at::Tensor& self, std::optional<int64_t> input_dtype) {
  TORCH_CHECK_NOT_IMPLEMENTED(!input_dtype || *input_dtype == static_cast<int64_t>(self.scalar_type()), op,
                              ": input_dtype ", input_dtype.value_or(-1), " differs from the input's dtype ",
                              self.scalar_type(), " (torch_npu's custom dtypes are not emulated); leave it None");
}

}  // namespace

at::Tensor npu_dtype_cast(const at::Tensor& self, int64_t dtype, std::optional<int64_t> input_dtype) {
  check_input_dtype("npu_dtype_cast", self, input_dtype);
  return self.to(dtype_from_code("npu_dtype_cast", dtype));
}

at::Tensor npu_dtype_cast_private(const at::Tensor& self, at::ScalarType dtype) { return self.to(dtype); }

at::Tensor& npu_dtype_cast_inplace(at::Tensor& self, const at::Tensor& src) { return self.copy_(src); }

at::Tensor npu_dtype_cast_backward(const at::Tensor& grad, at::ScalarType dtype, std::optional<int64_t> /*grad_dtype*/,
                                   std::optional<int64_t> /*input_dtype*/) {
  return grad.to(dtype);
}

at::Tensor npu_dtype_cast_backward_private(const at::Tensor& grad, at::ScalarType dtype) { return grad.to(dtype); }

// ---- layout ops: views made contiguous ---------------------------------------

namespace {

std::vector<int64_t> inverse_permutation(const char* op, at::IntArrayRef perm, int64_t rank) {
  TORCH_CHECK(static_cast<int64_t>(perm.size()) == rank, op, ": perm must list all ", rank, " dims, got ", perm);
  std::vector<int64_t> inverse(perm.size(), -1);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const int64_t d = at::maybe_wrap_dim(perm[i], rank);
    TORCH_CHECK(inverse[static_cast<std::size_t>(d)] < 0, op, ": perm repeats dim ", d, ": ", perm);
    inverse[static_cast<std::size_t>(d)] = static_cast<int64_t>(i);
  }
  return inverse;
}

}  // namespace

at::Tensor npu_confusion_transpose(const at::Tensor& self, at::IntArrayRef perm, at::IntArrayRef shape,
                                   bool transpose_first) {
  if (transpose_first) return self.permute(perm).reshape(shape).contiguous();
  return self.reshape(shape).permute(perm).contiguous();
}

// The inverse of npu_confusion_transpose whose input had `shape`; torch_npu
// calls it with the forward's transpose_first negated.
at::Tensor npu_confusion_transpose_backward(const at::Tensor& grad, at::IntArrayRef perm, c10::SymIntArrayRef shape,
                                            bool transpose_first) {
  const at::IntArrayRef sizes = C10_AS_INTARRAYREF_SLOW(shape);
  const auto rank = static_cast<int64_t>(perm.size());
  const auto inverse = inverse_permutation("npu_confusion_transpose_backward", perm, rank);
  if (transpose_first) return grad.permute(inverse).reshape(sizes).contiguous();
  TORCH_CHECK(static_cast<int64_t>(sizes.size()) == rank, "npu_confusion_transpose_backward: shape ", sizes,
              " must have as many dims as perm ", perm);
  // The forward's output before its permutation: shape's dims in perm's order.
  std::vector<int64_t> permuted(sizes.size());
  for (std::size_t i = 0; i < permuted.size(); ++i) {
    permuted[i] = sizes[static_cast<std::size_t>(at::maybe_wrap_dim(perm[i], rank))];
  }
  return grad.reshape(permuted).permute(inverse).contiguous();
}

at::Tensor npu_transpose(const at::Tensor& self, at::IntArrayRef perm, bool /*require_contiguous*/) {
  inverse_permutation("npu_transpose", perm, self.dim());
  return self.permute(perm).contiguous();
}

namespace {

at::Tensor& write_out(const at::Tensor& result, at::Tensor& out) {
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

}  // namespace

at::Tensor& npu_transpose_out(const at::Tensor& self, at::IntArrayRef perm, bool require_contiguous, at::Tensor& out) {
  return write_out(npu_transpose(self, perm, require_contiguous), out);
}

at::Tensor npu_broadcast(const at::Tensor& self, at::IntArrayRef size) { return self.expand(size).contiguous(); }

at::Tensor& npu_broadcast_out(const at::Tensor& self, at::IntArrayRef size, at::Tensor& out) {
  return write_out(npu_broadcast(self, size), out);
}

at::Tensor npu_slice(const at::Tensor& self, at::IntArrayRef offsets, at::IntArrayRef size) {
  TORCH_CHECK(static_cast<int64_t>(offsets.size()) == self.dim() && static_cast<int64_t>(size.size()) == self.dim(),
              "npu_slice: offsets and size must have one entry per dim of self (", self.dim(), "), got offsets ",
              offsets, " and size ", size);
  at::Tensor t = self;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t len = size[d] == -1 ? self.size(d) - offsets[d] : size[d];
    TORCH_CHECK(offsets[d] >= 0 && len >= 0 && offsets[d] + len <= self.size(d), "npu_slice: dim ", d,
                ": offset ", offsets[d], " and size ", size[d], " exceed self's size ", self.size(d));
    t = t.narrow(d, offsets[d], len);
  }
  return t.contiguous();
}

at::Tensor& npu_slice_out(const at::Tensor& self, at::IntArrayRef offsets, at::IntArrayRef size, at::Tensor& out) {
  return write_out(npu_slice(self, offsets, size), out);
}

// TensorFlow's StridedSlice, which torch_npu's npu_indexing is: per dim i,
// [begin[i], end[i]) with step strides[i]; bit i of begin_mask/end_mask
// takes the dim's start/end instead, bit i of shrink_axis_mask keeps only
// element begin[i] and drops the dim.
at::Tensor npu_indexing(const at::Tensor& self, at::IntArrayRef begin, at::IntArrayRef end, at::IntArrayRef strides,
                        int64_t begin_mask, int64_t end_mask, int64_t ellipsis_mask, int64_t new_axis_mask,
                        int64_t shrink_axis_mask) {
  TORCH_CHECK(ellipsis_mask == 0 && new_axis_mask == 0,
              "npu_indexing: ellipsis_mask and new_axis_mask are not supported on npu-emu (got ", ellipsis_mask,
              " and ", new_axis_mask, "); index with Python slicing (x[..., None, a:b:c]) instead");
  TORCH_CHECK(begin.size() == end.size() && begin.size() == strides.size() &&
                  static_cast<int64_t>(begin.size()) <= self.dim(),
              "npu_indexing: begin, end and strides must have one length, at most self's dims (", self.dim(),
              "), got ", begin, ", ", end, ", ", strides);
  at::Tensor t = self;
  std::vector<int64_t> dropped;
  for (int64_t d = 0; d < static_cast<int64_t>(begin.size()); ++d) {
    const int64_t n = self.size(d);
    const bool shrink = (shrink_axis_mask >> d) & 1;
    TORCH_CHECK(strides[d] > 0 || shrink, "npu_indexing: strides must be positive on npu-emu, got ", strides[d],
                " for dim ", d, " (flip the tensor first)");
    if (shrink) {
      int64_t b = begin[d] < 0 ? begin[d] + n : begin[d];
      TORCH_CHECK(b >= 0 && b < n, "npu_indexing: shrink_axis_mask index ", begin[d], " is out of range for dim ", d,
                  " of size ", n);
      t = t.narrow(d, b, 1);
      dropped.push_back(d);
      continue;
    }
    auto clamp = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
    const int64_t b = ((begin_mask >> d) & 1) ? 0 : clamp(begin[d]);
    const int64_t e = ((end_mask >> d) & 1) ? n : clamp(end[d]);
    t = t.slice(d, b, std::max(b, e), strides[d]);
  }
  for (auto it = dropped.rbegin(); it != dropped.rend(); ++it) t = t.squeeze(*it);
  return t.contiguous();
}

at::Tensor& npu_indexing_out(const at::Tensor& self, at::IntArrayRef begin, at::IntArrayRef end,
                             at::IntArrayRef strides, int64_t begin_mask, int64_t end_mask, int64_t ellipsis_mask,
                             int64_t new_axis_mask, int64_t shrink_axis_mask, at::Tensor& out) {
  return write_out(npu_indexing(self, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                shrink_axis_mask),
                   out);
}

// Each dim i padded by paddings[2i] before and paddings[2i+1] after (missing
// entries: 0), with zeros.
at::Tensor npu_pad(const at::Tensor& input, at::IntArrayRef paddings) {
  TORCH_CHECK(static_cast<int64_t>(paddings.size()) <= 2 * input.dim(), "npu_pad: paddings has ", paddings.size(),
              " entries, at most 2 per dim of input (", input.dim(), " dims)");
  std::vector<int64_t> pad(paddings.begin(), paddings.end());
  pad.resize(static_cast<std::size_t>(2 * input.dim()), 0);
  for (const int64_t p : pad) TORCH_CHECK(p >= 0, "npu_pad: paddings must be >= 0, got ", paddings);
  // constant_pad_nd lists the last dim's pair first.
  std::vector<int64_t> reversed;
  for (int64_t d = input.dim() - 1; d >= 0; --d) {
    reversed.push_back(pad[static_cast<std::size_t>(2 * d)]);
    reversed.push_back(pad[static_cast<std::size_t>(2 * d + 1)]);
  }
  return at::constant_pad_nd(input, reversed, 0);
}

// ---- one_hot, max/min with indices, layer norm, linear, bmm -----------------

// torch_npu's OneHotD: a new dim of `depth` at axis `num_classes` (-1: last),
// on_value where the class matches, off_value elsewhere, as float32.
at::Tensor npu_one_hot(const at::Tensor& self, int64_t num_classes, int64_t depth, const at::Scalar& on_value,
                       const at::Scalar& off_value) {
  TORCH_CHECK(!at::isFloatingType(self.scalar_type()) && !at::isComplexType(self.scalar_type()) &&
                  self.scalar_type() != at::kBool,
              "npu_one_hot: self must be an integer tensor, got ", self.scalar_type());
  TORCH_CHECK(depth >= 1, "npu_one_hot: depth must be >= 1, got ", depth);
  const int64_t axis = at::maybe_wrap_dim(num_classes, self.dim() + 1);
  const at::Tensor classes = at::arange(depth, self.options().dtype(at::kLong));
  const at::Tensor hit = self.to(at::kLong).unsqueeze(-1).eq(classes);
  const auto opts = self.options().dtype(at::kFloat);
  at::Tensor out = at::where(hit, at::scalar_tensor(on_value, opts), at::scalar_tensor(off_value, opts));
  return out.movedim(-1, axis).contiguous();
}

std::tuple<at::Tensor, at::Tensor> npu_max_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  auto [values, indices] = at::max(self, dim, keepdim);
  return {values, indices.to(at::kInt)};
}

std::tuple<at::Tensor, at::Tensor> npu_min_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  auto [values, indices] = at::min(self, dim, keepdim);
  return {values, indices.to(at::kInt)};
}

// The gradient lands where the indices point; zeros elsewhere.
at::Tensor extreme_backward(const at::Tensor& grad, int64_t dim, const at::Tensor& indices, c10::SymIntArrayRef sizes,
                            bool keepdim) {
  const at::IntArrayRef shape = C10_AS_INTARRAYREF_SLOW(sizes);
  const int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(shape.size()));
  const at::Tensor g = keepdim ? grad : grad.unsqueeze(d);
  const at::Tensor i = (keepdim ? indices : indices.unsqueeze(d)).to(at::kLong);
  return at::zeros(shape, grad.options()).scatter(d, i, g);
}

at::Tensor npu_layer_norm_eval(const at::Tensor& input, at::IntArrayRef normalized_shape,
                               const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
                               double eps) {
  return at::layer_norm(input, normalized_shape, weight, bias, eps);
}

at::Tensor npu_linear(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias) {
  return at::linear(input, weight, bias);
}

std::tuple<at::Tensor, at::Tensor> npu_linear_backward(const at::Tensor& grad, const at::Tensor& input,
                                                       const at::Tensor& weight) {
  return {at::matmul(grad, weight), at::matmul(grad.transpose(-1, -2), input)};
}

// output_sizes is the result's shape, which the batched product implies.
at::Tensor npu_bmm_v2(const at::Tensor& self, const at::Tensor& mat2, at::IntArrayRef output_sizes) {
  at::Tensor out = at::matmul(self, mat2);
  TORCH_CHECK(output_sizes.empty() || out.sizes() == output_sizes, "npu_bmmV2: output_sizes ", output_sizes,
              " differ from the product's shape ", out.sizes());
  return out;
}

// npu_bmmV2's gradients (torch_npu's names): the product's gradient with
// respect to one operand, summed over the batch dimensions it was broadcast
// in, back to that operand's `size`.
at::Tensor npu_bmm_v2_mat1_backward(const at::Tensor& grad, const at::Tensor& /*mat1*/, const at::Tensor& mat2,
                                    c10::SymIntArrayRef size) {
  const at::Tensor m2 = mat2.dim() == 1 ? mat2.unsqueeze(0) : mat2.transpose(-1, -2);
  const at::Tensor g = mat2.dim() == 1 ? grad.unsqueeze(-1) : grad;
  return at::sum_to(at::matmul(g, m2), size);
}

at::Tensor npu_bmm_v2_mat2_backward(const at::Tensor& grad, const at::Tensor& mat1, const at::Tensor& /*mat2*/,
                                    c10::SymIntArrayRef size) {
  const at::Tensor m1 = mat1.dim() == 1 ? mat1.unsqueeze(-1) : mat1.transpose(-1, -2);
  const at::Tensor g = mat1.dim() == 1 ? grad.unsqueeze(-2) : grad;
  return at::sum_to(at::matmul(m1, g), size);
}

// ---- softmax cross entropy -----------------------------------------------------

namespace {

void check_softmax_ce(const char* op, const at::Tensor& self, const at::Tensor& labels) {
  TORCH_CHECK(self.dim() == 2, op, ": self must be 2-D [batch, classes], got ", self.dim(), " dims");
  TORCH_CHECK(labels.sizes() == self.sizes(), op, ": labels' shape ", labels.sizes(), " must equal self's ",
              self.sizes());
}

}  // namespace

// loss[n] = -sum_c labels[n, c] * log_softmax(self[n])[c]
at::Tensor npu_softmax_cross_entropy_with_logits(const at::Tensor& self, const at::Tensor& labels) {
  check_softmax_ce("npu_softmax_cross_entropy_with_logits", self, labels);
  return -(labels * at::log_softmax(self, -1)).sum(-1);
}

at::Tensor npu_softmax_cross_entropy_with_logits_backward(const at::Tensor& grad, const at::Tensor& self,
                                                          const at::Tensor& labels) {
  check_softmax_ce("npu_softmax_cross_entropy_with_logits_backward", self, labels);
  return grad.unsqueeze(-1) * (at::softmax(self, -1) - labels);
}

}  // namespace npu::ops
