// PyTorch's interpolation index and weight rules, one dim at a time.
#include "kernels/upsample/upsample.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

namespace {

// in/out, or 1/scale when the caller gave a scale (aten's rule: the given
// scale wins over the sizes it produced).
template <class A>
A inverse_scale(double scale, int64_t in, int64_t out) {
  return scale > 0.0 ? static_cast<A>(1.0 / scale) : static_cast<A>(in) / static_cast<A>(out);
}

template <class A>
A linear_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  return inverse_scale<A>(scale, in, out);
}

// The (fractional) input position of output o; linear modes clamp it at 0.
template <class A>
A source_position(A ratio, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return ratio * static_cast<A>(o);
  const A src = ratio * (static_cast<A>(o) + A(0.5)) - A(0.5);
  return (!cubic && src < A(0)) ? A(0) : src;
}

// floor of the position (at most in-1) and the fraction past it in [0, 1].
// The floor is taken in float whatever A is, as CPU takes it.
template <class A>
void floor_and_fraction(A position, int64_t in, int64_t& index, A& fraction) {
  index = std::min(static_cast<int64_t>(std::floor(static_cast<float>(position))), in - 1);
  fraction = std::min(std::max(position - static_cast<A>(index), A(0)), A(1));
}

DimTaps nearest(int64_t in, int64_t out, double scale, bool exact) {
  DimTaps t;
  const float s = inverse_scale<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = 0;
    if (exact) {
      i = static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * s)));
    } else if (out == in) {
      i = o;
    } else if (out == 2 * in) {
      i = o >> 1;
    } else {
      i = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
    }
    t.add(std::min(i, in - 1), 1.0);
    t.close_output();
  }
  return t;
}

// W: the type weights are stored in before use (A, or the tensor's reduced
// float type: CPU's forward kernels keep their weights in the tensor's dtype).
template <class A, class W>
double stored(A v) {
  return static_cast<double>(static_cast<A>(static_cast<W>(v)));
}

template <class A, class W>
DimTaps linear(int64_t in, int64_t out, bool align_corners, double scale) {
  DimTaps t;
  const A ratio = linear_scale<A>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) {
      // CPU's copy case still reads a second tap with weight 0.
      t.add(o, 1.0);
      t.add(o, 0.0);
    } else {
      int64_t i0 = 0;
      A lambda1{};
      floor_and_fraction(source_position(ratio, o, align_corners, false), in, i0, lambda1);
      const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
      const A lambda1_w = static_cast<A>(static_cast<W>(lambda1));
      t.add(i0, stored<A, W>(A(1) - lambda1_w));
      t.add(i1, static_cast<double>(lambda1_w));
    }
    t.close_output();
  }
  return t;
}

// Keys' cubic convolution kernel, |x| <= 1 and 1 < |x| < 2 branches.
template <class A>
A cubic_near(A x, A a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <class A>
A cubic_far(A x, A a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <class A, class W>
DimTaps cubic(int64_t in, int64_t out, bool align_corners, double scale) {
  DimTaps t;
  const A ratio = linear_scale<A>(in, out, align_corners, scale);
  const A a = A(-0.75);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = 0;
    A frac{};
    floor_and_fraction(source_position(ratio, o, align_corners, true), in, i, frac);
    const A rest = A(1) - frac;
    const A w[4] = {cubic_far<A>(frac + A(1), a), cubic_near<A>(frac, a), cubic_near<A>(rest, a),
                    cubic_far<A>(rest + A(1), a)};
    for (int64_t j = 0; j < 4; ++j) t.add(std::clamp<int64_t>(i - 1 + j, 0, in - 1), stored<A, W>(w[j]));
    t.close_output();
  }
  return t;
}

template <class A>
A triangle(A x) {
  if (x < A(0)) x = -x;
  return x < A(1) ? A(1) - x : A(0);
}

// Keys' kernel with A = -0.5, the antialiased bicubic's (Pillow's) choice.
template <class A>
A keys_half(A x) {
  const A a = A(-0.5);
  if (x < A(0)) x = -x;
  if (x < A(1)) return ((a + A(2)) * x - (a + A(3))) * x * x + A(1);
  if (x < A(2)) return (((x - A(5)) * x + A(8)) * x - A(4)) * a;
  return A(0);
}

// Antialiased taps: the filter stretched by the downscale factor (when
// shrinking), over the input pixels whose centres fall within its support,
// normalized to sum 1.
template <class A>
DimTaps antialiased(int64_t in, int64_t out, bool align_corners, double scale, bool is_cubic) {
  DimTaps t;
  const A ratio = linear_scale<A>(in, out, align_corners, scale);
  const A half_width = is_cubic ? A(2) : A(1);
  const A support = ratio >= A(1) ? half_width * ratio : half_width;
  const int64_t max_taps = static_cast<int64_t>(std::ceil(static_cast<double>(support))) * 2 + 1;
  const A inv = ratio >= A(1) ? static_cast<A>(1.0 / static_cast<double>(ratio)) : A(1);
  std::vector<A> w;
  for (int64_t o = 0; o < out; ++o) {
    const A center = static_cast<A>(static_cast<double>(ratio) * (static_cast<double>(o) + 0.5));
    // The bounds add 0.5 in double, as CPU does, before truncating.
    const int64_t first = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(center - support) + 0.5), 0);
    const int64_t count = std::clamp<int64_t>(
        std::min<int64_t>(static_cast<int64_t>(static_cast<double>(center + support) + 0.5), in) - first, 0,
        max_taps);
    w.assign(static_cast<std::size_t>(count), A(0));
    A total(0);
    for (int64_t j = 0; j < count; ++j) {
      const A x = static_cast<A>((static_cast<double>(static_cast<A>(j + first) - center) + 0.5) *
                                 static_cast<double>(inv));
      w[j] = is_cubic ? keys_half(x) : triangle(x);
      total += w[j];
    }
    for (int64_t j = 0; j < count; ++j) t.add(first + j, static_cast<double>(total != A(0) ? w[j] / total : w[j]));
    t.close_output();
  }
  return t;
}

template <class A, class W>
DimTaps taps_in(UpsampleMode mode, int64_t in, int64_t out, bool align_corners, double scale) {
  switch (mode) {
    case UpsampleMode::Nearest: return nearest(in, out, scale, false);
    case UpsampleMode::NearestExact: return nearest(in, out, scale, true);
    case UpsampleMode::Linear: return linear<A, W>(in, out, align_corners, scale);
    case UpsampleMode::Cubic: return cubic<A, W>(in, out, align_corners, scale);
    case UpsampleMode::LinearAA: return antialiased<A>(in, out, align_corners, scale, false);
    case UpsampleMode::CubicAA: return antialiased<A>(in, out, align_corners, scale, true);
  }
  throw KernelError("upsample: unknown mode");
}

}  // namespace

const char* upsample_mode_name(UpsampleMode mode) {
  switch (mode) {
    case UpsampleMode::Nearest: return "nearest";
    case UpsampleMode::NearestExact: return "nearest-exact";
    case UpsampleMode::Linear: return "linear";
    case UpsampleMode::Cubic: return "cubic";
    case UpsampleMode::LinearAA: return "antialiased linear";
    case UpsampleMode::CubicAA: return "antialiased cubic";
  }
  return "?";
}

DimTaps upsample_taps(UpsampleMode mode, int64_t in, int64_t out, bool align_corners, double scale,
                      DType weight_dtype) {
  if (in <= 0 || out <= 0) {
    throw KernelError(std::string("upsample: input and output sizes must be positive, got ") + std::to_string(in) +
                      " and " + std::to_string(out));
  }
  switch (weight_dtype) {
    case DType::Float64: return taps_in<double, double>(mode, in, out, align_corners, scale);
    case DType::Float16: return taps_in<float, half>(mode, in, out, align_corners, scale);
    case DType::BFloat16: return taps_in<float, bfloat16>(mode, in, out, align_corners, scale);
    default: return taps_in<float, float>(mode, in, out, align_corners, scale);
  }
}

}  // namespace npu::kernels
