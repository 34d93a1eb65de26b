// aclnn entries of the indexing family. Shapes, dtypes and index structure
// are checked at GetWorkspaceSize time; index values (data) when the task
// runs. Nonzero and MaskedSelect narrow their out aclTensor's view shape when
// they run (see include/acl/aclnn_index.h).
#include <optional>

#include "acl/aclnn_index.h"
#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/index/advanced_index.h"
#include "kernels/index/index_ops.h"

using npu::emu::prepare_op;
using npu::emu::require_views;
using npu::emu::task;
using npu::kernels::TensorView;

namespace {

namespace kn = npu::kernels;
namespace emu = npu::emu;

// A scatter's source: a tensor, or a scalar (copied into the task).
struct ScatterSource {
  const aclTensor* tensor = nullptr;
  const aclScalar* scalar = nullptr;
};

aclnnStatus scatter_entry(const char* name, const aclTensor* self, int64_t dim, const aclTensor* index,
                          ScatterSource source, kn::ScatterReduce reduce, bool include_self, aclTensor* out,
                          uint64_t* ws, aclOpExecutor** ex) {
  return prepare_op(name, ws, ex, [&] {
    const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
    std::optional<aclScalar> scalar;
    TensorView src;
    if (source.scalar != nullptr || source.tensor == nullptr) {
      emu::require_scalar(source.scalar, "value");
      scalar = *source.scalar;
      src = TensorView{nullptr, scalar->dtype, {}, {}};
    } else {
      src = source.tensor->view();
    }
    kn::check_scatter(v[2], v[0], dim, v[1], src, reduce);
    return task([=]() mutable {
      if (scalar) src.data = scalar->bytes.data();
      kn::scatter(v[2], v[0], dim, v[1], src, reduce, include_self);
    });
  });
}

// aclnnScatter's reduce codes: 0 replace, 1 add, 2 multiply.
kn::ScatterReduce scatter_mode(int64_t reduce) {
  switch (reduce) {
    case 0: return kn::ScatterReduce::None;
    case 1: return kn::ScatterReduce::Sum;
    case 2: return kn::ScatterReduce::Prod;
    default: return kn::ScatterReduce::Mean;  // rejected by the caller
  }
}

// aclnnScatterReduce's codes: 0 none, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean.
std::optional<kn::ScatterReduce> scatter_reduce_mode(int64_t reduce) {
  constexpr kn::ScatterReduce modes[] = {kn::ScatterReduce::None, kn::ScatterReduce::Sum, kn::ScatterReduce::Prod,
                                         kn::ScatterReduce::Amax, kn::ScatterReduce::Amin, kn::ScatterReduce::Mean};
  if (reduce < 0 || reduce > 5) return std::nullopt;
  return modes[reduce];
}

aclnnStatus invalid_reduce(const char* name, int64_t reduce) {
  return emu::guarded(name, [&] {
    emu::fail(ACLNN_ERR_PARAM_INVALID, "unsupported reduce mode " + std::to_string(reduce));
  });
}

kn::IndexList index_list(const aclTensorList* indices) { return emu::list_views(indices, "indices"); }

// A data-dependent result: the task narrows out's view shape to what it wrote.
aclnnStatus compacting_entry(const char* name, aclTensor* out, uint64_t* ws, aclOpExecutor** ex,
                             const std::function<std::function<int64_t(const TensorView&)>()>& prepare,
                             bool keep_columns) {
  return prepare_op(name, ws, ex, [&] {
    emu::require_tensor(out, "out");
    std::function<int64_t(const TensorView&)> run = prepare();
    return task([out, o = out->view(), run, keep_columns] {
      const int64_t count = run(o);
      out->view_dims = keep_columns ? std::vector<int64_t>{count, o.sizes[1]} : std::vector<int64_t>{count};
    });
  });
}

}  // namespace

extern "C" {

aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index,
                                             aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnIndexSelect", workspaceSize, executor, [&] {
    const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
    kn::check_index_select(v[2], v[0], dim, v[1]);
    return task([v, dim] { kn::index_select(v[2], v[0], dim, v[1]); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnIndexSelect)

aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor* self, const int64_t dim, const aclTensor* index,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnGather", workspaceSize, executor, [&] {
    const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
    kn::check_gather(v[2], v[0], dim, v[1]);
    return task([v, dim] { kn::gather(v[2], v[0], dim, v[1]); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnGather)

aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index,
                                         const aclTensor* src, int64_t reduce, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (reduce < 0 || reduce > 2) return invalid_reduce("aclnnScatter", reduce);
  return scatter_entry("aclnnScatter", self, dim, index, {src, nullptr}, scatter_mode(reduce), true, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnScatter)

aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index,
                                              const aclScalar* value, int64_t reduce, aclTensor* out,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (reduce < 0 || reduce > 2) return invalid_reduce("aclnnScatterValue", reduce);
  return scatter_entry("aclnnScatterValue", self, dim, index, {nullptr, value}, scatter_mode(reduce), true, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnScatterValue)

aclnnStatus aclnnScatterAddGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index,
                                            const aclTensor* src, aclTensor* out, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return scatter_entry("aclnnScatterAdd", self, dim, index, {src, nullptr}, kn::ScatterReduce::Sum, true, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnScatterAdd)

aclnnStatus aclnnScatterReduceGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index,
                                               const aclTensor* src, int64_t reduce, bool includeSelf,
                                               aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const auto mode = scatter_reduce_mode(reduce);
  if (!mode) return invalid_reduce("aclnnScatterReduce", reduce);
  return scatter_entry("aclnnScatterReduce", self, dim, index, {src, nullptr}, *mode, includeSelf, out,
                       workspaceSize, executor);
}
NPU_EMU_DEFINE_LAUNCH(aclnnScatterReduce)

aclnnStatus aclnnIndexGetWorkspaceSize(const aclTensor* self, const aclTensorList* indices, aclTensor* out,
                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnIndex", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
    const kn::IndexList list = index_list(indices);
    if (const auto shape = kn::index_result_shape(v[0].sizes, list)) emu::require_shape(out, *shape, "out");
    if (v[1].dtype != v[0].dtype) emu::fail_dtype(out, "out", "of self's dtype");
    return task([v, list] { kn::index(v[1], v[0], list); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnIndex)

aclnnStatus aclnnIndexPutImplGetWorkspaceSize(aclTensor* selfRef, const aclTensorList* indices,
                                              const aclTensor* values, const bool accumulate, const bool unsafe,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnIndexPutImpl", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{selfRef, "selfRef"}, {values, "values"}}});
    const kn::IndexList list = index_list(indices);
    if (const auto shape = kn::index_result_shape(v[0].sizes, list)) kn::broadcast_to(v[1], *shape);
    return task([v, list, accumulate] { kn::index_put(v[0], list, v[1], accumulate); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnIndexPutImpl)

aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor* selfRef, const aclTensor* mask,
                                                         const aclScalar* value, uint64_t* workspaceSize,
                                                         aclOpExecutor** executor) {
  return prepare_op("aclnnInplaceMaskedFillScalar", workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{selfRef, "selfRef"}, {mask, "mask"}}});
    emu::require_scalar(value, "value");
    kn::broadcast_to(v[1], v[0].sizes);
    return task([v, value = value->value()] { kn::masked_fill(v[0], v[1], value); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnInplaceMaskedFillScalar)

aclnnStatus aclnnMaskedSelectGetWorkspaceSize(const aclTensor* self, const aclTensor* mask, aclTensor* out,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  return compacting_entry("aclnnMaskedSelect", out, workspaceSize, executor, [&] {
    const auto v = require_views<2>({{{self, "self"}, {mask, "mask"}}});
    int64_t total = 1;
    for (const int64_t n : kn::broadcast_shapes(v[0].sizes, v[1].sizes)) total *= n;
    emu::require_shape(out, {total}, "out");
    return std::function<int64_t(const TensorView&)>([v](const TensorView& o) { return kn::masked_select(o, v[0], v[1]); });
  }, false);
}
NPU_EMU_DEFINE_LAUNCH(aclnnMaskedSelect)

aclnnStatus aclnnNonzeroGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return compacting_entry("aclnnNonzero", out, workspaceSize, executor, [&] {
    const auto v = require_views<1>({{{self, "self"}}});
    emu::require_shape(out, {v[0].numel(), v[0].dim()}, "out");
    if (out->dtype != npu::model::DType::Int64) emu::fail_dtype(out, "out", "an int64 tensor");
    return std::function<int64_t(const TensorView&)>([v](const TensorView& o) { return kn::nonzero(o, v[0]); });
  }, true);
}
NPU_EMU_DEFINE_LAUNCH(aclnnNonzero)

aclnnStatus aclnnTakeGetWorkspaceSize(const aclTensor* self, const aclTensor* index, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return prepare_op("aclnnTake", workspaceSize, executor, [&] {
    const auto v = require_views<3>({{{self, "self"}, {index, "index"}, {out, "out"}}});
    kn::check_take(v[2], v[0], v[1]);
    return task([v] { kn::take(v[2], v[0], v[1]); });
  });
}
NPU_EMU_DEFINE_LAUNCH(aclnnTake)

}  // extern "C"
