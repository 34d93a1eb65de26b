// clamp, clamp_min, clamp_max on npu, with scalar bounds (aclnnClamp,
// aclnnClampMin/Max) and tensor bounds (aclnnClampTensor, aclnnClampMin/MaxTensor).
// The result dtype promotes self with the bounds, as PyTorch does. Operand
// dtypes the kernels do not cover (bool) run through the counted CPU fallback.
#include <ATen/native/TypeProperties.h>
#include <torch/library.h>

#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/pointwise_op.h"

namespace npu::ops {

namespace {

using Tensor = at::Tensor;
using Scalar = at::Scalar;
using OptScalar = std::optional<Scalar>;
using OptTensor = std::optional<Tensor>;

void check_bounds(bool has_min, bool has_max) {
  TORCH_CHECK(has_min || has_max, "torch.clamp: At least one of 'min' or 'max' must not be None");
}

// ---- scalar bounds ------------------------------------------------------------

at::ScalarType scalar_bounds_dtype(const Tensor& self, const OptScalar& min, const OptScalar& max) {
  std::vector<Tensor> operands{self};
  if (min) operands.push_back(at::native::wrapped_scalar_tensor(*min));
  if (max) operands.push_back(at::native::wrapped_scalar_tensor(*max));
  return at::native::result_type(at::ArrayRef<Tensor>(operands));
}

void launch_scalar_bounds(const Tensor& self, const OptScalar& min, const OptScalar& max, const Tensor& out) {
  if (min && max) {
    NPU_RUN(aclnnClamp, self, min, max, out);
  } else if (min) {
    NPU_RUN(aclnnClampMin, self, *min, out);
  } else {
    NPU_RUN(aclnnClampMax, self, *max, out);
  }
}

Tensor& clamp_out(const Tensor& self, const OptScalar& min, const OptScalar& max, Tensor& out) {
  check_bounds(min.has_value(), max.has_value());
  const at::ScalarType r = scalar_bounds_dtype(self, min, max);
  return native_or_fallback_into(
      out, "clamp.out",
      [&]() -> Tensor& {
        return pointwise_out("clamp", {self}, r, r, out,
                             [&](at::TensorList t, const Tensor& o) { launch_scalar_bounds(t[0], min, max, o); });
      },
      self, min, max, out);
}
Tensor clamp_scalar(const Tensor& self, const OptScalar& min, const OptScalar& max) {
  check_bounds(min.has_value(), max.has_value());
  const at::ScalarType r = scalar_bounds_dtype(self, min, max);
  return native_or_fallback(
      "clamp",
      [&] {
        return pointwise("clamp", {self}, r, r,
                         [&](at::TensorList t, const Tensor& o) { launch_scalar_bounds(t[0], min, max, o); });
      },
      self, min, max);
}
Tensor& clamp_(Tensor& self, const OptScalar& min, const OptScalar& max) { return clamp_out(self, min, max, self); }

Tensor clamp_min(const Tensor& self, const Scalar& min) { return clamp_scalar(self, min, std::nullopt); }
Tensor& clamp_min_out(const Tensor& self, const Scalar& min, Tensor& out) {
  return clamp_out(self, min, std::nullopt, out);
}
Tensor& clamp_min_(Tensor& self, const Scalar& min) { return clamp_out(self, min, std::nullopt, self); }
Tensor clamp_max(const Tensor& self, const Scalar& max) { return clamp_scalar(self, std::nullopt, max); }
Tensor& clamp_max_out(const Tensor& self, const Scalar& max, Tensor& out) {
  return clamp_out(self, std::nullopt, max, out);
}
Tensor& clamp_max_(Tensor& self, const Scalar& max) { return clamp_out(self, std::nullopt, max, self); }

// ---- tensor bounds --------------------------------------------------------------

// operands: self, then the bounds present (min first).
void launch_tensor_bounds(at::TensorList t, bool has_min, bool has_max, const Tensor& out) {
  if (has_min && has_max) {
    NPU_RUN(aclnnClampTensor, t[0], t[1], t[2], out);
  } else if (has_min) {
    NPU_RUN(aclnnClampMinTensor, t[0], t[1], out);
  } else {
    NPU_RUN(aclnnClampMaxTensor, t[0], t[1], out);
  }
}

struct TensorBounds {
  std::vector<Tensor> operands;  // self, min?, max?
  bool has_min, has_max;
  at::ScalarType dtype;
};
TensorBounds tensor_bounds(const Tensor& self, const OptTensor& min, const OptTensor& max) {
  const bool has_min = min.has_value() && min->defined();
  const bool has_max = max.has_value() && max->defined();
  check_bounds(has_min, has_max);
  std::vector<Tensor> operands{self};
  if (has_min) operands.push_back(*min);
  if (has_max) operands.push_back(*max);
  const at::ScalarType dtype = at::native::result_type(at::ArrayRef<Tensor>(operands));
  return {std::move(operands), has_min, has_max, dtype};
}

Tensor& clamp_tensor_out(const Tensor& self, const OptTensor& min, const OptTensor& max, Tensor& out) {
  const TensorBounds b = tensor_bounds(self, min, max);
  return native_or_fallback_into(
      out, "clamp.Tensor_out",
      [&]() -> Tensor& {
        return pointwise_out("clamp", b.operands, b.dtype, b.dtype, out, [&](at::TensorList t, const Tensor& o) {
          launch_tensor_bounds(t, b.has_min, b.has_max, o);
        });
      },
      self, min, max, out);
}
Tensor clamp_tensor(const Tensor& self, const OptTensor& min, const OptTensor& max) {
  const TensorBounds b = tensor_bounds(self, min, max);
  return native_or_fallback(
      "clamp.Tensor",
      [&] {
        return pointwise("clamp", b.operands, b.dtype, b.dtype,
                         [&](at::TensorList t, const Tensor& o) { launch_tensor_bounds(t, b.has_min, b.has_max, o); });
      },
      self, min, max);
}
Tensor& clamp_tensor_(Tensor& self, const OptTensor& min, const OptTensor& max) {
  const TensorBounds b = tensor_bounds(self, min, max);
  return native_or_fallback_into(
      self, "clamp_.Tensor",
      [&]() -> Tensor& {
        return pointwise_("clamp_", self, b.operands, b.dtype, b.dtype, [&](at::TensorList t, const Tensor& o) {
          launch_tensor_bounds(t, b.has_min, b.has_max, o);
        });
      },
      self, min, max);
}

Tensor clamp_min_tensor(const Tensor& self, const Tensor& min) { return clamp_tensor(self, min, std::nullopt); }
Tensor& clamp_min_tensor_out(const Tensor& self, const Tensor& min, Tensor& out) {
  return clamp_tensor_out(self, min, std::nullopt, out);
}
Tensor& clamp_min_tensor_(Tensor& self, const Tensor& min) { return clamp_tensor_(self, min, std::nullopt); }
Tensor clamp_max_tensor(const Tensor& self, const Tensor& max) { return clamp_tensor(self, std::nullopt, max); }
Tensor& clamp_max_tensor_out(const Tensor& self, const Tensor& max, Tensor& out) {
  return clamp_tensor_out(self, std::nullopt, max, out);
}
Tensor& clamp_max_tensor_(Tensor& self, const Tensor& max) { return clamp_tensor_(self, std::nullopt, max); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("clamp", TORCH_FN(clamp_scalar));
  m.impl("clamp.out", TORCH_FN(clamp_out));
  m.impl("clamp_", TORCH_FN(clamp_));
  m.impl("clamp.Tensor", TORCH_FN(clamp_tensor));
  m.impl("clamp.Tensor_out", TORCH_FN(clamp_tensor_out));
  m.impl("clamp_.Tensor", TORCH_FN(clamp_tensor_));
  m.impl("clamp_min", TORCH_FN(clamp_min));
  m.impl("clamp_min.out", TORCH_FN(clamp_min_out));
  m.impl("clamp_min_", TORCH_FN(clamp_min_));
  m.impl("clamp_min.Tensor", TORCH_FN(clamp_min_tensor));
  m.impl("clamp_min.Tensor_out", TORCH_FN(clamp_min_tensor_out));
  m.impl("clamp_min_.Tensor", TORCH_FN(clamp_min_tensor_));
  m.impl("clamp_max", TORCH_FN(clamp_max));
  m.impl("clamp_max.out", TORCH_FN(clamp_max_out));
  m.impl("clamp_max_", TORCH_FN(clamp_max_));
  m.impl("clamp_max.Tensor", TORCH_FN(clamp_max_tensor));
  m.impl("clamp_max.Tensor_out", TORCH_FN(clamp_max_tensor_out));
  m.impl("clamp_max_.Tensor", TORCH_FN(clamp_max_tensor_));
}

}  // namespace npu::ops
