// nll_loss2d forward and backward (ops/table/loss.yaml, `impl:`): PyTorch
// has no meta function for them; the checks and result shapes are CPU's.
#include <optional>
#include <tuple>

#include <ATen/ATen.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace caps = npu::table::caps;
using OptTensor = std::optional<at::Tensor>;

namespace {

void check_nll_loss2d(const at::Tensor& self, const at::Tensor& target, const OptTensor& weight,
                      int64_t reduction) {
  TORCH_CHECK(target.dim() == 3,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
  TORCH_CHECK(self.dim() == 4,
              "only batches of spatial inputs supported (4D tensors), but got input of dimension: ", self.dim());
  TORCH_CHECK(!weight || !weight->defined() || weight->numel() == self.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2),
              "input and target batch or spatial sizes don't match: target ", target.sizes(), ", input ",
              self.sizes());
  TORCH_CHECK(target.scalar_type() == at::kLong || target.scalar_type() == at::kByte,
              "nll_loss2d: expected target of dtype int64 or uint8, got ", target.scalar_type());
  TORCH_CHECK(reduction >= 0 && reduction <= 2, "nll_loss2d: reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
              reduction);
  // CPU's kernel reads weight as self's dtype, refusing another.
  TORCH_CHECK(!weight || !weight->defined() || weight->scalar_type() == self.scalar_type(), "expected scalar type ",
              self.scalar_type(), " but found ", weight->scalar_type());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> nll_loss2d_forward(const at::Tensor& self, const at::Tensor& target,
                                                      const OptTensor& weight, int64_t reduction,
                                                      c10::SymInt ignore_index) {
  if (!npu::run_native(caps::aclnnNLLLoss2d, "nll_loss2d_forward", {self.scalar_type()})) {
    return npu::fallback_call<std::tuple<at::Tensor, at::Tensor>>("nll_loss2d_forward", self, target, weight,
                                                                  reduction, ignore_index);
  }
  check_nll_loss2d(self, target, weight, reduction);
  at::Tensor output = reduction == 0 ? at::empty(target.sizes(), self.options()) : at::empty({}, self.options());
  at::Tensor total_weight = at::empty({}, self.options());
  NPU_RUN(aclnnNLLLoss2d, self, target, weight, reduction, ignore_index.expect_int(), output, total_weight);
  return {std::move(output), std::move(total_weight)};
}

at::Tensor nll_loss2d_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                               const OptTensor& weight, int64_t reduction, c10::SymInt ignore_index,
                               const at::Tensor& total_weight) {
  if (!npu::run_native(caps::aclnnNLLLoss2dBackward, "nll_loss2d_backward", {self.scalar_type()})) {
    return npu::fallback_call<at::Tensor>("nll_loss2d_backward", grad_output, self, target, weight, reduction,
                                          ignore_index, total_weight);
  }
  check_nll_loss2d(self, target, weight, reduction);
  TORCH_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
              total_weight.sizes(), " (", total_weight.numel(), " elements)");
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  NPU_RUN(aclnnNLLLoss2dBackward, grad_output, self, target, weight, reduction, ignore_index.expect_int(),
          total_weight, grad_input);
  return grad_input;
}

}  // namespace npu::ops
