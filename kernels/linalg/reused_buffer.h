// Large scratch buffers of the GEMM engine, kept for reuse by the thread
// that released them.
//
// Why: a 1024^3 bfloat16 product packs ~4 MB of operands and writes a 4 MB
// float32 product. Freshly allocated blocks of that size come back from the
// OS (glibc unmaps or trims them on free) and are zero-filled page by page
// on first touch, on every call: that measured about a fifth of the
// product's time. Blocks are reused per thread, so no locking; a block in
// use is out of the cache, so nested products on one thread (oneTBB runs
// other tasks while it waits) never share one.
#pragma once

#include <cstddef>
#include <memory>

namespace npu::kernels::linalg {

class ReusedBuffer {
 public:
  ReusedBuffer() = default;
  // At least `bytes` bytes, uninitialized.
  explicit ReusedBuffer(std::size_t bytes);
  ~ReusedBuffer();
  ReusedBuffer(ReusedBuffer&& other) noexcept = default;
  ReusedBuffer& operator=(ReusedBuffer&& other) noexcept;
  ReusedBuffer(const ReusedBuffer&) = delete;
  ReusedBuffer& operator=(const ReusedBuffer&) = delete;

  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(block_.get());
  }
  explicit operator bool() const { return block_ != nullptr; }

 private:
  void release();

  std::unique_ptr<std::byte[]> block_;
  std::size_t capacity_ = 0;
};

}  // namespace npu::kernels::linalg
