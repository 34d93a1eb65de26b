#include "emulator/ops/torch_npu_extras.h"

#include <algorithm>
#include <memory>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/core/dims.h"
#include "kernels/pointwise/binary_ops.h"
#include "kernels/reduce/reduce.h"

namespace npu::emu {

TaskBody equal_task(const aclTensor* self, const aclTensor* other, aclTensor* out) {
  require_tensor(self, "self");
  require_tensor(other, "other");
  require_tensor(out, "out");
  const kernels::TensorView o = out->view();
  if (o.dtype != model::DType::Bool || o.numel() != 1 || o.dim() > 1) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("aclnnEqual: out must be bool of shape [1] or [], got ") +
                                      model::dtype_name(o.dtype) + " " + kernels::shape_str(o.sizes));
  }
  const bool same_shape = self->view_dims == other->view_dims;
  // Written through a 0-dim view of out's one element.
  return [a = self->view(), b = other->view(), result = kernels::TensorView{o.data, o.dtype, {}, {}}, same_shape] {
    if (!same_shape) {
      *result.ptr<bool>() = false;
      return;
    }
    const int64_t n = a.numel();
    const std::unique_ptr<bool[]> buffer(new bool[static_cast<std::size_t>(std::max<int64_t>(n, 1))]);
    const kernels::TensorView eq{buffer.get(), model::DType::Bool, a.sizes, kernels::contiguous_strides(a.sizes)};
    kernels::binary(kernels::BinaryFn::Eq, eq, a, b);
    kernels::reduce_all(result, eq, kernels::dim_mask({}, eq.dim()));
  };
}

}  // namespace npu::emu
