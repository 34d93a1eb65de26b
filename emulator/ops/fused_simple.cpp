// The task makers of ops/table/fused_simple.yaml (kernels/fused_simple/).
#include "emulator/ops/fused_simple.h"

#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/fused_simple/fast_gelu.h"

namespace npu::emu {

namespace kn = kernels;

TaskBody fast_gelu_task(const aclTensor* self, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_floating(self, "self");
  reject_complex(self, "self");
  require_floating(out, "out");
  reject_complex(out, "out");
  require_shape(out, self->view_dims, "out");
  return [v] { kn::fast_gelu(v[1], v[0]); };
}

TaskBody fast_gelu_backward_task(const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput) {
  const auto v = require_views<3>({{{gradOutput, "gradOutput"}, {self, "self"}, {gradInput, "gradInput"}}});
  for (const auto& [t, name] : {std::pair{gradOutput, "gradOutput"}, std::pair{self, "self"}}) {
    require_floating(t, name);
    reject_complex(t, name);
  }
  require_floating(gradInput, "gradInput");
  reject_complex(gradInput, "gradInput");
  require_shape(gradOutput, self->view_dims, "gradOutput");
  require_shape(gradInput, self->view_dims, "gradInput");
  return [v] { kn::fast_gelu_backward(v[2], v[0], v[1]); };
}

}  // namespace npu::emu
