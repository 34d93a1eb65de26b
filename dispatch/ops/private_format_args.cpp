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
  const bool same_dtype = arg.scalar_type() == scratch.base.scalar_type();
  if (same_dtype && covers_storage(arg, storage_desc(arg))) return scratch.base;
  // A view: the same sizes, strides and offset over the base-format copy
  // (read as the argument's dtype when it is a dtype view of the storage).
  // whole_storage(arg) refuses a dtype whose element size differs from the storage's.
  const at::Tensor base = same_dtype ? scratch.base : scratch.base.view(whole_storage(arg).scalar_type());
  return views_.emplace_back(base.as_strided(arg.sizes(), arg.strides(), arg.storage_offset()));
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
