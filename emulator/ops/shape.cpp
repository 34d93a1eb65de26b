// The shape-and-copy family's task makers (kernels/shape/shape_ops.h); shapes
// are checked at GetWorkspaceSize time.
#include "emulator/ops/shape.h"

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/core/dims.h"
#include "kernels/shape/shape_ops.h"

namespace npu::emu {

namespace {

namespace kn = kernels;
using kernels::Shape;
using kernels::TensorView;

// cat and stack: a list of inputs, an output whose shape `shape_of` derives.
TaskBody list_task(const aclTensorList* tensors, int64_t dim, aclTensor* out,
                   Shape (*shape_of)(const std::vector<Shape>&, int64_t),
                   void (*kernel)(const TensorView&, const std::vector<TensorView>&, int64_t)) {
  require_tensor(out, "out");
  const std::vector<TensorView> inputs = required_views(tensors, "tensors");
  std::vector<Shape> shapes;
  for (const TensorView& t : inputs) shapes.push_back(t.sizes);
  require_shape(out, shape_of(shapes, dim), "out");
  return [o = out->view(), inputs, dim, kernel] { kernel(o, inputs, dim); };
}

}  // namespace

TaskBody cat_task(const aclTensorList* tensors, int64_t dim, aclTensor* out) {
  return list_task(tensors, dim, out, kn::cat_shape, kn::cat);
}

TaskBody stack_task(const aclTensorList* tensors, int64_t dim, aclTensor* out) {
  return list_task(tensors, dim, out, kn::stack_shape, kn::stack);
}

TaskBody flip_task(const aclTensor* self, const aclIntArray* dims, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  require_shape(out, v[0].sizes, "out");
  const std::vector<int64_t> d = int_values(dims);
  kn::dim_mask(d, v[0].dim());
  return [v, d] { kn::flip(v[1], v[0], d); };
}

TaskBody roll_task(const aclTensor* x, const aclIntArray* shifts, const aclIntArray* dims,
                   aclTensor* out) {
  const auto v = require_views<2>({{{x, "x"}, {out, "out"}}});
  require_shape(out, v[0].sizes, "out");
  const std::vector<int64_t> s = int_values(shifts), d = int_values(dims);
  if (d.empty() ? s.size() != 1 : s.size() != d.size()) {
    fail(ACLNN_ERR_PARAM_INVALID, "shifts and dims must align (one shift without dims)");
  }
  for (const int64_t dim : d) kn::wrap_dim(dim, v[0].dim());
  return [v, s, d] { kn::roll(v[1], v[0], s, d); };
}

TaskBody repeat_task(const aclTensor* self, const aclIntArray* repeats, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  const std::vector<int64_t> r = int_values(repeats);
  require_shape(out, kn::repeat_shape(v[0].sizes, r), "out");
  return [v, r] { kn::repeat(v[1], v[0], r); };
}

TaskBody triangle_task(bool upper, const aclTensor* self, int64_t diagonal, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  if (v[0].dim() < 2) fail(ACLNN_ERR_PARAM_INVALID, "self must have at least 2 dimensions");
  require_shape(out, v[0].sizes, "out");
  if (v[1].dtype != v[0].dtype) fail_dtype(out, "out", "of self's dtype");
  if (upper) return [v, diagonal] { kn::triu(v[1], v[0], diagonal); };
  return [v, diagonal] { kn::tril(v[1], v[0], diagonal); };
}

}  // namespace npu::emu
