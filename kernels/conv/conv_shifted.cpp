#include "kernels/conv/conv_shifted.h"

#include <algorithm>
#include <array>
#include <type_traits>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "kernels/conv/conv_dtype.h"
#include "kernels/conv/conv_gemm.h"
#include "kernels/conv/conv_tile_gemm.h"
#include "kernels/core/nd_iter.h"
#include "kernels/linalg/reused_buffer.h"

namespace npu::kernels::conv {

namespace {

using linalg::ReusedBuffer;

// Sizes or strides of the two spatial dims; a 1-d convolution is a 2-d one
// of height 1.
struct Dims2 {
  int64_t h = 1, w = 1;
  bool operator==(const Dims2& o) const { return h == o.h && w == o.w; }
};

Dims2 dims2(const Shape& s, int64_t fill) { return s.size() == 1 ? Dims2{fill, s[0]} : Dims2{s[0], s[1]}; }
Dims2 sizes2(const ConvOperand& t) { return dims2(t.spatial, 1); }
Dims2 strides2(const ConvOperand& t) { return dims2(t.spatial_strides, 0); }

// A zero-padded channels-last copy of a batch: image n at data + n * image(),
// pixel (y, x) of it at (y * grid.w + x) * channels. A slack of zeros after
// the last image covers the reads of the dropped output rows past its end.
template <class Acc>
struct Grid {
  Dims2 grid;
  int64_t channels = 0;
  int64_t batch = 0;
  ReusedBuffer storage;
  int64_t image() const { return grid.h * grid.w * channels; }
  int64_t slack() const { return (grid.h + 1) * grid.w * channels; }
  Acc* data() const { return storage.as<Acc>(); }
};

// Copies t (all images and channels) into a grid of `grid` sizes with the
// image at `offset`, zeros elsewhere, image rows in parallel.
template <class T, class Acc>
void to_grid(const ConvOperand& t, Dims2 offset, Dims2 grid, Grid<Acc>& out) {
  out.grid = grid;
  out.channels = t.size1();
  out.batch = t.size0();
  out.storage = ReusedBuffer(sizeof(Acc) * static_cast<std::size_t>(out.batch * out.image() + out.slack()));
  const Dims2 size = sizes2(t), st = strides2(t);
  const int64_t c_count = out.channels;
  const int64_t row = grid.w * c_count;
  parallel_range(out.batch * grid.h, grain_for(row), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / grid.h;
      const int64_t y = task % grid.h;
      Acc* r = out.data() + n * out.image() + y * row;
      const int64_t h = y - offset.h;
      if (h < 0 || h >= size.h) {
        std::fill(r, r + row, Acc(0));
        continue;
      }
      std::fill(r, r + offset.w * c_count, Acc(0));
      std::fill(r + (offset.w + size.w) * c_count, r + row, Acc(0));
      Acc* px = r + offset.w * c_count;
      const T* data = static_cast<const T*>(t.data) + t.outer[n] + h * st.h;
      // Channel by channel: reads run along the image row, the writes
      // (channel stride) stay inside one grid row, in L1.
      for (int64_t c = 0; c < c_count; ++c) {
        const T* src = data + t.channel[c];
        if (st.w == 1) {
          for (int64_t x = 0; x < size.w; ++x) px[x * c_count + c] = convert<Acc>(src[x]);
        } else {
          for (int64_t x = 0; x < size.w; ++x) px[x * c_count + c] = convert<Acc>(src[x * st.w]);
        }
      }
    }
  });
  std::fill(out.data() + out.batch * out.image(), out.data() + out.batch * out.image() + out.slack(), Acc(0));
}

// The sizes of one shifted-GEMM problem: a grid of `in_ch` channels read by
// a kernel of `kernel` sizes into `out_ch` channels, out_h rows of grid.w
// positions per image (of which the last kernel.w - 1 are dropped).
struct Shifted {
  Dims2 kernel;
  int64_t in_ch = 0, out_ch = 0, out_h = 0;
  Dims2 stride{1, 1};  // above 1 only on the tile GEMM (strided_forward_applies)
};

// out[n] ([out_h * grid.w][out_ch], row-major) = sum over kh of
// grid_kh[n] * w[kh], w[kh] the [kernel.w * in_ch][out_ch] matrix at
// w + kh * kernel.w * in_ch * out_ch, on the GEMM engine (where the tile GEMM
// does not run). Images in parallel, each one's kernel rows in a row so its
// output block stays in cache.
template <class Acc>
void shifted_gemms(const Grid<Acc>& in, const Shifted& s, const Acc* w, Acc* out) {
  const int64_t m = s.out_h * in.grid.w;
  const int64_t k = s.kernel.w * s.in_ch;
  const auto image = [&](int64_t n) {
    for (int64_t kh = 0; kh < s.kernel.h; ++kh) {
      gemm<Acc>(false, false, m, s.out_ch, k, in.data() + n * in.image() + kh * in.grid.w * s.in_ch, s.in_ch,
                w + kh * k * s.out_ch, s.out_ch, out + n * m * s.out_ch, s.out_ch, kh > 0);
    }
  };
  const int64_t workers = std::max(1, tbb::this_task_arena::max_concurrency());
  if (in.batch >= 2 * workers) {
    parallel_range(in.batch, 1, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) image(n);
    });
  } else {
    // Few images: one at a time, the GEMM engine splits each product.
    for (int64_t n = 0; n < in.batch; ++n) image(n);
  }
}

// out ([batch][out_h][out_w][s.out_ch], only the kept outputs) = the
// shifted product on the tile GEMM: A's row (n, y, x) is read from the grid
// at pixel (y, x) of image n, over (kh, kw, c) in runs of kernel.w * in_ch;
// B is w as in shifted_gemms ([kh][kw][c][out_ch] = [k][out_ch]).
void tile_shifted(const Grid<float>& in, const Shifted& s, int64_t out_w, const float* w, float* out) {
  const int64_t run = s.kernel.w * s.in_ch;
  const int64_t k = s.kernel.h * run;
  const int64_t per_image = s.out_h * out_w;
  const int64_t grid_row = in.grid.w * s.in_ch;
  TileGemm g;
  g.m = in.batch * per_image;
  g.n = s.out_ch;
  g.k = k;
  g.c = out;
  g.ldc = s.out_ch;
  g.k_run = run;
  g.run_stride = grid_row;  // kernel row kh + 1 reads the next grid row
  g.a_row = [&](int64_t r) -> const float* {
    const int64_t n = r / per_image;
    const int64_t y = r % per_image / out_w;
    const int64_t x = r % out_w;
    return in.data() + n * in.image() + y * s.stride.h * grid_row + x * s.stride.w * s.in_ch;
  };
  g.pack_b = [&](int64_t j0, int64_t cols, int64_t k0, int64_t kc, float* dst) {
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float* src = w + (k0 + kk) * s.out_ch + j0;
      std::copy(src, src + cols, dst + kk * kTileCols);
    }
  };
  tile_gemm(g);
}

// Writes rows ([out_h * grid_w][C], the first out.w of each grid_w) into t
// (all images and channels), adding bias[c] when given.
template <class T, class Acc>
void from_rows(const Acc* rows, int64_t grid_w, const ConvOperand& t, const std::vector<Acc>* bias) {
  const Dims2 size = sizes2(t), st = strides2(t);
  const int64_t c_count = t.size1();
  const int64_t image = size.h * grid_w * c_count;
  parallel_range(t.size0() * size.h, grain_for(size.w * c_count), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / size.h;
      const int64_t y = task % size.h;
      const Acc* src = rows + n * image + y * grid_w * c_count;
      T* data = static_cast<T*>(t.data) + t.outer[n] + y * st.h;
      for (int64_t c = 0; c < c_count; ++c) {
        T* dst = data + t.channel[c];
        const Acc b = bias == nullptr ? Acc(0) : (*bias)[static_cast<std::size_t>(c)];
        for (int64_t x = 0; x < size.w; ++x) dst[x * st.w] = convert<T>(src[x * c_count + c] + b);
      }
    }
  });
}

// The weight [out, in, kh, kw] as the forward's matrices: [kh][kw][in][out]
// (k = (kh, kw, in) rows of out columns), a transpose per kernel position
// in blocks of 16 outputs (16 read streams, contiguous writes).
template <class T, class Acc>
std::vector<Acc> forward_weight(const ConvOperand& w) {
  const Dims2 k = sizes2(w), st = strides2(w);
  const int64_t outs = w.size0(), ins = w.size1();
  constexpr int64_t kBlock = 16;
  const int64_t blocks = (outs + kBlock - 1) / kBlock;
  std::vector<Acc> packed(static_cast<std::size_t>(k.h * k.w * outs * ins));
  const T* data = static_cast<const T*>(w.data);
  parallel_range(k.h * k.w * blocks, grain_for(kBlock * ins), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task / blocks;
      const int64_t o0 = task % blocks * kBlock;
      const int64_t o1 = std::min(outs, o0 + kBlock);
      const int64_t spatial = pos / k.w * st.h + pos % k.w * st.w;
      Acc* dst = packed.data() + pos * ins * outs;
      for (int64_t i = 0; i < ins; ++i) {
        for (int64_t o = o0; o < o1; ++o) dst[i * outs + o] = convert<Acc>(data[w.outer[o] + w.channel[i] + spatial]);
      }
    }
  });
  return packed;
}

// The input gradient's weight: the forward's, flipped in both spatial dims
// with in and out swapped: [kh][kw][out][in] of w[o][i][KH-1-kh][KW-1-kw],
// each kernel row's matrix [kw * out][in] read as is.
template <class T, class Acc>
std::vector<Acc> flipped_weight(const ConvOperand& w) {
  const Dims2 k = sizes2(w), st = strides2(w);
  const int64_t outs = w.size0(), ins = w.size1();
  std::vector<Acc> packed(static_cast<std::size_t>(k.h * k.w * outs * ins));
  const T* data = static_cast<const T*>(w.data);
  parallel_range(k.h * k.w * outs, grain_for(ins), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t kh = task / (k.w * outs);
      const int64_t kw = task / outs % k.w;
      const int64_t o = task % outs;
      const T* src = data + w.outer[o] + (k.h - 1 - kh) * st.h + (k.w - 1 - kw) * st.w;
      Acc* dst = packed.data() + task * ins;
      for (int64_t i = 0; i < ins; ++i) dst[i] = convert<Acc>(src[w.channel[i]]);
    }
  });
  return packed;
}

// bias as a vector of the compute type.
template <class Acc>
std::vector<Acc> bias_values(const TensorView& bias) {
  std::vector<Acc> out(static_cast<std::size_t>(bias.sizes[0]));
  visit_dtype(bias.dtype, [&](auto tag) {
    using B = typename decltype(tag)::type;
    if constexpr (is_complex_v<B>) {
      throw KernelError("convolution: a complex bias is not supported");
    } else {
      for (std::size_t c = 0; c < out.size(); ++c) out[c] = convert<Acc>(bias.ptr<B>()[c * bias.strides[0]]);
    }
  });
  return out;
}

// out = the shifted product of `in` by w ([kh][kw][in_ch][out_ch]) written
// into `out` (+ bias): on the tile GEMM where it runs, else one GEMM engine
// product per kernel row.
template <class T, class Acc>
void run_shifted(const Grid<Acc>& in, const Shifted& s, const std::vector<Acc>& w, const ConvOperand& out,
                 const std::vector<Acc>* bias, bool tile) {
  const int64_t out_w = sizes2(out).w;
  if constexpr (std::is_same_v<Acc, float>) {
    if (tile && tile_gemm_available()) {
      const ReusedBuffer rows(sizeof(float) * static_cast<std::size_t>(in.batch * s.out_h * out_w * s.out_ch));
      tile_shifted(in, s, out_w, w.data(), rows.as<float>());
      from_rows<T, Acc>(rows.as<Acc>(), out_w, out, bias);
      return;
    }
  }
  const ReusedBuffer rows(sizeof(Acc) * static_cast<std::size_t>(in.batch * s.out_h * in.grid.w * s.out_ch));
  shifted_gemms<Acc>(in, s, w.data(), rows.as<Acc>());
  from_rows<T, Acc>(rows.as<Acc>(), in.grid.w, out, bias);
}

template <class T, class Acc>
void forward_typed(const ConvOperand& input, const ConvOperand& weight, const TensorView* bias,
                   const ConvOperand& output, const ConvParams& p) {
  const Dims2 image = sizes2(input), pad = dims2(p.padding, 0);
  Grid<Acc> x;
  to_grid<T, Acc>(input, pad, Dims2{image.h + 2 * pad.h, image.w + 2 * pad.w}, x);
  const std::vector<Acc> w = forward_weight<T, Acc>(weight);
  const Shifted s{sizes2(weight), input.size1(), weight.size0(), sizes2(output).h, dims2(p.stride, 1)};
  std::vector<Acc> b;
  if (bias != nullptr) b = bias_values<Acc>(*bias);
  run_shifted<T, Acc>(x, s, w, output, bias != nullptr ? &b : nullptr, p.tile_gemm);
}

template <class T, class Acc>
void input_grad_typed(const ConvOperand& grad_output, const ConvOperand& weight, const ConvOperand& grad_input,
                      const ConvParams& p) {
  const Dims2 image = sizes2(grad_input), pad = dims2(p.padding, 0), kernel = sizes2(weight);
  const Dims2 out_size = sizes2(grad_output);
  // The output gradient padded by kernel - 1 - padding: the input gradient
  // is its convolution with the flipped, transposed weight.
  const Dims2 flip_pad{kernel.h - 1 - pad.h, kernel.w - 1 - pad.w};
  const Dims2 grid{out_size.h + 2 * flip_pad.h, out_size.w + 2 * flip_pad.w};
  Grid<Acc> gy;
  to_grid<T, Acc>(grad_output, flip_pad, grid, gy);
  const std::vector<Acc> w = flipped_weight<T, Acc>(weight);
  const Shifted s{kernel, weight.size0(), weight.size1(), image.h};
  run_shifted<T, Acc>(gy, s, w, grad_input, nullptr, p.tile_gemm);
}

// The rows of a [batch][channels][positions] tensor t as float runs: row c
// of image n at rows + n * batch_stride + c * channel_stride, positions
// contiguous. In place when t is float32 with dense positions and a uniform
// batch stride, else copied into `storage` (dense [batch][channels][positions]).
struct FloatRows {
  const float* rows = nullptr;
  int64_t batch_stride = 0;
  std::vector<int64_t> channel;  // per channel
  ReusedBuffer storage;
};

template <class T>
FloatRows float_rows(const ConvOperand& t) {
  const Dims2 size = sizes2(t), st = strides2(t);
  const int64_t positions = size.h * size.w;
  FloatRows out;
  bool dense = std::is_same_v<T, float> && (size.w == 1 || st.w == 1) && (size.h == 1 || st.h == size.w);
  const int64_t batch_stride = t.size0() > 1 ? t.outer[1] - t.outer[0] : 0;
  for (int64_t n = 1; dense && n < t.size0(); ++n) dense = t.outer[n] - t.outer[0] == n * batch_stride;
  if (dense) {
    out.rows = static_cast<const float*>(t.data) + t.outer[0];
    out.batch_stride = batch_stride;
    out.channel = t.channel;
    return out;
  }
  const int64_t channels = t.size1();
  out.storage = ReusedBuffer(sizeof(float) * static_cast<std::size_t>(std::max<int64_t>(t.size0() * channels * positions, 1)));
  float* const dst = out.storage.as<float>();
  parallel_range(t.size0() * channels, grain_for(positions), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const T* src = static_cast<const T*>(t.data) + t.outer[task / channels] + t.channel[task % channels];
      float* row = dst + task * positions;
      for (int64_t y = 0; y < size.h; ++y) {
        for (int64_t x = 0; x < size.w; ++x) row[y * size.w + x] = convert<float>(src[y * st.h + x * st.w]);
      }
    }
  });
  out.rows = dst;
  out.batch_stride = channels * positions;
  for (int64_t c = 0; c < channels; ++c) out.channel.push_back(c * positions);
  return out;
}

// grad_weight = sum over images and output positions of grad_output x the
// input window there, on the tile GEMM: C[o][(kh, kw, c)] (m: output
// channels, n: the window, k: every output position of the batch). A is the
// output gradient's channel rows in place (runs of one image's positions);
// B is packed from the padded channels-last input grid, a window row
// (kw, c) being one contiguous run of the grid, so no column matrix exists.
template <class T>
void weight_grad_typed(const ConvOperand& grad_output, const ConvOperand& input, const ConvOperand& grad_weight,
                       const ConvParams& p) {
  const Dims2 image = sizes2(input), pad = dims2(p.padding, 0), stride = dims2(p.stride, 1);
  const Dims2 kernel = sizes2(grad_weight), out = sizes2(grad_output);
  Grid<float> x;
  to_grid<T, float>(input, pad, Dims2{image.h + 2 * pad.h, image.w + 2 * pad.w}, x);
  const FloatRows gy = float_rows<T>(grad_output);
  const int64_t in_ch = input.size1(), out_ch = grad_output.size1();
  const int64_t run = kernel.w * in_ch;  // one window row in the grid
  const int64_t grid_row = x.grid.w * in_ch;
  const int64_t positions = out.h * out.w;
  std::vector<float> dw(static_cast<std::size_t>(out_ch * kernel.h * run));
  TileGemm g;
  g.m = out_ch;
  g.n = kernel.h * run;
  g.k = input.size0() * positions;
  g.k_run = positions;
  g.run_stride = gy.batch_stride;
  g.a_row = [&](int64_t o) { return gy.rows + gy.channel[static_cast<std::size_t>(o)]; };
  g.pack_b = [&](int64_t j0, int64_t cols, int64_t k0, int64_t kc, float* dst) {
    // The panel's columns as pieces of window rows (the same for every
    // position): at most kTileCols of them.
    struct Piece {
      int64_t from, to, len;
    };
    std::array<Piece, kTileCols> pieces{};
    int count = 0;
    for (int64_t j = j0; j < j0 + cols;) {
      const int64_t within = j % run;
      const int64_t len = std::min(run - within, j0 + cols - j);
      pieces[static_cast<std::size_t>(count++)] = {j / run * grid_row + within, j - j0, len};
      j += len;
    }
    int64_t n = k0 / positions, y = k0 % positions / out.w, xo = k0 % out.w;
    for (int64_t kk = 0; kk < kc; ++kk, dst += kTileCols) {
      const float* window = x.data() + n * x.image() + y * stride.h * grid_row + xo * stride.w * in_ch;
      for (int i = 0; i < count; ++i) {
        const Piece& pc = pieces[static_cast<std::size_t>(i)];
        for (int64_t l = 0; l < pc.len; ++l) dst[pc.to + l] = window[pc.from + l];
      }
      if (++xo == out.w) {
        xo = 0;
        if (++y == out.h) y = 0, ++n;
      }
    }
  };
  g.c = dw.data();
  g.ldc = g.n;
  tile_gemm(g);
  // C's columns are (kh, kw, c): into grad_weight's [o][c][kh][kw].
  const Dims2 wst = strides2(grad_weight);
  T* const data = static_cast<T*>(grad_weight.data);
  for (int64_t o = 0; o < out_ch; ++o) {
    for (int64_t kh = 0; kh < kernel.h; ++kh) {
      for (int64_t kw = 0; kw < kernel.w; ++kw) {
        const float* src = dw.data() + (o * kernel.h + kh) * run + kw * in_ch;
        T* dst = data + grad_weight.outer[o] + kh * wst.h + kw * wst.w;
        for (int64_t c = 0; c < in_ch; ++c) dst[grad_weight.channel[c]] = convert<T>(src[c]);
      }
    }
  }
}

}  // namespace

namespace {

// The conditions both shifted paths share: plain, one group, 1-d or 2-d,
// dilation 1, a kernel of more than one position, nothing empty.
bool shifted_shape(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p, bool transposed) {
  const std::size_t dims = input.spatial.size();
  if (!p.shifted || transposed || p.groups != 1 || p.round_intermediates || (dims != 1 && dims != 2)) return false;
  if (input.size0() == 0 || input.size1() == 0 || weight.size0() == 0) return false;
  int64_t kernel_numel = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    if (p.dilation[d] != 1) return false;
    kernel_numel *= weight.spatial[d];
  }
  return kernel_numel > 1;
}

}  // namespace

bool shifted_applies(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p, bool transposed) {
  if (!shifted_shape(input, weight, p, transposed)) return false;
  for (std::size_t d = 0; d < input.spatial.size(); ++d) {
    if (p.stride[d] != 1) return false;
    // The input gradient pads the output gradient by kernel - 1 - padding.
    if (p.padding[d] > weight.spatial[d] - 1) return false;
  }
  return true;
}

bool strided_forward_applies(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p,
                             bool transposed) {
  // A float32 compute type on the tile GEMM: its A rows can start anywhere.
  const bool float_compute = input.dtype == DType::Float32 || input.dtype == DType::BFloat16;
  return float_compute && p.tile_gemm && tile_gemm_available() && shifted_shape(input, weight, p, transposed);
}

void shifted_convolution(const ConvOperand& input, const ConvOperand& weight, const TensorView* bias,
                         const ConvOperand& output, const ConvParams& p) {
  visit_conv_dtype(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_typed<T, acc_t<T>>(input, weight, bias, output, p);
  });
}

void shifted_input_grad(const ConvOperand& grad_output, const ConvOperand& weight, const ConvOperand& grad_input,
                        const ConvParams& p) {
  visit_conv_dtype(grad_output.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    input_grad_typed<T, acc_t<T>>(grad_output, weight, grad_input, p);
  });
}

bool tile_weight_grad_applies(const ConvOperand& input, const ConvOperand& weight, const ConvParams& p,
                              bool transposed) {
  // The same shapes as the strided forward (float32 compute on the tile GEMM).
  return strided_forward_applies(input, weight, p, transposed);
}

void tile_weight_grad(const ConvOperand& grad_output, const ConvOperand& input, const ConvOperand& grad_weight,
                      const ConvParams& p) {
  if (input.dtype == DType::Float32) {
    weight_grad_typed<float>(grad_output, input, grad_weight, p);
  } else if (input.dtype == DType::BFloat16) {
    weight_grad_typed<bfloat16>(grad_output, input, grad_weight, p);
  } else {
    throw KernelError(std::string("tile_weight_grad: dtype ") + model::dtype_name(input.dtype) +
                      " has no float32 compute (check tile_weight_grad_applies first)");
  }
}

}  // namespace npu::kernels::conv
