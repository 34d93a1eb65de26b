// arange, linspace and eye on npu (aclnnArange, aclnnLinspace, aclnnEye):
// the out= forms ops/table/factory.yaml registers. Their functional forms
// are PyTorch's composites: empty + these out= forms.
#include <ATen/MemoryOverlap.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"

namespace npu::ops {

namespace {

using Tensor = at::Tensor;
using Scalar = at::Scalar;

// Runs `launch` on a dense tensor of `shape` holding out's elements: out
// itself when contiguous (viewed as `shape`), else a contiguous temporary
// copied into out's own shape and strides. The caller has sized out: CPU
// keeps an out whose element count already matches, whatever its shape
// (linspace into a 2x2 view writes the 2x2 view row by row).
template <class Launch>
Tensor& fill_range(Tensor& out, at::IntArrayRef shape, Launch launch) {
  if (out.numel() == 0) return out;
  if (out.is_contiguous()) {
    launch(out.sizes() == shape ? out : out.view(shape));
  } else {
    const Tensor dense = empty_npu(shape, out.scalar_type(), out.device());
    launch(dense);
    out.copy_(dense.view(out.sizes()));
  }
  return out;
}

// arange and linspace resize out only when its element count differs, as
// CPU does, and refuse an out whose elements share memory (eye does not: CPU
// fills an expanded eye out).
void check_range_out(Tensor& out, int64_t numel) {
  TORCH_CHECK(out.is_privateuseone(), "out= must be an npu tensor, got one on ", out.device());
  if (out.numel() != numel) out.resize_({numel});
  at::assert_no_internal_overlap(out);
}

}  // namespace

Tensor& arange_out(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const at::ScalarType dtype = out.scalar_type();
  if (!run_native(table::caps::aclnnArange, "arange.start_out", {dtype})) {
    return fallback_call<Tensor&>("arange.start_out", start, end, step, out);
  }
  // PyTorch's own length rule and argument checks, run on the meta device.
  const Tensor shape_only = at::arange(start, end, step, at::TensorOptions().dtype(dtype).device(at::kMeta));
  check_range_out(out, shape_only.numel());
  if (!at::isIntegralType(dtype, /*includeBool=*/false)) {
    return fill_range(out, shape_only.sizes(), [&](const Tensor& o) { NPU_RUN(aclnnArange, start, end, step, o); });
  }
  // Integer ranges step from the start and step truncated to int64, while
  // their length comes from the untruncated bounds (for int64, from the
  // truncated ones): arange(0., -8.000001, -4.) has 3 int32 elements but 2
  // int64 ones. The entry derives the length from its bounds, so it gets the
  // end that gives PyTorch's length.
  const int64_t first = start.to<int64_t>(), stride = step.to<int64_t>();
  const Scalar exact_end(first + shape_only.numel() * stride);
  return fill_range(out, shape_only.sizes(),
                    [&](const Tensor& o) { NPU_RUN(aclnnArange, Scalar(first), exact_end, Scalar(stride), o); });
}

Tensor& linspace_out(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  // The kernel covers real dtypes; complex ranges run on the CPU, counted.
  if (!run_native(table::caps::aclnnLinspace, "linspace.out", {out.scalar_type()})) {
    return fallback_call<Tensor&>("linspace.out", start, end, steps, out);
  }
  check_range_out(out, steps);
  return fill_range(out, {steps}, [&](const Tensor& o) { NPU_RUN(aclnnLinspace, start, end, steps, o); });
}

Tensor& eye_m_out(c10::SymInt n_sym, c10::SymInt m_sym, Tensor& out) {
  const int64_t n = n_sym.guard_int(__FILE__, __LINE__), m = m_sym.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  if (!run_native(table::caps::aclnnEye, "eye.m_out", {out.scalar_type()})) {
    return fallback_call<Tensor&>("eye.m_out", n, m, out);
  }
  TORCH_CHECK(out.is_privateuseone(), "out= must be an npu tensor, got one on ", out.device());
  if (out.sizes() != at::IntArrayRef{n, m}) out.resize_({n, m});
  return fill_range(out, {n, m}, [&](const Tensor& o) { NPU_RUN(aclnnEye, n, m, o); });
}

Tensor& eye_out(c10::SymInt n, Tensor& out) { return eye_m_out(n, n, out); }

}  // namespace npu::ops
