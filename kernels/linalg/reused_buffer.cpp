#include "kernels/linalg/reused_buffer.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace npu::kernels::linalg {

namespace {

// What one thread keeps: a few blocks, bounded in total. Larger products
// allocate afresh (their O(n^3) work dwarfs the page faults).
constexpr std::size_t kMaxBlocks = 4;
constexpr std::size_t kMaxCachedBytes = std::size_t{64} << 20;

struct Block {
  std::unique_ptr<std::byte[]> data;
  std::size_t capacity;
};

struct Cache {
  std::vector<Block> blocks;  // oldest first
  std::size_t bytes = 0;
};

Cache& thread_cache() {
  thread_local Cache cache;
  return cache;
}

}  // namespace

ReusedBuffer::ReusedBuffer(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  Cache& cache = thread_cache();
  // The smallest cached block that fits.
  auto best = cache.blocks.end();
  for (auto it = cache.blocks.begin(); it != cache.blocks.end(); ++it) {
    if (it->capacity >= bytes && (best == cache.blocks.end() || it->capacity < best->capacity)) best = it;
  }
  if (best != cache.blocks.end()) {
    block_ = std::move(best->data);
    capacity_ = best->capacity;
    cache.bytes -= capacity_;
    cache.blocks.erase(best);
    return;
  }
  block_.reset(new std::byte[bytes]);
  capacity_ = bytes;
}

ReusedBuffer& ReusedBuffer::operator=(ReusedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    block_ = std::move(other.block_);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

ReusedBuffer::~ReusedBuffer() { release(); }

void ReusedBuffer::release() {
  if (!block_ || capacity_ > kMaxCachedBytes) {
    block_.reset();
    return;
  }
  Cache& cache = thread_cache();
  cache.blocks.push_back({std::move(block_), capacity_});
  cache.bytes += capacity_;
  while (cache.blocks.size() > kMaxBlocks || cache.bytes > kMaxCachedBytes) {
    cache.bytes -= cache.blocks.front().capacity;
    cache.blocks.erase(cache.blocks.begin());
  }
}

}  // namespace npu::kernels::linalg
