#include "emulator/ops/upsample.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/upsample/grid_sampler.h"
#include "kernels/upsample/resample.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

void require_same_dtype(const aclTensor* t, const char* name, const aclTensor* like, const char* like_name) {
  if (t->dtype != like->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " has dtype " + model::dtype_name(t->dtype) + ", expected " +
                                      like_name + "'s " + model::dtype_name(like->dtype));
  }
}

std::vector<int64_t> sizes_of(const aclIntArray* array, std::size_t count, const char* name) {
  std::vector<int64_t> v = int_values(array);
  if (v.size() != count) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must have " + std::to_string(count) + " entries, got " +
                                      std::to_string(v.size()));
  }
  for (const int64_t s : v) {
    if (s <= 0) fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " entries must be positive");
  }
  return v;
}

// The taps of every spatial dim, `input` and `output` holding the spatial sizes.
kn::ResampleTaps taps_for(UpsampleMode mode, const std::vector<int64_t>& input, const std::vector<int64_t>& output,
                          bool align_corners, const std::vector<double>& scales, model::DType weight_dtype) {
  if (scales.size() != input.size()) fail(ACLNN_ERR_PARAM_INVALID, "one scale per spatial dim expected");
  kn::ResampleTaps taps;
  for (std::size_t i = 0; i < input.size(); ++i) {
    taps.push_back(kn::upsample_taps(mode, input[i], output[i], align_corners, scales[i], weight_dtype));
  }
  return taps;
}

// Whether a 4-d view is channels-last contiguous (strides of size-1 dims ignored).
bool channels_last(const kn::TensorView& v) {
  const kn::Shape& d = v.sizes;
  const int64_t expected[4] = {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
  for (int i = 0; i < 4; ++i) {
    if (d[i] != 1 && v.strides[i] != expected[i]) return false;
  }
  return true;
}

// The dtype the forward weights are kept in. CPU's bilinear2d forward runs
// its vectorized kernel (weights in float) for channels-last inputs of more
// than 3 channels and for small outputs (H + W <= 128), and its generic
// kernel otherwise, which, as the linear, trilinear and bicubic forwards do,
// keeps the weights in the tensor's dtype.
model::DType forward_weight_dtype(UpsampleMode mode, const kn::TensorView& self, const std::vector<int64_t>& size) {
  const bool reduced = self.dtype == model::DType::Float16 || self.dtype == model::DType::BFloat16;
  if (reduced && mode == UpsampleMode::Linear && size.size() == 2 &&
      ((channels_last(self) && self.sizes[1] > 3) || size[0] + size[1] <= 128)) {
    return model::DType::Float32;
  }
  return self.dtype;
}

}  // namespace

TaskBody upsample_task(UpsampleMode mode, int64_t rank, const aclTensor* self, const aclIntArray* outputSize,
                       bool alignCorners, const std::vector<double>& scales, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  const auto r = static_cast<std::size_t>(rank);
  const std::vector<int64_t> size = sizes_of(outputSize, r, "outputSize");
  if (v[0].dim() != rank + 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "self must be " + std::to_string(rank + 2) + "-d (N, C, spatial), got shape " +
                                      kn::shape_str(v[0].sizes));
  }
  require_same_dtype(out, "out", self, "self");
  kn::Shape expected{v[0].sizes[0], v[0].sizes[1]};
  std::vector<int64_t> input;
  for (std::size_t i = 0; i < r; ++i) {
    expected.push_back(size[i]);
    input.push_back(v[0].sizes[2 + i]);
  }
  require_shape(out, expected, "out");
  kn::ResampleTaps taps = taps_for(mode, input, size, alignCorners, scales, forward_weight_dtype(mode, v[0], size));
  return [v, taps = std::move(taps)] { kn::resample(v[0], v[1], taps); };
}

TaskBody upsample_backward_task(UpsampleMode mode, int64_t rank, const aclTensor* gradOut,
                                const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners,
                                const std::vector<double>& scales, aclTensor* gradInput) {
  const auto v = require_views<2>({{{gradOut, "gradOut"}, {gradInput, "gradInput"}}});
  const auto r = static_cast<std::size_t>(rank);
  const std::vector<int64_t> size = sizes_of(outputSize, r, "outputSize");
  const std::vector<int64_t> in = int_values(inputSize);
  if (in.size() != r + 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "inputSize must have " + std::to_string(r + 2) + " entries (N, C, spatial)");
  }
  require_same_dtype(gradInput, "gradInput", gradOut, "gradOut");
  require_shape(gradInput, kn::Shape(in.begin(), in.end()), "gradInput");
  kn::Shape expected{in[0], in[1]};
  for (const int64_t s : size) expected.push_back(s);
  require_shape(gradOut, expected, "gradOut");
  const std::vector<int64_t> input(in.begin() + 2, in.end());
  for (const int64_t s : input) {
    if (s <= 0) fail(ACLNN_ERR_PARAM_INVALID, "inputSize's spatial entries must be positive");
  }
  // CPU's backward keeps the weights in the compute type, unrounded.
  const model::DType weights = gradOut->dtype == model::DType::Float64 ? model::DType::Float64 : model::DType::Float32;
  kn::ResampleTaps taps = taps_for(mode, input, size, alignCorners, scales, weights);
  return [v, taps = std::move(taps)] { kn::resample_backward(v[0], v[1], taps, kn::Accumulate::ComputeType); };
}

TaskBody grid_sampler_task(int64_t rank, const aclTensor* input, const aclTensor* grid, int64_t interpolationMode,
                           int64_t paddingMode, bool alignCorners, aclTensor* out) {
  const auto v = require_views<3>({{{input, "input"}, {grid, "grid"}, {out, "out"}}});
  if (interpolationMode < 0 || interpolationMode > (rank == 2 ? 2 : 1)) {
    fail(ACLNN_ERR_PARAM_INVALID, "interpolationMode must be 0 (bilinear), 1 (nearest)" +
                                      std::string(rank == 2 ? " or 2 (bicubic)" : "") + ", got " +
                                      std::to_string(interpolationMode));
  }
  if (paddingMode < 0 || paddingMode > 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "paddingMode must be 0 (zeros), 1 (border) or 2 (reflection), got " +
                                      std::to_string(paddingMode));
  }
  if (v[0].dim() != rank + 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "input must be " + std::to_string(rank + 2) + "-d, got shape " +
                                      kn::shape_str(v[0].sizes));
  }
  if (v[1].dim() != rank + 2 || v[1].sizes[0] != v[0].sizes[0] || v[1].sizes[rank + 1] != rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "grid must be (N, *out, " + std::to_string(rank) + ") with input's N, got shape " +
                                      kn::shape_str(v[1].sizes));
  }
  require_same_dtype(grid, "grid", input, "input");
  require_same_dtype(out, "out", input, "input");
  kn::Shape expected{v[0].sizes[0], v[0].sizes[1]};
  for (int64_t i = 1; i <= rank; ++i) expected.push_back(v[1].sizes[i]);
  require_shape(out, expected, "out");
  const auto mode = static_cast<kn::GridInterpolation>(interpolationMode);
  const auto padding = static_cast<kn::GridPadding>(paddingMode);
  return [v, mode, padding, alignCorners] { kn::grid_sample(v[0], v[1], v[2], mode, padding, alignCorners); };
}

}  // namespace npu::emu
