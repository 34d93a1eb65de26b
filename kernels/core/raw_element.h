// Data-movement kernels (gather, scatter-copy, cat, tril ...) never look at
// values, only at bytes: they are instantiated once per element size instead
// of once per dtype.
#pragma once

#include <cstdint>

#include "kernels/core/dtype_dispatch.h"

namespace npu::kernels {

struct Bytes16 {
  uint64_t lo, hi;
};

// Calls f(TypeTag<R>{}) with R a trivially copyable type of `itemsize` bytes.
template <class F>
decltype(auto) visit_itemsize(std::size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: return f(TypeTag<uint64_t>{});
    case 16: return f(TypeTag<Bytes16>{});
  }
  throw KernelError("unsupported element size " + std::to_string(itemsize));
}

}  // namespace npu::kernels
