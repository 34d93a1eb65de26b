#include "kernels/random/dropout_mask.h"

#include <array>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels/copy/copy.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/nd_iter.h"
#include "kernels/core/strided_loop.h"
#include "kernels/random/philox.h"

namespace npu::kernels {

namespace {

void require_mask(const TensorView& mask, int64_t numel, const char* op) {
  if (mask.dtype != DType::UInt8 || mask.dim() != 1 || mask.sizes[0] != dropout_mask_bytes(numel) ||
      (mask.sizes[0] > 1 && mask.strides[0] != 1)) {
    throw KernelError(std::string(op) + ": the mask must be contiguous uint8 of " +
                      std::to_string(dropout_mask_bytes(numel)) + " bytes (align(" + std::to_string(numel) +
                      ", 128) / 8), got " + model::dtype_name(mask.dtype) + " " + shape_str(mask.sizes));
  }
}

// Byte `byte` of the mask: elements 8 byte .. 8 byte + 7, those below numel.
uint8_t mask_byte(int64_t byte, int64_t numel, double p, PhiloxInputs rng) {
  uint8_t bits = 0;
  for (int64_t k = 0; k < 8; ++k) {
    const int64_t i = byte * 8 + k;
    if (i >= numel) break;
    // Two blocks per byte; the counter's upper half is the offset.
    const uint64_t block = static_cast<uint64_t>(i) / 4;
    const PhiloxBlock counter{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                              static_cast<uint32_t>(rng.offset), static_cast<uint32_t>(rng.offset >> 32)};
    const PhiloxBlock words = philox4x32_10(rng.seed, counter);
    if (uniform_float(words[static_cast<std::size_t>(i % 4)]) >= p) bits |= static_cast<uint8_t>(1u << k);
  }
  return bits;
}

}  // namespace

void dropout_gen_mask(const TensorView& mask, int64_t numel, double p, PhiloxInputs rng) {
  if (!(p >= 0.0 && p <= 1.0)) throw KernelError("DropoutGenMask: expects 0 <= p <= 1, got p=" + std::to_string(p));
  require_mask(mask, numel, "DropoutGenMask");
  uint8_t* dst = mask.ptr<uint8_t>();
  const int64_t bytes = mask.sizes[0];
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) dst[b] = mask_byte(b, numel, p, rng);
  };
  if (bytes * 8 < kParallelGrain) {
    body(0, bytes);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, bytes, kParallelGrain / 8),
                      [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
  }
}

void dropout_do_mask(const TensorView& out, const TensorView& self, const TensorView& mask, double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw KernelError("DropoutDoMask: expects 0 <= p <= 1, got p=" + std::to_string(p));
  if (out.sizes != self.sizes || out.dtype != self.dtype) {
    throw KernelError("DropoutDoMask: out must have self's shape and dtype");
  }
  const int64_t n = self.numel();
  require_mask(mask, n, "DropoutDoMask");
  if (p == 0.0) {
    copy(out, self);
    return;
  }
  const uint8_t* bits = mask.ptr<const uint8_t>();
  visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_floating_v<T>) {
      throw KernelError(std::string("DropoutDoMask: self must have a floating point dtype, got ") +
                        model::dtype_name(self.dtype));
    } else {
      using M = opmath_t<T>;
      // p == 1 drops everything (no 1 / 0 scale).
      const M scale = p < 1.0 ? static_cast<M>(1.0 / (1.0 - p)) : M(0);
      const std::array<const Shape*, 2> strides{&out.strides, &self.strides};
      auto body = [&](int64_t begin, int64_t end) {
        for_each_run(self.sizes, strides, begin, end, [&](const std::array<int64_t, 2>& off, int64_t pos, int64_t len) {
          T* o = out.ptr<T>() + off[0];
          const T* s = self.ptr<const T>() + off[1];
          const int64_t so = out.strides.empty() ? 0 : out.strides.back();
          const int64_t ss = self.strides.empty() ? 0 : self.strides.back();
          for (int64_t j = 0; j < len; ++j) {
            const int64_t i = pos + j;
            const bool keep = p < 1.0 && ((bits[i / 8] >> (i % 8)) & 1u) != 0;
            o[j * so] = keep ? T(static_cast<M>(s[j * ss]) * scale) : T(0);
          }
        });
      };
      if (n < kParallelGrain) {
        body(0, n);
      } else {
        tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, kParallelGrain),
                          [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
      }
    }
  });
}

}  // namespace npu::kernels
