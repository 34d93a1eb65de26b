// Random number kernels on Philox4x32-10. The contract every one of them
// keeps (and aclnn_random.h documents): element i of the output, in row-major
// order of its logical shape, is computed from the Philox block of counter
// offset / 4 + i under key `seed`, and from nothing else. A kernel therefore
// consumes 4 * numel counter words, results do not depend on threading or
// strides, and a generator reproduces a sequence by restoring (seed, offset).
#pragma once

#include <cstdint>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

struct PhiloxInputs {
  uint64_t seed = 0;
  uint64_t offset = 0;  // in 32-bit counter words; blocks start at offset / 4
};

// Counter words a kernel consumes for `numel` elements (randperm: n).
inline uint64_t philox_words(int64_t numel) { return 4 * static_cast<uint64_t>(numel < 0 ? 0 : numel); }

// out ~ U[from, to). Floating dtypes.
void uniform(const TensorView& out, double from, double to, PhiloxInputs rng);
// out ~ N(mean, std^2), Box-Muller. Floating dtypes.
void normal(const TensorView& out, double mean, double std, PhiloxInputs rng);
// out ~ uniform integers in [from, from + range), range >= 1. Real dtypes.
void random_integers(const TensorView& out, int64_t from, uint64_t range, PhiloxInputs rng);
// The number of values random_() without bounds draws from for `dtype`, as
// PyTorch: [0, 2^digits] for floating types, [0, max] for integers, {0, 1}
// for bool; int64 and uint64 leave out int64's maximum (bounds are int64).
uint64_t full_random_range(model::DType dtype);
// out ~ Bernoulli(p), 0 or 1 in out's dtype. Real dtypes.
void bernoulli(const TensorView& out, double p, PhiloxInputs rng);
// out[i] ~ Bernoulli(p[i]); `p` broadcasts to out's shape, any real dtype.
void bernoulli(const TensorView& out, const TensorView& p, PhiloxInputs rng);
// out ~ Exponential(lambd), lambd > 0. Floating dtypes.
void exponential(const TensorView& out, double lambd, PhiloxInputs rng);
// out (1-D, n elements) = a uniformly random permutation of 0..n-1
// (Fisher-Yates; step i uses block i). Real dtypes that hold n - 1.
void randperm(const TensorView& out, PhiloxInputs rng);
// mask[i] = keep with probability 1 - p; out = mask ? self * 1 / (1 - p) : 0.
// out and self share a floating dtype and shape; mask is bool of that shape.
void dropout(const TensorView& out, const TensorView& mask, const TensorView& self, double p, PhiloxInputs rng);

}  // namespace npu::kernels
