// Sum, mean and product reductions.
#include "kernels/reduce/dtype_pairs.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_engine.h"
#include "kernels/reduce/reduce_ops.h"

namespace npu::kernels {

namespace {

enum class Accumulate { Sum, Mean, Prod };

template <class Acc>
Acc scaled(const Acc& acc, double scale) {
  if constexpr (std::is_same_v<Acc, double> || std::is_same_v<Acc, complex128>) {
    return acc * scale;
  } else {
    return acc;  // integer outputs are never means
  }
}

void accumulate(Accumulate kind, const TensorView& out, const TensorView& in, const DimMask& dims) {
  if (kind == Accumulate::Mean && !model::is_floating_point(out.dtype) && !model::is_complex(out.dtype)) {
    throw KernelError(std::string("mean(): could not infer output dtype. Output dtype must be either a floating "
                                  "point or complex dtype. Got: ") +
                      model::dtype_name(out.dtype));
  }
  visit_accumulating(in, out.dtype, [&](const TensorView& src, auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    const ReducePlan plan = make_reduce_plan(src, dims, {&out, nullptr}, true);
    Out* o = out.ptr<Out>();
    if (kind == Accumulate::Prod) {
      run_reduction(plan, ProdOp<In>{}, src, [o](int64_t off, int64_t, const auto& acc) { o[off] = convert<Out>(acc); });
      return;
    }
    // An empty mean is 0 * inf = NaN, as in PyTorch.
    const double scale = kind == Accumulate::Mean ? 1.0 / static_cast<double>(plan.reduce_size) : 1.0;
    run_reduction(plan, SumOp<In>{}, src,
                  [o, scale](int64_t off, int64_t, const auto& acc) { o[off] = convert<Out>(scaled(acc, scale)); });
  });
}

}  // namespace

void reduce_sum(const TensorView& out, const TensorView& in, const DimMask& dims) {
  accumulate(Accumulate::Sum, out, in, dims);
}

void reduce_mean(const TensorView& out, const TensorView& in, const DimMask& dims) {
  accumulate(Accumulate::Mean, out, in, dims);
}

void reduce_prod(const TensorView& out, const TensorView& in, const DimMask& dims) {
  accumulate(Accumulate::Prod, out, in, dims);
}

}  // namespace npu::kernels
