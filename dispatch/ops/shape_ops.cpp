// The shape-and-copy schemas with no meta function in PyTorch: stack, flip,
// roll and repeat, each one aclnn entry (ops/table/shape.yaml). cat, tril and
// triu are generated from the table (structured).
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

at::ScalarType promoted(const std::vector<at::Tensor>& tensors) {
  at::ScalarType type = tensors.front().scalar_type();
  for (const at::Tensor& t : tensors) type = at::promote_types(type, t.scalar_type());
  return type;
}

// PyTorch's rule: the layout every input suggests (channels_last for
// channels_last inputs), contiguous as soon as one input suggests another.
at::MemoryFormat common_memory_format(const std::vector<at::Tensor>& tensors) {
  std::optional<at::MemoryFormat> common;
  for (const at::Tensor& t : tensors) {
    const at::MemoryFormat f = t.suggest_memory_format();
    if (f == at::MemoryFormat::Contiguous || (common && *common != f)) return at::MemoryFormat::Contiguous;
    common = f;
  }
  return common.value_or(at::MemoryFormat::Contiguous);
}

// ---- stack ----------------------------------------------------------------------

struct StackPlan {
  std::vector<at::Tensor> inputs;
  std::vector<int64_t> shape;
  int64_t dim = 0;
  at::ScalarType dtype;
};

StackPlan plan_stack(at::TensorList tensors, int64_t dim) {
  TORCH_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  StackPlan plan{tensors.vec(), tensors[0].sizes().vec(), at::maybe_wrap_dim(dim, tensors[0].dim() + 1),
                 promoted(tensors.vec())};
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_npu("stack", "tensors", tensors[i]);
    TORCH_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
                tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  plan.shape.insert(plan.shape.begin() + plan.dim, static_cast<int64_t>(tensors.size()));
  return plan;
}

void stack_launch(const StackPlan& plan, const at::Tensor& out) {
  NPU_RUN(aclnnStack, at::ITensorListRef(plan.inputs), plan.dim, out);
}

// PyTorch stacks along an existing dim as a cat along it, viewed with that
// dim split (so channels_last inputs give a channels_last-like result), and
// along the new last dim as a cat of the inputs unsqueezed there.
at::Tensor empty_stack_result(const StackPlan& plan) {
  const at::Tensor& first = plan.inputs.front();
  if (plan.dim < first.dim()) {
    std::vector<int64_t> cat_shape = first.sizes().vec();
    cat_shape[plan.dim] *= static_cast<int64_t>(plan.inputs.size());
    return empty_npu(cat_shape, plan.dtype, first.device(), common_memory_format(plan.inputs)).view(plan.shape);
  }
  std::vector<at::Tensor> unsqueezed;
  for (const at::Tensor& t : plan.inputs) unsqueezed.push_back(t.unsqueeze(plan.dim));
  return empty_npu(plan.shape, plan.dtype, first.device(), common_memory_format(unsqueezed));
}

// The aclnn entries name real dims: a 0-dim tensor takes part as its [1] view.
at::Tensor as_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

}  // namespace

at::Tensor stack(at::TensorList tensors, int64_t dim) {
  const StackPlan plan = plan_stack(tensors, dim);
  if (!run_native(table::caps::aclnnStack, "stack", {plan.dtype})) {
    return fallback_call<at::Tensor>("stack", tensors, dim);
  }
  at::Tensor out = empty_stack_result(plan);
  if (out.numel() > 0) stack_launch(plan, out);
  return out;
}

at::Tensor& stack_out(at::TensorList tensors, int64_t dim, at::Tensor& out) {
  const StackPlan plan = plan_stack(tensors, dim);
  check_npu("stack", "out", out);
  if (!run_native(table::caps::aclnnStack, "stack.out", {plan.dtype})) {
    return fallback_call<at::Tensor&>("stack.out", tensors, dim, out);
  }
  at::native::resize_output(out, plan.shape);
  at::assert_no_internal_overlap(out);
  for (const at::Tensor& t : tensors) at::assert_no_overlap(out, t);
  write_out(out, plan.shape, plan.dtype, [&](const at::Tensor& o) { stack_launch(plan, o); });
  return out;
}

at::Tensor flip(const at::Tensor& self, at::IntArrayRef dims) {
  check_npu("flip", "self", self);
  at::dim_list_to_bitset(dims, self.dim());  // range and repetition errors, PyTorch's words
  if (!run_native(table::caps::aclnnFlip, "flip", {self.scalar_type()})) {
    return fallback_call<at::Tensor>("flip", self, dims);
  }
  std::vector<int64_t> wrapped;
  for (const int64_t d : dims) wrapped.push_back(at::maybe_wrap_dim(d, self.dim()));
  // CPU's layout: self's strides when dense, else the layout self suggests.
  const at::Tensor out = at::empty_like(self, {}, at::MemoryFormat::Preserve);
  if (out.numel() > 0) NPU_RUN(aclnnFlip, as_1d(self), at::IntArrayRef(wrapped), as_1d(out));
  return out;
}

at::Tensor roll(const at::Tensor& self, c10::SymIntArrayRef sym_shifts, at::IntArrayRef dims) {
  check_npu("roll", "self", self);
  const at::IntArrayRef shifts = C10_AS_INTARRAYREF_SLOW(sym_shifts);
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  TORCH_CHECK(dims.empty() ? shifts.size() == 1 : shifts.size() == dims.size(),
              "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  std::vector<int64_t> wrapped;
  for (const int64_t d : dims) wrapped.push_back(at::maybe_wrap_dim(d, self.dim()));
  if (!run_native(table::caps::aclnnRoll, "roll", {self.scalar_type()})) {
    return fallback_call<at::Tensor>("roll", self, sym_shifts, dims);
  }
  // CPU's layout: the memory format self suggests (channels_last stays so);
  // without dims, the roll of the flattened tensor, contiguous.
  const at::Tensor out =
      at::empty_like(self, {}, dims.empty() ? at::MemoryFormat::Contiguous : self.suggest_memory_format());
  if (out.numel() > 0) NPU_RUN(aclnnRoll, as_1d(self), shifts, at::IntArrayRef(wrapped), as_1d(out));
  return out;
}

at::Tensor repeat(const at::Tensor& self, c10::SymIntArrayRef sym_repeats) {
  check_npu("repeat", "self", self);
  const at::IntArrayRef repeats = C10_AS_INTARRAYREF_SLOW(sym_repeats);
  TORCH_CHECK(static_cast<int64_t>(repeats.size()) >= self.dim(), "Number of dimensions of repeat dims can not be "
              "smaller than number of dimensions of tensor");
  std::vector<int64_t> shape(repeats.begin(), repeats.end());
  const int64_t lead = static_cast<int64_t>(repeats.size()) - self.dim();
  for (size_t i = 0; i < repeats.size(); ++i) {
    TORCH_CHECK(repeats[i] >= 0, "Trying to create tensor with negative dimension ", repeats[i], ": ", repeats);
    if (static_cast<int64_t>(i) >= lead) shape[i] *= self.size(static_cast<int64_t>(i) - lead);
  }
  if (!run_native(table::caps::aclnnRepeat, "repeat", {self.scalar_type()})) {
    return fallback_call<at::Tensor>("repeat", self, sym_repeats);
  }
  return new_result(self, shape, self.scalar_type(), [&](const at::Tensor& out) {
    // aclnnRepeat names at least one dim; a 0-dim self repeats as a [1] view.
    if (repeats.empty()) {
      out.copy_(self);
    } else {
      NPU_RUN(aclnnRepeat, self, repeats, out);
    }
  });
}

}  // namespace npu::ops
