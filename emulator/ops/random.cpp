// aclnn entries of the random family (see acl/aclnn_random.h for the
// counter contract). Arguments are checked when the executor is prepared, so
// bad input fails synchronously; the kernels draw from (seed, offset) only.
#include <string>

#include "acl/aclnn_random.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/random/random_ops.h"

using npu::emu::fail;
using npu::emu::prepare_op;
using npu::kernels::PhiloxInputs;

namespace {

void require_floating(const aclTensor* t, const char* op, const char* name) {
  if (!npu::model::is_floating_point(t->dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + name + " must have a floating point dtype, got " +
                                      npu::model::dtype_name(t->dtype));
  }
}

void require_real(const aclTensor* t, const char* op, const char* name) {
  if (npu::model::is_complex(t->dtype)) {
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

extern "C" {

aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor* selfRef, double from, double to, uint64_t seed,
                                                uint64_t offset, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceUniform", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    require_floating(selfRef, "aclnnInplaceUniform", "selfRef");
    if (!(from <= to)) {
      fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceUniform: expects from <= to, got from=" + std::to_string(from) +
                                        " to=" + std::to_string(to));
    }
    return std::function<void()>([o = selfRef->view(), from, to, rng = philox(seed, offset)] {
      npu::kernels::uniform(o, from, to, rng);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceUniform)

aclnnStatus aclnnInplaceNormalGetWorkspaceSize(const aclTensor* selfRef, float mean, float std, int64_t seed,
                                               int64_t offset, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceNormal", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    require_floating(selfRef, "aclnnInplaceNormal", "selfRef");
    if (!(std >= 0.0f)) fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceNormal: expects std >= 0.0, got " + std::to_string(std));
    return std::function<void()>([o = selfRef->view(), mean, std, rng = philox(seed, offset)] {
      npu::kernels::normal(o, mean, std, rng);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceNormal)

aclnnStatus aclnnInplaceRandomGetWorkspaceSize(const aclTensor* selfRef, int64_t from, int64_t to, int64_t seed,
                                               int64_t offset, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceRandom", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    require_real(selfRef, "aclnnInplaceRandom", "selfRef");
    if (!(from < to)) {
      fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceRandom: expects from < to, got from=" + std::to_string(from) +
                                        " to=" + std::to_string(to));
    }
    const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
    return std::function<void()>([o = selfRef->view(), from, range, rng = philox(seed, offset)] {
      npu::kernels::random_integers(o, from, range, rng);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceRandom)

aclnnStatus aclnnInplaceBernoulliGetWorkspaceSize(const aclTensor* selfRef, const aclScalar* prob, int64_t seed,
                                                  int64_t offset, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceBernoulli", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    npu::emu::require_scalar(prob, "prob");
    require_real(selfRef, "aclnnInplaceBernoulli", "selfRef");
    const double p = prob->value().to<double>();
    require_probability(p, "aclnnInplaceBernoulli");
    return std::function<void()>([o = selfRef->view(), p, rng = philox(seed, offset)] {
      npu::kernels::bernoulli(o, p, rng);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceBernoulli)

aclnnStatus aclnnInplaceBernoulliTensorGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* prob,
                                                        int64_t seed, int64_t offset, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceBernoulliTensor", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    npu::emu::require_tensor(prob, "prob");
    require_real(selfRef, "aclnnInplaceBernoulliTensor", "selfRef");
    require_real(prob, "aclnnInplaceBernoulliTensor", "prob");
    // Throws (as a parameter error) when prob does not broadcast to selfRef.
    npu::kernels::broadcast_to(prob->view(), selfRef->view_dims);
    return std::function<void()>([o = selfRef->view(), p = prob->view(), rng = philox(seed, offset)] {
      npu::kernels::bernoulli(o, p, rng);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceBernoulliTensor)

aclnnStatus aclnnRandpermGetWorkspaceSize(int64_t n, int64_t seed, int64_t offset, aclTensor* out,
                                          uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnRandperm", workspaceSize, executor, [&] {
    npu::emu::require_tensor(out, "out");
    require_real(out, "aclnnRandperm", "out");
    if (n < 0) fail(ACLNN_ERR_PARAM_INVALID, "aclnnRandperm: n must be non-negative, got " + std::to_string(n));
    npu::emu::require_shape(out, {n}, "out");
    return std::function<void()>([o = out->view(), rng = philox(seed, offset)] { npu::kernels::randperm(o, rng); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnRandperm)

aclnnStatus aclnnInplaceExponentialGetWorkspaceSize(const aclTensor* selfRef, double lambd, int64_t seed,
                                                    int64_t offset, uint64_t* workspaceSize,
                                                    aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceExponential", workspaceSize, executor, [&] {
    npu::emu::require_tensor(selfRef, "selfRef");
    require_floating(selfRef, "aclnnInplaceExponential", "selfRef");
    if (!(lambd > 0.0)) {
      fail(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceExponential: expects lambd > 0.0, got " + std::to_string(lambd));
    }
    return std::function<void()>([o = selfRef->view(), lambd, rng = philox(seed, offset)] {
      npu::kernels::exponential(o, lambd, rng);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceExponential)

aclnnStatus aclnnDropoutGetWorkspaceSize(const aclTensor* self, double p, int64_t seed, int64_t offset, aclTensor* out,
                                         aclTensor* maskOut, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnDropout", workspaceSize, executor, [&] {
    npu::emu::require_tensor(self, "self");
    npu::emu::require_tensor(out, "out");
    npu::emu::require_tensor(maskOut, "maskOut");
    require_floating(self, "aclnnDropout", "self");
    require_probability(p, "aclnnDropout");
    npu::emu::require_shape(out, self->view_dims, "out");
    npu::emu::require_shape(maskOut, self->view_dims, "maskOut");
    if (out->dtype != self->dtype) fail(ACLNN_ERR_PARAM_INVALID, "aclnnDropout: out must have self's dtype");
    if (maskOut->dtype != npu::model::DType::Bool) fail(ACLNN_ERR_PARAM_INVALID, "aclnnDropout: maskOut must be bool");
    return std::function<void()>([s = self->view(), o = out->view(), m = maskOut->view(), p,
                                  rng = philox(seed, offset)] { npu::kernels::dropout(o, m, s, p, rng); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnDropout)

}  // extern "C"
