#include "dispatch/ops/pointwise_op.h"

#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>

#include "dispatch/ops/factory.h"

namespace npu::ops {

at::ScalarType result_dtype(ResultKind kind, at::ScalarType promoted) {
  switch (kind) {
    case ResultKind::kPromoted: return promoted;
    case ResultKind::kFloating:
      return at::isIntegralType(promoted, /*includeBool=*/true) ? at::get_default_dtype_as_scalartype() : promoted;
    case ResultKind::kBool: return at::kBool;
    case ResultKind::kReal: return at::toRealValueType(promoted);
  }
  TORCH_INTERNAL_ASSERT(false, "unknown ResultKind");
}

bool is_cpu_scalar(const at::Tensor& t) { return t.defined() && t.is_cpu() && t.dim() == 0; }

namespace {

template <class Operands>
at::Device common_device(const char* name, const Operands& operands) {
  std::optional<at::Device> device;
  for (const at::Tensor* t : operands) {
    if (!t->defined() || !t->is_privateuseone()) continue;
    if (!device) device = t->device();
    TORCH_CHECK(t->device() == *device, "Expected all tensors to be on the same device, but found at least two devices, ",
                *device, " and ", t->device(), "! (when checking arguments for ", name, ")");
  }
  for (const at::Tensor* t : operands) {
    TORCH_CHECK(!t->defined() || t->is_privateuseone() || is_cpu_scalar(*t),
                "Expected all tensors to be on the same device, but found at least two devices, ",
                device ? *device : at::Device(c10::DeviceType::PrivateUse1), " and ", t->device(),
                "! (when checking arguments for ", name, ")");
  }
  TORCH_CHECK(device.has_value(), name, ": expected at least one npu tensor operand");
  return *device;
}

}  // namespace

at::Device pointwise_device(const char* name, at::TensorList operands) {
  c10::SmallVector<const at::Tensor*, 4> pointers;
  for (const at::Tensor& t : operands) pointers.push_back(&t);
  return common_device(name, pointers);
}

at::Device pointwise_device(const char* name, std::initializer_list<const at::Tensor*> operands) {
  return common_device(name, operands);
}

at::Tensor new_pointwise_result(at::IntArrayRef shape, at::ScalarType dtype, at::Device device,
                                const at::Tensor& like) {
  if (like.defined() && like.is_privateuseone() && like.sizes() == shape && !like.is_contiguous() &&
      like.is_non_overlapping_and_dense()) {
    return empty_strided_npu(shape, like.strides(), dtype, device);
  }
  return empty_npu(shape, dtype, device);
}

void prepare_out(const char* name, at::Tensor& out, at::IntArrayRef shape, at::ScalarType result,
                 at::TensorList inputs) {
  TORCH_CHECK(out.is_privateuseone(), name, ": out= must be an npu tensor, got one on ", out.device());
  TORCH_CHECK(at::canCast(result, out.scalar_type()), "result type ", result,
              " can't be cast to the desired output type ", out.scalar_type());
  at::native::resize_output(out, shape);
  at::assert_no_internal_overlap(out);
  for (const at::Tensor& in : inputs) {
    if (in.defined() && in.is_privateuseone()) at::assert_no_partial_overlap(out, in);
  }
}

void launch_into(const at::Tensor& out, at::ScalarType result, c10::function_ref<void(const at::Tensor&)> launch) {
  if (out.numel() == 0) return;
  if (out.scalar_type() == result) {
    launch(out);
    return;
  }
  const at::Tensor tmp = empty_npu(out.sizes(), result, out.device());
  launch(tmp);
  out.copy_(tmp);
}

void check_inplace_shape(const at::Tensor& self, at::IntArrayRef shape) {
  TORCH_CHECK(shape == self.sizes(), "output with shape ", self.sizes(), " doesn't match the broadcast shape ", shape);
}

at::Tensor on_device(const at::Tensor& t, at::Device device, at::ScalarType dtype) {
  if (!t.defined() || t.is_privateuseone()) return t;
  return t.to(device, dtype);
}

namespace {

at::DimVector broadcast_shape(at::TensorList operands) {
  at::DimVector shape;
  for (const at::Tensor& t : operands) {
    if (t.defined()) shape = at::infer_size_dimvector(shape, t.sizes());
  }
  return shape;
}

void launch_on(at::TensorList operands, at::ScalarType compute, at::ScalarType result, const at::Tensor& out,
               PointwiseLaunch launch) {
  if (out.numel() == 0) return;
  c10::SmallVector<at::Tensor, 4> on_npu;
  for (const at::Tensor& t : operands) on_npu.push_back(on_device(t, out.device(), compute));
  launch_into(out, result, [&](const at::Tensor& o) { launch(on_npu, o); });
}

}  // namespace

at::Tensor& pointwise_out(const char* name, at::TensorList operands, at::ScalarType compute, at::ScalarType result,
                          at::Tensor& out, PointwiseLaunch launch) {
  c10::SmallVector<at::Tensor, 4> all(operands.begin(), operands.end());
  all.push_back(out);
  pointwise_device(name, all);
  prepare_out(name, out, broadcast_shape(operands), result, operands);
  launch_on(operands, compute, result, out, launch);
  return out;
}

at::Tensor pointwise(const char* name, at::TensorList operands, at::ScalarType compute, at::ScalarType result,
                     PointwiseLaunch launch) {
  const at::Device device = pointwise_device(name, operands);
  at::Tensor out = new_pointwise_result(broadcast_shape(operands), result, device, operands[0]);
  launch_on(operands, compute, result, out, launch);
  return out;
}

at::Tensor& pointwise_(const char* name, at::Tensor& self, at::TensorList operands, at::ScalarType compute,
                       at::ScalarType result, PointwiseLaunch launch) {
  check_inplace_shape(self, broadcast_shape(operands));
  return pointwise_out(name, operands, compute, result, self, launch);
}

}  // namespace npu::ops
