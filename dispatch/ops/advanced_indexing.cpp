// Data-dependent indexing on npu, served by hand (ops/table/index.yaml names
// them under `impl:`): nonzero and masked_select (result sizes known only
// after the kernel ran: the runtime narrows the out aclTensor, read back
// after a synchronize), and x[indices] = v (_index_put_impl_, which has no
// meta function), whose boolean masks become nonzero() index columns first.
// x[indices] (index.Tensor) is structured: its registration is generated.
#include <sstream>

#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

// ---- nonzero, masked_select ---------------------------------------------------------

// Runs a compacting entry into `out` (allocated at the largest size) and
// shrinks out to what the kernel wrote; a contiguous out keeps its leading rows.
template <class Launch>
void run_compacting(at::Tensor& out, Launch launch) {
  std::vector<int64_t> shape;
  launch([&](const auto&... owners) {
    // The out owner is the last argument: its aclTensor carries the real shape.
    const AclTensor* last = nullptr;
    ((last = &owners), ...);
    shape = synchronized_view_shape(*last);
  });
  out.resize_(shape);
}

}  // namespace

at::Tensor nonzero(const at::Tensor& self) {
  check_npu("nonzero", "self", self);
  if (!run_native(table::caps::aclnnNonzero, "nonzero", {self.scalar_type()})) {
    return fallback_call<at::Tensor>("nonzero", self);
  }
  at::Tensor out = empty_npu({self.numel(), self.dim()}, at::kLong, self.device());
  if (self.numel() == 0) return out;
  run_compacting(out, [&](auto after) { NPU_RUN_THEN(aclnnNonzero, after, self, out); });
  return out;
}

at::Tensor& nonzero_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(out.scalar_type() == at::kLong, "nonzero: Expected out tensor to have scalar type Long but got scalar type",
              out.scalar_type());
  if (!run_native(table::caps::aclnnNonzero, "nonzero.out", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("nonzero.out", self, out);
  }
  const at::Tensor r = npu::ops::nonzero(self);
  at::native::resize_output(out, r.sizes());
  at::assert_no_internal_overlap(out);  // CPU refuses an out whose elements share memory
  write_out(out, r.sizes(), at::kLong, [&](const at::Tensor& o) { o.copy_(r); });
  return out;
}

at::Tensor masked_select(const at::Tensor& self, const at::Tensor& mask) {
  check_npu("masked_select", "self", self);
  check_npu("masked_select", "mask", mask);
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_select: expected BoolTensor for mask");
  if (!run_native(table::caps::aclnnMaskedSelect, "masked_select", {self.scalar_type()})) {
    return fallback_call<at::Tensor>("masked_select", self, mask);
  }
  int64_t total = 1;
  for (const int64_t n : at::infer_size(self.sizes(), mask.sizes())) total *= n;
  at::Tensor out = empty_npu({total}, self.scalar_type(), self.device());
  if (total == 0) return out;
  run_compacting(out, [&](auto after) { NPU_RUN_THEN(aclnnMaskedSelect, after, self, mask, out); });
  return out;
}

at::Tensor& masked_select_out(const at::Tensor& self, const at::Tensor& mask, at::Tensor& out) {
  check_npu("masked_select", "out", out);
  // PyTorch refuses (rather than casts into) an out of another dtype.
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "masked_select(): self and result must have the same scalar type");
  if (!run_native(table::caps::aclnnMaskedSelect, "masked_select.out", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("masked_select.out", self, mask, out);
  }
  const at::Tensor r = npu::ops::masked_select(self, mask);
  at::native::resize_output(out, r.sizes());
  at::assert_no_internal_overlap(out);
  write_out(out, r.sizes(), self.scalar_type(), [&](const at::Tensor& o) { o.copy_(r); });
  return out;
}

// ---- advanced indexing ------------------------------------------------------------------

namespace {

using IndexList = c10::List<std::optional<at::Tensor>>;

// PyTorch's index list as the aclnn entries take it: one integer index
// tensor per indexed dim (undefined = ':'), on self's device; a bool or
// uint8 mask over k dims becomes the k columns of its nonzero().
std::vector<at::Tensor> expand_indices(const at::Tensor& self, const IndexList& indices) {
  std::vector<at::Tensor> result;
  for (const std::optional<at::Tensor>& entry : indices) {
    const int64_t at_dim = static_cast<int64_t>(result.size());
    if (!entry.has_value() || !entry->defined()) {
      result.emplace_back();
      continue;
    }
    at::Tensor index = entry->device() == self.device() ? *entry : entry->to(self.device());
    const at::ScalarType type = index.scalar_type();
    TORCH_CHECK_INDEX(type == at::kLong || type == at::kInt || type == at::kByte || type == at::kBool,
                      "tensors used as indices must be long, int, byte or bool tensors");
    if (type != at::kByte && type != at::kBool) {
      result.push_back(index);
      continue;
    }
    // CPU warns for every uint8 mask (at::native::expandTensors); so x[mask] = v
    // warns on npu as on CPU (x[mask] itself warns in its shared meta function).
    if (type == at::kByte) {
      TORCH_WARN("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
    }
    for (int64_t j = 0; j < index.dim(); ++j) {
      TORCH_CHECK_INDEX(at_dim + j < self.dim(), "too many indices for tensor of dimension ", self.dim());
      TORCH_CHECK_INDEX(index.size(j) == self.size(at_dim + j), "The shape of the mask ", index.sizes(), " at index ",
                        j, " does not match the shape of the indexed tensor ", self.sizes(), " at index ",
                        at_dim + j);
    }
    const at::Tensor columns = npu::ops::nonzero(type == at::kByte ? index.to(at::kBool) : index);
    for (int64_t j = 0; j < index.dim(); ++j) result.push_back(columns.select(1, j));
  }
  TORCH_CHECK_INDEX(static_cast<int64_t>(result.size()) <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim());
  return result;
}

bool any_defined(const std::vector<at::Tensor>& indices) {
  for (const at::Tensor& t : indices) {
    if (t.defined()) return true;
  }
  return false;
}

// The shape of self[indices]: the indexed dims become the broadcast index
// shape, in place when they are adjacent, else in front (NumPy's rule).
std::vector<int64_t> broadcast_indices(const std::vector<at::Tensor>& indices) {
  std::vector<int64_t> shape;
  std::vector<at::IntArrayRef> all;
  for (const at::Tensor& t : indices) {
    if (!t.defined()) continue;
    all.push_back(t.sizes());
    const size_t n = std::max(shape.size(), t.sizes().size());
    std::vector<int64_t> next(n, 1);
    bool ok = true;
    for (size_t k = 0; k < n; ++k) {
      const int64_t a = k < n - shape.size() ? 1 : shape[k - (n - shape.size())];
      const int64_t b = k < n - t.dim() ? 1 : t.size(static_cast<int64_t>(k - (n - t.dim())));
      ok = ok && (a == b || a == 1 || b == 1);
      next[k] = a == 1 ? b : a;
    }
    if (!ok) {
      std::ostringstream shapes;
      for (size_t i = 0; i < all.size(); ++i) shapes << (i ? ", " : "") << all[i];
      for (const at::Tensor& rest : indices) {
        if (rest.defined() && &rest > &t) shapes << ", " << rest.sizes();
      }
      TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                        shapes.str());
    }
    shape = std::move(next);
  }
  return shape;
}

std::vector<int64_t> index_shape(const at::Tensor& self, const std::vector<at::Tensor>& indices) {
  const std::vector<int64_t> broadcast = broadcast_indices(indices);
  int64_t first = -1, last = -1;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) continue;
    if (first < 0) first = static_cast<int64_t>(d);
    last = static_cast<int64_t>(d);
  }
  bool adjacent = true;
  for (int64_t d = first; d <= last; ++d) adjacent = adjacent && indices[d].defined();
  std::vector<int64_t> shape;
  if (adjacent) {
    shape.assign(self.sizes().begin(), self.sizes().begin() + first);
    shape.insert(shape.end(), broadcast.begin(), broadcast.end());
    shape.insert(shape.end(), self.sizes().begin() + last + 1, self.sizes().end());
  } else {
    shape = broadcast;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (d >= static_cast<int64_t>(indices.size()) || !indices[d].defined()) shape.push_back(self.size(d));
    }
  }
  return shape;
}

}  // namespace

at::Tensor& index_put_impl_(at::Tensor& self, const IndexList& indices, const at::Tensor& values, bool accumulate,
                            bool unsafe) {
  check_npu("index_put_", "self", self);
  // As CPU: values on another device only as a 0-dim CPU scalar.
  TORCH_CHECK(values.device() == self.device() || (values.dim() == 0 && values.is_cpu()),
              "Expected all tensors to be on the same device, but found at least two devices, ", self.device(),
              " and ", values.device(), "! (index_put_'s values)");
  const auto check_dtype = [&] {
    TORCH_CHECK(values.scalar_type() == self.scalar_type(), "Index put requires the source and destination dtypes "
                "match, got ", self.scalar_type(), " for the destination and ", values.scalar_type(),
                " for the source.");
  };
  if (!run_native(table::caps::aclnnIndexPutImpl, "_index_put_impl_", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("_index_put_impl_", self, indices, values, accumulate, unsafe);
  }
  const at::Tensor v = values.device() == self.device() ? values : values.to(self.device());
  // CPU's checks, at the call: an expanded self is deprecated (a warning),
  // self sharing memory with the values or an index is refused.
  if (at::has_internal_overlap(self) == at::MemOverlap::Yes) {
    TORCH_WARN("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing "
               "this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor");
  }
  at::assert_no_overlap(self, v);
  for (const std::optional<at::Tensor> index : indices) {
    if (index.has_value() && index->defined()) at::assert_no_overlap(self, index.value());
  }
  const std::vector<at::Tensor> expanded = expand_indices(self, indices);
  if (!any_defined(expanded)) {
    check_dtype();
    if (accumulate) {
      self.add_(v);
    } else {
      self.copy_(v);
    }
    return self;
  }
  const auto shape = index_shape(self, expanded);
  TORCH_CHECK(at::is_expandable_to(v.sizes(), shape), "shape mismatch: value tensor of shape ", v.sizes(),
              " cannot be broadcast to indexing result of shape ", at::IntArrayRef(shape));
  check_dtype();  // after the shape, as CPU checks them
  if (self.numel() == 0 || v.numel() == 0) return self;
  NPU_RUN(aclnnIndexPutImpl, self, at::ITensorListRef(expanded), v, accumulate, unsafe);
  return self;
}

}  // namespace npu::ops
