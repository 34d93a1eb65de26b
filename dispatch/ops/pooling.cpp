// The pooling schemas PyTorch gives no structured meta function
// (ops/table/pool.yaml names each with `impl:`): adaptive average pooling
// (2-d, 3-d) forward and backward. The checks and output layouts are CPU's
// (output in self's suggested memory format); the structured max/avg pools
// are generated from the table.
#include <ATen/native/Resize.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

// What CPU checks before adaptive average pooling over `rank` dims, and the
// output shape.
std::vector<int64_t> adaptive_output_shape(const char* name, const at::Tensor& self, at::IntArrayRef output_size,
                                           int64_t rank) {
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == rank, name, ": output_size must be ", rank);
  for (const int64_t s : output_size) {
    TORCH_CHECK(s >= 0, name, ": elements of output_size must be greater than or equal to 0 but received ",
                output_size);
  }
  const int64_t ndim = self.dim();
  TORCH_CHECK(ndim == rank + 1 || ndim == rank + 2, name, "(): Expected ", rank + 1, "D or ", rank + 2,
              "D tensor, but got ", self.sizes());
  for (int64_t i = ndim - rank; i < ndim; ++i) {
    TORCH_CHECK(self.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                self.sizes(), " with dimension ", i, " being empty");
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - rank);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  return shape;
}

void check_grad(const char* name, const at::Tensor& grad_output, const at::Tensor& self, int64_t rank) {
  const int64_t ndim = grad_output.dim();
  TORCH_CHECK(ndim == rank + 1 || ndim == rank + 2, name, "(): Expected ", rank + 1, "D or ", rank + 2,
              "D tensor, but got ", grad_output.sizes());
  TORCH_CHECK(self.dim() == ndim, name, "(): grad_output ", grad_output.sizes(), " and self ", self.sizes(),
              " must have one rank");
  for (int64_t i = ndim - rank - 1; i < ndim; ++i) {
    TORCH_CHECK(grad_output.size(i) > 0, name,
                "(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has "
                "sizes ",
                grad_output.sizes(), " with dimension ", i, " being empty");
  }
  TORCH_CHECK(self.dtype() == grad_output.dtype(), "expected dtype ", self.dtype(), " for `grad_output` but got dtype ",
              grad_output.dtype());
}

at::Tensor new_like_layout(const at::Tensor& self, at::IntArrayRef shape) {
  return at::empty(shape, self.options().memory_format(self.suggest_memory_format()));
}

}  // namespace

at::Tensor adaptive_avg_pool2d(const at::Tensor& self, c10::SymIntArrayRef output_size) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(output_size);
  const auto shape = adaptive_output_shape("adaptive_avg_pool2d", self, size, 2);
  if (!npu::run_native(caps::aclnnAdaptiveAvgPool2d, "_adaptive_avg_pool2d",
                       npu::table::operand_dtypes(self.scalar_type(), self))) {
    return npu::fallback_call<at::Tensor>("_adaptive_avg_pool2d", self, output_size);
  }
  at::Tensor out = new_like_layout(self, shape);
  if (out.numel() > 0) NPU_RUN(aclnnAdaptiveAvgPool2d, self, size, out);
  return out;
}

at::Tensor& adaptive_avg_pool2d_out(const at::Tensor& self, c10::SymIntArrayRef output_size, at::Tensor& out) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(output_size);
  const auto shape = adaptive_output_shape("adaptive_avg_pool2d", self, size, 2);
  TORCH_CHECK(self.dtype() == out.dtype(), "expected dtype ", self.dtype(), " for `output` but got dtype ",
              out.dtype());
  if (!npu::run_native(caps::aclnnAdaptiveAvgPool2d, "adaptive_avg_pool2d.out",
                       npu::table::operand_dtypes(self.scalar_type(), self))) {
    return npu::fallback_call<at::Tensor&>("adaptive_avg_pool2d.out", self, output_size, out);
  }
  out.resize_(shape, self.suggest_memory_format());
  if (out.numel() > 0) NPU_RUN(aclnnAdaptiveAvgPool2d, self, size, out);
  return out;
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  check_grad("adaptive_avg_pool2d_backward", grad_output, self, 2);
  if (!npu::run_native(caps::aclnnAdaptiveAvgPool2dBackward, "_adaptive_avg_pool2d_backward",
                       npu::table::operand_dtypes(self.scalar_type(), grad_output, self))) {
    return npu::fallback_call<at::Tensor>("_adaptive_avg_pool2d_backward", grad_output, self);
  }
  at::Tensor grad_input = new_like_layout(self, self.sizes());
  if (grad_input.numel() > 0) NPU_RUN(aclnnAdaptiveAvgPool2dBackward, grad_output, self, grad_input);
  return grad_input;
}

}  // namespace npu::ops
