// Reductions over any set of dims. Common contract:
//  - `dims` flags the reduced dims of `in` (dim_mask builds it);
//  - `out` has either in's rank with size 1 on reduced dims (keepdim) or only
//    the kept dims, and any strides; KernelError if its shape does not fit;
//  - reducing nothing (an empty reduced dim) yields the op's identity, or a
//    KernelError for ops without one (amax, amin, arg-reductions, inf-norms);
//  - large inputs run on oneTBB workers; results do not depend on the thread
//    count's scheduling (fixed split points, ordered merges).
#pragma once

#include "kernels/core/dims.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// Sum / mean / product. out's dtype is the compute dtype (PyTorch's `dtype=`):
// float sums accumulate in double (after short float-lane partial sums),
// products in float for float inputs, integers in 64 bits; each result
// rounds once into out. Mean needs a floating or complex out.
void reduce_sum(const TensorView& out, const TensorView& in, const DimMask& dims);
void reduce_mean(const TensorView& out, const TensorView& in, const DimMask& dims);
void reduce_prod(const TensorView& out, const TensorView& in, const DimMask& dims);

// amax / amin in the input's type (NaN propagates), converted into out. Not complex.
void reduce_amax(const TensorView& out, const TensorView& in, const DimMask& dims);
void reduce_amin(const TensorView& out, const TensorView& in, const DimMask& dims);

// all / any of "x != 0" (NaN is true); out usually bool (uint8 for uint8 inputs).
void reduce_all(const TensorView& out, const TensorView& in, const DimMask& dims);
void reduce_any(const TensorView& out, const TensorView& in, const DimMask& dims);

// log(sum(exp(x))), stable for large and infinite values; computes in out's
// floating dtype (the input is converted to it). Empty: -inf.
void reduce_logsumexp(const TensorView& out, const TensorView& in, const DimMask& dims);

// Vector p-norm: p = 0 (count of non-zeros), 1, 2, +-inf (max / min of |x|)
// or any other real p. Computes in out's floating dtype.
void reduce_norm(const TensorView& out, const TensorView& in, const DimMask& dims, double p);

// Variance with `correction` (1 = unbiased), or the standard deviation when
// take_sqrt; accumulates in double. Divisor max(0, N - correction): 0 gives
// inf or NaN like PyTorch. Computes in out's floating dtype.
void reduce_var(const TensorView& out, const TensorView& in, const DimMask& dims, double correction,
                bool take_sqrt);

// Max (is_max) or min along `dim` with the position of the first occurrence;
// NaN counts as the extreme. `values` (in's dtype, or converted) and
// `indices` (int64) may each be null; their shapes follow the common
// contract with `dim` reduced. KernelError if dim is empty or in is complex.
void reduce_arg(bool is_max, const TensorView* values, const TensorView* indices, const TensorView& in,
                int64_t dim);

}  // namespace npu::kernels
