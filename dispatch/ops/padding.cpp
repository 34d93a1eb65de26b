// The padding schemas PyTorch gives no structured meta function
// (ops/table/pad.yaml names each with `impl:`): reflection_pad2d forward and
// the 2-d reflection and 2-d/3-d replication backwards. The argument checks
// are CPU's (ATen's padding::check_valid_input, then the pad sizes); the
// structured pads are generated from the table, except the three whose CPU
// kernels re-lay the output after the meta function (replication_pad2d/3d,
// reflection_pad3d: channels_last in, channels_last out).
#include <ATen/ATen.h>
#include <ATen/native/Padding.h>
#include <ATen/ops/reflection_pad3d_meta.h>
#include <ATen/ops/replication_pad2d_meta.h>
#include <ATen/ops/replication_pad3d_meta.h>

#include <string>
#include <vector>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/padding.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

// The padded shape of `self` (Rank trailing dims padded), checked as CPU
// checks it; reflection pads must be below their dim's size.
template <int Rank>
std::vector<int64_t> padded_shape(const char* name, const at::Tensor& self, at::IntArrayRef padding, bool reflect) {
  at::native::padding::check_valid_input<Rank>(self, padding);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  const int64_t nd = self.dim();
  for (int64_t i = 0; i < Rank; ++i) {
    const int64_t dim = nd - 1 - i;  // padding lists the last dim first
    const int64_t before = padding[2 * i], after = padding[2 * i + 1], in = self.size(dim);
    if (reflect) {
      // CPU's words (PyTorch's tests match them).
      TORCH_CHECK(before < in && after < in, "Argument #4: Padding size should be less than the corresponding "
                  "input dimension, but got: padding (", before, ", ", after, ") at dimension ", dim, " of input ",
                  self.sizes());
    }
    shape[dim] = in + before + after;
    TORCH_CHECK(shape[dim] >= 1, name, ": input ", self.sizes(), " padded by ", padding,
                " gives an empty dim ", dim);
  }
  return shape;
}

template <int Rank>
void check_grad_output(const char* name, const at::Tensor& grad_output, const at::Tensor& self,
                       at::IntArrayRef padding, bool reflect) {
  const std::vector<int64_t> shape = padded_shape<Rank>(name, self, padding, reflect);
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(shape), name, ": grad_output must have shape ",
              at::IntArrayRef(shape), ", got ", grad_output.sizes());
}

at::MemoryFormat layout_of(const at::Tensor& self) {
  return self.dim() >= 4 ? self.suggest_memory_format() : at::MemoryFormat::Contiguous;
}

}  // namespace

at::Tensor& reflection_pad2d_out(const at::Tensor& self, c10::SymIntArrayRef padding, at::Tensor& out) {
  const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);
  const auto shape = padded_shape<2>("reflection_pad2d", self, pad, true);
  TORCH_CHECK(self.dtype() == out.dtype(), "reflection_pad2d: expected out of dtype ", self.dtype(), ", got ",
              out.dtype());
  if (!npu::run_native(caps::aclnnReflectionPad2d, "reflection_pad2d.out",
                       npu::table::operand_dtypes(self.scalar_type(), self))) {
    return npu::fallback_call<at::Tensor&>("reflection_pad2d.out", self, padding, out);
  }
  out.resize_(shape, layout_of(self));
  if (out.numel() > 0) NPU_RUN(aclnnReflectionPad2d, self, pad, out);
  return out;
}

at::Tensor reflection_pad2d(const at::Tensor& self, c10::SymIntArrayRef padding) {
  const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);
  const auto shape = padded_shape<2>("reflection_pad2d", self, pad, true);
  if (!npu::run_native(caps::aclnnReflectionPad2d, "reflection_pad2d",
                       npu::table::operand_dtypes(self.scalar_type(), self))) {
    return npu::fallback_call<at::Tensor>("reflection_pad2d", self, padding);
  }
  at::Tensor out = at::empty(shape, self.options().memory_format(layout_of(self)));
  if (out.numel() > 0) NPU_RUN(aclnnReflectionPad2d, self, pad, out);
  return out;
}

namespace {

// CPU's kernels of these pads re-lay their output (a given out= too) in the
// input's suggested memory format after the structured meta function (which
// checks the arguments and leaves the output contiguous): a channels_last
// input gives a channels_last result.
void relay_like_input(at::Tensor& out, const at::Tensor& self) {
  out.resize_(out.sizes(), layout_of(self));
}

}  // namespace

#define NPU_EMU_RELAID_PAD(op, aclnn)                                                                          \
  at::Tensor& op##_out(const at::Tensor& self, c10::SymIntArrayRef padding, at::Tensor& out) {                \
    const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);                                             \
    if (!npu::run_native(caps::aclnn, #op ".out", npu::table::operand_dtypes(self.scalar_type(), self))) {    \
      return npu::fallback_call<at::Tensor&>(#op ".out", self, padding, out);                                 \
    }                                                                                                         \
    npu::table::Out<at::meta::structured_##op, 1> call(out);                                                  \
    call.meta(self, pad);                                                                                     \
    relay_like_input(out, self);                                                                              \
    if (out.numel() > 0) NPU_RUN(aclnn, self, pad, out);                                                      \
    return out;                                                                                               \
  }                                                                                                           \
  at::Tensor op(const at::Tensor& self, c10::SymIntArrayRef padding) {                                        \
    const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);                                             \
    if (!npu::run_native(caps::aclnn, #op, npu::table::operand_dtypes(self.scalar_type(), self))) {           \
      return npu::fallback_call<at::Tensor>(#op, self, padding);                                              \
    }                                                                                                         \
    npu::table::Functional<at::meta::structured_##op, 1> call;                                                \
    call.meta(self, pad);                                                                                     \
    at::Tensor out = call.output(0);                                                                          \
    relay_like_input(out, self);                                                                              \
    if (out.numel() > 0) NPU_RUN(aclnn, self, pad, out);                                                      \
    return out;                                                                                               \
  }

NPU_EMU_RELAID_PAD(replication_pad2d, aclnnReplicationPad2d)
NPU_EMU_RELAID_PAD(replication_pad3d, aclnnReplicationPad3d)
NPU_EMU_RELAID_PAD(reflection_pad3d, aclnnReflectionPad3d)
#undef NPU_EMU_RELAID_PAD

namespace {

// What tells the hand-written pad backwards apart.
struct PadBackwardOp {
  const char* name;  // in messages
  void (*check)(const char* name, const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef pad);
  const npu::AclnnCapability& cap;
  void (*launch)(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef pad, const at::Tensor& grad_input);
};

template <int Rank, bool Reflect>
void check_backward(const char* name, const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef pad) {
  check_grad_output<Rank>(name, grad_output, self, pad, Reflect);
}

const PadBackwardOp& op_of(PadBackward op) {
  static const PadBackwardOp ops[] = {
      {"reflection_pad2d_backward", check_backward<2, true>, caps::aclnnReflectionPad2dBackward,
       [](const at::Tensor& g, const at::Tensor& s, at::IntArrayRef p, const at::Tensor& gi) {
         NPU_RUN(aclnnReflectionPad2dBackward, g, s, p, gi);
       }},
      {"replication_pad2d_backward", check_backward<2, false>, caps::aclnnReplicationPad2dBackward,
       [](const at::Tensor& g, const at::Tensor& s, at::IntArrayRef p, const at::Tensor& gi) {
         NPU_RUN(aclnnReplicationPad2dBackward, g, s, p, gi);
       }},
      {"replication_pad3d_backward", check_backward<3, false>, caps::aclnnReplicationPad3dBackward,
       [](const at::Tensor& g, const at::Tensor& s, at::IntArrayRef p, const at::Tensor& gi) {
         NPU_RUN(aclnnReplicationPad3dBackward, g, s, p, gi);
       }},
  };
  return ops[static_cast<int>(op)];
}

// Checks a pad backward's arguments as CPU does; false when it cannot run
// natively (the caller then falls back to CPU for `schema`).
bool pad_backward_native(const PadBackwardOp& op, const char* schema, const at::Tensor& grad_output,
                         const at::Tensor& self, at::IntArrayRef pad) {
  op.check(op.name, grad_output, self, pad);
  if (!npu::run_native(op.cap, schema, npu::table::operand_dtypes(self.scalar_type(), grad_output, self))) {
    return false;
  }
  TORCH_CHECK(grad_output.dtype() == self.dtype(), op.name, ": grad_output must have self's dtype ", self.dtype());
  return true;
}

// grad_input (new, or given to out=) laid out as CPU lays it, then computed.
at::Tensor& launch_pad_backward(const PadBackwardOp& op, const at::Tensor& grad_output, const at::Tensor& self,
                                at::IntArrayRef pad, at::Tensor& grad_input) {
  grad_input.resize_(self.sizes(), layout_of(self));
  if (grad_input.numel() > 0) op.launch(grad_output, self, pad, grad_input);
  return grad_input;
}

}  // namespace

at::Tensor pad_backward(PadBackward which, const char* schema, const at::Tensor& grad_output, const at::Tensor& self,
                        c10::SymIntArrayRef padding) {
  const PadBackwardOp& op = op_of(which);
  const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);
  if (!pad_backward_native(op, schema, grad_output, self, pad)) {
    return npu::fallback_call<at::Tensor>(schema, grad_output, self, padding);
  }
  at::Tensor grad_input = at::empty({0}, self.options());
  return launch_pad_backward(op, grad_output, self, pad, grad_input);
}

at::Tensor& pad_backward_out(PadBackward which, const char* schema, const at::Tensor& grad_output,
                             const at::Tensor& self, c10::SymIntArrayRef padding, at::Tensor& grad_input) {
  const PadBackwardOp& op = op_of(which);
  const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);
  if (!pad_backward_native(op, schema, grad_output, self, pad)) {
    return npu::fallback_call<at::Tensor&>(schema, grad_output, self, padding, grad_input);
  }
  return launch_pad_backward(op, grad_output, self, pad, grad_input);
}

}  // namespace npu::ops
