// The forward activations' task makers (kernels/activation/activation.h).
#include "emulator/ops/activation.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"

namespace npu::emu {

namespace kn = kernels;

namespace {

kn::Scalar scalar_or_zero(const aclScalar* s, const char* name) {
  if (s == nullptr) return kn::Scalar::from_double(0.0);
  require_scalar(s, name);
  return s->value();
}

// out has self's shape and a real floating dtype.
void check_unary_out(const aclTensor* self, aclTensor* out) {
  require_floating(out, "out");
  reject_complex(out, "out");
  require_shape(out, self->view_dims, "out");
}

}  // namespace

TaskBody activation_task(kn::Activation fn, const aclTensor* self, const aclScalar* a, const aclScalar* b,
                         const aclScalar* c, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  check_unary_out(self, out);
  const kn::ActivationParams p{scalar_or_zero(a, "scalar argument"), scalar_or_zero(b, "scalar argument"),
                               scalar_or_zero(c, "scalar argument")};
  return [fn, p, v] { kn::activation(fn, p, v[1], v[0]); };
}

TaskBody logit_task(const aclTensor* input, double eps, aclTensor* out) {
  const auto v = require_views<2>({{{input, "input"}, {out, "out"}}});
  check_unary_out(input, out);
  kn::ActivationParams p;
  p.a = kn::Scalar::from_double(eps);
  return [p, v] { kn::activation(kn::Activation::Logit, p, v[1], v[0]); };
}

TaskBody log_sigmoid_forward_task(const aclTensor* self, aclTensor* out, aclTensor* buffer) {
  const auto v = require_views<3>({{{self, "self"}, {out, "out"}, {buffer, "buffer"}}});
  check_unary_out(self, out);
  require_shape(buffer, self->view_dims, "buffer");
  if (buffer->dtype != out->dtype) fail_dtype(buffer, "buffer", "out's dtype");
  return [v] { kn::log_sigmoid_forward(v[1], v[2], v[0]); };
}

TaskBody rrelu_with_noise_task(const aclTensor* self, const aclTensor* noise, const aclScalar* lower,
                               const aclScalar* upper, bool training, int64_t seed, int64_t offset, aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {noise, "noise"}, {out, "out"}}});
  check_unary_out(self, out);
  require_shape(noise, self->view_dims, "noise");
  if (noise->dtype != out->dtype) fail_dtype(noise, "noise", "out's dtype");
  require_scalar(lower, "lower");
  require_scalar(upper, "upper");
  const double lo = lower->value().to<double>(), hi = upper->value().to<double>();
  if (lo > hi) fail(ACLNN_ERR_PARAM_INVALID, "lower must be <= upper");
  const kn::PhiloxInputs rng{static_cast<uint64_t>(seed), static_cast<uint64_t>(offset)};
  return [v, lo, hi, training, rng] { kn::rrelu_with_noise(v[2], v[1], v[0], lo, hi, training, rng); };
}

int64_t glu_dim(int64_t dim, const aclTensor* t) {
  const auto rank = static_cast<int64_t>(t->view_dims.size());
  if (rank == 0) fail(ACLNN_ERR_PARAM_INVALID, "glu does not support scalars because halving size must be even");
  if (dim < -rank || dim >= rank) {
    fail(ACLNN_ERR_PARAM_INVALID,
         "dim " + std::to_string(dim) + " is out of range for a " + std::to_string(rank) + "-dim tensor");
  }
  const int64_t d = dim < 0 ? dim + rank : dim;
  if (t->view_dims[static_cast<std::size_t>(d)] % 2 != 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "halving dimension must be even, but dimension " + std::to_string(d) + " is size " +
                                      std::to_string(t->view_dims[static_cast<std::size_t>(d)]));
  }
  return d;
}

TaskBody glu_task(const aclTensor* self, int64_t dim, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_floating(out, "out");
  reject_complex(out, "out");
  const int64_t d = glu_dim(dim, self);
  auto shape = self->view_dims;
  shape[static_cast<std::size_t>(d)] /= 2;
  require_shape(out, shape, "out");
  return [v, d] { kn::glu(v[1], v[0], d); };
}

TaskBody prelu_task(const aclTensor* self, const aclTensor* weight, aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {weight, "weight"}, {out, "out"}}});
  require_floating(out, "out");
  reject_complex(out, "out");
  require_broadcast_shape(out, "out", v[0].sizes, v[1].sizes, "weight and self");
  return [v] { kn::prelu(v[2], v[0], v[1]); };
}

}  // namespace npu::emu
