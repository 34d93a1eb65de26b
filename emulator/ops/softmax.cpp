// The softmax family's task makers (kernels/softmax/softmax.h).
#include "emulator/ops/softmax.h"

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/core/dims.h"
#include "kernels/softmax/softmax.h"

namespace npu::emu {

namespace kn = kernels;

namespace {

// dim wrapped against self's rank (a 0-dim tensor takes 0 or -1).
int64_t softmax_dim(int64_t dim, const kn::TensorView& t) {
  const int64_t rank = std::max<int64_t>(t.dim(), 1);
  if (dim < -rank || dim >= rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "dim " + std::to_string(dim) + " is out of range for a " +
                                      std::to_string(t.dim()) + "-dim tensor");
  }
  return t.dim() == 0 ? 0 : (dim < 0 ? dim + rank : dim);
}

}  // namespace

TaskBody softmax_task(bool log, const aclTensor* self, int64_t dim, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_floating(self, "self");
  require_floating(out, "out");
  require_shape(out, self->view_dims, "out");
  const int64_t d = softmax_dim(dim, v[0]);
  return [v, d, log] { kn::softmax(v[1], v[0], d, log); };
}

TaskBody softmax_backward_task(bool log, const aclTensor* gradOutput, const aclTensor* output, int64_t dim,
                               aclTensor* out) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {output, "output"}, {out, "out"}}});
  require_floating(gradOutput, "gradOutput");
  require_floating(output, "output");
  require_floating(out, "out");
  require_shape(gradOutput, output->view_dims, "gradOutput");
  require_shape(out, output->view_dims, "out");
  const int64_t d = softmax_dim(dim, v[1]);
  return [v, d, log] { kn::softmax_backward(v[2], v[0], v[1], d, log); };
}

}  // namespace npu::emu
