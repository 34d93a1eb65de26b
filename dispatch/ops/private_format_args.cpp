#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

const at::Tensor& PrivateFormatArgs::substitute(const at::Tensor& arg) {
  if (!arg.defined() || !has_private_format(arg)) return arg;
  copies_.emplace_back(arg, to_base_format(arg));
  return copies_.back().second;
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
  for (const auto& [original, base] : copies_) {
    NPU_RUN_RAW(aclnnNpuFormatCast, base, original);
  }
}

}  // namespace npu::ops
