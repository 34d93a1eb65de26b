// Conversions the unary family's `map:` expressions (ops/table/unary.yaml)
// use to turn aten arguments into the parameters CANN's entries take.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <optional>

#include <ATen/ATen.h>
#include <c10/util/string_view.h>

namespace npu::table {

// The self an integer-promoting unary entry (aclnnExp, ...) must receive to
// compute in `compute`, the meta function's common dtype: the entries compute
// integer and bool inputs in float32, as CANN's do, so an integer self passes
// as it is when `compute` is float32 and is converted first otherwise (a
// default dtype of float64). Every other self is returned as it is.
inline at::Tensor float_compute_input(const at::Tensor& self, at::ScalarType compute) {
  const bool promoted = at::isIntegralType(self.scalar_type(), /*includeBool=*/true) && at::isFloatingType(compute);
  return promoted && compute != at::kFloat ? self.to(compute) : self;
}

// aclnnGeluV2's approximate: 0 exact (erf), 1 tanh; PyTorch's own message otherwise.
inline int64_t gelu_approximate_code(c10::string_view approximate) {
  if (approximate == "none") return 0;
  if (approximate == "tanh") return 1;
  TORCH_CHECK(false, "approximate argument must be either none or tanh.");
}

// aclnnNanToNum's float parameters. Its nan replacement defaults to 0.
inline float nan_to_num_fill(std::optional<double> nan) { return static_cast<float>(nan.value_or(0.0)); }

// A posinf (upper) / neginf (!upper) bound: +-FLT_MAX asks for the output
// dtype's own extreme, PyTorch's default, so an absent bound passes that.
// A given bound beyond float's range (+-inf included: linalg.cond's
// nan_to_num_(inf, inf, -inf)) goes as that infinity, what CPU's
// static_cast<float> gives for float32, never as +-FLT_MAX, which would turn
// it into the default. (A finite float64 bound beyond float's range thus
// becomes +-inf, where CPU keeps it: aclnnNanToNum takes floats.)
inline float nan_to_num_bound(std::optional<double> bound, bool upper) {
  if (!bound) return upper ? FLT_MAX : -FLT_MAX;
  if (*bound > FLT_MAX) return INFINITY;
  if (*bound < -FLT_MAX) return -INFINITY;
  return static_cast<float>(*bound);
}

}  // namespace npu::table
