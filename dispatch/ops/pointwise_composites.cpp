// aten ops that npu serves by composing its native ops rather than by an
// aclnn op of their own: PyTorch registers them for CPU/CUDA only (no
// composite kernel), so without these they would run on CPU through the
// fallback. Registered by the op table (ops/table/pointwise_composites.yaml).
#include <ATen/ATen.h>

#include <optional>
#include <tuple>

namespace npu::ops {

// other - alpha * self (sub's own checks reject bool and alpha mismatches).
at::Tensor rsub_tensor(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return at::sub(other, self, alpha);
}

// Same shape and every element equal (after type promotion, as on CPU);
// NaN equals nothing, so a tensor holding NaN is not equal to itself.
bool equal(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.device() == other.device(), "equal: expected both tensors on one device, got ", self.device(),
              " and ", other.device());
  if (!self.is_same_size(other)) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item<bool>();
}

// The sum of the main diagonal of a matrix, in sum's result dtype
// (integers and bool give int64).
at::Tensor trace(const at::Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return self.diagonal().sum();
}

// The number of nonzero elements along dim (all dims when dim is empty), int64.
at::Tensor count_nonzero(const at::Tensor& self, at::IntArrayRef dim) {
  return at::ne(self, 0).sum(dim);
}

// (amin, amax) along dim, or over all elements (every dim kept as size 1
// with keepdim).
std::tuple<at::Tensor, at::Tensor> aminmax(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) {
    TORCH_CHECK(self.dim() == 0 || self.size(at::maybe_wrap_dim(*dim, self.dim())) > 0,
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    return {at::amin(self, *dim, keepdim), at::amax(self, *dim, keepdim)};
  }
  TORCH_CHECK(self.numel() > 0,
              "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  if (keepdim) return {at::amin(self, {}, true), at::amax(self, {}, true)};
  return {at::amin(self), at::amax(self)};
}

}  // namespace npu::ops
