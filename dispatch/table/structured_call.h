// Calling PyTorch's own meta functions for npu ops. A structured aten op
// (add.out, sum.IntList_out, max.dim_max, ...) has a meta class in
// at::meta whose meta() checks the arguments and decides the output shapes,
// strides and dtypes (type promotion, broadcasting, overlap checks); it
// reports each output through set_output_*. The three classes below are that
// meta class completed for one calling form - a new output (functional), self
// (in-place), given outputs (out=) - exactly as PyTorch's CPU registrations
// complete it, so npu follows CPU's rules by construction. Generated
// wrappers (ops/gen/emit_dispatch.py) call meta() on one, then launch the
// aclnn op on its outputs.
#pragma once

#include <array>
#include <functional>
#include <type_traits>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorIterator.h>
#include <c10/util/MaybeOwned.h>

namespace npu::table {

// A new npu tensor for a meta function's output (strides empty: contiguous
// in the options' memory format).
at::Tensor create_out(at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions& options);
// An out= tensor made to fit what the meta function asks for: same dtype and
// device, resized (and restrided only when it was resized), as on CPU.
void resize_out(const at::Tensor& out, at::IntArrayRef sizes, at::IntArrayRef strides,
                const at::TensorOptions& options);
// An in-place op's self must already be what the meta function asks for.
void check_inplace(const at::Tensor& self, at::IntArrayRef sizes, const at::TensorOptions& options);

// TensorIterator-based meta classes also record each output in the iterator.
template <class Meta>
void forward_output(Meta& meta, int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                    const at::TensorOptions& options) {
  if constexpr (std::is_base_of_v<at::TensorIteratorBase, Meta>) {
    meta.Meta::set_output_raw_strided(i, sizes, strides, options);
  }
}

// Where each calling form's outputs come from.
template <size_t N>
class NewOutputs {  // functional: made as the meta function asks
 public:
  static constexpr bool kOutArguments = false;
  void set(size_t i, at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions& options) {
    tensors_[i] = create_out(sizes, strides, options);
  }
  at::Tensor& get(size_t i) { return tensors_[i]; }

 private:
  std::array<at::Tensor, N> tensors_;
};

template <size_t N, bool kInplace>
class GivenOutputs {  // in-place (self, which must fit) or out= (resized to fit)
 public:
  static constexpr bool kOutArguments = !kInplace;
  template <class... Outs>
  explicit GivenOutputs(Outs&... outs) : tensors_{std::ref(outs)...} {}
  void set(size_t i, at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions& options) {
    if constexpr (kInplace) {
      check_inplace(tensors_[i], sizes, options);
    } else {
      resize_out(tensors_[i], sizes, strides, options);
    }
  }
  at::Tensor& get(size_t i) { return tensors_[i]; }

 private:
  std::array<std::reference_wrapper<at::Tensor>, N> tensors_;
};

template <class Meta, class Outputs>
class StructuredCall final : public Meta {
 public:
  template <class... Outs>
  explicit StructuredCall(Outs&... outs) : outputs_(outs...) {}
  void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options) override {
    outputs_.set(i, sizes, strides, options);
    if constexpr (Outputs::kOutArguments && !std::is_base_of_v<at::TensorIteratorBase, Meta>) {
      // An iterator refuses an out whose elements share memory itself; CPU's
      // other out= kernels refuse it too (an expanded out cannot take results).
      at::assert_no_internal_overlap(outputs_.get(i));
    }
    forward_output<Meta>(*this, i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options) override {
    set_output_strided(i, sizes, strides, options);
  }
  const at::Tensor& maybe_get_output(int64_t i) override { return outputs_.get(i); }
  at::Tensor& output(size_t i) { return outputs_.get(i); }

 private:
  Outputs outputs_;
};

template <class Meta, size_t N>
using Functional = StructuredCall<Meta, NewOutputs<N>>;
template <class Meta, size_t N>
using Inplace = StructuredCall<Meta, GivenOutputs<N, true>>;
template <class Meta, size_t N>
using Out = StructuredCall<Meta, GivenOutputs<N, false>>;

// The dtype an op computes in: the iterator's common dtype when it found
// one, else `fallback` (the first tensor argument's).
template <class Meta>
at::ScalarType compute_dtype(const Meta& meta, at::ScalarType fallback) {
  if constexpr (std::is_base_of_v<at::TensorIteratorBase, Meta>) {
    return meta.maybe_common_dtype().value_or(fallback);
  } else {
    return fallback;
  }
}

// An operand as an aclnn op reads it: borrowed, or owned when it had to be
// copied. Unlike c10::MaybeOwned, `*` on a temporary one (as in
// `NPU_RUN(op, *device_operand(t, ...))`) yields a reference, not a copy:
// MaybeOwned's rvalue `operator*` returns the tensor by value, and a copy of
// a tensor Python holds costs two GIL round trips (its refcount goes
// 1 -> 2 -> 1), a large share of a small op's launch.
class DeviceOperand {
 public:
  explicit DeviceOperand(c10::MaybeOwned<at::Tensor> tensor) : tensor_(std::move(tensor)) {}
  const at::Tensor& operator*() const& { return *tensor_; }
  const at::Tensor* operator->() const& { return &*tensor_; }

 private:
  c10::MaybeOwned<at::Tensor> tensor_;
};

// A CPU 0-dim tensor among npu operands (PyTorch lets it act as a scalar):
// copied to `device` in the compute dtype, where an aclnn op can read it.
// Anything else is borrowed.
DeviceOperand device_operand(const at::Tensor& t, at::Device device, at::ScalarType compute);
// A 0-dim CPU tensor (PyTorch lets one be an operand of a device op). Inline:
// asked of every tensor operand, several times per launch.
inline bool is_cpu_scalar(const at::Tensor& t) { return t.defined() && t.is_cpu() && t.dim() == 0; }

// The dtypes an op must support to run natively: its compute dtype, and the
// dtype of each tensor operand the kernels cannot simply convert from (wide
// unsigned and complex ones are read only in their own dtype). Bool, integer
// and floating operands are converted; CPU scalars are converted on the host.
template <class... Tensors>
c10::SmallVector<at::ScalarType, 4> operand_dtypes(at::ScalarType compute, const Tensors&... operands) {
  c10::SmallVector<at::ScalarType, 4> out{compute};
  [[maybe_unused]] auto add = [&](const at::Tensor& t) {
    if (!t.defined() || is_cpu_scalar(t)) return;
    const at::ScalarType d = t.scalar_type();
    const bool read_as_is = at::isComplexType(d) || d == at::kUInt16 || d == at::kUInt32 || d == at::kUInt64;
    if (read_as_is && d != compute) out.push_back(d);
  };
  (add(operands), ...);
  return out;
}

// An empty npu tensor of `dtype` on the device of the first npu tensor among
// `operands`, for an iterator to resize (ops whose result dtype is fixed).
at::Tensor new_output(at::ScalarType dtype, const at::Tensor& a, const at::Tensor& b);

}  // namespace npu::table
