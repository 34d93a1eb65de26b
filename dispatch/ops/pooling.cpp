// The pooling schemas PyTorch gives no structured meta function
// (ops/table/pool.yaml names each with `impl:`): adaptive average pooling
// (2-d, 3-d) and 3-d max pooling, forward and backward. The checks and
// output layouts are CPU's (3-d max pooling through ATen's own
// pool3d_shape_check); the structured pools are generated from the table.
#include <ATen/native/Pool.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/pooling.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

// What CPU checks before adaptive average pooling over `rank` dims, and the
// output shape.
std::vector<int64_t> adaptive_output_shape(const char* name, const at::Tensor& self, at::IntArrayRef output_size,
                                           int64_t rank) {
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == rank, name, ": output_size must be ", rank);
  for (const int64_t s : output_size) {
    TORCH_CHECK(s >= 0, name, ": elements of output_size must be greater than or equal to 0 but received ",
                output_size);
  }
  const int64_t ndim = self.dim();
  TORCH_CHECK(ndim == rank + 1 || ndim == rank + 2, name, "(): Expected ", rank + 1, "D or ", rank + 2,
              "D tensor, but got ", self.sizes());
  for (int64_t i = ndim - rank; i < ndim; ++i) {
    TORCH_CHECK(self.size(i) > 0, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                self.sizes(), " with dimension ", i, " being empty");
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - rank);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  return shape;
}

void check_grad(const char* name, const at::Tensor& grad_output, const at::Tensor& self, int64_t rank) {
  const int64_t ndim = grad_output.dim();
  TORCH_CHECK(ndim == rank + 1 || ndim == rank + 2, name, "(): Expected ", rank + 1, "D or ", rank + 2,
              "D tensor, but got ", grad_output.sizes());
  TORCH_CHECK(self.dim() == ndim, name, "(): grad_output ", grad_output.sizes(), " and self ", self.sizes(),
              " must have one rank");
  for (int64_t i = ndim - rank - 1; i < ndim; ++i) {
    TORCH_CHECK(grad_output.size(i) > 0, name,
                "(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has "
                "sizes ",
                grad_output.sizes(), " with dimension ", i, " being empty");
  }
  TORCH_CHECK(self.dtype() == grad_output.dtype(), "expected dtype ", self.dtype(), " for `grad_output` but got dtype ",
              grad_output.dtype());
}

// 3-d max pooling's arguments, checked as CPU checks them.
struct MaxPool3d {
  std::vector<int64_t> kernel, stride, padding, dilation, out_shape;
};

MaxPool3d max_pool3d_args(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                          at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode, const char* fn) {
  TORCH_CHECK(kernel_size.size() == 1 || kernel_size.size() == 3,
              "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3,
              "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(padding.size() == 1 || padding.size() == 3,
              "max_pool3d: padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dilation.size() == 1 || dilation.size() == 3,
              "max_pool3d: dilation must be either a single int, or a tuple of three ints");
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  const auto three = [](at::IntArrayRef v, at::IntArrayRef fallback) {
    const at::IntArrayRef src = v.empty() ? fallback : v;
    return src.size() == 1 ? std::vector<int64_t>(3, src[0]) : std::vector<int64_t>(src.begin(), src.end());
  };
  MaxPool3d a{three(kernel_size, {}), three(stride, kernel_size), three(padding, {}), three(dilation, {}), {}};
  const auto narrow = [](int64_t v) { return at::native::safe_downcast<int, int64_t>(v); };
  std::array<int64_t, 3> in{}, out{};
  for (int i = 0; i < 3; ++i) {
    in[i] = self.size(-3 + i);
    out[i] = at::native::pooling_output_shape<int64_t>(in[i], a.kernel[i], a.padding[i], a.stride[i], a.dilation[i],
                                                       ceil_mode);
  }
  at::native::pool3d_shape_check(self, self.size(-4), narrow(a.kernel[0]), narrow(a.kernel[1]), narrow(a.kernel[2]),
                                 narrow(a.stride[0]), narrow(a.stride[1]), narrow(a.stride[2]), narrow(a.padding[0]),
                                 narrow(a.padding[1]), narrow(a.padding[2]), narrow(a.dilation[0]),
                                 narrow(a.dilation[1]), narrow(a.dilation[2]), in[0], in[1], in[2], out[0], out[1],
                                 out[2], fn);
  a.out_shape.assign(self.sizes().begin(), self.sizes().end() - 3);
  a.out_shape.insert(a.out_shape.end(), out.begin(), out.end());
  return a;
}

// CPU lays batched 3-d pooling results out in self's suggested format.
at::MemoryFormat pool3d_format(const at::Tensor& self) {
  return self.dim() == 5 ? self.suggest_memory_format() : at::MemoryFormat::Contiguous;
}

}  // namespace

// ---- 3-d max pooling ------------------------------------------------------------------

std::tuple<at::Tensor&, at::Tensor&> max_pool3d_with_indices_out(const at::Tensor& self, at::IntArrayRef kernel_size,
                                                                 at::IntArrayRef stride, at::IntArrayRef padding,
                                                                 at::IntArrayRef dilation, bool ceil_mode,
                                                                 at::Tensor& out, at::Tensor& indices) {
  const MaxPool3d a =
      max_pool3d_args(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d_with_indices_out_cpu()");
  if (!npu::run_native(caps::aclnnMaxPool3dWithArgmax, "max_pool3d_with_indices.out",
                       npu::table::operand_dtypes(self.scalar_type(), self))) {
    return npu::fallback_call<std::tuple<at::Tensor&, at::Tensor&>>(
        "max_pool3d_with_indices.out", self, kernel_size, stride, padding, dilation, ceil_mode, out, indices);
  }
  out.resize_(a.out_shape, pool3d_format(self));
  indices.resize_(a.out_shape, pool3d_format(self));
  NPU_RUN(aclnnMaxPool3dWithArgmax, self, at::IntArrayRef(a.kernel), at::IntArrayRef(a.stride),
          at::IntArrayRef(a.padding), at::IntArrayRef(a.dilation), ceil_mode, out, indices);
  return std::forward_as_tuple(out, indices);
}

std::tuple<at::Tensor, at::Tensor> max_pool3d_with_indices(const at::Tensor& self, at::IntArrayRef kernel_size,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode) {
  at::Tensor out = at::empty({0}, self.options());
  at::Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  max_pool3d_with_indices_out(self, kernel_size, stride, padding, dilation, ceil_mode, out, indices);
  return std::make_tuple(std::move(out), std::move(indices));
}

at::Tensor& max_pool3d_with_indices_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                                 at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                                 at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                                 const at::Tensor& indices, at::Tensor& grad_input) {
  const MaxPool3d a = max_pool3d_args(self, kernel_size, stride, padding, dilation, ceil_mode,
                                      "max_pool3d_with_indices_backward_out_cpu_template()");
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(a.out_shape) && indices.sizes() == grad_output.sizes(),
              "max_pool3d_with_indices_backward: grad_output ", grad_output.sizes(), " and indices ", indices.sizes(),
              " must have the pooled shape ", a.out_shape);
  if (!npu::run_native(caps::aclnnMaxPool3dWithArgmaxBackward, "max_pool3d_with_indices_backward.grad_input",
                       npu::table::operand_dtypes(self.scalar_type(), grad_output, self))) {
    return npu::fallback_call<at::Tensor&>("max_pool3d_with_indices_backward.grad_input", grad_output, self,
                                           kernel_size, stride, padding, dilation, ceil_mode, indices, grad_input);
  }
  grad_input.resize_(self.sizes(), pool3d_format(self));
  NPU_RUN(aclnnMaxPool3dWithArgmaxBackward, grad_output, self, indices, at::IntArrayRef(a.kernel),
          at::IntArrayRef(a.stride), at::IntArrayRef(a.padding), at::IntArrayRef(a.dilation), ceil_mode, grad_input);
  return grad_input;
}

at::Tensor max_pool3d_with_indices_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                            at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                            const at::Tensor& indices) {
  at::Tensor grad_input = at::empty({0}, self.options());
  max_pool3d_with_indices_backward_out(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices,
                                       grad_input);
  return grad_input;
}

// ---- adaptive average pooling over `rank` (2 or 3) trailing dims ---------------------

namespace {

// Adaptive average pooling's names and aclnn ops, by rank.
struct AdaptivePool {
  const char* name;
  const char* backward_name;
  const npu::AclnnCapability& cap;
  const npu::AclnnCapability& backward_cap;
  void (*launch)(const at::Tensor& self, at::IntArrayRef size, const at::Tensor& out);
  void (*launch_backward)(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& grad_input);
};

const AdaptivePool& adaptive_pool(int64_t rank) {
  using T = const at::Tensor&;
  static const AdaptivePool pools[] = {
      {"adaptive_avg_pool2d", "adaptive_avg_pool2d_backward", caps::aclnnAdaptiveAvgPool2d,
       caps::aclnnAdaptiveAvgPool2dBackward,
       [](T self, at::IntArrayRef size, T out) { NPU_RUN(aclnnAdaptiveAvgPool2d, self, size, out); },
       [](T grad, T self, T grad_input) { NPU_RUN(aclnnAdaptiveAvgPool2dBackward, grad, self, grad_input); }},
      {"adaptive_avg_pool3d", "adaptive_avg_pool3d_backward", caps::aclnnAdaptiveAvgPool3d,
       caps::aclnnAdaptiveAvgPool3dBackward,
       [](T self, at::IntArrayRef size, T out) { NPU_RUN(aclnnAdaptiveAvgPool3d, self, size, out); },
       [](T grad, T self, T grad_input) { NPU_RUN(aclnnAdaptiveAvgPool3dBackward, grad, self, grad_input); }},
  };
  TORCH_INTERNAL_ASSERT(rank == 2 || rank == 3, "adaptive average pooling over ", rank, " dims");
  return pools[rank - 2];
}

// CPU lays batched adaptive pooling results and gradients out in self's
// suggested format.
at::MemoryFormat adaptive_format(const at::Tensor& self, int64_t rank) {
  return self.dim() == rank + 2 ? self.suggest_memory_format() : at::MemoryFormat::Contiguous;
}

bool adaptive_native(int64_t rank, const char* schema, const at::Tensor& self) {
  return npu::run_native(adaptive_pool(rank).cap, schema, npu::table::operand_dtypes(self.scalar_type(), self));
}

// `out` (new, or given to out=) laid out as CPU lays it, then pooled.
at::Tensor& adaptive_pool_into(int64_t rank, const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef shape,
                               at::Tensor& out) {
  out.resize_(shape, adaptive_format(self, rank));
  if (out.numel() > 0) adaptive_pool(rank).launch(self, size, out);
  return out;
}

bool adaptive_backward_native(int64_t rank, const char* schema, const at::Tensor& grad_output,
                              const at::Tensor& self) {
  const AdaptivePool& pool = adaptive_pool(rank);
  check_grad(pool.backward_name, grad_output, self, rank);
  return npu::run_native(pool.backward_cap, schema, npu::table::operand_dtypes(self.scalar_type(), grad_output, self));
}

at::Tensor& adaptive_backward_into(int64_t rank, const at::Tensor& grad_output, const at::Tensor& self,
                                   at::Tensor& grad_input) {
  grad_input.resize_(self.sizes(), adaptive_format(self, rank));
  if (grad_input.numel() > 0) adaptive_pool(rank).launch_backward(grad_output, self, grad_input);
  return grad_input;
}

}  // namespace

at::Tensor adaptive_avg_pool(int64_t rank, const char* schema, const at::Tensor& self,
                             c10::SymIntArrayRef output_size) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(output_size);
  const auto shape = adaptive_output_shape(adaptive_pool(rank).name, self, size, rank);
  if (!adaptive_native(rank, schema, self)) return npu::fallback_call<at::Tensor>(schema, self, output_size);
  at::Tensor out = at::empty({0}, self.options());
  return adaptive_pool_into(rank, self, size, shape, out);
}

at::Tensor& adaptive_avg_pool_out(int64_t rank, const char* schema, const at::Tensor& self,
                                  c10::SymIntArrayRef output_size, at::Tensor& out) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(output_size);
  const auto shape = adaptive_output_shape(adaptive_pool(rank).name, self, size, rank);
  TORCH_CHECK(self.dtype() == out.dtype(), "expected dtype ", self.dtype(), " for `output` but got dtype ",
              out.dtype());
  if (!adaptive_native(rank, schema, self)) return npu::fallback_call<at::Tensor&>(schema, self, output_size, out);
  return adaptive_pool_into(rank, self, size, shape, out);
}

at::Tensor adaptive_avg_pool_backward(int64_t rank, const char* schema, const at::Tensor& grad_output,
                                      const at::Tensor& self) {
  if (!adaptive_backward_native(rank, schema, grad_output, self)) {
    return npu::fallback_call<at::Tensor>(schema, grad_output, self);
  }
  at::Tensor grad_input = at::empty({0}, self.options());
  return adaptive_backward_into(rank, grad_output, self, grad_input);
}

at::Tensor& adaptive_avg_pool_backward_out(int64_t rank, const char* schema, const at::Tensor& grad_output,
                                           const at::Tensor& self, at::Tensor& grad_input) {
  if (!adaptive_backward_native(rank, schema, grad_output, self)) {
    return npu::fallback_call<at::Tensor&>(schema, grad_output, self, grad_input);
  }
  return adaptive_backward_into(rank, grad_output, self, grad_input);
}

}  // namespace npu::ops
