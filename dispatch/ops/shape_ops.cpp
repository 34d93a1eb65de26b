// Shape-and-copy ops on npu: cat, stack, flip, roll, repeat, tril, triu,
// each one aclnn entry (include/acl/aclnn_shape.h).
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

// ---- cat and stack ------------------------------------------------------------

at::ScalarType promoted(const std::vector<at::Tensor>& tensors) {
  at::ScalarType type = tensors.front().scalar_type();
  for (const at::Tensor& t : tensors) type = at::promote_types(type, t.scalar_type());
  return type;
}

// 1-D empty tensors take no part in cat (PyTorch's legacy rule).
bool skipped_by_cat(const at::Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

struct CatPlan {
  std::vector<at::Tensor> all;     // every input, legacy empties included
  std::vector<at::Tensor> inputs;  // the ones that take part
  std::vector<int64_t> shape;
  int64_t dim = 0;
  at::ScalarType dtype;
  // PyTorch's rule: the layout every input suggests (channels_last for
  // channels_last inputs), contiguous as soon as one input suggests another.
  at::MemoryFormat memory_format = at::MemoryFormat::Contiguous;
};

at::MemoryFormat common_memory_format(const std::vector<at::Tensor>& tensors) {
  std::optional<at::MemoryFormat> common;
  for (const at::Tensor& t : tensors) {
    const at::MemoryFormat f = t.suggest_memory_format();
    if (f == at::MemoryFormat::Contiguous || (common && *common != f)) return at::MemoryFormat::Contiguous;
    common = f;
  }
  return common.value_or(at::MemoryFormat::Contiguous);
}

CatPlan plan_cat(const at::ITensorListRef& list, int64_t dim) {
  std::vector<at::Tensor> all(list.begin(), list.end());
  TORCH_CHECK(!all.empty(), "torch.cat(): expected a non-empty list of Tensors");
  CatPlan plan;
  plan.dtype = promoted(all);
  plan.memory_format = common_memory_format(all);
  for (size_t i = 0; i < all.size(); ++i) {
    check_npu("cat", "tensors", all[i]);
    TORCH_CHECK(all[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  }
  const at::Tensor* ref = nullptr;
  for (const at::Tensor& t : all) {
    if (!skipped_by_cat(t)) {
      ref = &t;
      break;
    }
  }
  if (ref == nullptr) {  // only legacy empties: the result is one too
    plan.shape = {0};
    return plan;
  }
  plan.dim = at::maybe_wrap_dim(dim, ref->dim());
  plan.shape = ref->sizes().vec();
  plan.shape[plan.dim] = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const at::Tensor& t = all[i];
    if (skipped_by_cat(t)) continue;
    TORCH_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
                t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      TORCH_CHECK(d == plan.dim || t.size(d) == ref->size(d), "Sizes of tensors must match except in dimension ",
                  plan.dim, ". Expected size ", ref->size(d), " but got size ", t.size(d), " for tensor number ", i,
                  " in the list.");
    }
    plan.shape[plan.dim] += t.size(plan.dim);
    plan.inputs.push_back(t);
  }
  plan.all = std::move(all);
  return plan;
}

void cat_launch(const CatPlan& plan, const at::Tensor& out) {
  NPU_RUN(aclnnCat, at::ITensorListRef(plan.inputs), plan.dim, out);
}

at::Tensor& cat_out(const at::ITensorListRef& tensors, int64_t dim, at::Tensor& out) {
  const CatPlan plan = plan_cat(tensors, dim);
  TORCH_CHECK(at::canCast(plan.dtype, out.scalar_type()), "torch.cat(): input types can't be cast to the desired "
              "output type ", out.scalar_type());
  check_npu("cat", "out", out);
  // An out that had to be resized takes the inputs' layout; one of the right
  // shape keeps its own strides (PyTorch's out= rule).
  if (at::native::resize_output(out, plan.shape)) out.unsafeGetTensorImpl()->empty_tensor_restride(plan.memory_format);
  at::assert_no_internal_overlap(out);
  for (const at::Tensor& t : plan.all) at::assert_no_overlap(out, t);
  write_out(out, plan.shape, plan.dtype, [&](const at::Tensor& o) { cat_launch(plan, o); });
  return out;
}

at::Tensor cat(const at::ITensorListRef& tensors, int64_t dim) {
  const CatPlan plan = plan_cat(tensors, dim);
  const at::Tensor& like = plan.inputs.empty() ? *tensors.begin() : plan.inputs.front();
  at::Tensor out = empty_npu(plan.shape, plan.dtype, like.device(), plan.memory_format);
  if (out.numel() > 0) cat_launch(plan, out);
  return out;
}

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

at::Tensor stack(at::TensorList tensors, int64_t dim) {
  const StackPlan plan = plan_stack(tensors, dim);
  at::Tensor out = empty_stack_result(plan);
  if (out.numel() > 0) stack_launch(plan, out);
  return out;
}

at::Tensor& stack_out(at::TensorList tensors, int64_t dim, at::Tensor& out) {
  const StackPlan plan = plan_stack(tensors, dim);
  check_npu("stack", "out", out);
  at::native::resize_output(out, plan.shape);
  at::assert_no_internal_overlap(out);
  for (const at::Tensor& t : tensors) at::assert_no_overlap(out, t);
  write_out(out, plan.shape, plan.dtype, [&](const at::Tensor& o) { stack_launch(plan, o); });
  return out;
}

// ---- flip, roll, repeat -----------------------------------------------------------

// The aclnn entries name real dims: a 0-dim tensor takes part as its [1] view.
at::Tensor as_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

at::Tensor flip(const at::Tensor& self, at::IntArrayRef dims) {
  check_npu("flip", "self", self);
  at::dim_list_to_bitset(dims, self.dim());  // range and repetition errors, PyTorch's words
  std::vector<int64_t> wrapped;
  for (const int64_t d : dims) wrapped.push_back(at::maybe_wrap_dim(d, self.dim()));
  // CPU's layout: self's strides when dense, else the layout self suggests.
  const at::Tensor out = at::empty_like(self, {}, at::MemoryFormat::Preserve);
  if (out.numel() > 0) NPU_RUN(aclnnFlip, as_1d(self), at::IntArrayRef(wrapped), as_1d(out));
  return out;
}

at::Tensor roll(const at::Tensor& self, at::IntArrayRef shifts, at::IntArrayRef dims) {
  check_npu("roll", "self", self);
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  TORCH_CHECK(dims.empty() ? shifts.size() == 1 : shifts.size() == dims.size(),
              "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  std::vector<int64_t> wrapped;
  for (const int64_t d : dims) wrapped.push_back(at::maybe_wrap_dim(d, self.dim()));
  // CPU's layout: the memory format self suggests (channels_last stays so);
  // without dims, the roll of the flattened tensor, contiguous.
  const at::Tensor out =
      at::empty_like(self, {}, dims.empty() ? at::MemoryFormat::Contiguous : self.suggest_memory_format());
  if (out.numel() > 0) NPU_RUN(aclnnRoll, as_1d(self), shifts, at::IntArrayRef(wrapped), as_1d(out));
  return out;
}

at::Tensor repeat(const at::Tensor& self, at::IntArrayRef repeats) {
  check_npu("repeat", "self", self);
  TORCH_CHECK(static_cast<int64_t>(repeats.size()) >= self.dim(), "Number of dimensions of repeat dims can not be "
              "smaller than number of dimensions of tensor");
  std::vector<int64_t> shape(repeats.begin(), repeats.end());
  const int64_t lead = static_cast<int64_t>(repeats.size()) - self.dim();
  for (size_t i = 0; i < repeats.size(); ++i) {
    TORCH_CHECK(repeats[i] >= 0, "Trying to create tensor with negative dimension ", repeats[i], ": ", repeats);
    if (static_cast<int64_t>(i) >= lead) shape[i] *= self.size(static_cast<int64_t>(i) - lead);
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

// ---- tril, triu ---------------------------------------------------------------------

enum class Triangle { Lower, Upper };

void triangle_launch(Triangle which, const at::Tensor& self, int64_t diagonal, const at::Tensor& out) {
  if (which == Triangle::Lower) {
    NPU_RUN(aclnnTril, self, diagonal, out);
  } else {
    NPU_RUN(aclnnTriu, self, diagonal, out);
  }
}

const char* triangle_name(Triangle which) { return which == Triangle::Lower ? "tril" : "triu"; }

void check_triangle(Triangle which, const at::Tensor& self) {
  check_npu(triangle_name(which), "self", self);
  TORCH_CHECK(self.dim() >= 2, triangle_name(which), ": input tensor must have at least 2 dimensions");
}

at::Tensor triangle(Triangle which, const at::Tensor& self, int64_t diagonal) {
  check_triangle(which, self);
  return new_result(self, self.sizes(), self.scalar_type(),
                    [&](const at::Tensor& out) { triangle_launch(which, self, diagonal, out); });
}

at::Tensor& triangle_out(Triangle which, const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  check_triangle(which, self);
  check_npu(triangle_name(which), "out", out);
  // PyTorch refuses (rather than casts into) an out of another dtype.
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ", self.dtype(),
              ", but got ", out.dtype(), " instead");
  if (out.is_same(self)) {  // the entry allows out == self
    if (self.numel() > 0) triangle_launch(which, self, diagonal, self);
    return out;
  }
  write_out(out, self.sizes(), self.scalar_type(),
            [&](const at::Tensor& o) { triangle_launch(which, self, diagonal, o); });
  return out;
}

at::Tensor tril(const at::Tensor& self, int64_t diagonal) { return triangle(Triangle::Lower, self, diagonal); }
at::Tensor triu(const at::Tensor& self, int64_t diagonal) { return triangle(Triangle::Upper, self, diagonal); }
at::Tensor& tril_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  return triangle_out(Triangle::Lower, self, diagonal, out);
}
at::Tensor& triu_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  return triangle_out(Triangle::Upper, self, diagonal, out);
}
at::Tensor& tril_(at::Tensor& self, int64_t diagonal) { return triangle_out(Triangle::Lower, self, diagonal, self); }
at::Tensor& triu_(at::Tensor& self, int64_t diagonal) { return triangle_out(Triangle::Upper, self, diagonal, self); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("cat", TORCH_FN(cat));
  m.impl("cat.out", TORCH_FN(cat_out));
  m.impl("stack", TORCH_FN(stack));
  m.impl("stack.out", TORCH_FN(stack_out));
  m.impl("flip", TORCH_FN(flip));
  m.impl("roll", TORCH_FN(roll));
  m.impl("repeat", TORCH_FN(repeat));
  m.impl("tril", TORCH_FN(tril));
  m.impl("tril.out", TORCH_FN(tril_out));
  m.impl("tril_", TORCH_FN(tril_));
  m.impl("triu", TORCH_FN(triu));
  m.impl("triu.out", TORCH_FN(triu_out));
  m.impl("triu_", TORCH_FN(triu_));
}

}  // namespace npu::ops
