// aten::_logcumsumexp (and its out= form), served by aclnnLogCumsumExp, and
// the cummax/cummin helpers, served by aclnnCummax/aclnnCummin
// (ops/table/reduce.yaml). PyTorch has no meta function for it: CPU's kernel
// checks out's dtype, resizes it to self's shape and handles the 0-dim and
// empty cases itself; the same rules are followed here, then the launch (or
// the CPU fallback, for complex self).
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

at::Tensor& logcumsumexp_out_impl(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  if (!npu::run_native(npu::table::caps::aclnnLogCumsumExp, "_logcumsumexp.out", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor&>("_logcumsumexp.out", self, dim, out);
  }
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "logcumsumexp: expected out of dtype ", self.scalar_type(),
              ", got ", out.scalar_type());
  TORCH_CHECK(out.device() == self.device(), "logcumsumexp: expected out on ", self.device(), ", got ", out.device());
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  at::native::resize_output(out, self.sizes());
  if (self.numel() == 0) return out;
  if (self.dim() == 0) return out.copy_(self);  // log(exp(x)) is x
  NPU_RUN(aclnnLogCumsumExp, self, d, out);
  return out;
}

at::Tensor logcumsumexp_impl(const at::Tensor& self, int64_t dim) {
  if (!npu::run_native(npu::table::caps::aclnnLogCumsumExp, "_logcumsumexp", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("_logcumsumexp", self, dim);
  }
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  return logcumsumexp_out_impl(self, dim, out);
}

// cummax/cummin call these with values and indices already sized like self
// (of self's dtype and int64) and a wrapped dim, self neither 0-dim nor empty.
void cummax_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  if (!npu::run_native(npu::table::caps::aclnnCummax, "_cummax_helper", {self.scalar_type()})) {
    return npu::fallback_call<void>("_cummax_helper", self, values, indices, dim);
  }
  NPU_RUN(aclnnCummax, self, dim, values, indices);
}

void cummin_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  if (!npu::run_native(npu::table::caps::aclnnCummin, "_cummin_helper", {self.scalar_type()})) {
    return npu::fallback_call<void>("_cummin_helper", self, values, indices, dim);
  }
  NPU_RUN(aclnnCummin, self, dim, values, indices);
}

}  // namespace npu::ops
