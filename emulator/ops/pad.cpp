#include "emulator/ops/pad.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/upsample/resample.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

// The padded shape and the taps; checks the padding's length against rank
// and self's rank (rank+1 or rank+2 dims).
kn::ResampleTaps taps_for(PadMode mode, int64_t rank, const kn::Shape& self, const aclIntArray* padding,
                          kn::Shape& padded) {
  const std::vector<int64_t> pad = int_values(padding);
  if (static_cast<int64_t>(pad.size()) != 2 * rank) {
    fail(ACLNN_ERR_PARAM_INVALID, "padding must have " + std::to_string(2 * rank) + " entries, got " +
                                      std::to_string(pad.size()));
  }
  const auto nd = static_cast<int64_t>(self.size());
  if (nd != rank + 1 && nd != rank + 2) {
    fail(ACLNN_ERR_PARAM_INVALID, "self must be " + std::to_string(rank + 1) + "-d or " + std::to_string(rank + 2) +
                                      "-d, got shape " + kn::shape_str(self));
  }
  kn::ResampleTaps taps = kn::pad_taps(mode, self, pad);
  padded = kn::Shape(self.begin(), self.end() - rank);
  for (const kn::DimTaps& t : taps) padded.push_back(t.outputs());
  return taps;
}

void require_same_dtype(const aclTensor* t, const char* name, const aclTensor* like) {
  if (t->dtype != like->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " has dtype " + model::dtype_name(t->dtype) +
                                      ", expected self's " + model::dtype_name(like->dtype));
  }
}

}  // namespace

TaskBody pad_task(PadMode mode, int64_t rank, const aclTensor* self, const aclIntArray* padding, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  kn::Shape padded;
  kn::ResampleTaps taps = taps_for(mode, rank, v[0].sizes, padding, padded);
  require_shape(out, padded, "out");
  require_same_dtype(out, "out", self);
  return [v, taps = std::move(taps)] { kn::resample(v[0], v[1], taps); };
}

TaskBody pad_backward_task(PadMode mode, int64_t rank, const aclTensor* gradOutput, const aclTensor* self,
                           const aclIntArray* padding, aclTensor* gradInput) {
  require_tensor(self, "self");
  const auto v = require_views<2>({{{gradOutput, "gradOutput"}, {gradInput, "gradInput"}}});
  kn::Shape padded;
  kn::ResampleTaps taps = taps_for(mode, rank, self->view_dims, padding, padded);
  require_shape(gradOutput, padded, "gradOutput");
  require_shape(gradInput, self->view_dims, "gradInput");
  require_same_dtype(gradOutput, "gradOutput", self);
  require_same_dtype(gradInput, "gradInput", self);
  // CPU's padding backward adds in the tensor's dtype, rounding each time.
  return [v, taps = std::move(taps)] { kn::resample_backward(v[0], v[1], taps, kn::Accumulate::Dtype); };
}

}  // namespace npu::emu
