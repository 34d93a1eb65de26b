// An input of a pointwise op: a device tensor, or a host scalar (an
// aclScalar's value). The distinction matters for type promotion: a host
// scalar is PyTorch's "wrapped number", which only decides the result dtype
// when its category is higher than every tensor's.
#pragma once

#include <initializer_list>
#include <optional>
#include <utility>

#include "kernels/copy/copy.h"
#include "kernels/core/scalar.h"
#include "kernels/core/scratch.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

class Operand {
 public:
  Operand() = default;  // absent, e.g. clamp without an upper bound
  Operand(const TensorView& tensor) : tensor_(tensor) {}  // NOLINT: implicit on purpose
  Operand(TensorView&& tensor) : tensor_(std::move(tensor)) {}  // NOLINT
  Operand(const Scalar& scalar) : scalar_(scalar) {}      // NOLINT
  // A tensor operand built in place from a view's parts: on the launch path
  // (the emulator's operand resolution) a view built first and moved in
  // copied its sizes and strides twice, and an emplaced empty view would be
  // zeroed whole before they were assigned.
  Operand(void* data, DType dtype, const Shape& sizes, const Shape& strides)
      : tensor_(std::in_place, ViewParts{data, dtype, sizes, strides}) {}

  bool present() const { return tensor_.has_value() || scalar_.has_value(); }
  bool is_scalar() const { return scalar_.has_value(); }
  const Scalar& scalar() const { return *scalar_; }
  const TensorView& tensor() const& { return *tensor_; }
  TensorView tensor() && { return std::move(*tensor_); }

  DType dtype() const { return scalar_ ? scalar_->dtype() : tensor_->dtype; }
  // A scalar has shape [] and broadcasts to anything.
  Shape sizes() const { return tensor_ ? tensor_->sizes : Shape{}; }

 private:
  // Converts to the view it describes: optional's in-place construction
  // initializes its view from the returned prvalue, so nothing is moved.
  struct ViewParts {
    void* data;
    DType dtype;
    const Shape& sizes;
    const Shape& strides;
    operator TensorView() const { return TensorView{data, dtype, sizes, strides}; }  // NOLINT: implicit on purpose
  };

  std::optional<TensorView> tensor_;
  std::optional<Scalar> scalar_;
};

// The operand as a view of `dtype`: a tensor converted like input_as, a scalar
// as a 0-dim tensor in `holder`. The operand must be present.
inline TensorView operand_as(const Operand& operand, DType dtype, std::optional<ScratchTensor>& holder) {
  if (!operand.is_scalar()) return input_as(operand.tensor(), dtype, holder);
  holder.emplace(dtype, Shape{});
  fill(holder->view(), operand.scalar());
  return holder->view();
}

// The broadcast shape of the present operands; throws KernelError if they do
// not broadcast.
inline Shape broadcast_operands(std::initializer_list<const Operand*> operands) {
  Shape shape;
  bool any_tensor = false;
  for (const Operand* op : operands) {
    // A scalar (shape []) leaves the shape as it is; a tensor of the shape
    // so far too (the common case: checked without building a new shape).
    if (!op->present() || op->is_scalar()) continue;
    const Shape& sizes = op->tensor().sizes;
    if (!any_tensor) {
      shape = sizes;
      any_tensor = true;
    } else if (sizes != shape) {
      shape = broadcast_shapes(shape, sizes);
    }
  }
  return shape;
}

}  // namespace npu::kernels
