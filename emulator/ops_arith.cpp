// aclnn entries of the arithmetic family. Operands of another dtype are
// converted to the output's dtype before the kernel runs (the result dtype is
// the caller's choice, as in CANN where `out` fixes the promoted type).
#include "acl/aclnn_arith.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/arith.h"

using npu::emu::ConvertedOperand;
using npu::emu::prepare_op;
using npu::kernels::TensorView;

namespace {

// A 0-dim view of a scalar's bytes (captured by value in the task).
TensorView scalar_view(aclScalar& s) { return TensorView{s.bytes.data(), s.dtype, {}, {}}; }

// Validates a binary op's tensors and returns the broadcast shape.
npu::kernels::Shape check_binary(const aclTensor* self, const aclTensor* other, const aclTensor* out) {
  npu::emu::require_tensor(self, "self");
  npu::emu::require_tensor(other, "other");
  npu::emu::require_tensor(out, "out");
  const auto shape = npu::kernels::broadcast_shapes(self->view_dims, other->view_dims);
  npu::emu::require_shape(out, shape, "out");
  return shape;
}

void check_unary_scalar(const aclTensor* self, const aclScalar* other, const aclTensor* out) {
  npu::emu::require_tensor(self, "self");
  npu::emu::require_scalar(other, "other");
  npu::emu::require_tensor(out, "out");
  npu::emu::require_shape(out, self->view_dims, "out");
}

}  // namespace

extern "C" {

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other, const aclScalar* alpha,
                                     aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnAdd", workspaceSize, executor, [&] {
    check_binary(self, other, out);
    npu::emu::require_scalar(alpha, "alpha");
    return std::function<void()>([a = self->view(), b = other->view(), o = out->view(), al = alpha->value()] {
      const ConvertedOperand x(a, o.dtype), y(b, o.dtype);
      npu::kernels::add(o, x.view(), y.view(), al);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnAdd)

aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnAdds", workspaceSize, executor, [&] {
    check_unary_scalar(self, other, out);
    npu::emu::require_scalar(alpha, "alpha");
    return std::function<void()>([a = self->view(), b = *other, o = out->view(), al = alpha->value()]() mutable {
      const ConvertedOperand x(a, o.dtype), y(scalar_view(b), o.dtype);
      npu::kernels::add(o, x.view(), y.view(), al);
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnAdds)

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnMul", workspaceSize, executor, [&] {
    check_binary(self, other, out);
    return std::function<void()>([a = self->view(), b = other->view(), o = out->view()] {
      const ConvertedOperand x(a, o.dtype), y(b, o.dtype);
      npu::kernels::mul(o, x.view(), y.view());
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnMul)

aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnMuls", workspaceSize, executor, [&] {
    check_unary_scalar(self, other, out);
    return std::function<void()>([a = self->view(), b = *other, o = out->view()]() mutable {
      const ConvertedOperand x(a, o.dtype), y(scalar_view(b), o.dtype);
      npu::kernels::mul(o, x.view(), y.view());
    });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnMuls)

}  // extern "C"
