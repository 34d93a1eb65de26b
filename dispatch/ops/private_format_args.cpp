#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

const at::Tensor& PrivateFormatArgs::substitute(const at::Tensor& arg) {
  if (!arg.defined() || !has_private_format(arg)) return arg;
  copies_.emplace_back(arg, to_base_format(arg));
  return copies_.back().second;
}

PrivateFormatArgs::~PrivateFormatArgs() noexcept(false) {
  if (std::uncaught_exceptions() > 0) return;  // the op failed: nothing to lay back
  for (const auto& [original, base] : copies_) {
    NPU_RUN_RAW(aclnnNpuFormatCast, base, original);
  }
}

}  // namespace npu::ops
