// aten ops that npu serves by composing its native ops rather than by an
// aclnn op of their own: PyTorch registers them for CPU/CUDA only (no
// composite kernel), so without these they would run on CPU through the
// fallback. Registered by the op table (ops/table/pointwise_composites.yaml).
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>
#include <c10/util/MathConstants.h>

#include "dispatch/fallback/fallback_call.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

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

// Real inputs: pi below 0, 0 otherwise, NaN kept (integers and bool in the
// default float dtype); complex inputs: atan2(imag, real), a real result.
at::Tensor angle(const at::Tensor& self) {
  if (self.is_complex()) return at::atan2(at::imag(self), at::real(self));
  const at::Tensor x =
      at::isFloatingType(self.scalar_type()) ? self : self.to(c10::typeMetaToScalarType(at::get_default_dtype()));
  const at::Tensor pi = at::scalar_tensor(c10::pi<double>, x.options());
  const at::Tensor zero = at::scalar_tensor(0, x.options());
  return at::where(at::isnan(x), x, at::where(x < 0, pi, zero));
}

namespace {

// complex/polar: two real tensors of one floating dtype making a complex out
// of the matching complex dtype, shaped like their broadcast.
std::vector<int64_t> complex_parts_shape(const char* op, const at::Tensor& a, const at::Tensor& b,
                                         const at::Tensor& out) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type() && at::isFloatingType(a.scalar_type()) &&
                  a.scalar_type() != at::kBFloat16,
              op, ": expected both inputs to be Half, Float or Double tensors, got ", a.scalar_type(), " and ",
              b.scalar_type());
  const at::ScalarType want = c10::toComplexType(a.scalar_type());
  TORCH_CHECK(out.scalar_type() == want, op, ": expected out of dtype ", want, ", got ", out.scalar_type());
  TORCH_CHECK(a.device() == out.device() && b.device() == out.device(), op,
              ": expected all tensors on one device, got ", a.device(), ", ", b.device(), " and out on ",
              out.device());
  return at::infer_size(a.sizes(), b.sizes());
}

// Writes re and im into the two real halves of the complex out.
at::Tensor& write_complex(at::Tensor& out, at::IntArrayRef shape, const at::Tensor& re, const at::Tensor& im) {
  at::native::resize_output(out, shape);
  const at::Tensor parts = at::view_as_real(out);
  parts.select(-1, 0).copy_(re.expand(shape));
  parts.select(-1, 1).copy_(im.expand(shape));
  return out;
}

}  // namespace

// out = real + i imag
at::Tensor& complex_out(const at::Tensor& real, const at::Tensor& imag, at::Tensor& out) {
  const auto shape = complex_parts_shape("complex", real, imag, out);
  return write_complex(out, shape, real, imag);
}

// out = abs (cos(angle) + i sin(angle))
at::Tensor& polar_out(const at::Tensor& abs, const at::Tensor& angle, at::Tensor& out) {
  const auto shape = complex_parts_shape("polar", abs, angle, out);
  return write_complex(out, shape, abs * at::cos(angle), abs * at::sin(angle));
}

// sum with NaN counted as 0; integers and bool have no NaN.
at::Tensor nansum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  std::optional<at::ScalarType> dtype) {
  TORCH_CHECK(!self.is_complex(), "nansum does not support complex inputs");
  if (!at::isFloatingType(self.scalar_type())) return at::sum(self, dim, keepdim, dtype);
  const at::Tensor zero = at::scalar_tensor(0, self.options());
  return at::sum(at::where(at::isnan(self), zero, self), dim, keepdim, dtype);
}

namespace {

// A scalar rounded to a floating dtype, as a double.
double rounded_to(const at::Scalar& v, at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf: return static_cast<double>(static_cast<float>(v.to<at::Half>()));
    case at::kBFloat16: return static_cast<double>(static_cast<float>(v.to<at::BFloat16>()));
    case at::kFloat: return static_cast<double>(v.to<float>());
    default: return v.to<double>();
  }
}

}  // namespace

// base ** linspace(start, end, steps), evaluated in float64 and rounded once
// into a floating out; with two or more steps, start and end are first
// rounded to out's dtype, as CPU's kernel holds them (10 ** 4.3 in float16
// is 10 ** 4.3008); a single step is base ** start, unrounded, as on CPU. An integral out follows CPU's own integer rules: the
// CPU fallback computes it.
at::Tensor& logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base, at::Tensor& out) {
  if (!at::isFloatingType(out.scalar_type())) {
    return npu::fallback_call<at::Tensor&>("logspace.out", start, end, steps, base, out);
  }
  TORCH_CHECK(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  // As CPU: out keeps its shape when its element count is already `steps`.
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return out;
  if (steps == 1) return out.fill_(std::pow(base, start.to<double>()));
  at::Tensor exponents = at::empty({steps}, out.options().dtype(at::kDouble));
  at::linspace_out(exponents, rounded_to(start, out.scalar_type()), rounded_to(end, out.scalar_type()), steps);
  out.copy_(at::pow(base, exponents).view(out.sizes()));
  return out;
}

// Whether each of `elements` equals one of `test_elements` (after type
// promotion; negated with invert): eq against every test value, then any,
// over chunks of elements so the comparison matrix stays within ~16M entries.
// assume_unique only lets CPU pick another algorithm; the result is the same.
at::Tensor& isin_out(const at::Tensor& elements, const at::Tensor& test_elements, bool /*assume_unique*/, bool invert,
                     at::Tensor& out) {
  for (const at::Tensor* t : {&elements, &test_elements}) {
    TORCH_CHECK(t->scalar_type() != at::kBool && !t->is_complex(),
                "Unsupported input type encountered for isin(): ", t->scalar_type());
  }
  TORCH_CHECK(out.scalar_type() == at::kBool, "isin: expected a bool out, got ", out.scalar_type());
  at::native::resize_output(out, elements.sizes());
  if (elements.numel() == 0) return out;
  if (test_elements.numel() == 0) return out.fill_(invert);
  const at::Tensor tests = test_elements.reshape({1, -1});
  const at::Tensor flat = elements.reshape({-1, 1});
  const int64_t n = flat.size(0);
  const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 24) / tests.size(1));
  at::Tensor result = at::empty({n}, out.options());
  for (int64_t begin = 0; begin < n; begin += chunk) {
    const int64_t len = std::min(chunk, n - begin);
    const at::Tensor hit = at::eq(flat.narrow(0, begin, len), tests).any(1);
    result.narrow(0, begin, len).copy_(invert ? hit.logical_not() : hit);
  }
  out.copy_(result.view(elements.sizes()));
  return out;
}

at::Tensor isin(const at::Tensor& elements, const at::Tensor& test_elements, bool assume_unique, bool invert) {
  at::Tensor out = at::empty({0}, elements.options().dtype(at::kBool));
  return isin_out(elements, test_elements, assume_unique, invert, out);
}

// The channels (dim 1) regrouped: (b, g, c/g, ...) -> (b, c/g, g, ...), by
// PyTorch's own view/permute/reshape composite of native_channel_shuffle.
at::Tensor channel_shuffle(const at::Tensor& self, c10::SymInt groups) {
  TORCH_CHECK(self.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes ",
              self.sizes());
  const int64_t g = groups.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(g > 0, "Number of groups to divide channels in must be positive. Value of groups:", g);
  TORCH_CHECK(self.size(1) % g == 0, "Number of channels must be divisible by groups. Got ", self.size(1),
              " channels and ", g, " groups.");
  return at::native_channel_shuffle(self, g);
}

}  // namespace npu::ops
