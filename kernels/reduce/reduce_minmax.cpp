// Order-based reductions: amax / amin, max / min with indices, all / any.
#include "kernels/core/scratch.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_engine.h"
#include "kernels/reduce/reduce_ops.h"

namespace npu::kernels {

namespace {

void reject_complex(const char* op, const TensorView& in) {
  if (model::is_complex(in.dtype)) {
    throw KernelError(std::string(op) + "(): does not support complex input (" + model::dtype_name(in.dtype) + ")");
  }
}

// Calls f(TypeTag<T>) for the element type of an ordered (non-complex) dtype.
template <class F>
void visit_ordered(const char* op, const TensorView& in, F&& f) {
  reject_complex(op, in);
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_complex_v<T>) f(tag);
  });
}

template <bool IsMax>
void extreme(const char* op, const TensorView& out, const TensorView& in, const DimMask& dims) {
  require_nonempty_reduction(op, in, dims);
  visit_ordered(op, in, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_output_dtype(out, in.dtype, [&](const TensorView& o) {
      T* p = o.ptr<T>();
      run_reduction(make_reduce_plan(in, dims, {&o, nullptr}, true), ExtremeOp<T, IsMax>{}, in,
                    [p](int64_t off, int64_t, const auto& acc) { p[off] = convert<T>(acc); });
    });
  });
}

template <bool IsAll>
void logical(const TensorView& out, const TensorView& in, const DimMask& dims) {
  with_output_dtype(out, DType::Bool, [&](const TensorView& o) {
    bool* p = o.ptr<bool>();
    const ReducePlan plan = make_reduce_plan(in, dims, {&o, nullptr}, true);
    visit_dtype(in.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      run_reduction(plan, LogicalOp<T, IsAll>{}, in, [p](int64_t off, int64_t, bool acc) { p[off] = acc; });
    });
  });
}

// Runs f(view or null) on `t` staged in `dtype` (see with_output_dtype).
template <class F>
void with_optional_output(const TensorView* t, DType dtype, F&& f) {
  if (t == nullptr) {
    f(static_cast<const TensorView*>(nullptr));
  } else {
    with_output_dtype(*t, dtype, [&](const TensorView& v) { f(&v); });
  }
}

}  // namespace

void reduce_amax(const TensorView& out, const TensorView& in, const DimMask& dims) {
  extreme<true>("amax", out, in, dims);
}

void reduce_amin(const TensorView& out, const TensorView& in, const DimMask& dims) {
  extreme<false>("amin", out, in, dims);
}

void reduce_all(const TensorView& out, const TensorView& in, const DimMask& dims) { logical<true>(out, in, dims); }

void reduce_any(const TensorView& out, const TensorView& in, const DimMask& dims) { logical<false>(out, in, dims); }

void reduce_arg(bool is_max, const TensorView* values, const TensorView* indices, const TensorView& in,
                int64_t dim) {
  const char* op = values != nullptr ? (is_max ? "max" : "min") : (is_max ? "argmax" : "argmin");
  const DimMask mask = dim_mask({wrap_dim(dim, in.dim())}, in.dim());
  require_nonempty_reduction(op, in, mask);
  visit_ordered(op, in, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_optional_output(values, in.dtype, [&](const TensorView* v) {
      with_optional_output(indices, DType::Int64, [&](const TensorView* ix) {
        T* vp = v != nullptr ? v->ptr<T>() : nullptr;
        int64_t* ip = ix != nullptr ? ix->ptr<int64_t>() : nullptr;
        const ReducePlan plan = make_reduce_plan(in, mask, {v, ix}, false);
        auto store = [vp, ip](int64_t o0, int64_t o1, const auto& acc) {
          if (vp != nullptr) vp[o0] = convert<T>(acc.value);
          if (ip != nullptr) ip[o1] = acc.index;
        };
        if (is_max) {
          run_reduction(plan, ArgExtremeOp<T, true>{}, in, store);
        } else {
          run_reduction(plan, ArgExtremeOp<T, false>{}, in, store);
        }
      });
    });
  });
}

}  // namespace npu::kernels
