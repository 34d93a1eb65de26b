#include "emulator/op_launch.h"

#include <memory>

#include "emulator/acl_error.h"
#include "emulator/device.h"
#include "kernels/copy/copy.h"

namespace npu::emu {

void make_executor(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                   std::function<void()> body) {
  auto ex = std::make_unique<aclOpExecutor>();
  ex->op_name = op_name;
  ex->body = std::move(body);
  *workspace_size = 0;  // the emulator needs no device workspace
  *executor = ex.release();
}

aclnnStatus launch_op(const char* api, aclOpExecutor* executor, aclrtStream stream) {
  return guarded(api, [&] {
    if (executor == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "executor is null");
    std::unique_ptr<aclOpExecutor> owned(executor);
    Runtime::get().stream(stream).submit({api, std::move(owned->body), true});
  });
}

void require_shape(const aclTensor* t, const kernels::Shape& shape, const char* name) {
  if (t->view_dims != shape) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " has shape " + kernels::shape_str(t->view_dims) +
                                      ", expected " + kernels::shape_str(shape));
  }
}

ConvertedOperand::ConvertedOperand(const kernels::TensorView& src, model::DType dtype) {
  if (src.dtype == dtype) {
    view_ = src;
    return;
  }
  const int64_t n = src.numel();
  buffer_ = std::make_unique<unsigned char[]>(std::max<std::size_t>(n * model::itemsize(dtype), 1));
  view_ = kernels::TensorView{buffer_.get(), dtype, src.sizes, kernels::contiguous_strides(src.sizes)};
  kernels::copy(view_, src);
}

}  // namespace npu::emu
