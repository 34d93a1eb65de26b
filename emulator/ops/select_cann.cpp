#include "emulator/ops/select_cann.h"

#include <optional>

#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/copy/copy.h"
#include "kernels/core/dims.h"
#include "kernels/core/scratch.h"
#include "kernels/index/advanced_index.h"
#include "kernels/select/isclose.h"
#include "kernels/select/unique.h"

namespace npu::emu {

namespace kn = kernels;

TaskBody isclose_task(const aclTensor* self, const aclTensor* other, double rtol, double atol, bool equalNan,
                      aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {other, "other"}, {out, "out"}}});
  checked([&] { kn::check_isclose(v[2], v[0], v[1]); });
  const kn::IsCloseArgs args{rtol, atol, equalNan};
  return [v, args] { kn::isclose(v[2], v[0], v[1], args); };
}

TaskBody nonzero_v2_task(const aclTensor* self, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  const int64_t rank = v[0].dim(), total = v[0].numel();
  require_shape(out, {rank, total}, "out");
  if (out->dtype != model::DType::Int64) fail_dtype(out, "out", "an int64 tensor");
  if (!v[1].is_contiguous()) fail(ACLNN_ERR_PARAM_INVALID, "aclnnNonzeroV2: out must be contiguous");
  return [self = v[0], o = v[1], out, rank, total] {
    // The row-major [count, rank] coordinates, then laid out as the
    // contiguous [rank, count] the narrowed output is.
    const kn::ScratchTensor rows(model::DType::Int64, kn::Shape{total, rank});
    const int64_t count = kn::nonzero(rows.view(), self);
    kn::TensorView coords = kn::narrow(rows.view(), 0, 0, count);
    std::swap(coords.sizes[0], coords.sizes[1]);
    std::swap(coords.strides[0], coords.strides[1]);
    kn::TensorView dst = o;
    dst.sizes = kn::Shape{rank, count};
    dst.strides = kn::contiguous_strides(dst.sizes);
    kn::copy(dst, coords);
    out->view_dims = dst.sizes;
  };
}

TaskBody unique2_task(const aclTensor* self, bool /*sorted*/, bool returnInverse, bool returnCounts,
                      aclTensor* valueOut, aclTensor* inverseOut, aclTensor* countsOut) {
  const auto v = require_views<1>({{{self, "self"}}});
  require_tensor(valueOut, "valueOut");
  // torch_npu passes empty [0] tensors for the outputs it does not want.
  const bool want_inverse = returnInverse || returnCounts;
  if (want_inverse) require_tensor(inverseOut, "inverseOut");
  if (returnCounts) require_tensor(countsOut, "countsOut");
  const kn::UniqueOutputs outs{valueOut->view(), want_inverse ? optional_view(inverseOut) : std::nullopt,
                               returnCounts ? optional_view(countsOut) : std::nullopt};
  checked([&] { kn::check_unique(v[0], outs); });
  return [self = v[0], outs, valueOut, countsOut, returnCounts] {
    const int64_t count = kn::unique_sorted(self, outs);
    valueOut->view_dims = kn::Shape{count};
    if (returnCounts) countsOut->view_dims = kn::Shape{count};
  };
}

}  // namespace npu::emu
