#include <string_view>
#include <unordered_set>

#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/aclnn_op_list.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

bool entry_takes_private_formats(const char* op) {
  // The op table's entries stage private formats through
  // npu::emu::FormatScope (generated).
  static const std::unordered_set<std::string_view> entries = {NPU_ACLNN_TABLE_OP_NAMES};
  return entries.count(op) > 0;
}

bool writes_param(const char* op, std::size_t index, bool written_type) {
  return written_type || (index == 0 && std::string_view(op).rfind("aclnnInplace", 0) == 0);
}

bool any_private_format(const at::Tensor& t) { return t.defined() && has_private_format(t); }

bool any_private_format(const std::optional<at::Tensor>& t) { return t && any_private_format(*t); }

bool any_private_format(const at::ITensorListRef& list) {
  for (const at::Tensor& t : list) {
    if (any_private_format(t)) return true;
  }
  return false;
}

bool PrivateFormatArgs::passes_as_is(const at::Tensor& arg) const {
  return takes_private_ && is_whole_storage(arg, storage_desc(arg));
}

void PrivateFormatArgs::note_written(const at::Tensor& arg) {
  if (!any_private_format(arg) || passes_as_is(arg)) return;
  for (const Written& w : written_) {
    if (w.target.is_same(arg)) return;
  }
  // With the view's values: an in-place op reads them through the same temporary.
  written_.push_back(Written{arg, to_base_format(arg)});
}

namespace {

// The same view of the same storage (two tensor objects can be).
bool same_view(const at::Tensor& a, const at::Tensor& b) {
  return a.is_same(b) || (a.storage().is_alias_of(b.storage()) && a.storage_offset() == b.storage_offset() &&
                          a.sizes().equals(b.sizes()) && a.strides().equals(b.strides()) &&
                          a.scalar_type() == b.scalar_type());
}

}  // namespace

const at::Tensor& PrivateFormatArgs::substitute(const at::Tensor& arg) {
  if (!any_private_format(arg) || passes_as_is(arg)) return arg;
  for (const Written& w : written_) {
    if (same_view(w.target, arg)) return w.temp;
  }
  return inputs_.emplace_back(to_base_format(arg));
}

const std::optional<at::Tensor>& PrivateFormatArgs::substitute(const std::optional<at::Tensor>& arg) {
  if (!any_private_format(arg)) return arg;
  return optionals_.emplace_back(substitute(*arg));
}

at::ITensorListRef PrivateFormatArgs::substitute(const at::ITensorListRef& list) {
  std::vector<at::Tensor> tensors;
  // Members go as they are to an entry that stages private formats itself
  // (npu::emu::FormatScope substitutes list members too).
  for (const at::Tensor& t : list) tensors.push_back(any_private_format(t) && !passes_as_is(t) ? to_base_format(t) : t);
  lists_.push_back(std::move(tensors));
  return at::ITensorListRef(lists_.back());
}

void PrivateFormatArgs::write_results() {
  for (const Written& w : written_) copy_with_formats(w.target, w.temp);
}

}  // namespace npu::ops
