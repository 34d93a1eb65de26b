// The random family's task makers (see the generated acl/aclnn_random.h for
// the counter contract). Arguments are checked when the executor is
// prepared, so bad input fails synchronously; the kernels draw from
// (seed, offset) only.
#include "emulator/ops/random.h"

#include <string>
#include <utility>

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/random/random_ops.h"

namespace npu::emu {

namespace {

using kernels::PhiloxInputs;

void require_floating(const aclTensor* t, const char* op, const char* name) {
  if (!model::is_floating_point(t->dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + name + " must have a floating point dtype, got " +
                                      model::dtype_name(t->dtype));
  }
}

void require_real(const aclTensor* t, const char* op, const char* name) {
  if (model::is_complex(t->dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + name + " must not be complex");
  }
}

void require_probability(double p, const char* op) {
  if (!(p >= 0.0 && p <= 1.0)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": the probability must be in [0, 1], got " + std::to_string(p));
  }
}

PhiloxInputs philox(uint64_t seed, uint64_t offset) { return PhiloxInputs{seed, offset}; }

// The generator state an entry was given: host values (the eager form), or
// one-element int64 device tensors read when the task runs (CANN's *Tensor
// form, whose state a captured graph advances between replays).
struct HostPhilox {
  PhiloxInputs inputs;
  PhiloxInputs operator()() const { return inputs; }
};

struct DevicePhilox {
  kernels::TensorView seed;
  kernels::TensorView offset;
  uint64_t extra_offset;
  PhiloxInputs operator()() const {
    return PhiloxInputs{static_cast<uint64_t>(*seed.ptr<int64_t>()),
                        static_cast<uint64_t>(*offset.ptr<int64_t>()) + extra_offset};
  }
};

DevicePhilox device_philox(const aclTensor* seedTensor, const aclTensor* offsetTensor, uint64_t extra_offset,
                           const char* op) {
  for (const auto& [t, name] : {std::pair{seedTensor, "seedTensor"}, std::pair{offsetTensor, "offsetTensor"}}) {
    require_tensor(t, name);
    if (t->dtype != model::DType::Int64 || t->view().numel() != 1) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + name + " must be a one-element int64 tensor, got " +
                                        model::dtype_name(t->dtype) + " of " + std::to_string(t->view().numel()) +
                                        " elements");
    }
  }
  return DevicePhilox{seedTensor->view(), offsetTensor->view(), extra_offset};
}

template <class Rng>
TaskBody uniform_body(const aclTensor* selfRef, double from, double to, Rng rng, const char* op) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, op, "selfRef");
  if (!(from <= to)) {
    fail(ACLNN_ERR_PARAM_INVALID,
         std::string(op) + ": expects from <= to, got from=" + std::to_string(from) + " to=" + std::to_string(to));
  }
  return [o = selfRef->view(), from, to, rng] { kernels::uniform(o, from, to, rng()); };
}

template <class Rng>
TaskBody normal_body(const aclTensor* selfRef, float mean, float std, Rng rng, const char* op) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, op, "selfRef");
  if (!(std >= 0.0f)) fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": expects std >= 0.0, got " + std::to_string(std));
  return [o = selfRef->view(), mean, std, rng] { kernels::normal(o, mean, std, rng()); };
}

template <class Rng>
TaskBody random_body(const aclTensor* selfRef, int64_t from, int64_t to, Rng rng, const char* op) {
  require_tensor(selfRef, "selfRef");
  require_real(selfRef, op, "selfRef");
  if (!(from < to)) {
    fail(ACLNN_ERR_PARAM_INVALID,
         std::string(op) + ": expects from < to, got from=" + std::to_string(from) + " to=" + std::to_string(to));
  }
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return [o = selfRef->view(), from, range, rng] { kernels::random_integers(o, from, range, rng()); };
}

template <class Rng>
TaskBody random_full_range_body(const aclTensor* selfRef, Rng rng, const char* op) {
  require_tensor(selfRef, "selfRef");
  require_real(selfRef, op, "selfRef");
  const uint64_t range = kernels::full_random_range(selfRef->dtype);
  return [o = selfRef->view(), range, rng] { kernels::random_integers(o, 0, range, rng()); };
}

}  // namespace

TaskBody uniform_task(const aclTensor* selfRef, double from, double to, uint64_t seed, uint64_t offset) {
  return uniform_body(selfRef, from, to, HostPhilox{philox(seed, offset)}, "aclnnInplaceUniform");
}

TaskBody uniform_tensor_task(const aclTensor* selfRef, double from, double to, const aclTensor* seedTensor,
                             const aclTensor* offsetTensor, uint64_t offset) {
  constexpr const char* op = "aclnnInplaceUniformTensor";
  return uniform_body(selfRef, from, to, device_philox(seedTensor, offsetTensor, offset, op), op);
}

TaskBody normal_task(const aclTensor* selfRef, float mean, float std, int64_t seed, int64_t offset) {
  return normal_body(selfRef, mean, std, HostPhilox{philox(seed, offset)}, "aclnnInplaceNormal");
}

TaskBody normal_tensor_task(const aclTensor* selfRef, float mean, float std, const aclTensor* seedTensor,
                            const aclTensor* offsetTensor, int64_t offset) {
  constexpr const char* op = "aclnnInplaceNormalTensor";
  return normal_body(selfRef, mean, std, device_philox(seedTensor, offsetTensor, offset, op), op);
}

TaskBody random_task(const aclTensor* selfRef, int64_t from, int64_t to, int64_t seed, int64_t offset) {
  return random_body(selfRef, from, to, HostPhilox{philox(seed, offset)}, "aclnnInplaceRandom");
}

TaskBody random_tensor_task(const aclTensor* selfRef, int64_t from, int64_t to, const aclTensor* seedTensor,
                            const aclTensor* offsetTensor, int64_t offset) {
  constexpr const char* op = "aclnnInplaceRandomTensor";
  return random_body(selfRef, from, to, device_philox(seedTensor, offsetTensor, offset, op), op);
}

TaskBody bernoulli_task(const aclTensor* selfRef, const aclScalar* prob, int64_t seed, int64_t offset) {
  require_tensor(selfRef, "selfRef");
  require_scalar(prob, "prob");
  require_real(selfRef, "aclnnInplaceBernoulli", "selfRef");
  const double p = prob->value().to<double>();
  require_probability(p, "aclnnInplaceBernoulli");
  return [o = selfRef->view(), p, rng = philox(seed, offset)] { kernels::bernoulli(o, p, rng); };
}

TaskBody bernoulli_tensor_task(const aclTensor* selfRef, const aclTensor* prob, int64_t seed,
                               int64_t offset) {
  require_tensor(selfRef, "selfRef");
  require_tensor(prob, "prob");
  require_real(selfRef, "aclnnInplaceBernoulliTensor", "selfRef");
  require_real(prob, "aclnnInplaceBernoulliTensor", "prob");
  // Throws (as a parameter error) when prob does not broadcast to selfRef.
  kernels::broadcast_to(prob->view(), selfRef->view_dims);
  return [o = selfRef->view(), p = prob->view(), rng = philox(seed, offset)] { kernels::bernoulli(o, p, rng); };
}

TaskBody randperm_task(int64_t n, int64_t seed, int64_t offset, aclTensor* out) {
  require_tensor(out, "out");
  require_real(out, "aclnnRandperm", "out");
  if (n < 0) fail(ACLNN_ERR_PARAM_INVALID, "aclnnRandperm: n must be non-negative, got " + std::to_string(n));
  require_shape(out, {n}, "out");
  return [o = out->view(), rng = philox(seed, offset)] { kernels::randperm(o, rng); };
}

TaskBody exponential_task(const aclTensor* selfRef, double lambd, int64_t seed, int64_t offset) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "aclnnInplaceExponential", "selfRef");
  if (!(lambd > 0.0)) {
    fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceExponential: expects lambd > 0.0, got " + std::to_string(lambd));
  }
  return [o = selfRef->view(), lambd, rng = philox(seed, offset)] { kernels::exponential(o, lambd, rng); };
}

TaskBody dropout_task(const aclTensor* self, double p, int64_t seed, int64_t offset, aclTensor* out,
                      aclTensor* maskOut) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  require_tensor(maskOut, "maskOut");
  require_floating(self, "aclnnDropout", "self");
  require_probability(p, "aclnnDropout");
  require_shape(out, self->view_dims, "out");
  require_shape(maskOut, self->view_dims, "maskOut");
  if (out->dtype != self->dtype) fail(ACLNN_ERR_PARAM_INVALID, "aclnnDropout: out must have self's dtype");
  if (maskOut->dtype != model::DType::Bool) fail(ACLNN_ERR_PARAM_INVALID, "aclnnDropout: maskOut must be bool");
  return [s = self->view(), o = out->view(), m = maskOut->view(), p, rng = philox(seed, offset)] {
    kernels::dropout(o, m, s, p, rng);
  };
}

TaskBody random_full_range_task(const aclTensor* selfRef, int64_t seed, int64_t offset) {
  return random_full_range_body(selfRef, HostPhilox{philox(seed, offset)}, "aclnnInplaceRandomWithoutFromTo");
}

TaskBody random_full_range_tensor_task(const aclTensor* selfRef, const aclTensor* seedTensor,
                                       const aclTensor* offsetTensor, int64_t offset) {
  constexpr const char* op = "aclnnInplaceRandomWithoutFromToTensor";
  return random_full_range_body(selfRef, device_philox(seedTensor, offsetTensor, offset, op), op);
}

}  // namespace npu::emu
