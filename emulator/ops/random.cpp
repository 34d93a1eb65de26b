// The random family's task makers (see the generated acl/aclnn_random.h for
// the counter contract). Arguments are checked when the executor is
// prepared, so bad input fails synchronously; the kernels draw from
// (seed, offset) only.
#include "emulator/ops/random.h"

#include <string>

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

}  // namespace

TaskBody uniform_task(const aclTensor* selfRef, double from, double to, uint64_t seed, uint64_t offset) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "aclnnInplaceUniform", "selfRef");
  if (!(from <= to)) {
    fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceUniform: expects from <= to, got from=" + std::to_string(from) +
                                      " to=" + std::to_string(to));
  }
  return [o = selfRef->view(), from, to, rng = philox(seed, offset)] { kernels::uniform(o, from, to, rng); };
}

TaskBody normal_task(const aclTensor* selfRef, float mean, float std, int64_t seed, int64_t offset) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "aclnnInplaceNormal", "selfRef");
  if (!(std >= 0.0f)) fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceNormal: expects std >= 0.0, got " + std::to_string(std));
  return [o = selfRef->view(), mean, std, rng = philox(seed, offset)] { kernels::normal(o, mean, std, rng); };
}

TaskBody random_task(const aclTensor* selfRef, int64_t from, int64_t to, int64_t seed, int64_t offset) {
  require_tensor(selfRef, "selfRef");
  require_real(selfRef, "aclnnInplaceRandom", "selfRef");
  if (!(from < to)) {
    fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceRandom: expects from < to, got from=" + std::to_string(from) +
                                      " to=" + std::to_string(to));
  }
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return [o = selfRef->view(), from, range, rng = philox(seed, offset)] {
    kernels::random_integers(o, from, range, rng);
  };
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

}  // namespace npu::emu
