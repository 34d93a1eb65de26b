// Small conversions the table's `map:` expressions use to turn an aten
// argument into the aclnn parameter CANN defines.
#pragma once

#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <c10/util/string_view.h>

#include "dispatch/ops/acl_args.h"

namespace npu::table {

// aclnnDivMod's mode: 0 true division, 1 trunc, 2 floor.
inline int rounding_mode_code(std::optional<c10::string_view> mode) {
  if (!mode) return 0;
  if (*mode == "trunc") return 1;
  if (*mode == "floor") return 2;
  TORCH_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

// ---- reductions (ops/table/reduce.yaml) ----------------------------------------

// The aclnn dtype= parameter: the dtype the meta function chose for `result`.
inline aclDataType acl_dtype_of(const at::Tensor& result) { return ops::to_acl_dtype(result.scalar_type()); }

// An aten dim list as the aclnn entries take it: absent = empty = every dim.
inline at::IntArrayRef dims_or_all(at::OptionalIntArrayRef dim) { return dim.value_or(at::IntArrayRef()); }

// The one-dim entries (max.dim, cumsum) index real dims: a 0-dim tensor goes
// as its [1] view, reduced without keepdim (its result is 0-dim too).
inline at::Tensor at_least_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }
inline bool keepdim_of(const at::Tensor& self, bool keepdim) { return keepdim && self.dim() > 0; }
inline int64_t wrapped_dim(const at::Tensor& self, int64_t dim) { return at::maybe_wrap_dim(dim, self.dim()); }

// argmax/argmin with dim=None look at the flattened self; the single index
// lands in the result (all-ones shape with keepdim) through a 0-dim view.
inline at::Tensor arg_input(const at::Tensor& self, std::optional<int64_t> dim) {
  return dim ? at_least_1d(self) : self.reshape({-1});
}
inline bool arg_keepdim(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return dim.has_value() && keepdim_of(self, keepdim);
}
inline at::Tensor arg_output(const at::Tensor& result, std::optional<int64_t> dim) {
  return dim ? result : result.view(at::IntArrayRef{});
}

// all/any over dim=[] reduce nothing (sum's reduce everything): self gains a
// leading size-1 dim, the one reduced.
inline bool reduces_nothing(at::OptionalIntArrayRef dim) { return dim.has_value() && dim->empty(); }
inline at::Tensor logical_input(const at::Tensor& self, at::OptionalIntArrayRef dim) {
  return reduces_nothing(dim) ? self.unsqueeze(0) : self;
}
inline at::IntArrayRef logical_dims(at::OptionalIntArrayRef dim) {
  static constexpr int64_t kLeading[] = {0};
  return reduces_nothing(dim) ? at::IntArrayRef(kLeading) : dims_or_all(dim);
}
inline bool logical_keepdim(at::OptionalIntArrayRef dim, bool keepdim) { return keepdim && !reduces_nothing(dim); }

// aclnnNorm takes real input. A complex self's 2-norm is that of its (re, im)
// pairs (a trailing dim of 2, reduced too); other orders reduce |self|.
inline bool norm_by_pairs(const at::Scalar& ord) { return ord.toDouble() == 2.0; }
inline at::Tensor norm_real_input(const at::Tensor& self, const at::Scalar& ord) {
  return norm_by_pairs(ord) ? at::view_as_real(self) : self.abs();
}
inline std::vector<int64_t> norm_real_dims(const at::Tensor& self, const at::Scalar& ord,
                                           at::OptionalIntArrayRef dim) {
  std::vector<int64_t> dims;
  const bool all = !dim.has_value() || dim->empty();
  if (!norm_by_pairs(ord)) {
    if (!all) dims.assign(dim->begin(), dim->end());
    return dims;
  }
  if (self.dim() == 0) return {0};  // a 0-dim z's dim 0 or -1 is z itself: only the pair dim remains
  if (all) {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  } else {
    for (const int64_t d : *dim) dims.push_back(at::maybe_wrap_dim(d, self.dim()));
  }
  dims.push_back(self.dim());
  return dims;
}
inline at::Tensor norm_real_output(const at::Tensor& result, const at::Tensor& self, const at::Scalar& ord,
                                   bool keepdim) {
  return norm_by_pairs(ord) && keepdim ? result.unsqueeze(-1) : result;
}

}  // namespace npu::table
