#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

const PrivateFormatArgs::Scratch& PrivateFormatArgs::scratch_for(const at::Tensor& arg) {
  const c10::StorageImpl* storage = arg.storage().unsafeGetStorageImpl();
  for (const Scratch& s : scratches_) {
    if (s.storage == storage) return s;
  }
  const at::Tensor whole = whole_storage(arg);
  return scratches_.emplace_back(Scratch{storage, whole, to_base_format(whole)});
}

const at::Tensor& PrivateFormatArgs::substitute(const at::Tensor& arg) {
  if (!arg.defined() || !has_private_format(arg)) return arg;
  const Scratch& scratch = scratch_for(arg);
  if (covers_storage(arg, storage_desc(arg))) return scratch.base;
  // A view: the same sizes, strides and offset over the base-format copy.
  return views_.emplace_back(scratch.base.as_strided(arg.sizes(), arg.strides(), arg.storage_offset()));
}

at::ITensorListRef PrivateFormatArgs::substitute(const at::ITensorListRef& list) {
  std::vector<at::Tensor> tensors;
  for (const at::Tensor& t : list) {
    tensors.push_back(t.defined() && has_private_format(t) ? to_base_format(t) : t);
  }
  lists_.push_back(std::move(tensors));
  return at::ITensorListRef(lists_.back());
}

PrivateFormatArgs::~PrivateFormatArgs() noexcept(false) {
  if (std::uncaught_exceptions() > 0) return;  // the op failed: nothing to lay back
  for (const Scratch& s : scratches_) {
    NPU_RUN_RAW(aclnnNpuFormatCast, s.base, s.whole);
  }
}

}  // namespace npu::ops
