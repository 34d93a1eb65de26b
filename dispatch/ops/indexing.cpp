// Indexing along one dim on npu: index_select, gather, the scatter family
// (scatter with src or value and an optional reduce, scatter_add,
// scatter_reduce), take and masked_fill. Index values are checked by the
// kernels when they run: an out-of-range index fails the next synchronize,
// naming the op, and nothing is accessed out of bounds.
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

void check_index(const char* name, const at::Tensor& index) {
  check_npu(name, "index", index);
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt, name,
              "(): Expected dtype int32 or int64 for index, got ", index.scalar_type());
}

// gather and the scatter family read no index value when the index is empty,
// and PyTorch then takes an index of any dtype (an empty uint8 index is fine).
void check_gather_scatter_index(const char* name, const at::Tensor& index) {
  if (index.numel() == 0) {
    check_npu(name, "index", index);
    return;
  }
  check_index(name, index);
}

// out= never converts for these ops (unlike reductions): PyTorch refuses an
// out of another dtype rather than casting into it.
void check_out_dtype(const at::Tensor& self, const at::Tensor& out) {
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ", self.dtype(),
              ", but got ", out.dtype(), " instead");
}

// out must not share memory with what the op reads (PyTorch's rule for out=).
void check_no_overlap(const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs) {
  at::assert_no_internal_overlap(out);
  for (const at::Tensor* in : inputs) {
    if (in->defined() && in->is_privateuseone()) at::assert_no_overlap(out, *in);
  }
}

// ---- index_select, gather, take ------------------------------------------------

// The entries name real dims: a 0-dim tensor takes part as its [1] view.
at::Tensor as_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

std::vector<int64_t> index_select_shape(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  if (self.dim() == 0) return {};  // PyTorch: a 0-dim self selects into a 0-dim result
  std::vector<int64_t> shape = self.sizes().vec();
  shape[dim] = index.numel();
  return shape;
}

void index_select_launch(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& out) {
  NPU_RUN(aclnnIndexSelect, as_1d(self), dim, as_1d(index), out.dim() == 0 ? out.view({1}) : out);
}

at::Tensor& index_select_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, at::Tensor& out) {
  check_npu("index_select", "self", self);
  check_index("index_select", index);
  check_npu("index_select", "out", out);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "index_select(): self and result must have the same scalar type");
  check_no_overlap(out, {&self, &index});
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  write_out(out, index_select_shape(self, d, index), self.scalar_type(),
            [&](const at::Tensor& o) { index_select_launch(self, d, index, o); });
  return out;
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  check_npu("index_select", "self", self);
  check_index("index_select", index);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  return new_result(self, index_select_shape(self, d, index), self.scalar_type(),
                    [&](const at::Tensor& o) { index_select_launch(self, d, index, o); });
}

at::Tensor& gather_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool /*sparse_grad*/,
                       at::Tensor& out) {
  check_npu("gather", "self", self);
  check_gather_scatter_index("gather", index);
  check_npu("gather", "out", out);
  check_out_dtype(self, out);
  check_no_overlap(out, {&self, &index});
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  write_out(out, index.sizes(), self.scalar_type(), [&](const at::Tensor& o) { NPU_RUN(aclnnGather, self, d, index, o); });
  return out;
}

at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool /*sparse_grad*/) {
  check_npu("gather", "self", self);
  check_gather_scatter_index("gather", index);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  return new_result(self, index.sizes(), self.scalar_type(),
                    [&](const at::Tensor& o) { NPU_RUN(aclnnGather, self, d, index, o); });
}

void check_take(const at::Tensor& self, const at::Tensor& index) {
  check_npu("take", "self", self);
  check_npu("take", "index", index);
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
}

at::Tensor take(const at::Tensor& self, const at::Tensor& index) {
  check_take(self, index);
  return new_result(self, index.sizes(), self.scalar_type(), [&](const at::Tensor& o) { NPU_RUN(aclnnTake, self, index, o); });
}

at::Tensor& take_out(const at::Tensor& self, const at::Tensor& index, at::Tensor& out) {
  check_take(self, index);
  check_npu("take", "out", out);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "take(): self and out expected to have the same dtype, but got "
              "self.dtype = ", self.scalar_type(), " and out.dtype = ", out.scalar_type());
  check_no_overlap(out, {&self, &index});
  write_out(out, index.sizes(), self.scalar_type(), [&](const at::Tensor& o) { NPU_RUN(aclnnTake, self, index, o); });
  return out;
}

// ---- the scatter family ----------------------------------------------------------

// One scatter, described once and run in its three forms (functional,
// in-place, out=): `launch(self, out)` writes self scattered into out, which
// may be self.
struct Scatter {
  const char* name;
  std::function<void(const at::Tensor& self, const at::Tensor& out)> launch;
  bool empty_index = false;  // nothing to scatter: out is self (the index may have any dtype)
};

void check_scatter(const char* name, const at::Tensor& self, const at::Tensor& index, const at::Tensor* src) {
  check_npu(name, "self", self);
  check_gather_scatter_index(name, index);
  if (src != nullptr) {
    check_npu(name, "src", *src);
    TORCH_CHECK(src->scalar_type() == self.scalar_type(), name, "(): Expected self.dtype to be equal to src.dtype");
  }
}

// Writes self scattered into out; an empty index scatters nothing.
void scatter_into(const Scatter& s, const at::Tensor& self, const at::Tensor& out) {
  if (!s.empty_index) {
    s.launch(self, out);
  } else if (!out.is_same(self)) {
    out.copy_(self);
  }
}

at::Tensor run_functional(const Scatter& s, const at::Tensor& self) {
  return new_result(self, self.sizes(), self.scalar_type(), [&](const at::Tensor& out) { scatter_into(s, self, out); });
}
at::Tensor& run_in_place(const Scatter& s, at::Tensor& self) {
  at::assert_no_internal_overlap(self);  // PyTorch's rule for the scatter family's written self
  if (self.numel() > 0) scatter_into(s, self, self);
  return self;
}
at::Tensor& run_out(const Scatter& s, const at::Tensor& self, at::Tensor& out) {
  check_npu(s.name, "out", out);
  check_out_dtype(self, out);
  if (out.is_same(self)) return run_in_place(s, out);
  check_no_overlap(out, {&self});
  write_out(out, self.sizes(), self.scalar_type(), [&](const at::Tensor& o) { scatter_into(s, self, o); });
  return out;
}

// aclnnScatter's reduce codes: 0 replace, 1 add, 2 multiply.
int64_t scatter_code(std::optional<c10::string_view> reduce) {
  if (!reduce) return 0;
  if (*reduce == "add") return 1;
  if (*reduce == "multiply") return 2;
  TORCH_CHECK(false, "reduce argument must be either add or multiply.");
}

// aclnnScatterReduce's codes: 1 sum, 2 prod, 3 amax, 4 amin, 5 mean.
int64_t scatter_reduce_code(c10::string_view reduce) {
  if (reduce == "sum") return 1;
  if (reduce == "prod") return 2;
  if (reduce == "amax") return 3;
  if (reduce == "amin") return 4;
  if (reduce == "mean") return 5;
  TORCH_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

Scatter scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                    std::optional<c10::string_view> reduce) {
  check_scatter("scatter", self, index, &src);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  const int64_t code = scatter_code(reduce);
  return {"scatter", [=](const at::Tensor& s, const at::Tensor& out) {
            NPU_RUN(aclnnScatter, s, d, index, src, code, out);
          },
          index.numel() == 0};
}

Scatter scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value,
                      std::optional<c10::string_view> reduce) {
  check_scatter("scatter", self, index, nullptr);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  const int64_t code = scatter_code(reduce);
  return {"scatter", [=](const at::Tensor& s, const at::Tensor& out) {
            NPU_RUN(aclnnScatterValue, s, d, index, value, code, out);
          },
          index.numel() == 0};
}

Scatter scatter_add_op(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  check_scatter("scatter_add", self, index, &src);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  return {"scatter_add", [=](const at::Tensor& s, const at::Tensor& out) {
            NPU_RUN(aclnnScatterAdd, s, d, index, src, out);
          },
          index.numel() == 0};
}

Scatter scatter_reduce_op(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                          c10::string_view reduce, bool include_self) {
  check_scatter("scatter_reduce", self, index, &src);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  const int64_t code = scatter_reduce_code(reduce);
  TORCH_CHECK_NOT_IMPLEMENTED(!(self.is_complex() && (reduce == "amax" || reduce == "amin")), "scatter_reduce(): ",
                              reduce, " is not implemented for ", self.scalar_type());
  return {"scatter_reduce", [=](const at::Tensor& s, const at::Tensor& out) {
            NPU_RUN(aclnnScatterReduce, s, d, index, src, code, include_self, out);
          },
          index.numel() == 0};
}

using Str = c10::string_view;

at::Tensor scatter_src_fn(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return run_functional(scatter_src(self, dim, index, src, std::nullopt), self);
}
at::Tensor& scatter_src_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return run_in_place(scatter_src(self, dim, index, src, std::nullopt), self);
}
at::Tensor& scatter_src_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                            at::Tensor& out) {
  return run_out(scatter_src(self, dim, index, src, std::nullopt), self, out);
}
at::Tensor scatter_value_fn(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value) {
  return run_functional(scatter_value(self, dim, index, value, std::nullopt), self);
}
at::Tensor& scatter_value_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value) {
  return run_in_place(scatter_value(self, dim, index, value, std::nullopt), self);
}
at::Tensor& scatter_value_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value,
                              at::Tensor& out) {
  return run_out(scatter_value(self, dim, index, value, std::nullopt), self, out);
}
at::Tensor scatter_reduce_fn(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                             Str reduce) {
  return run_functional(scatter_src(self, dim, index, src, reduce), self);
}
at::Tensor& scatter_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src, Str reduce) {
  return run_in_place(scatter_src(self, dim, index, src, reduce), self);
}
at::Tensor& scatter_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                               Str reduce, at::Tensor& out) {
  return run_out(scatter_src(self, dim, index, src, reduce), self, out);
}
at::Tensor scatter_value_reduce_fn(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                   const at::Scalar& value, Str reduce) {
  return run_functional(scatter_value(self, dim, index, value, reduce), self);
}
at::Tensor& scatter_value_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value,
                                  Str reduce) {
  return run_in_place(scatter_value(self, dim, index, value, reduce), self);
}
at::Tensor& scatter_value_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                     const at::Scalar& value, Str reduce, at::Tensor& out) {
  return run_out(scatter_value(self, dim, index, value, reduce), self, out);
}
at::Tensor scatter_add_fn(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return run_functional(scatter_add_op(self, dim, index, src), self);
}
at::Tensor& scatter_add_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return run_in_place(scatter_add_op(self, dim, index, src), self);
}
at::Tensor& scatter_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                            at::Tensor& out) {
  return run_out(scatter_add_op(self, dim, index, src), self, out);
}
at::Tensor scatter_reduce_two(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                              Str reduce, bool include_self) {
  return run_functional(scatter_reduce_op(self, dim, index, src, reduce, include_self), self);
}
at::Tensor& scatter_reduce_two_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                                Str reduce, bool include_self) {
  return run_in_place(scatter_reduce_op(self, dim, index, src, reduce, include_self), self);
}
at::Tensor& scatter_reduce_two_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                                   Str reduce, bool include_self, at::Tensor& out) {
  return run_out(scatter_reduce_op(self, dim, index, src, reduce, include_self), self, out);
}

// ---- masked_fill ------------------------------------------------------------------

at::Tensor& masked_fill_scalar_(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  check_npu("masked_fill_", "self", self);
  check_npu("masked_fill_", "mask", mask);
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  const auto shape = at::infer_size(self.sizes(), mask.sizes());
  TORCH_CHECK(at::IntArrayRef(shape) == self.sizes(), "masked_fill_: the mask of shape ", mask.sizes(),
              " must broadcast to self's shape ", self.sizes());
  if (self.numel() > 0) NPU_RUN(aclnnInplaceMaskedFillScalar, self, mask, value);
  return self;
}

at::Tensor& masked_fill_tensor_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_scalar_(self, mask, value.item());  // an npu value synchronizes here
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("index_select", TORCH_FN(index_select));
  m.impl("index_select.out", TORCH_FN(index_select_out));
  m.impl("gather", TORCH_FN(gather));
  m.impl("gather.out", TORCH_FN(gather_out));
  m.impl("take", TORCH_FN(take));
  m.impl("take.out", TORCH_FN(take_out));
  m.impl("scatter.src", TORCH_FN(scatter_src_fn));
  m.impl("scatter_.src", TORCH_FN(scatter_src_));
  m.impl("scatter.src_out", TORCH_FN(scatter_src_out));
  m.impl("scatter.value", TORCH_FN(scatter_value_fn));
  m.impl("scatter_.value", TORCH_FN(scatter_value_));
  m.impl("scatter.value_out", TORCH_FN(scatter_value_out));
  m.impl("scatter.reduce", TORCH_FN(scatter_reduce_fn));
  m.impl("scatter_.reduce", TORCH_FN(scatter_reduce_));
  m.impl("scatter.reduce_out", TORCH_FN(scatter_reduce_out));
  m.impl("scatter.value_reduce", TORCH_FN(scatter_value_reduce_fn));
  m.impl("scatter_.value_reduce", TORCH_FN(scatter_value_reduce_));
  m.impl("scatter.value_reduce_out", TORCH_FN(scatter_value_reduce_out));
  m.impl("scatter_add", TORCH_FN(scatter_add_fn));
  m.impl("scatter_add_", TORCH_FN(scatter_add_));
  m.impl("scatter_add.out", TORCH_FN(scatter_add_out));
  m.impl("scatter_reduce.two", TORCH_FN(scatter_reduce_two));
  m.impl("scatter_reduce_.two", TORCH_FN(scatter_reduce_two_));
  m.impl("scatter_reduce.two_out", TORCH_FN(scatter_reduce_two_out));
  m.impl("masked_fill_.Scalar", TORCH_FN(masked_fill_scalar_));
  m.impl("masked_fill_.Tensor", TORCH_FN(masked_fill_tensor_));
}

}  // namespace npu::ops
