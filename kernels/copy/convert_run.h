// One contiguous run of a dtype conversion: out[i] = convert<Out>(in[i]) for
// i < n, as a tight loop the compiler can vectorize. Conversions to or from
// float16/bfloat16 go through the bulk bit converters (reduced_float_bits.h),
// other reduced-float pairs through a small float buffer, so results equal
// convert<Out> (dtype_dispatch.h) bit for bit, only faster.
#pragma once

#include <algorithm>
#include <type_traits>

#include "kernels/copy/reduced_float_bits.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

template <class Out, class In>
void convert_run(Out* out, const In* in, int64_t n) {
  // Reduced floats are stored as their 16-bit pattern (Eigen's half and
  // bfloat16 are a single uint16_t), which is what the bulk converters take.
  auto bits = [](auto* p) {
    using P = std::remove_pointer_t<decltype(p)>;
    if constexpr (std::is_const_v<P>) {
      return reinterpret_cast<const uint16_t*>(p);
    } else {
      return reinterpret_cast<uint16_t*>(p);
    }
  };
  if constexpr (std::is_same_v<Out, half> && std::is_same_v<In, float>) {
    float_to_half_n(in, bits(out), n);
  } else if constexpr (std::is_same_v<Out, float> && std::is_same_v<In, half>) {
    half_to_float_n(bits(in), out, n);
  } else if constexpr (std::is_same_v<Out, bfloat16> && std::is_same_v<In, float>) {
    float_to_bfloat16_n(in, bits(out), n);
  } else if constexpr (std::is_same_v<Out, float> && std::is_same_v<In, bfloat16>) {
    bfloat16_to_float_n(bits(in), out, n);
  } else if constexpr (!std::is_same_v<Out, In> && (is_reduced_float_v<Out> || is_reduced_float_v<In>)) {
    // Any other pair with a reduced float converts through float, exactly as
    // convert<Out> does, a cache-sized block at a time.
    constexpr int64_t kBlock = 512;
    float buf[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      convert_run<float, In>(buf, in + i, m);
      convert_run<Out, float>(out + i, buf, m);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = convert<Out>(in[i]);
  }
}

}  // namespace npu::kernels
