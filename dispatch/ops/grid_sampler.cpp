// grid_sampler_2d / grid_sampler_3d forward (ops/table/upsample.yaml,
// `impl:`): PyTorch gives them no meta function; the argument checks are
// ATen's own (GridSamplerUtils.h), the output is contiguous as CPU's.
// Their backward ops are not native (they run through the CPU fallback).
#include <ATen/native/GridSamplerUtils.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace caps = npu::table::caps;

at::Tensor grid_sampler_2d(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
                           int64_t padding_mode, bool align_corners) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_2d(input, grid);
  if (!npu::run_native(caps::aclnnGridSampler2D, "grid_sampler_2d",
                       npu::table::operand_dtypes(input.scalar_type(), input, grid))) {
    return npu::fallback_call<at::Tensor>("grid_sampler_2d", input, grid, interpolation_mode, padding_mode,
                                          align_corners);
  }
  at::Tensor out = at::empty({input.size(0), input.size(1), grid.size(1), grid.size(2)}, input.options());
  if (out.numel() > 0) NPU_RUN(aclnnGridSampler2D, input, grid, interpolation_mode, padding_mode, align_corners, out);
  return out;
}

at::Tensor grid_sampler_3d(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
                           int64_t padding_mode, bool align_corners) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_3d(input, grid, interpolation_mode);
  if (!npu::run_native(caps::aclnnGridSampler3D, "grid_sampler_3d",
                       npu::table::operand_dtypes(input.scalar_type(), input, grid))) {
    return npu::fallback_call<at::Tensor>("grid_sampler_3d", input, grid, interpolation_mode, padding_mode,
                                          align_corners);
  }
  at::Tensor out =
      at::empty({input.size(0), input.size(1), grid.size(1), grid.size(2), grid.size(3)}, input.options());
  if (out.numel() > 0) NPU_RUN(aclnnGridSampler3D, input, grid, interpolation_mode, padding_mode, align_corners, out);
  return out;
}

}  // namespace npu::ops
