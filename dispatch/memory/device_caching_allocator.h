// The caching allocator of one npu device (torch_npu's NPUCachingAllocator
// rules, see size_rules.h): device memory comes from aclrtMalloc in segments,
// is cut into blocks, and freed blocks are kept per stream for reuse instead
// of being returned with aclrtFree. Thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <c10/core/CachingDeviceAllocator.h>

#include "dispatch/memory/alloc_config.h"
#include "dispatch/memory/block.h"
#include "dispatch/memory/node_recycler.h"
#include "dispatch/memory/event_pool.h"

namespace npu::memory {

using c10::CachingDeviceAllocator::DeviceStats;

// One block of a segment, as memory_snapshot reports it.
struct BlockSnapshot {
  uintptr_t address = 0;
  std::size_t size = 0;
  std::size_t requested_size = 0;
  const char* state = "inactive";  // "active_allocated", "active_pending_free" or "inactive"
};

struct SegmentSnapshot {
  c10::DeviceIndex device = 0;
  uintptr_t address = 0;
  std::size_t total_size = 0;
  std::size_t allocated_size = 0;
  std::size_t active_size = 0;
  std::size_t requested_size = 0;
  uintptr_t stream = 0;
  bool is_large = false;
  std::vector<BlockSnapshot> blocks;
};

class DeviceCachingAllocator {
 public:
  explicit DeviceCachingAllocator(c10::DeviceIndex device);
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // A block of at least `size` bytes for use on `stream`. The device must be
  // current. When the device is full, frees the cache (after synchronizing)
  // and retries; then throws c10::OutOfMemoryError ("NPU out of memory ...").
  // The block is live (found by its data pointer) until free_live.
  Block* malloc(std::size_t size, aclrtStream stream);
  // Takes back the live allocation at `ptr`; it is reusable at once on its
  // own stream, or once the work queued on the streams recorded with
  // record_stream ran. False (and nothing done) when `ptr` is not a live
  // allocation of this device.
  bool free_live(void* ptr);
  // `stream` (of device `stream_device`, possibly not this one) also uses
  // the live allocation at `ptr`: delays its reuse after free (see
  // free_live). False when `ptr` is not a live allocation of this device.
  bool record_stream(void* ptr, aclrtStream stream, c10::DeviceIndex stream_device);
  // Returns every wholly free segment to the device (after waiting for
  // pending record_stream events).
  void empty_cache();

  DeviceStats stats();
  void reset_accumulated_stats();
  void reset_peak_stats();
  // Caps this process's reserved memory at `fraction` of the device capacity.
  void set_memory_fraction(double fraction);
  std::vector<SegmentSnapshot> snapshot();

 private:
  struct Request {
    aclrtStream stream;
    std::size_t size;        // rounded block size
    std::size_t alloc_size;  // size of a new segment for it
    BlockPool* pool;
  };
  using StatTypes = c10::CachingDeviceAllocator::StatTypes;
  using StatArray = c10::CachingDeviceAllocator::StatArray;

  static StatTypes stat_types(const BlockPool& pool);
  static void update(StatArray& stat, const StatTypes& types, int64_t delta);

  Block* take_free_block(const Request& r, const AllocatorConfig& cfg);
  static bool pins_whole_segment(const Block* block, const Request& r);
  Block* retry_after_releasing_cache(const Request& r, const AllocatorConfig& cfg);
  Block* allocate_segment(const Request& r, const AllocatorConfig& cfg);
  Block* finish_allocation(Block* block, const Request& r, std::size_t requested, const AllocatorConfig& cfg);
  void free_block(Block* block);
  void return_to_pool(Block* block);
  bool park(Block* block, const AllocatorConfig& cfg);
  Block* take_parked(const Request& r);
  void unpark_all();
  bool merge_into(Block* block, Block* neighbour);
  void release_block(Block* block);
  bool release_oversize_blocks(const Request& r, const AllocatorConfig& cfg);
  void release_cached_blocks();
  void garbage_collect(const AllocatorConfig& cfg);
  void insert_events(Block* block);
  void process_events();
  void recycle_event(std::unique_ptr<AclEvent> event);
  void synchronize_and_free_events();
  std::size_t device_capacity();
  // Tells torch.profiler (profile_memory=True) of an allocation (delta > 0)
  // or a free; callers hold mutex_.
  void report_to_profiler(void* ptr, int64_t delta) const;
  [[noreturn]] void throw_oom(const Request& r, std::size_t requested, bool fraction_limited);
  Block* new_block(aclrtStream stream, std::size_t size, BlockPool* pool, char* ptr);
  Block* allocate(std::size_t size, aclrtStream stream);
  void free(Block* block);

  const c10::DeviceIndex device_;
  // Not recursive: nothing done under it calls back into this allocator
  // (driver calls, events, the profiler report, OOM messages).
  std::mutex mutex_;
  DeviceStats stats_;
  BlockPool small_blocks_{true};
  BlockPool large_blocks_{false};
  // Owner of every block of this device; pools and neighbours point here.
  using BlockOwners = std::unordered_map<const Block*, std::unique_ptr<Block>>;
  BlockOwners blocks_;
  // Nodes (with their Block objects) of erased blocks, and of the pools'
  // sets: a split and a merge per small allocation allocate nothing.
  NodeRecycler<BlockOwners> spare_owners_;
  NodeRecycler<std::set<Block*, BlockOrder>> spare_pool_nodes_;
  // The live allocations, by data pointer: how a DataPtr's deleter,
  // record_stream and caching_allocator_delete find their block. Under the
  // same mutex as the blocks, so a malloc and a free take one lock each.
  using Live = std::unordered_map<const void*, Block*>;
  Live live_;
  NodeRecycler<Live> spare_live_nodes_;
  void pool_insert(BlockPool& pool, Block* block);
  void pool_erase(BlockPool& pool, Block* block);
  void forget_block(Block* block);
  // Per stream, in record order: events that must complete before a block
  // freed while used by that stream can be reused.
  // The small-block reuse list: small blocks freed with no other stream's
  // use pending, kept whole (parked) for the next malloc of the same rounded
  // size on the same stream instead of being merged into their segment's
  // free rest and split off again: a loop of small ops then reuses its
  // result blocks without a split and a merge (block objects, pool set and
  // owner map entries) per op. A parked block is an inactive split block in
  // the stats, which is what it is. A small malloc that finds no parked block
  // of its size, stats(), snapshot(), empty_cache() and the out-of-memory
  // retry merge every parked block back first (unpark_all), so the pools
  // they look at are the ones the merging path leaves, and the reported
  // numbers and segments are those of merged blocks. Newest last.
  static constexpr std::size_t kMaxParked = 16;
  std::array<Block*, kMaxParked> parked_{};
  std::size_t num_parked_ = 0;
  std::map<aclrtStream, std::deque<std::pair<std::unique_ptr<AclEvent>, Block*>>> pending_;
  EventPool events_;
  std::size_t reserved_ = 0;                   // bytes obtained with aclrtMalloc
  std::optional<std::size_t> allowed_max_;     // set_per_process_memory_fraction
  bool configured_fraction_applied_ = false;   // the config's fraction, at the first malloc
  std::optional<std::size_t> capacity_;        // device total, asked once
};

}  // namespace npu::memory
