// What every PyTorch pointwise op on npu shares, whatever its arity: the
// result dtype from the promoted one, the device check (CPU 0-dim tensors act
// as scalars, as on CUDA), the result's layout, and out= semantics.
#pragma once

#include <initializer_list>

#include <ATen/ATen.h>
#include <c10/util/FunctionRef.h>

namespace npu::ops {

// What dtype a pointwise op produces from its operands' promoted dtype.
enum class ResultKind {
  kPromoted,  // the promoted dtype itself (add, maximum, where, floor)
  kFloating,  // integers and bool become the default float dtype (true div, exp, atan2)
  kBool,      // always bool (eq, logical_and, isnan)
  kReal,      // complex becomes its real counterpart (abs)
};

at::ScalarType result_dtype(ResultKind kind, at::ScalarType promoted);

// A CPU 0-dim tensor next to npu tensors acts as a scalar operand.
bool is_cpu_scalar(const at::Tensor& t);

// The npu device of the op; throws PyTorch's device-mismatch error unless
// every defined operand is on that device or is a CPU scalar.
at::Device pointwise_device(const char* name, at::TensorList operands);
// The same for operands named by address: a braced list of tensors would copy
// each one, and copying a tensor Python holds takes the GIL twice (PyTorch
// increfs its PyObject when the refcount goes from 1 to 2, decrefs it back).
at::Device pointwise_device(const char* name, std::initializer_list<const at::Tensor*> operands);

// A new result of `shape` and `dtype` on `device`, laid out like `like` when
// `like` has that shape and is dense (as TensorIterator does), else contiguous.
at::Tensor new_pointwise_result(at::IntArrayRef shape, at::ScalarType dtype, at::Device device, const at::Tensor& like);

// out= semantics: out is on npu, `result` can be cast to out's dtype, out is
// resized to `shape`, and it overlaps none of the inputs partially.
void prepare_out(const char* name, at::Tensor& out, at::IntArrayRef shape, at::ScalarType result,
                 at::TensorList inputs);

// Runs `launch` on `out` when it has the `result` dtype, else on a temporary
// of that dtype converted into out afterwards: PyTorch computes in the
// result dtype and only then casts to out's (exp of float32 into a float64
// out is float32's exp), whereas the aclnn entries compute in out's dtype.
void launch_into(const at::Tensor& out, at::ScalarType result, c10::function_ref<void(const at::Tensor&)> launch);

// An in-place op's broadcast shape must be self's.
void check_inplace_shape(const at::Tensor& self, at::IntArrayRef shape);

// `t` as an operand on `device`: npu tensors as they are, CPU scalars copied
// over converted to `dtype` (so the op computes in the promoted dtype rather
// than the scalar's double or int64).
at::Tensor on_device(const at::Tensor& t, at::Device device, at::ScalarType dtype);

// Ops over a list of tensor operands that broadcast together (ternary ops,
// clamp with tensor bounds): `launch` gets the operands on the op's device
// (undefined ones stay undefined, CPU scalars converted to `compute`) and an
// output of the broadcast shape whose dtype `result` can be cast to.
using PointwiseLaunch = c10::function_ref<void(at::TensorList operands, const at::Tensor& out)>;

at::Tensor& pointwise_out(const char* name, at::TensorList operands, at::ScalarType compute, at::ScalarType result,
                          at::Tensor& out, PointwiseLaunch launch);
at::Tensor pointwise(const char* name, at::TensorList operands, at::ScalarType compute, at::ScalarType result,
                     PointwiseLaunch launch);
// In-place: self (also operands[0]) is the output.
at::Tensor& pointwise_(const char* name, at::Tensor& self, at::TensorList operands, at::ScalarType compute,
                       at::ScalarType result, PointwiseLaunch launch);

}  // namespace npu::ops
