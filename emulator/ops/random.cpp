// The random family's task makers (see the generated acl/aclnn_random.h for
// the counter contract). Arguments are checked when the executor is
// prepared, so bad input fails synchronously; the kernels draw from
// (seed, offset) only. Messages leave out the op's name: guarded() (the
// entry's prepare_op) puts it in front.
#include "emulator/ops/random.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/random/random_ops.h"

namespace npu::emu {

namespace {

using kernels::PhiloxInputs;

void require_probability(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    fail(ACLNN_ERR_PARAM_INVALID, "the probability must be in [0, 1], got " + std::to_string(p));
  }
}

const int64_t* state_word(const aclTensor* t, const char* name) {
  require_tensor(t, name);
  if (t->dtype != model::DType::Int64 || t->view().numel() != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a one-element int64 tensor, got " +
                                      model::dtype_name(t->dtype) + " of " + std::to_string(t->view().numel()) +
                                      " elements");
  }
  return t->view().ptr<int64_t>();
}

}  // namespace

Philox::Philox(const aclTensor* seedTensor, const aclTensor* offsetTensor, uint64_t offset)
    : base_{0, offset}, seed_(state_word(seedTensor, "seedTensor")), offset_(state_word(offsetTensor, "offsetTensor")) {}

PhiloxInputs Philox::operator()() const {
  if (seed_ == nullptr) return base_;
  return PhiloxInputs{static_cast<uint64_t>(*seed_), static_cast<uint64_t>(*offset_) + base_.offset};
}

TaskBody uniform_task(const aclTensor* selfRef, double from, double to, Philox rng) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "selfRef");
  if (!(from <= to)) {
    fail(ACLNN_ERR_PARAM_INVALID, "expects from <= to, got from=" + std::to_string(from) + " to=" + std::to_string(to));
  }
  return [o = selfRef->view(), from, to, rng] { kernels::uniform(o, from, to, rng()); };
}

TaskBody normal_task(const aclTensor* selfRef, float mean, float std, Philox rng) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "selfRef");
  if (!(std >= 0.0f)) fail(ACLNN_ERR_PARAM_INVALID, "expects std >= 0.0, got " + std::to_string(std));
  return [o = selfRef->view(), mean, std, rng] { kernels::normal(o, mean, std, rng()); };
}

TaskBody random_task(const aclTensor* selfRef, int64_t from, int64_t to, Philox rng) {
  require_tensor(selfRef, "selfRef");
  reject_complex(selfRef, "selfRef");
  if (!(from < to)) {
    fail(ACLNN_ERR_PARAM_INVALID, "expects from < to, got from=" + std::to_string(from) + " to=" + std::to_string(to));
  }
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return [o = selfRef->view(), from, range, rng] { kernels::random_integers(o, from, range, rng()); };
}

TaskBody random_full_range_task(const aclTensor* selfRef, Philox rng) {
  require_tensor(selfRef, "selfRef");
  reject_complex(selfRef, "selfRef");
  const uint64_t range = kernels::full_random_range(selfRef->dtype);
  return [o = selfRef->view(), range, rng] { kernels::random_integers(o, 0, range, rng()); };
}

TaskBody bernoulli_task(const aclTensor* selfRef, const aclScalar* prob, Philox rng) {
  require_tensor(selfRef, "selfRef");
  require_scalar(prob, "prob");
  reject_complex(selfRef, "selfRef");
  const double p = prob->value().to<double>();
  require_probability(p);
  return [o = selfRef->view(), p, rng] { kernels::bernoulli(o, p, rng()); };
}

TaskBody bernoulli_tensor_task(const aclTensor* selfRef, const aclTensor* prob, Philox rng) {
  require_tensor(selfRef, "selfRef");
  require_tensor(prob, "prob");
  reject_complex(selfRef, "selfRef");
  reject_complex(prob, "prob");
  // Throws (as a parameter error) when prob does not broadcast to selfRef.
  kernels::broadcast_to(prob->view(), selfRef->view_dims);
  return [o = selfRef->view(), p = prob->view(), rng] { kernels::bernoulli(o, p, rng()); };
}

TaskBody randperm_task(int64_t n, Philox rng, aclTensor* out) {
  require_tensor(out, "out");
  reject_complex(out, "out");
  if (n < 0) fail(ACLNN_ERR_PARAM_INVALID, "n must be non-negative, got " + std::to_string(n));
  require_shape(out, {n}, "out");
  return [o = out->view(), rng] { kernels::randperm(o, rng()); };
}

TaskBody exponential_task(const aclTensor* selfRef, double lambd, Philox rng) {
  require_tensor(selfRef, "selfRef");
  require_floating(selfRef, "selfRef");
  if (!(lambd > 0.0)) fail(ACLNN_ERR_PARAM_INVALID, "expects lambd > 0.0, got " + std::to_string(lambd));
  return [o = selfRef->view(), lambd, rng] { kernels::exponential(o, lambd, rng()); };
}

TaskBody dropout_task(const aclTensor* self, double p, Philox rng, aclTensor* out, aclTensor* maskOut) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  require_tensor(maskOut, "maskOut");
  require_floating(self, "self");
  require_probability(p);
  require_shape(out, self->view_dims, "out");
  require_shape(maskOut, self->view_dims, "maskOut");
  if (out->dtype != self->dtype) fail(ACLNN_ERR_PARAM_INVALID, "out must have self's dtype");
  if (maskOut->dtype != model::DType::Bool) fail(ACLNN_ERR_PARAM_INVALID, "maskOut must be bool");
  return [s = self->view(), o = out->view(), m = maskOut->view(), p, rng] { kernels::dropout(o, m, s, p, rng()); };
}

}  // namespace npu::emu
