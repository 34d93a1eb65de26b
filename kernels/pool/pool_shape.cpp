// Pooling arguments and shapes: the int lists expanded and checked, the
// output shapes, and the windows of each output position.
#include <string>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace npu::kernels {

namespace {

[[noreturn]] void fail(const char* op, const std::string& what) { throw KernelError(std::string(op) + ": " + what); }

std::string list_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// One value for every dim or one per dim (an empty list takes `fallback`).
Shape expand(const char* op, const char* name, int64_t rank, const std::vector<int64_t>& v, const Shape* fallback) {
  if (v.empty() && fallback != nullptr) return *fallback;
  if (v.size() == 1) return Shape(static_cast<std::size_t>(rank), v[0]);
  if (static_cast<int64_t>(v.size()) != rank) {
    fail(op, std::string(name) + " must be a single int or " + std::to_string(rank) + " ints, got " + list_str(v));
  }
  return Shape(v.begin(), v.end());
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t out = floor_div(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  // A last window may not start in the right padding.
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// self's rank must be rank+1 or rank+2, every dim but a batch dim non-empty.
void check_input(const char* op, const Shape& self, int64_t rank) {
  const int64_t nd = static_cast<int64_t>(self.size());
  if (nd != rank + 1 && nd != rank + 2) {
    fail(op, "expected a " + std::to_string(rank + 1) + "-d or " + std::to_string(rank + 2) +
                 "-d (batched) input, got shape " + shape_str(self));
  }
  for (int64_t d = nd - rank - 1; d < nd; ++d) {
    if (self[d] == 0) {
      fail(op, "expected non-empty non-batch dims (a 0-size batch is allowed), got shape " + shape_str(self));
    }
  }
}

}  // namespace

PoolParams pool_params(const char* op, int64_t rank, const std::vector<int64_t>& kernel,
                       const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                       const std::vector<int64_t>& dilation, bool ceil_mode) {
  PoolParams p;
  p.kernel = expand(op, "kernel_size", rank, kernel, nullptr);
  p.stride = expand(op, "stride", rank, stride, &p.kernel);
  p.padding = expand(op, "padding", rank, padding, nullptr);
  const Shape ones(static_cast<std::size_t>(rank), 1);
  p.dilation = expand(op, "dilation", rank, dilation, &ones);
  p.ceil_mode = ceil_mode;
  for (int64_t i = 0; i < rank; ++i) {
    if (p.kernel[i] <= 0) fail(op, "kernel_size must be greater than zero, got " + list_str(kernel));
    if (p.stride[i] <= 0) fail(op, "stride must be greater than zero, got " + list_str(stride));
    if (p.dilation[i] <= 0) fail(op, "dilation must be greater than zero, got " + list_str(dilation));
    if (p.padding[i] < 0) fail(op, "padding must be non-negative, got " + list_str(padding));
    const int64_t effective = (p.kernel[i] - 1) * p.dilation[i] + 1;
    if (p.padding[i] > effective / 2) {
      fail(op, "padding must be at most half of the effective kernel size, got padding " + list_str(padding) +
                   ", kernel_size " + list_str(kernel) + ", dilation " + list_str(dilation));
    }
  }
  return p;
}

Shape pooled_shape(const char* op, const Shape& self, const PoolParams& p) {
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  check_input(op, self, rank);
  Shape out = self;
  const int64_t first = static_cast<int64_t>(self.size()) - rank;
  for (int64_t i = 0; i < rank; ++i) {
    out[first + i] = pooled_size(self[first + i], p.kernel[i], p.stride[i], p.padding[i], p.dilation[i], p.ceil_mode);
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (out[first + i] < 1) {
      fail(op, "input of shape " + shape_str(self) + " gives output shape " + shape_str(out) +
                   ": the output is too small (the kernel is larger than the padded input)");
    }
  }
  return out;
}

Shape adaptive_shape(const char* op, const Shape& self, const std::vector<int64_t>& output_size) {
  const int64_t rank = static_cast<int64_t>(output_size.size());
  if (rank < 1 || rank > 3) fail(op, "output_size must have 1 to 3 entries, got " + list_str(output_size));
  check_input(op, self, rank);
  Shape out = self;
  const int64_t first = static_cast<int64_t>(self.size()) - rank;
  for (int64_t i = 0; i < rank; ++i) {
    if (output_size[i] < 0) fail(op, "output_size must be non-negative, got " + list_str(output_size));
    out[first + i] = output_size[i];
  }
  return out;
}

namespace pool {

View5 as_5d(const PoolInput& t, int64_t rank) {
  View5 v = as_5d(t.view, rank);
  v.block = t.block;
  v.block_stride = t.block_stride;
  return v;
}

View5 as_5d(const TensorView& t, int64_t rank) {
  const int64_t nd = t.dim();
  const bool batched = nd == rank + 2;
  View5 v;
  v.data = t.data;
  v.dtype = t.dtype;
  v.sizes.push_back(batched ? t.sizes[0] : 1);
  v.strides.push_back(batched ? t.strides[0] : 0);
  v.sizes.push_back(t.sizes[nd - rank - 1]);
  v.strides.push_back(t.strides[nd - rank - 1]);
  for (int64_t i = rank; i < 3; ++i) {
    v.sizes.push_back(1);
    v.strides.push_back(0);
  }
  for (int64_t i = nd - rank; i < nd; ++i) {
    v.sizes.push_back(t.sizes[i]);
    v.strides.push_back(t.strides[i]);
  }
  return v;
}

Windows sliding_windows(const View5& self5, const View5& out5, const PoolParams& p, Kind kind) {
  Windows w;
  const int64_t rank = static_cast<int64_t>(p.kernel.size());
  for (int64_t i = 0; i < rank; ++i) {
    DimWindows& dw = w[3 - rank + i];
    const int64_t in = self5.sizes[2 + 3 - rank + i], out = out5.sizes[2 + 3 - rank + i];
    const int64_t k = p.kernel[i], s = p.stride[i], pad = p.padding[i], dil = p.dilation[i];
    dw.step = kind == Kind::Max ? dil : 1;
    dw.at.assign(static_cast<std::size_t>(out), Window{});
    for (int64_t o = 0; o < out; ++o) {
      Window& win = dw.at[o];
      win.begin = o * s - pad;
      if (kind == Kind::Max) {
        win.end = std::min(win.begin + (k - 1) * dil + 1, in);
        while (win.begin < 0) win.begin += dil;
      } else {
        win.end = std::min(win.begin + k, in + pad);
        win.span = win.end - win.begin;
        win.begin = std::max<int64_t>(win.begin, 0);
        win.end = std::min(win.end, in);
      }
    }
  }
  return w;
}

Windows adaptive_windows(const View5& self5, const View5& out5) {
  Windows w;
  for (int i = 0; i < 3; ++i) {
    const int64_t in = self5.sizes[2 + i], out = out5.sizes[2 + i];
    w[i].at.assign(static_cast<std::size_t>(out), Window{});
    for (int64_t o = 0; o < out; ++o) {
      Window& win = w[i].at[o];
      win.begin = (o * in) / out;
      win.end = ((o + 1) * in + out - 1) / out;
      win.span = win.end - win.begin;
    }
  }
  return w;
}

}  // namespace pool

}  // namespace npu::kernels
