// The sort family on npu: sort (always stable; descending), and topk. argsort
// is PyTorch's composite over sort.stable.
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "dispatch/fallback/capability.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

using Pair = std::tuple<at::Tensor, at::Tensor>;
using PairRef = std::tuple<at::Tensor&, at::Tensor&>;

// The aclnn entries name real dims: a 0-dim tensor takes part as its [1] view.
at::Tensor as_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

void check_sortable(const char* name, const at::Tensor& self) {
  check_npu(name, "self", self);
  TORCH_CHECK(!self.is_complex(), name, "(): not supported for complex tensors, got ", self.scalar_type());
}

// What the sort entries compute in (kernels/sort.cpp: every real dtype),
// decided before launching; the rest, and entries the ACL library lacks, run
// through the CPU fallback.
constexpr DTypeSet kSortable = dtypes::kBool | dtypes::kIntegral | dtypes::kUnsignedWide | dtypes::kFloating;
constexpr AclnnCapability kSortCapability = NPU_ACLNN_CAPABILITY(aclnnSort, kSortable);
constexpr AclnnCapability kTopkCapability = NPU_ACLNN_CAPABILITY(aclnnTopk, kSortable);

// values and indices of `shape`, written with out= semantics (dtypes as PyTorch demands).
void write_pair(const char* name, const at::Tensor& self, at::IntArrayRef shape, at::Tensor& values,
                at::Tensor& indices, const std::function<void(const at::Tensor&, const at::Tensor&)>& launch) {
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), name, "(): values must have the same dtype as self, got ",
              values.scalar_type(), " and ", self.scalar_type());
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, "(): indices must be int64, got ", indices.scalar_type());
  write_out(indices, shape, at::kLong, [](const at::Tensor&) {});
  at::native::resize_output(values, shape);
  // Outputs whose elements share memory cannot take results (CPU refuses).
  at::assert_no_internal_overlap(values);
  at::assert_no_internal_overlap(indices);
  write_out(values, shape, self.scalar_type(), [&](const at::Tensor& v) { launch(v, indices); });
}

// CPU's sort lays values and indices out like self (empty_like with
// preserve_format): self's strides when dense, else the layout self suggests.
// A result or out= that has to be (re)sized takes that layout.
void resize_like_self(const at::Tensor& self, const at::Tensor& out) {
  if (!at::native::resize_output(out, self.sizes())) return;
  const at::Tensor layout = self.is_non_overlapping_and_dense()
                                ? self
                                : at::empty(self.sizes(), self.options().device(at::kMeta).memory_format(
                                                              self.suggest_memory_format()));
  out.unsafeGetTensorImpl()->set_sizes_and_strides(self.sizes(), layout.strides());
}

PairRef sort_out(const at::Tensor& self, std::optional<bool> stable /*every npu sort is*/, int64_t dim,
                 bool descending, at::Tensor& values, at::Tensor& indices) {
  check_sortable("sort", self);
  if (!run_native(kSortCapability, "sort.values_stable", {self.scalar_type()})) {
    return fallback_call<PairRef>("sort.values_stable", self, stable, dim, descending, values, indices);
  }
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  check_npu("sort", "values", values);
  check_npu("sort", "indices", indices);
  resize_like_self(self, values);
  resize_like_self(self, indices);
  write_pair("sort", self, self.sizes(), values, indices, [&](const at::Tensor& v, const at::Tensor& i) {
    NPU_RUN(aclnnSort, as_1d(self), true, d, descending, as_1d(v), as_1d(i));
  });
  return {values, indices};
}

Pair sort(const at::Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  check_sortable("sort", self);
  if (!run_native(kSortCapability, "sort.stable", {self.scalar_type()})) {
    return fallback_call<Pair>("sort.stable", self, stable, dim, descending);
  }
  at::Tensor values = at::empty({0}, self.options());
  at::Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  sort_out(self, stable, dim, descending, values, indices);
  return {values, indices};
}

PairRef topk_out(const at::Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, at::Tensor& values,
                 at::Tensor& indices) {
  check_sortable("topk", self);
  if (!run_native(kTopkCapability, "topk.values", {self.scalar_type()})) {
    return fallback_call<PairRef>("topk.values", self, k, dim, largest, sorted, values, indices);
  }
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  TORCH_CHECK(k >= 0 && k <= size, "selected index k out of range");
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[d] = k;
  write_pair("topk", self, shape, values, indices, [&](const at::Tensor& v, const at::Tensor& i) {
    NPU_RUN(aclnnTopk, as_1d(self), k, d, largest, sorted, as_1d(v), as_1d(i));
  });
  return {values, indices};
}

Pair topk(const at::Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  check_sortable("topk", self);
  if (!run_native(kTopkCapability, "topk", {self.scalar_type()})) {
    return fallback_call<Pair>("topk", self, k, dim, largest, sorted);
  }
  at::Tensor values = at::empty({0}, self.options());
  at::Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  topk_out(self, k, dim, largest, sorted, values, indices);
  return {values, indices};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("sort.stable", TORCH_FN(sort));
  m.impl("sort.values_stable", TORCH_FN(sort_out));
  m.impl("topk", TORCH_FN(topk));
  m.impl("topk.values", TORCH_FN(topk_out));
}

}  // namespace npu::ops
