#include "emulator/ops/pad.h"

#include <algorithm>
#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/copy/copy.h"
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

TaskBody constant_pad_task(const aclTensor* self, const aclIntArray* pad, const aclScalar* value, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_scalar(value, "value");
  require_same_dtype(out, "out", self);
  const std::vector<int64_t> p = int_values(pad);
  const int64_t nd = v[0].dim();
  if (p.size() % 2 != 0 || static_cast<int64_t>(p.size()) > 2 * nd) {
    fail(ACLNN_ERR_PARAM_INVALID, "pad must hold (begin, end) pairs for at most self's " + std::to_string(nd) +
                                      " dims, got " + std::to_string(p.size()) + " entries");
  }
  kn::Shape padded = v[0].sizes;
  for (size_t i = 0; i < p.size() / 2; ++i) {
    const auto d = static_cast<size_t>(nd - 1 - static_cast<int64_t>(i));
    padded[d] = v[0].sizes[d] + p[2 * i] + p[2 * i + 1];
    if (padded[d] < 0) {
      fail(ACLNN_ERR_PARAM_INVALID, "pad (" + std::to_string(p[2 * i]) + ", " + std::to_string(p[2 * i + 1]) +
                                        ") of dim " + std::to_string(d) + " (size " + std::to_string(v[0].sizes[d]) +
                                        ") gives a negative size");
    }
  }
  require_shape(out, padded, "out");
  // The output is `value` everywhere except a box holding self's kept part:
  // `inner` views that box in out, `kept` the same elements of self.
  kn::TensorView kept = v[0];
  kn::TensorView inner = v[1];
  bool empty = false;
  for (size_t i = 0; i < p.size() / 2; ++i) {
    const auto d = static_cast<size_t>(nd - 1 - static_cast<int64_t>(i));
    const int64_t before = p[2 * i], after = p[2 * i + 1], in = v[0].sizes[d];
    const int64_t skip = std::max<int64_t>(0, -before);
    const int64_t length = std::max<int64_t>(0, in - skip - std::max<int64_t>(0, -after));
    empty = empty || length == 0;
    if (length == 0) continue;
    kept.data = static_cast<char*>(kept.data) + skip * kept.strides[d] * static_cast<int64_t>(kept.itemsize());
    inner.data = static_cast<char*>(inner.data) +
                 std::max<int64_t>(0, before) * inner.strides[d] * static_cast<int64_t>(inner.itemsize());
    kept.sizes[d] = length;
    inner.sizes[d] = length;
  }
  return [out_view = v[1], inner, kept, empty, fill_value = value->value()] {
    kn::fill(out_view, fill_value);
    if (!empty) kn::copy(inner, kept);
  };
}

}  // namespace npu::emu
