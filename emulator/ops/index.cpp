// The indexing family's task makers. Shapes, dtypes and index structure are
// checked on the host; index values (data) when the task runs. Nonzero and
// MaskedSelect narrow their out aclTensor's view shape when they run (see
// the family's generated header, acl/aclnn_index.h).
#include "emulator/ops/index.h"

#include <optional>
#include <string>
#include <utility>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/copy/copy.h"
#include "kernels/index/advanced_index.h"
#include "kernels/index/index_ops.h"

namespace npu::emu {

namespace {

namespace kn = npu::kernels;
using kn::TensorView;

// An empty index reads no value: PyTorch then takes an index of any dtype
// and rank, and gather/scatter reduce to "out is empty" / "out = self".
void check_like_self(const TensorView& out, const TensorView& self, const char* op) {
  if (out.dtype != self.dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": expected out dtype " + model::dtype_name(self.dtype) +
                                      ", got " + model::dtype_name(out.dtype));
  }
}

// A scatter's source: a tensor, or a scalar (copied into the task).
TaskBody scatter_any(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src,
                     const aclScalar* value, kn::ScatterReduce reduce, bool include_self,
                     aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
  if (v[1].numel() == 0) {
    check_like_self(v[2], v[0], "scatter()");
    require_shape(out, v[0].sizes, "out");
    if (v[2].data == v[0].data && v[2].strides == v[0].strides) return [] {};
    return [v] { kn::copy(v[2], v[0]); };
  }
  std::optional<aclScalar> scalar;
  TensorView source;
  if (src == nullptr) {
    require_scalar(value, "value");
    scalar = *value;
    source = TensorView{nullptr, scalar->dtype, {}, {}};
  } else {
    source = src->view();
  }
  kn::check_scatter(v[2], v[0], dim, v[1], source, reduce);
  return [=]() mutable {
    if (scalar) source.data = scalar->bytes.data();
    kn::scatter(v[2], v[0], dim, v[1], source, reduce, include_self);
  };
}

// aclnnScatter's reduce codes: 0 replace, 1 add, 2 multiply.
kn::ScatterReduce scatter_mode(int64_t reduce) {
  switch (reduce) {
    case 0: return kn::ScatterReduce::None;
    case 1: return kn::ScatterReduce::Sum;
    case 2: return kn::ScatterReduce::Prod;
  }
  fail(ACLNN_ERR_PARAM_INVALID, "unsupported reduce mode " + std::to_string(reduce) +
                                    " (0 replace, 1 add, 2 multiply)");
}

kn::IndexList index_list(const aclTensorList* indices) { return list_views(indices, "indices"); }

// A data-dependent result: `run` writes into out's view and returns the
// number of leading rows it wrote; the task narrows out's view shape to them.
TaskBody compacting_task(aclTensor* out, std::function<int64_t(const TensorView&)> run,
                         bool keep_columns) {
  return [out, o = out->view(), run = std::move(run), keep_columns] {
    const int64_t count = run(o);
    out->view_dims = keep_columns ? kernels::Shape{count, o.sizes[1]} : kernels::Shape{count};
  };
}

}  // namespace

TaskBody index_select_task(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
  kn::check_index_select(v[2], v[0], dim, v[1]);
  return [v, dim] { kn::index_select(v[2], v[0], dim, v[1]); };
}

TaskBody index_add_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* source,
                        const aclScalar* alpha, aclTensor* out) {
  const auto v = require_views<4>({{{self, "self"}, {index, "index"}, {source, "source"}, {out, "out"}}});
  kn::check_index_add(v[3], v[0], dim, v[1], v[2]);
  const kn::Scalar a = alpha != nullptr ? alpha->value() : kn::Scalar::from_int(1);
  return [v, dim, a] { kn::index_add(v[3], v[0], dim, v[1], v[2], a); };
}

TaskBody gather_task(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
  if (v[1].numel() == 0) {
    check_like_self(v[2], v[0], "gather()");
    require_shape(out, v[1].sizes, "out");
    return [] {};
  }
  kn::check_gather(v[2], v[0], dim, v[1]);
  return [v, dim] { kn::gather(v[2], v[0], dim, v[1]); };
}

TaskBody scatter_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src,
                      int64_t reduce, aclTensor* out) {
  require_tensor(src, "src");
  return scatter_any(self, dim, index, src, nullptr, scatter_mode(reduce), true, out);
}

TaskBody scatter_task(const aclTensor* self, int64_t dim, const aclTensor* index, const aclScalar* value,
                      int64_t reduce, aclTensor* out) {
  require_scalar(value, "value");
  return scatter_any(self, dim, index, nullptr, value, scatter_mode(reduce), true, out);
}

TaskBody scatter_add_task(const aclTensor* self, int64_t dim, const aclTensor* index,
                          const aclTensor* src, aclTensor* out) {
  require_tensor(src, "src");
  return scatter_any(self, dim, index, src, nullptr, kn::ScatterReduce::Sum, true, out);
}

TaskBody scatter_reduce_task(const aclTensor* self, int64_t dim, const aclTensor* index,
                             const aclTensor* src, int64_t reduce, bool include_self, aclTensor* out) {
  constexpr kn::ScatterReduce modes[] = {kn::ScatterReduce::None, kn::ScatterReduce::Sum, kn::ScatterReduce::Prod,
                                         kn::ScatterReduce::Amax, kn::ScatterReduce::Amin, kn::ScatterReduce::Mean};
  if (reduce < 0 || reduce > 5) {
    fail(ACLNN_ERR_PARAM_INVALID, "unsupported reduce mode " + std::to_string(reduce) +
                                      " (0 none, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean)");
  }
  require_tensor(src, "src");
  return scatter_any(self, dim, index, src, nullptr, modes[reduce], include_self, out);
}

TaskBody index_task(const aclTensor* self, const aclTensorList* indices, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  const kn::IndexList list = index_list(indices);
  if (const auto shape = kn::index_result_shape(v[0].sizes, list)) require_shape(out, *shape, "out");
  if (v[1].dtype != v[0].dtype) fail_dtype(out, "out", "of self's dtype");
  return [v, list] { kn::index(v[1], v[0], list); };
}

TaskBody index_put_task(aclTensor* self, const aclTensorList* indices, const aclTensor* values,
                        bool accumulate) {
  const auto v = require_views<2>({{{self, "selfRef"}, {values, "values"}}});
  const kn::IndexList list = index_list(indices);
  if (const auto shape = kn::index_result_shape(v[0].sizes, list)) kn::broadcast_to(v[1], *shape);
  return [v, list, accumulate] { kn::index_put(v[0], list, v[1], accumulate); };
}

TaskBody masked_fill_task(aclTensor* self, const aclTensor* mask, const aclScalar* value) {
  const auto v = require_views<2>({{{self, "selfRef"}, {mask, "mask"}}});
  require_scalar(value, "value");
  kn::broadcast_to(v[1], v[0].sizes);
  return [v, value = value->value()] { kn::masked_fill(v[0], v[1], value); };
}

TaskBody masked_fill_tensor_task(aclTensor* self, const aclTensor* mask, const aclTensor* value) {
  const auto v = require_views<3>({{{self, "selfRef"}, {mask, "mask"}, {value, "value"}}});
  if (v[2].numel() != 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "value must hold exactly one element, has shape " + kn::shape_str(v[2].sizes));
  }
  kn::broadcast_to(v[1], v[0].sizes);
  return [v] { kn::masked_fill(v[0], v[1], kn::Scalar::from_raw(v[2].data, v[2].dtype)); };
}

TaskBody take_task(const aclTensor* self, const aclTensor* index, aclTensor* out) {
  const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
  kn::check_take(v[2], v[0], v[1]);
  return [v] { kn::take(v[2], v[0], v[1]); };
}

TaskBody masked_select_task(const aclTensor* self, const aclTensor* mask, aclTensor* out) {
  const auto v = require_views<2>({{{self, "self"}, {mask, "mask"}}});
  require_tensor(out, "out");
  int64_t total = 1;
  for (const int64_t n : kn::broadcast_shapes(v[0].sizes, v[1].sizes)) total *= n;
  require_shape(out, {total}, "out");
  return compacting_task(out, [v](const TensorView& o) { return kn::masked_select(o, v[0], v[1]); }, false);
}

TaskBody nonzero_task(const aclTensor* self, aclTensor* out) {
  const auto v = require_views<1>({{{self, "self"}}});
  require_tensor(out, "out");
  require_shape(out, {v[0].numel(), v[0].dim()}, "out");
  if (out->dtype != model::DType::Int64) fail_dtype(out, "out", "an int64 tensor");
  return compacting_task(out, [v](const TensorView& o) { return kn::nonzero(o, v[0]); }, true);
}

}  // namespace npu::emu
