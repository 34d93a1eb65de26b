// Separable resampling of the 1 to 3 trailing spatial dims of a
// (C, *spatial) or (N, C, *spatial) tensor: every output position along a
// dim reads a few input positions with weights (its taps), and an output
// element is the weighted sum over the taps of all its dims. Interpolating
// upsampling (nearest, linear, cubic, antialiased) and the reflection and
// replication pads are all such maps, forward (a gather) and backward (the
// adjoint: a scatter-add). Planes (N*C) run in parallel; channels-last
// operands run along their contiguous channels. Reduced floats compute in
// float, as PyTorch CPU does.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// The taps of one spatial dim: output index o reads input indices
// index[start[o]] .. index[start[o+1] - 1] with the same-placed weights.
// Weights are kept in double; they are computed in the op's compute type
// (float for float32 and narrower, double for float64), so converting them
// back is exact.
struct DimTaps {
  std::vector<int64_t> start{0};
  std::vector<int64_t> index;
  std::vector<double> weight;

  int64_t outputs() const { return static_cast<int64_t>(start.size()) - 1; }
  void add(int64_t i, double w) {
    index.push_back(i);
    weight.push_back(w);
  }
  void close_output() { start.push_back(static_cast<int64_t>(index.size())); }
  // True when every output reads one input with weight 1: a pure copy.
  bool is_gather() const;
};

// Taps of the spatial dims, outermost first (rank entries).
using ResampleTaps = std::vector<DimTaps>;

// How backward accumulates: in the compute type, rounding once at the end
// (PyTorch CPU's upsample backward), or in the tensor's dtype, rounding after
// every addition (its padding backward).
enum class Accumulate { ComputeType, Dtype };

// out[..., o0, o1, o2] = sum over taps of w0*w1*w2 * self[..., i0, i1, i2];
// out's spatial sizes are the taps' output counts, its other dims self's.
// A pure copy (every dim is_gather) serves every dtype; weighted sums need a
// floating dtype.
void resample(const TensorView& self, const TensorView& out, const ResampleTaps& taps);

// The adjoint: grad_input = 0, then each grad_output element added, times
// its taps' weights, to the inputs it was read from.
void resample_backward(const TensorView& grad_output, const TensorView& grad_input, const ResampleTaps& taps,
                       Accumulate accumulate);

}  // namespace npu::kernels
