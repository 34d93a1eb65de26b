// eq, ne, lt, le, gt, ge on npu: bool results (in-place forms keep self's
// dtype), Tensor and Scalar overloads, through aclnn<Op>Tensor/<Op>Scalar.
// Not commutative for a CPU-scalar self: swapping would turn lt into gt.
#include "dispatch/ops/binary_op.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

constexpr BinaryOp kEq{"eq", [] { return NPU_BINARY_LAUNCH(aclnnEqTensor, aclnnEqScalar, false, ResultKind::kBool); },
                       "eq.Tensor", "eq_.Tensor", "eq.Tensor_out"};
constexpr BinaryOp kNe{"ne", [] { return NPU_BINARY_LAUNCH(aclnnNeTensor, aclnnNeScalar, false, ResultKind::kBool); },
                       "ne.Tensor", "ne_.Tensor", "ne.Tensor_out"};
constexpr BinaryOp kLt{"lt", [] { return NPU_BINARY_LAUNCH(aclnnLtTensor, aclnnLtScalar, false, ResultKind::kBool); },
                       "lt.Tensor", "lt_.Tensor", "lt.Tensor_out"};
constexpr BinaryOp kLe{"le", [] { return NPU_BINARY_LAUNCH(aclnnLeTensor, aclnnLeScalar, false, ResultKind::kBool); },
                       "le.Tensor", "le_.Tensor", "le.Tensor_out"};
constexpr BinaryOp kGt{"gt", [] { return NPU_BINARY_LAUNCH(aclnnGtTensor, aclnnGtScalar, false, ResultKind::kBool); },
                       "gt.Tensor", "gt_.Tensor", "gt.Tensor_out"};
constexpr BinaryOp kGe{"ge", [] { return NPU_BINARY_LAUNCH(aclnnGeTensor, aclnnGeScalar, false, ResultKind::kBool); },
                       "ge.Tensor", "ge_.Tensor", "ge.Tensor_out"};

// Six schemas per comparison: {Tensor, Scalar} x {functional, in-place, out=}.
template <const BinaryOp& Op>
void register_comparison(torch::Library& m) {
  const std::string name = Op.name;
  const auto schema = [&](const char* suffix) { return name + suffix; };
  register_binary<Op>(m);
  register_binary_scalar<Op>(m, schema(".Scalar").c_str(), schema("_.Scalar").c_str(), schema(".Scalar_out").c_str());
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_comparison<kEq>(m);
  register_comparison<kNe>(m);
  register_comparison<kLt>(m);
  register_comparison<kLe>(m);
  register_comparison<kGt>(m);
  register_comparison<kGe>(m);
}

}  // namespace npu::ops
