// Blocks and pools of the caching allocator. A segment is one aclrtMalloc
// allocation; it is cut into blocks, linked in address order (prev/next), so
// a freed block can merge with free neighbours. Free blocks wait in a pool,
// ordered by (stream, size, address): a lookup finds the smallest block of
// the requesting stream that fits, which is what makes free lists per stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>

#include <c10/core/Device.h>

#include "acl/acl_base.h"

namespace npu::memory {

struct BlockPool;

// A stream that used a block besides the one it was allocated for
// (record_stream). It may belong to another device (a cross-device copy reads
// the block on the destination's stream): the event marking the end of that
// use must be created and recorded on the stream's own device.
struct StreamUse {
  aclrtStream stream;
  c10::DeviceIndex device;

  bool operator<(const StreamUse& other) const {
    return stream != other.stream ? stream < other.stream : device < other.device;
  }
};

struct Block {
  Block(c10::DeviceIndex device, aclrtStream stream, std::size_t size, BlockPool* pool, char* ptr)
      : device(device), stream(stream), size(size), pool(pool), ptr(ptr) {}

  c10::DeviceIndex device;
  aclrtStream stream;                // the stream it was allocated for
  std::set<StreamUse> stream_uses;  // other streams that used it (record_stream)
  std::size_t size;
  std::size_t requested_size = 0;  // what the caller asked for, while allocated
  BlockPool* pool;
  char* ptr;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours within the segment
  Block* next = nullptr;
  int event_count = 0;  // outstanding record_stream events before reuse
  int gc_count = 0;     // lookups since it was freed (garbage collection age)
  // Freed, but parked whole on its allocator's small-block reuse list
  // instead of being merged into its segment's free rest (see
  // DeviceCachingAllocator::park): not in a pool, not mergeable.
  bool parked = false;

  bool is_split() const { return prev != nullptr || next != nullptr; }
  // Freed by the caller and not waiting for other streams: it sits in a pool.
  bool is_free() const { return !allocated && !parked && event_count == 0 && stream_uses.empty(); }
};

struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    const auto sa = reinterpret_cast<uintptr_t>(a->stream), sb = reinterpret_cast<uintptr_t>(b->stream);
    if (sa != sb) return sa < sb;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

struct BlockPool {
  explicit BlockPool(bool small) : is_small(small) {}
  std::set<Block*, BlockOrder> blocks;  // free blocks only
  const bool is_small;
};

}  // namespace npu::memory
