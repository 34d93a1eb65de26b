#include "kernels/upsample/grid_sampler.h"

#include <array>
#include <climits>
#include <cmath>
#include <string>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"

namespace npu::kernels {

namespace {

template <class A>
A unnormalize(A coord, int64_t size, bool align_corners) {
  return align_corners ? ((coord + 1) / 2) * static_cast<A>(size - 1) : ((coord + 1) * static_cast<A>(size) - 1) / 2;
}

template <class A>
A clip(A in, int64_t limit) {
  return std::min(static_cast<A>(limit - 1), std::max(in, A(0)));
}

// Reflects `in` into [twice_low / 2, twice_high / 2] as often as needed.
template <class A>
A reflect(A in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return A(0);
  const A low = static_cast<A>(twice_low) / 2;
  const A span = static_cast<A>(twice_high - twice_low) / 2;
  using M = opmath_t<A>;  // the library functions' argument type
  in = static_cast<A>(std::fabs(static_cast<M>(in - low)));
  const A extra = static_cast<A>(std::fmod(static_cast<M>(in), static_cast<M>(span)));
  const int flips = static_cast<int>(std::floor(static_cast<M>(in / span)));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

// The padding mode applied to an unnormalized coordinate.
template <class A>
A pad_coordinate(A coord, int64_t size, GridPadding padding, bool align_corners) {
  if (padding == GridPadding::Border) return clip(coord, size);
  if (padding == GridPadding::Reflection) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return coord;
}

// floor / nearest of a coordinate as an index; non-finite or huge values
// become an index that is out of bounds.
template <class A>
int64_t floor_index(A v) {
  const double f = std::floor(static_cast<double>(v));
  return std::isfinite(f) && std::fabs(f) < 1e15 ? static_cast<int64_t>(f) : INT64_MIN / 4;
}
template <class A>
int64_t nearest_index(A v) {
  const double r = std::nearbyint(static_cast<double>(v));
  return std::isfinite(r) && std::fabs(r) < 1e15 ? static_cast<int64_t>(r) : INT64_MIN / 4;
}

template <class A>
A cubic_near(A x) {
  const A a = A(-0.75);
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <class A>
A cubic_far(A x) {
  const A a = A(-0.75);
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

struct Geometry {
  int64_t rank, n, c;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1};  // D, H, W
  std::array<int64_t, 3> in_stride{0, 0, 0}, out_stride{0, 0, 0};
  std::array<int64_t, 3> grid_stride{0, 0, 0};
  int64_t in_n, in_c, out_n, out_c, grid_n, grid_k;
};

template <class T>
void sample(const TensorView& input, const TensorView& grid, const TensorView& out, const Geometry& g,
            GridInterpolation mode, GridPadding padding, bool align_corners) {
  using A = opmath_t<T>;
  const int64_t positions = g.out[0] * g.out[1] * g.out[2];
  const auto [D, H, W] = g.in;
  parallel_range(g.n * positions, grain_for(g.c * 8), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / positions, pos = p % positions;
      const int64_t od = pos / (g.out[1] * g.out[2]), oh = (pos / g.out[2]) % g.out[1], ow = pos % g.out[2];
      const T* gp = grid.ptr<T>() + n * g.grid_n + od * g.grid_stride[0] + oh * g.grid_stride[1] +
                    ow * g.grid_stride[2];
      const A gx = static_cast<A>(gp[0]), gy = static_cast<A>(gp[g.grid_k]);
      const A gz = g.rank == 3 ? static_cast<A>(gp[2 * g.grid_k]) : A(-1);
      const T* in = input.ptr<T>() + n * g.in_n;
      T* dst = out.ptr<T>() + n * g.out_n + od * g.out_stride[0] + oh * g.out_stride[1] + ow * g.out_stride[2];
      const auto at = [&](int64_t c, int64_t d, int64_t h, int64_t w) -> A {
        if (d < 0 || d >= D || h < 0 || h >= H || w < 0 || w >= W) return A(0);
        return static_cast<A>(in[c * g.in_c + d * g.in_stride[0] + h * g.in_stride[1] + w * g.in_stride[2]]);
      };
      if (mode == GridInterpolation::Bicubic) {
        // Taps around the unnormalized point; each tap's integer position
        // padded on its own (PyTorch's get_value_bounded).
        const A x = unnormalize(gx, W, align_corners), y = unnormalize(gy, H, align_corners);
        const int64_t x0 = floor_index(x), y0 = floor_index(y);
        const A tx = x - static_cast<A>(x0), ty = y - static_cast<A>(y0);
        const A wx[4] = {cubic_far(tx + A(1)), cubic_near(tx), cubic_near(A(1) - tx), cubic_far(A(1) - tx + A(1))};
        const A wy[4] = {cubic_far(ty + A(1)), cubic_near(ty), cubic_near(A(1) - ty), cubic_far(A(1) - ty + A(1))};
        std::array<int64_t, 4> xi{}, yi{};
        for (int64_t i = 0; i < 4; ++i) {
          xi[i] = static_cast<int64_t>(pad_coordinate(static_cast<A>(x0 - 1 + i), W, padding, align_corners));
          yi[i] = static_cast<int64_t>(pad_coordinate(static_cast<A>(y0 - 1 + i), H, padding, align_corners));
        }
        for (int64_t c = 0; c < g.c; ++c) {
          A sum(0);
          for (int64_t j = 0; j < 4; ++j) {
            A row(0);
            for (int64_t i = 0; i < 4; ++i) row += at(c, 0, yi[j], xi[i]) * wx[i];
            sum += row * wy[j];
          }
          dst[c * g.out_c] = static_cast<T>(sum);
        }
        continue;
      }
      const A x = pad_coordinate(unnormalize(gx, W, align_corners), W, padding, align_corners);
      const A y = pad_coordinate(unnormalize(gy, H, align_corners), H, padding, align_corners);
      const A z = g.rank == 3 ? pad_coordinate(unnormalize(gz, D, align_corners), D, padding, align_corners) : A(0);
      if (mode == GridInterpolation::Nearest) {
        const int64_t xn = nearest_index(x), yn = nearest_index(y), zn = g.rank == 3 ? nearest_index(z) : 0;
        for (int64_t c = 0; c < g.c; ++c) dst[c * g.out_c] = static_cast<T>(at(c, zn, yn, xn));
        continue;
      }
      const int64_t x0 = floor_index(x), y0 = floor_index(y), z0 = g.rank == 3 ? floor_index(z) : 0;
      // Corner weights: the opposite sub-box's volume.
      const A ex = static_cast<A>(x0 + 1) - x, wx_ = x - static_cast<A>(x0);
      const A ey = static_cast<A>(y0 + 1) - y, wy_ = y - static_cast<A>(y0);
      if (g.rank == 2) {
        const A w_nw = ex * ey, w_ne = wx_ * ey, w_sw = ex * wy_, w_se = wx_ * wy_;
        for (int64_t c = 0; c < g.c; ++c) {
          const A v = at(c, 0, y0, x0) * w_nw + at(c, 0, y0, x0 + 1) * w_ne + at(c, 0, y0 + 1, x0) * w_sw +
                      at(c, 0, y0 + 1, x0 + 1) * w_se;
          dst[c * g.out_c] = static_cast<T>(v);
        }
      } else {
        const A ez = static_cast<A>(z0 + 1) - z, wz_ = z - static_cast<A>(z0);
        const A w[8] = {ex * ey * ez, wx_ * ey * ez, ex * wy_ * ez, wx_ * wy_ * ez,
                        ex * ey * wz_, wx_ * ey * wz_, ex * wy_ * wz_, wx_ * wy_ * wz_};
        for (int64_t c = 0; c < g.c; ++c) {
          A v(0);
          for (int64_t k = 0; k < 8; ++k) v += at(c, z0 + (k >> 2), y0 + ((k >> 1) & 1), x0 + (k & 1)) * w[k];
          dst[c * g.out_c] = static_cast<T>(v);
        }
      }
    }
  });
}

}  // namespace

void grid_sample(const TensorView& input, const TensorView& grid, const TensorView& out, GridInterpolation mode,
                 GridPadding padding, bool align_corners) {
  const int64_t rank = input.dim() - 2;
  if (rank != 2 && rank != 3) throw KernelError("grid_sample: input must be 4-d or 5-d, got " + shape_str(input.sizes));
  if (grid.dim() != rank + 2 || grid.sizes[0] != input.sizes[0] || grid.sizes[rank + 1] != rank) {
    throw KernelError("grid_sample: grid must be (N, *out, " + std::to_string(rank) + "), got " + shape_str(grid.sizes));
  }
  if (mode == GridInterpolation::Bicubic && rank != 2) throw KernelError("grid_sample: bicubic needs a 4-d input");
  Shape expected{input.sizes[0], input.sizes[1]};
  for (int64_t i = 1; i <= rank; ++i) expected.push_back(grid.sizes[i]);
  if (out.sizes != expected) throw KernelError("grid_sample: out must have shape " + shape_str(expected));
  if (grid.dtype != input.dtype || out.dtype != input.dtype) throw KernelError("grid_sample: dtypes must match");
  Geometry g{};
  g.rank = rank;
  g.n = input.sizes[0];
  g.c = input.sizes[1];
  g.in_n = input.strides[0];
  g.in_c = input.strides[1];
  g.out_n = out.strides[0];
  g.out_c = out.strides[1];
  g.grid_n = grid.strides[0];
  g.grid_k = grid.strides[rank + 1];
  for (int64_t i = 0; i < rank; ++i) {
    const std::size_t at = static_cast<std::size_t>(3 - rank + i);
    g.in[at] = input.sizes[2 + i];
    g.in_stride[at] = input.strides[2 + i];
    g.out[at] = out.sizes[2 + i];
    g.out_stride[at] = out.strides[2 + i];
    g.grid_stride[at] = grid.strides[1 + i];
  }
  if (g.n * g.c * g.out[0] * g.out[1] * g.out[2] == 0) return;
  if (!model::is_floating_point(input.dtype)) {
    throw KernelError(std::string("grid_sample: ") + model::dtype_name(input.dtype) + " is not supported");
  }
  visit_dtype(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_v<T>) sample<T>(input, grid, out, g, mode, padding, align_corners);
  });
}

}  // namespace npu::kernels
