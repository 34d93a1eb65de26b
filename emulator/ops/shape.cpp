// aclnn entries of the shape-and-copy family (kernels/shape/shape_ops.h); shapes
// are checked at GetWorkspaceSize time.
#include "acl/aclnn_shape.h"
#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/core/dims.h"
#include "kernels/shape/shape_ops.h"

using npu::emu::prepare_op;
using npu::emu::require_views;
using npu::emu::task;
using npu::kernels::Shape;
using npu::kernels::TensorView;

namespace {

namespace kn = npu::kernels;
namespace emu = npu::emu;

// cat and stack: a list of inputs, an output whose shape `shape_of` derives.
aclnnStatus list_entry(const char* name, const aclTensorList* tensors, int64_t dim, aclTensor* out, uint64_t* ws,
                       aclOpExecutor** ex, Shape (*shape_of)(const std::vector<Shape>&, int64_t),
                       void (*kernel)(const TensorView&, const std::vector<TensorView>&, int64_t)) {
  return prepare_op(name, ws, ex, [&] {
    emu::require_tensor(out, "out");
    const std::vector<TensorView> inputs = emu::required_views(tensors, "tensors");
    std::vector<Shape> shapes;
    for (const TensorView& t : inputs) shapes.push_back(t.sizes);
    emu::require_shape(out, shape_of(shapes, dim), "out");
    return task([o = out->view(), inputs, dim, kernel] { kernel(o, inputs, dim); });
  });
}

// tril and triu.
aclnnStatus triangle_entry(const char* name, const aclTensor* self, int64_t diagonal, aclTensor* out, uint64_t* ws,
                           aclOpExecutor** ex, void (*kernel)(const TensorView&, const TensorView&, int64_t)) {
  return prepare_op(name, ws, ex, [&] {
    const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
    if (v[0].dim() < 2) emu::fail(ACLNN_ERR_PARAM_INVALID, "self must have at least 2 dimensions");
    emu::require_shape(out, v[0].sizes, "out");
    if (v[1].dtype != v[0].dtype) emu::fail_dtype(out, "out", "of self's dtype");
    return task([v, diagonal, kernel] { kernel(v[1], v[0], diagonal); });
  });
}

}  // namespace

extern "C" {

aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList* tensors, int64_t dim, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return list_entry("aclnnCat", tensors, dim, out, workspaceSize, executor, kn::cat_shape, kn::cat);
}
NPU_EMU_DEFINE_LAUNCH(aclnnCat)

aclnnStatus aclnnStackGetWorkspaceSize(const aclTensorList* tensors, int64_t dim, aclTensor* out,
                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  return list_entry("aclnnStack", tensors, dim, out, workspaceSize, executor, kn::stack_shape, kn::stack);
}
NPU_EMU_DEFINE_LAUNCH(aclnnStack)

aclnnStatus aclnnFlipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnFlip", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
    emu::require_shape(out, v[0].sizes, "out");
    const std::vector<int64_t> d = emu::int_values(dims);
    kn::dim_mask(d, v[0].dim());
    return task([v, d] { kn::flip(v[1], v[0], d); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnFlip)

aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor* x, const aclIntArray* shifts, const aclIntArray* dims,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnRoll", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{x, "x"}, {out, "out"}}});
    emu::require_shape(out, v[0].sizes, "out");
    const std::vector<int64_t> s = emu::int_values(shifts), d = emu::int_values(dims);
    if (d.empty() ? s.size() != 1 : s.size() != d.size()) {
      emu::fail(ACLNN_ERR_PARAM_INVALID, "shifts and dims must align (one shift without dims)");
    }
    for (const int64_t dim : d) kn::wrap_dim(dim, v[0].dim());
    return task([v, s, d] { kn::roll(v[1], v[0], s, d); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnRoll)

aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor* self, const aclIntArray* repeats, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnRepeat", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
    const std::vector<int64_t> r = emu::int_values(repeats);
    emu::require_shape(out, kn::repeat_shape(v[0].sizes, r), "out");
    return task([v, r] { kn::repeat(v[1], v[0], r); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnRepeat)

aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor* self, int64_t diagonal, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return triangle_entry("aclnnTril", self, diagonal, out, workspaceSize, executor, kn::tril);
}
NPU_EMU_DEFINE_LAUNCH(aclnnTril)

aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor* self, int64_t diagonal, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return triangle_entry("aclnnTriu", self, diagonal, out, workspaceSize, executor, kn::triu);
}
NPU_EMU_DEFINE_LAUNCH(aclnnTriu)

}  // extern "C"
