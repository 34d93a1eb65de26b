// Tensors with the conjugate or negative bit set, as npu kernels meet them.
//
// The aclnn ops read and write plain memory. PyTorch's Conjugate/Negative
// keys resolve the bits before the backend for most ops, but pass them
// through for some (the matrix products mm, bmm, addmm, baddbmm, dot, vdot,
// in their out= and in-place forms too), whose CPU kernels honour the bits.
// So an operand is read through `plain`, and every generated out= or
// in-place wrapper (ops/gen/emit_dispatch.py) first checks its written
// tensors: one with a bit makes the op run on resolved copies, written back
// with copy_ (which honours the bits), as CPU does for such an out. The check
// is a dispatch key test on the written tensors, nothing more.
#pragma once

#include <array>
#include <cstddef>

#include <ATen/ATen.h>

namespace npu::table {

// `t` with its bits resolved (a new tensor holding the values `t` reads as),
// or `t` itself when it has none.
at::Tensor plain(const at::Tensor& t);

template <class... Tensors>
bool any_math_bits(const Tensors&... written) {
  return ((written.is_conj() || written.is_neg()) || ...);
}

// `target` (resized to `resolved` if the op resized that) takes `resolved`'s values.
void write_back(const at::Tensor& target, const at::Tensor& resolved);

// The tensors an op writes, each as a resolved copy the op runs on instead.
template <std::size_t N>
class ResolvedWrites {
 public:
  template <class... Tensors>
  explicit ResolvedWrites(const Tensors&... written) : targets_{written...}, resolved_{plain(written)...} {}
  at::Tensor& operator[](std::size_t i) { return resolved_[i]; }
  // Once the op has run (not on an error: the written tensors stay as they were).
  void write_back() const {
    for (std::size_t i = 0; i < N; ++i) table::write_back(targets_[i], resolved_[i]);
  }

 private:
  std::array<at::Tensor, N> targets_;
  std::array<at::Tensor, N> resolved_;
};

template <class... Tensors>
ResolvedWrites(const Tensors&...) -> ResolvedWrites<sizeof...(Tensors)>;

}  // namespace npu::table
