// Raw storage for accumulators whose type only a typed kernel knows (the
// type-erased reduction and scan engines hand out void* slots).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace npu::kernels {

class AccBuffer {
 public:
  // n slots of `size` bytes each, 16-byte aligned, uninitialized.
  AccBuffer(std::size_t size, int64_t n)
      : size_(size), storage_(new std::max_align_t[(std::max<int64_t>(n, 1) * size + 15) / 16]) {}
  void* at(int64_t i) const { return reinterpret_cast<unsigned char*>(storage_.get()) + i * size_; }

 private:
  std::size_t size_;
  std::unique_ptr<std::max_align_t[]> storage_;
};

}  // namespace npu::kernels
