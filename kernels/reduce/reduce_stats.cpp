// Floating-point statistics: logsumexp, vector norms, variance / std.
#include <optional>

#include "kernels/core/scratch.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_engine.h"
#include "kernels/reduce/reduce_ops.h"

namespace npu::kernels {

namespace {

// Calls f(input, TypeTag<T>) with T out's floating type and the input
// converted to it.
template <class F>
void visit_floating(const char* op, const TensorView& out, const TensorView& in, F&& f) {
  if (!model::is_floating_point(out.dtype)) {
    throw KernelError(std::string(op) + "(): expected a floating point output, got " + model::dtype_name(out.dtype));
  }
  if (model::is_complex(in.dtype)) {
    throw KernelError(std::string(op) + "(): does not support complex input (" + model::dtype_name(in.dtype) + ")");
  }
  std::optional<ScratchTensor> holder;
  const TensorView src = input_as(in, out.dtype, holder);
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) f(src, tag);
  });
}

template <class T, NormKind K>
void norm_kind(const TensorView& out, const TensorView& src, const DimMask& dims, double p) {
  NormOp<T, K> op;
  op.p = p;
  T* o = out.ptr<T>();
  run_reduction(make_reduce_plan(src, dims, {&out, nullptr}, true), op, src,
                [o, &op](int64_t off, int64_t, double acc) { o[off] = convert<T>(op.finish(acc)); });
}

}  // namespace

void reduce_logsumexp(const TensorView& out, const TensorView& in, const DimMask& dims) {
  visit_floating("logsumexp", out, in, [&](const TensorView& src, auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.ptr<T>();
    run_reduction(make_reduce_plan(src, dims, {&out, nullptr}, true), LogSumExpOp<T>{}, src,
                  [o](int64_t off, int64_t, const auto& acc) { o[off] = convert<T>(LogSumExpOp<T>::finish(acc)); });
  });
}

void reduce_norm(const TensorView& out, const TensorView& in, const DimMask& dims, double p) {
  const double inf = std::numeric_limits<double>::infinity();
  if (p == inf || p == -inf) require_nonempty_reduction("linalg.vector_norm", in, dims);
  visit_floating("norm", out, in, [&](const TensorView& src, auto tag) {
    using T = typename decltype(tag)::type;
    if (p == 0) {
      norm_kind<T, NormKind::Zero>(out, src, dims, p);
    } else if (p == 1) {
      norm_kind<T, NormKind::One>(out, src, dims, p);
    } else if (p == 2) {
      norm_kind<T, NormKind::Two>(out, src, dims, p);
    } else if (p == inf) {
      norm_kind<T, NormKind::Inf>(out, src, dims, p);
    } else if (p == -inf) {
      norm_kind<T, NormKind::NegInf>(out, src, dims, p);
    } else {
      norm_kind<T, NormKind::General>(out, src, dims, p);
    }
  });
}

void reduce_var(const TensorView& out, const TensorView& in, const DimMask& dims, double correction,
                bool take_sqrt) {
  visit_floating(take_sqrt ? "std" : "var", out, in, [&](const TensorView& src, auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.ptr<T>();
    run_reduction(make_reduce_plan(src, dims, {&out, nullptr}, true), MomentsOp<T>{}, src,
                  [o, correction, take_sqrt](int64_t off, int64_t, const Moments& m) {
                    const double var = m.m2 / std::max(0.0, m.n - correction);
                    o[off] = convert<T>(take_sqrt ? std::sqrt(var) : var);
                  });
  });
}

}  // namespace npu::kernels
