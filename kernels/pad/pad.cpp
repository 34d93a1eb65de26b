#include "kernels/pad/pad.h"

#include <algorithm>
#include <string>

namespace npu::kernels {

const char* pad_mode_name(PadMode mode) { return mode == PadMode::Reflect ? "reflection" : "replication"; }

DimTaps pad_taps(PadMode mode, int64_t in, int64_t before, int64_t after) {
  const int64_t out = in + before + after;
  if (in <= 0 || out <= 0) {
    throw KernelError(std::string(pad_mode_name(mode)) + " pad: input size " + std::to_string(in) +
                      " padded by (" + std::to_string(before) + ", " + std::to_string(after) +
                      ") must give a positive size");
  }
  if (mode == PadMode::Reflect && (before >= in || after >= in)) {
    throw KernelError("reflection pad: padding (" + std::to_string(before) + ", " + std::to_string(after) +
                      ") must be below the input size " + std::to_string(in));
  }
  DimTaps t;
  for (int64_t o = 0; o < out; ++o) {
    int64_t p = o - before;
    if (mode == PadMode::Reflect) {
      if (p < 0) p = -p;
      if (p >= in) p = 2 * (in - 1) - p;
    } else {
      p = std::clamp<int64_t>(p, 0, in - 1);
    }
    t.add(p, 1.0);
    t.close_output();
  }
  return t;
}

ResampleTaps pad_taps(PadMode mode, const Shape& sizes, const std::vector<int64_t>& padding) {
  const int64_t rank = static_cast<int64_t>(padding.size()) / 2;
  if (padding.size() % 2 != 0 || rank < 1 || rank > 3 || static_cast<int64_t>(sizes.size()) < rank + 1) {
    throw KernelError(std::string(pad_mode_name(mode)) + " pad: padding must hold 2, 4 or 6 values for a tensor " +
                      "with at least one more dim, got " + std::to_string(padding.size()) + " for shape " +
                      shape_str(sizes));
  }
  ResampleTaps taps;
  const int64_t nd = static_cast<int64_t>(sizes.size());
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t dim = nd - rank + i;  // outermost padded dim first; padding lists the last dim first
    const std::size_t at = static_cast<std::size_t>(2 * (rank - 1 - i));
    taps.push_back(pad_taps(mode, sizes[dim], padding[at], padding[at + 1]));
  }
  return taps;
}

}  // namespace npu::kernels
