// Random ops for npu: uniform_, normal_ (and normal's tensor forms), random_,
// randperm, bernoulli, exponential_, native_dropout (the `impl:`s of
// ops/table/random.yaml, registered by the generated code). Each reserves counter
// values from the npu generator (its default one per device, or the one
// passed) under the generator's lock, then launches an aclnn op that draws
// from exactly that (seed, offset): results depend only on the generator
// state, so manual_seed and set_rng_state reproduce them.
#include <cmath>
#include <functional>
#include <limits>

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/core/DistributionsHelper.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/philox_reserve.h"
#include "dispatch/runtime/npu_generator.h"

namespace npu::ops {

namespace {

void check_floating(const at::Tensor& self, const char* op) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), op, " expects a floating point tensor, got ", self.scalar_type());
}

// uniform_ and normal_ draw floating values: an integer or bool self is a
// dtype the op lacks (PyTorch's NotImplementedError), not a bad value.
void check_floating_or_complex(const at::Tensor& self, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()) || self.is_complex(), op,
                              " is not implemented for ", self.scalar_type(), " tensors (use a floating point dtype)");
}

}  // namespace

at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator) {
  check_floating_or_complex(self, "uniform_");
  at::assert_no_internal_overlap(self);  // an expanded self cannot take independent draws (CPU refuses too)
  if (self.is_complex()) {  // PyTorch: real and imaginary parts each uniform in [from, to)
    at::Tensor parts = at::view_as_real(self);
    uniform_(parts, from, to, generator);
    return self;
  }
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  TORCH_CHECK(std::isfinite(to - from), "uniform_ expects a finite range, but found [", from, ", ", to, ")");
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceUniform, "uniform_", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("uniform_", self, from, to, generator);
  }
  const c10::DeviceGuard guard(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceUniform, self, from, to, rng.seed, rng.offset);
  return self;
}

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  check_floating_or_complex(self, "normal_");
  at::assert_no_internal_overlap(self);
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.is_complex()) {  // PyTorch: each part normal with std / sqrt(2), so |z| has variance std^2
    at::Tensor parts = at::view_as_real(self);
    normal_(parts, mean, std / std::sqrt(2.0), generator);
    return self;
  }
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceNormal, "normal_", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("normal_", self, mean, std, generator);
  }
  const c10::DeviceGuard guard(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceNormal, self, static_cast<float>(mean), static_cast<float>(std),
          static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset));
  return self;
}

namespace {

void check_std_tensor(const at::Tensor& std) {
  TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
  TORCH_CHECK(std.numel() == 0 || !at::lt(std, 0).any().item<bool>(), "normal expects all elements of std >= 0.0");
}

// mean + std * N(0, 1), in the promoted shape and dtype.
at::Tensor normal_scaled(const at::Tensor& mean, const at::Tensor& std, std::optional<at::Generator> generator) {
  check_std_tensor(std);
  const auto shape = at::infer_size(mean.sizes(), std.sizes());
  const auto dtype = at::result_type(mean, std);
  const c10::Device device = mean.is_privateuseone() ? mean.device() : std.device();
  at::Tensor out = empty_npu(shape, dtype, device);
  normal_(out, 0.0, 1.0, generator);
  return at::add(at::mul(out, std), mean);
}

}  // namespace

at::Tensor normal_tensor_float(const at::Tensor& mean, double std, std::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  at::Tensor out = empty_npu(mean.sizes(), mean.scalar_type(), mean.device());
  normal_(out, 0.0, std, generator);
  return at::add(out, mean);
}

at::Tensor normal_float_tensor(double mean, const at::Tensor& std, std::optional<at::Generator> generator) {
  check_std_tensor(std);
  at::Tensor out = empty_npu(std.sizes(), std.scalar_type(), std.device());
  normal_(out, 0.0, 1.0, generator);
  return at::add(at::mul(out, std), mean);
}

at::Tensor normal_tensor_tensor(const at::Tensor& mean, const at::Tensor& std, std::optional<at::Generator> generator) {
  return normal_scaled(mean, std, generator);
}

namespace {

// The largest integer random_() draws for `type` (inclusive), as PyTorch:
// 2^digits for floating types, the maximum for integers, 1 for bool.
int64_t random_max(at::ScalarType type) {
  if (type == at::kBool) return 1;
  if (at::isFloatingType(type)) {
    int digits = 0;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, type, "random_max",
                                    [&] { digits = std::numeric_limits<scalar_t>::digits; });
    return int64_t{1} << digits;
  }
  switch (type) {
    case at::kByte: return std::numeric_limits<uint8_t>::max();
    case at::kChar: return std::numeric_limits<int8_t>::max();
    case at::kShort: return std::numeric_limits<int16_t>::max();
    case at::kUInt16: return std::numeric_limits<uint16_t>::max();
    case at::kInt: return std::numeric_limits<int32_t>::max();
    case at::kUInt32: return std::numeric_limits<uint32_t>::max();
    default: return std::numeric_limits<int64_t>::max();  // int64, uint64 (capped: bounds are int64)
  }
}

// `fallback` runs the caller's schema on the CPU when aclnnInplaceRandom cannot.
at::Tensor& random_range(at::Tensor& self, int64_t from, int64_t to, std::optional<at::Generator> generator,
                         const char* schema, const std::function<at::Tensor&()>& fallback) {
  TORCH_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "random_ is not implemented for ", self.scalar_type(), " tensors");
  TORCH_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
  at::assert_no_internal_overlap(self);
  if (!at::isFloatingType(self.scalar_type())) {
    // Integer and bool results must be able to hold every value drawn.
    const int64_t lowest = self.scalar_type() == at::kBool || !at::isSignedType(self.scalar_type())
                               ? 0
                               : -random_max(self.scalar_type()) - 1;
    TORCH_CHECK(from >= lowest, "from is out of bounds for ", self.dtype().name());
    TORCH_CHECK(to - 1 <= random_max(self.scalar_type()), "to - 1 is out of bounds for ", self.dtype().name());
  }
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceRandom, schema, {self.scalar_type()})) return fallback();
  const c10::DeviceGuard guard(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceRandom, self, from, to, static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset));
  return self;
}

// [0, random_max] (for int64 the maximum itself is left out: `to` is an int64).
int64_t exclusive_bound(int64_t inclusive_max) {
  return inclusive_max == std::numeric_limits<int64_t>::max() ? inclusive_max : inclusive_max + 1;
}

}  // namespace

// The bounds are the dtype's, which the aclnn op knows: [0, 2^digits] for
// floating types, [0, max] for integers (the same draws as random_.from
// with `to` left out).
at::Tensor& random_(at::Tensor& self, std::optional<at::Generator> generator) {
  TORCH_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "random_ is not implemented for ", self.scalar_type(), " tensors");
  at::assert_no_internal_overlap(self);
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceRandomWithoutFromTo, "random_", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("random_", self, generator);
  }
  const c10::DeviceGuard guard(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceRandomWithoutFromTo, self, static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset));
  return self;
}

at::Tensor& random_from(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                        std::optional<at::Generator> generator) {
  return random_range(self, from, to ? *to : exclusive_bound(random_max(self.scalar_type())), generator,
                      "random_.from", [&]() -> at::Tensor& {
                        return fallback_call<at::Tensor&>("random_.from", self, from, to, generator);
                      });
}

at::Tensor& random_to(at::Tensor& self, int64_t to, std::optional<at::Generator> generator) {
  return random_range(self, 0, to, generator, "random_.to", [&]() -> at::Tensor& {
    return fallback_call<at::Tensor&>("random_.to", self, to, generator);
  });
}

at::Tensor& randperm_out(c10::SymInt sym_n, std::optional<at::Generator> generator, at::Tensor& out) {
  const int64_t n = sym_n.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  TORCH_CHECK_NOT_IMPLEMENTED(!out.is_complex() && out.scalar_type() != at::kBool, "randperm is not implemented for ",
                              out.scalar_type());
  TORCH_CHECK(n == 0 || n - 1 <= random_max(out.scalar_type()), "n is too large for result tensor type: '",
              out.toString(), "'");
  if (!run_native(table::caps::aclnnRandperm, "randperm.generator_out", {out.scalar_type()})) {
    return fallback_call<at::Tensor&>("randperm.generator_out", sym_n, generator, out);
  }
  at::native::resize_output(out, {n});
  if (n == 0) return out;
  const c10::DeviceGuard guard(out.device());
  const auto rng = reserve(generator, out.device(), n);
  NPU_RUN(aclnnRandperm, n, static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset), out);
  return out;
}

at::Tensor& bernoulli_scalar_(at::Tensor& self, double p, std::optional<at::Generator> generator) {
  TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  TORCH_CHECK(!self.is_complex(), "bernoulli_ does not support complex tensors");
  at::assert_no_internal_overlap(self);
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceBernoulli, "bernoulli_.float", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("bernoulli_.float", self, p, generator);
  }
  const c10::DeviceGuard guard(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceBernoulli, self, at::Scalar(p), static_cast<int64_t>(rng.seed),
          static_cast<int64_t>(rng.offset));
  return self;
}

at::Tensor& bernoulli_tensor_(at::Tensor& self, const at::Tensor& p, std::optional<at::Generator> generator) {
  TORCH_CHECK(!self.is_complex() && !p.is_complex(), "bernoulli_ does not support complex tensors");
  TORCH_CHECK(at::is_expandable_to(p.sizes(), self.sizes()), "bernoulli_: p of shape ", p.sizes(),
              " cannot be broadcast to self's shape ", self.sizes());
  at::assert_no_internal_overlap(self);
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceBernoulliTensor, "bernoulli_.Tensor", {self.scalar_type(), p.scalar_type()})) {
    return fallback_call<at::Tensor&>("bernoulli_.Tensor", self, p, generator);
  }
  const c10::DeviceGuard guard(self.device());
  const at::Tensor probs = p.device() == self.device() ? p : p.to(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceBernoulliTensor, self, probs, static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset));
  return self;
}

at::Tensor& bernoulli_out(const at::Tensor& self, std::optional<at::Generator> generator, at::Tensor& out) {
  at::native::resize_output(out, self.sizes());
  return bernoulli_tensor_(out, self, generator);
}

at::Tensor& exponential_(at::Tensor& self, double lambd, std::optional<at::Generator> generator) {
  check_floating(self, "exponential_");
  at::assert_no_internal_overlap(self);
  TORCH_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  if (self.numel() == 0) return self;
  if (!run_native(table::caps::aclnnInplaceExponential, "exponential_", {self.scalar_type()})) {
    return fallback_call<at::Tensor&>("exponential_", self, lambd, generator);
  }
  const c10::DeviceGuard guard(self.device());
  const auto rng = reserve(generator, self.device(), self.numel());
  NPU_RUN(aclnnInplaceExponential, self, lambd, static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset));
  return self;
}

std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p, std::optional<bool> train) {
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  const c10::DeviceGuard guard(input.device());
  at::Tensor mask = empty_npu(input.sizes(), at::kBool, input.device());
  if (train.has_value() && !*train) {
    // Evaluation: nothing is dropped.
    mask.fill_(true);
    return {input.clone(), mask};
  }
  check_floating(input, "dropout");
  if (!run_native(table::caps::aclnnDropout, "native_dropout", {input.scalar_type()})) {
    return fallback_call<std::tuple<at::Tensor, at::Tensor>>("native_dropout", input, p, train);
  }
  at::Tensor output = empty_npu(input.sizes(), input.scalar_type(), input.device());
  if (input.numel() == 0) return {output, mask};
  const auto rng = reserve(std::nullopt, input.device(), input.numel());
  NPU_RUN(aclnnDropout, input, p, static_cast<int64_t>(rng.seed), static_cast<int64_t>(rng.offset), output, mask);
  return {output, mask};
}

at::Tensor native_dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask, double scale) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "Mask should be Bool Scalar Type", mask.scalar_type());
  return at::mul(at::mul(grad_output, mask), scale);
}

}  // namespace npu::ops
