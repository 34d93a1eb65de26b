#include "dispatch/memory/device_caching_allocator.h"

#include <algorithm>
#include <sstream>

#include <c10/core/Allocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "acl/acl_rt.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/memory/fault_oom.h"
#include "dispatch/memory/size_rules.h"
#include "dispatch/runtime/acl_check.h"

namespace npu::memory {

namespace {

using c10::CachingAllocator::format_size;
using c10::CachingDeviceAllocator::StatType;

constexpr auto kAggregate = static_cast<std::size_t>(StatType::AGGREGATE);

c10::Device npu_device(c10::DeviceIndex index) { return c10::Device(c10::DeviceType::PrivateUse1, index); }

bool is_oversize(std::size_t size, const AllocatorConfig& cfg) { return size >= cfg.max_split_size; }

}  // namespace

DeviceCachingAllocator::DeviceCachingAllocator(c10::DeviceIndex device) : device_(device) {}

DeviceCachingAllocator::StatTypes DeviceCachingAllocator::stat_types(const BlockPool& pool) {
  StatTypes types{};
  types[kAggregate] = true;
  types[static_cast<std::size_t>(pool.is_small ? StatType::SMALL_POOL : StatType::LARGE_POOL)] = true;
  return types;
}

void DeviceCachingAllocator::update(StatArray& stat, const StatTypes& types, int64_t delta) {
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (!types[i]) continue;
    if (delta >= 0) {
      stat[i].increase(static_cast<std::size_t>(delta));
    } else {
      stat[i].decrease(static_cast<std::size_t>(-delta));
    }
  }
}

Block* DeviceCachingAllocator::new_block(aclrtStream stream, std::size_t size, BlockPool* pool, char* ptr) {
  BlockOwners::node_type node = spare_owners_.take();
  if (node.empty()) {
    auto owned = std::make_unique<Block>(device_, stream, size, pool, ptr);
    Block* block = owned.get();
    blocks_.emplace(block, std::move(owned));
    return block;
  }
  // A forgotten block's node, keyed by its Block object, which is reused.
  Block* block = node.mapped().get();
  *block = Block(device_, stream, size, pool, ptr);
  blocks_.insert(std::move(node));
  return block;
}

void DeviceCachingAllocator::forget_block(Block* block) { spare_owners_.erase(blocks_, block); }

void DeviceCachingAllocator::pool_insert(BlockPool& pool, Block* block) {
  auto node = spare_pool_nodes_.take();
  if (node.empty()) {
    pool.blocks.insert(block);
    return;
  }
  node.value() = block;
  pool.blocks.insert(std::move(node));
}

void DeviceCachingAllocator::pool_erase(BlockPool& pool, Block* block) { spare_pool_nodes_.erase(pool.blocks, block); }

Block* DeviceCachingAllocator::malloc(std::size_t size, aclrtStream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  Block* block = allocate(size, stream);
  Live::node_type node = spare_live_nodes_.take();
  if (node.empty()) {
    live_.emplace(block->ptr, block);
  } else {
    node.key() = block->ptr;
    node.mapped() = block;
    live_.insert(std::move(node));
  }
  report_to_profiler(block->ptr, static_cast<int64_t>(block->size));
  return block;
}

void DeviceCachingAllocator::report_to_profiler(void* ptr, int64_t delta) const {
  // torch.profiler's profile_memory: the allocation or free as a memory event
  // of this npu device (a thread-local lookup when no profiler listens).
  if (!c10::memoryProfilingEnabled()) return;
  c10::reportMemoryUsageToProfiler(ptr, delta, static_cast<std::size_t>(stats_.allocated_bytes[kAggregate].current),
                                   static_cast<std::size_t>(stats_.reserved_bytes[kAggregate].current),
                                   npu_device(device_));
}

bool DeviceCachingAllocator::free_live(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = live_.find(ptr);
  if (it == live_.end()) return false;
  Block* block = it->second;
  spare_live_nodes_.erase(live_, it);
  const auto size = static_cast<int64_t>(block->size);
  free(block);
  report_to_profiler(ptr, -size);
  return true;
}

Block* DeviceCachingAllocator::allocate(std::size_t size, aclrtStream stream) {
  const AllocatorConfig& cfg = allocator_config();
  if (!configured_fraction_applied_) {
    // PYTORCH_NPU_ALLOC_CONF's per_process_memory_fraction acts as a call to
    // set_per_process_memory_fraction before the first allocation (an
    // earlier explicit call wins).
    configured_fraction_applied_ = true;
    if (cfg.per_process_memory_fraction && !allowed_max_) {
      allowed_max_ = static_cast<std::size_t>(*cfg.per_process_memory_fraction * static_cast<double>(device_capacity()));
    }
  }
  process_events();
  const std::size_t rounded = round_size(size, cfg);
  BlockPool* pool = is_small(rounded) ? &small_blocks_ : &large_blocks_;
  // Without caching every block is a segment of its own, never split.
  const Request r{stream, rounded, cfg.caching_enabled ? segment_size(rounded) : rounded, pool};
  if (const auto n = injected_oom()) {
    stats_.num_ooms += 1;
    TORCH_CHECK_WITH(OutOfMemoryError, false, "NPU out of memory: injected by NPU_EMU_FAULTS=oom@", *n,
                     " (device allocation ", *n, " of the process, ", format_size(r.size), " on NPU ",
                     static_cast<int>(device_), ")");
  }

  if (pool->is_small && num_parked_ > 0) {
    if (Block* parked = take_parked(r)) return finish_allocation(parked, r, size, cfg);
    unpark_all();  // the pool search below sees what the merging path leaves
  }
  Block* block = take_free_block(r, cfg);
  if (block != nullptr && pins_whole_segment(block, r)) {
    // Kept whole (so releasable) while the device has room for a segment of
    // its own; split only as a last resort below.
    pool_insert(*r.pool, block);
    block = nullptr;
  }
  if (block == nullptr) {
    if (cfg.garbage_collection_threshold > 0.0) garbage_collect(cfg);
    block = allocate_segment(r, cfg);
  }
  if (block == nullptr && release_oversize_blocks(r, cfg)) block = allocate_segment(r, cfg);
  if (block == nullptr) block = retry_after_releasing_cache(r, cfg);
  if (block == nullptr) {
    stats_.num_ooms += 1;
    throw_oom(r, size, allowed_max_.has_value() && reserved_ + r.alloc_size > *allowed_max_);
  }
  return finish_allocation(block, r, size, cfg);
}

bool DeviceCachingAllocator::pins_whole_segment(const Block* block, const Request& r) {
  // A request served from a cached block keeps that block's whole segment
  // unreleasable for as long as it lives; under a churn of large tensors
  // that fragments the device until requests that fit beside the live data
  // fail (issue 20: 6-25 % of them). So, while the device has room for a new
  // segment, a request with a segment of its own (> kMinLargeAlloc) takes
  // only a whole cached segment with less than kLargeBuffer to spare, and a
  // request that shares kLargeBuffer segments takes no piece of a bigger
  // segment. When the device is full, retry_after_releasing_cache releases
  // what is whole and then takes any piece that fits.
  if (r.pool->is_small) return false;
  if (r.size > kMinLargeAlloc) return block->is_split() || block->size - r.size >= kLargeBuffer;
  std::size_t segment = block->size;
  for (const Block* b = block->prev; b != nullptr; b = b->prev) segment += b->size;
  for (const Block* b = block->next; b != nullptr; b = b->next) segment += b->size;
  return segment > kLargeBuffer;
}

Block* DeviceCachingAllocator::retry_after_releasing_cache(const Request& r, const AllocatorConfig& cfg) {
  // As PyTorch's allocator before it reports OOM: wait for every pending
  // record_stream event, give every wholly free segment back to the device
  // and try a new segment again.
  synchronize_and_free_events();
  unpark_all();  // parked small blocks merge back, so their segments can be released
  release_cached_blocks();
  stats_.num_alloc_retries += 1;
  if (Block* block = allocate_segment(r, cfg)) return block;
  // Still no room: the free memory left is in free pieces of segments that
  // are partly in use; the best-fitting piece (any size) is better than OOM.
  Block key(device_, r.stream, r.size, r.pool, nullptr);
  const auto it = r.pool->blocks.lower_bound(&key);
  if (it == r.pool->blocks.end() || (*it)->stream != r.stream) return nullptr;
  Block* block = *it;
  spare_pool_nodes_.erase(r.pool->blocks, it);
  block->gc_count = 0;
  return block;
}

Block* DeviceCachingAllocator::take_free_block(const Request& r, const AllocatorConfig& cfg) {
  auto& blocks = r.pool->blocks;
  if (cfg.garbage_collection_threshold > 0.0) {
    for (Block* b : blocks) ++b->gc_count;
  }
  Block key(device_, r.stream, r.size, r.pool, nullptr);
  const auto it = blocks.lower_bound(&key);
  if (it == blocks.end() || (*it)->stream != r.stream) return nullptr;
  Block* block = *it;
  // An oversize block is not cut up for a small request, and an oversize
  // request does not take a block much bigger than it needs.
  if (!is_oversize(r.size, cfg) && is_oversize(block->size, cfg)) return nullptr;
  if (is_oversize(r.size, cfg) && block->size >= r.size + kLargeBuffer) return nullptr;
  spare_pool_nodes_.erase(blocks, it);
  block->gc_count = 0;
  return block;
}

Block* DeviceCachingAllocator::allocate_segment(const Request& r, const AllocatorConfig& cfg) {
  if (allowed_max_ && reserved_ + r.alloc_size > *allowed_max_) return nullptr;
  void* ptr = nullptr;
  const aclError status = NPU_ACL(aclrtMalloc)(&ptr, r.alloc_size, ACL_MEM_MALLOC_HUGE_FIRST);
  if (status == ACL_ERROR_RT_MEMORY_ALLOCATION) {
    NPU_ACL(aclGetRecentErrMsg)();  // consumed: this failure is handled, not reported later
    return nullptr;
  }
  check_acl(status, "aclrtMalloc");
  reserved_ += r.alloc_size;
  stats_.num_device_alloc += 1;
  const StatTypes types = stat_types(*r.pool);
  update(stats_.segment, types, 1);
  update(stats_.reserved_bytes, types, static_cast<int64_t>(r.alloc_size));
  if (is_oversize(r.alloc_size, cfg)) stats_.oversize_segments.increase(1);
  return new_block(r.stream, r.alloc_size, r.pool, static_cast<char*>(ptr));
}

Block* DeviceCachingAllocator::finish_allocation(Block* block, const Request& r, std::size_t requested,
                                                 const AllocatorConfig& cfg) {
  const StatTypes types = stat_types(*r.pool);
  const bool was_split = block->is_split();  // then it counted as an inactive split block
  if (should_split(block->size, r.size, r.pool->is_small, cfg)) {
    Block* rest = new_block(r.stream, block->size - r.size, r.pool, block->ptr + r.size);
    rest->prev = block;
    rest->next = block->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    block->next = rest;
    block->size = r.size;
    pool_insert(*r.pool, rest);
    if (was_split) {
      update(stats_.inactive_split_bytes, types, -static_cast<int64_t>(block->size));
    } else {
      update(stats_.inactive_split, types, 1);
      update(stats_.inactive_split_bytes, types, static_cast<int64_t>(rest->size));
    }
  } else if (was_split) {
    update(stats_.inactive_split, types, -1);
    update(stats_.inactive_split_bytes, types, -static_cast<int64_t>(block->size));
  }
  block->allocated = true;
  block->requested_size = requested;
  update(stats_.allocation, types, 1);
  update(stats_.allocated_bytes, types, static_cast<int64_t>(block->size));
  update(stats_.active, types, 1);
  update(stats_.active_bytes, types, static_cast<int64_t>(block->size));
  update(stats_.requested_bytes, types, static_cast<int64_t>(requested));
  if (is_oversize(block->size, cfg)) stats_.oversize_allocations.increase(1);
  return block;
}

void DeviceCachingAllocator::free(Block* block) {
  const AllocatorConfig& cfg = allocator_config();
  TORCH_INTERNAL_ASSERT(block->allocated, "npu allocator: freeing a block that is not allocated");
  block->allocated = false;
  const StatTypes types = stat_types(*block->pool);
  update(stats_.allocation, types, -1);
  update(stats_.allocated_bytes, types, -static_cast<int64_t>(block->size));
  update(stats_.requested_bytes, types, -static_cast<int64_t>(block->requested_size));
  if (is_oversize(block->size, cfg)) stats_.oversize_allocations.decrease(1);
  block->requested_size = 0;
  if (!block->stream_uses.empty()) {
    insert_events(block);
  } else {
    free_block(block);
  }
}

bool DeviceCachingAllocator::record_stream(void* ptr, aclrtStream stream, c10::DeviceIndex stream_device) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = live_.find(ptr);
  if (it == live_.end()) return false;
  Block* block = it->second;
  if (stream == block->stream) return true;  // its own stream orders its uses already
  block->stream_uses.insert(StreamUse{stream, stream_device});
  return true;
}

void DeviceCachingAllocator::insert_events(Block* block) {
  std::set<StreamUse> uses;
  std::swap(uses, block->stream_uses);
  for (const StreamUse& use : uses) {
    // An ACL event belongs to the device current at its creation and is
    // recorded on a stream of that device; the free may come from any thread.
    const c10::DeviceGuard guard(npu_device(use.device));
    auto event = use.device == device_ ? events_.acquire() : std::make_unique<AclEvent>();
    event->record(use.stream);
    block->event_count += 1;
    pending_[use.stream].emplace_back(std::move(event), block);
  }
}

void DeviceCachingAllocator::recycle_event(std::unique_ptr<AclEvent> event) {
  // Only this device's events go back to its pool; another device's are destroyed.
  if (event->device() == device_) events_.release(std::move(event));
}

void DeviceCachingAllocator::process_events() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto& queue = it->second;
    // Events of one stream complete in record order: stop at the first busy one.
    while (!queue.empty() && queue.front().first->query()) {
      Block* block = queue.front().second;
      recycle_event(std::move(queue.front().first));
      queue.pop_front();
      if (--block->event_count == 0) free_block(block);
    }
    it = queue.empty() ? pending_.erase(it) : std::next(it);
  }
}

void DeviceCachingAllocator::synchronize_and_free_events() {
  for (auto& [stream, queue] : pending_) {
    for (auto& [event, block] : queue) {
      event->synchronize();
      recycle_event(std::move(event));
      if (--block->event_count == 0) free_block(block);
    }
  }
  pending_.clear();
  stats_.num_sync_all_streams += 1;
}

void DeviceCachingAllocator::free_block(Block* block) {
  const StatTypes types = stat_types(*block->pool);
  update(stats_.active, types, -1);
  update(stats_.active_bytes, types, -static_cast<int64_t>(block->size));
  if (park(block, allocator_config())) return;
  return_to_pool(block);
}

bool DeviceCachingAllocator::park(Block* block, const AllocatorConfig& cfg) {
  // Only pieces of a split small segment: a block that is a whole segment
  // (caching disabled) goes back to the device or pool at once.
  if (!block->pool->is_small || !cfg.caching_enabled || !block->is_split() || num_parked_ == kMaxParked) {
    return false;
  }
  block->parked = true;
  parked_[num_parked_++] = block;
  const StatTypes types = stat_types(*block->pool);
  update(stats_.inactive_split, types, 1);
  update(stats_.inactive_split_bytes, types, static_cast<int64_t>(block->size));
  return true;
}

Block* DeviceCachingAllocator::take_parked(const Request& r) {
  for (std::size_t i = num_parked_; i-- > 0;) {
    Block* block = parked_[i];
    if (block->size != r.size || block->stream != r.stream) continue;
    for (std::size_t j = i + 1; j < num_parked_; ++j) parked_[j - 1] = parked_[j];
    --num_parked_;
    block->parked = false;
    block->gc_count = 0;
    return block;  // finish_allocation counts it out of the inactive split blocks
  }
  return nullptr;
}

void DeviceCachingAllocator::unpark_all() {
  // Oldest first. A parked neighbour is not free yet (Block::is_free), so
  // each block merges with what is in the pools at its turn, and the later
  // ones merge with it.
  for (std::size_t i = 0; i < num_parked_; ++i) {
    Block* block = parked_[i];
    block->parked = false;
    const StatTypes types = stat_types(*block->pool);
    update(stats_.inactive_split, types, -1);
    update(stats_.inactive_split_bytes, types, -static_cast<int64_t>(block->size));
    return_to_pool(block);
  }
  num_parked_ = 0;
}

void DeviceCachingAllocator::return_to_pool(Block* block) {
  const StatTypes types = stat_types(*block->pool);
  merge_into(block, block->prev);
  merge_into(block, block->next);
  if (block->is_split()) {
    update(stats_.inactive_split, types, 1);
    update(stats_.inactive_split_bytes, types, static_cast<int64_t>(block->size));
  }
  pool_insert(*block->pool, block);
  if (!allocator_config().caching_enabled && !block->is_split()) release_block(block);
}

bool DeviceCachingAllocator::merge_into(Block* block, Block* neighbour) {
  if (neighbour == nullptr || !neighbour->is_free()) return false;
  const StatTypes types = stat_types(*block->pool);
  // The neighbour was a free piece of a split segment.
  update(stats_.inactive_split, types, -1);
  update(stats_.inactive_split_bytes, types, -static_cast<int64_t>(neighbour->size));
  if (neighbour == block->prev) {
    block->ptr = neighbour->ptr;
    block->prev = neighbour->prev;
    if (block->prev != nullptr) block->prev->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next != nullptr) block->next->prev = block;
  }
  block->size += neighbour->size;
  pool_erase(*block->pool, neighbour);
  forget_block(neighbour);
  return true;
}

void DeviceCachingAllocator::release_block(Block* block) {
  const c10::DeviceGuard guard(npu_device(device_));
  NPU_CHECK(aclrtFree, block->ptr);
  reserved_ -= block->size;
  stats_.num_device_free += 1;
  const StatTypes types = stat_types(*block->pool);
  update(stats_.segment, types, -1);
  update(stats_.reserved_bytes, types, -static_cast<int64_t>(block->size));
  if (is_oversize(block->size, allocator_config())) stats_.oversize_segments.decrease(1);
  pool_erase(*block->pool, block);
  forget_block(block);
}

bool DeviceCachingAllocator::release_oversize_blocks(const Request& r, const AllocatorConfig& cfg) {
  if (cfg.max_split_size == std::numeric_limits<std::size_t>::max()) return false;
  auto& blocks = r.pool->blocks;
  Block key(device_, r.stream, std::max(r.size, cfg.max_split_size), r.pool, nullptr);
  auto it = blocks.lower_bound(&key);
  if (it != blocks.end() && (*it)->stream == r.stream && !(*it)->is_split()) {
    release_block(*it);  // one cached oversize block makes room
    return true;
  }
  // Otherwise give back this stream's oversize blocks, largest first, until
  // as much as the request is free.
  std::size_t released = 0;
  while (released < r.size && it != blocks.begin()) {
    --it;
    Block* b = *it;
    if (b->stream != r.stream || !is_oversize(b->size, cfg)) break;
    if (b->is_split()) continue;
    released += b->size;
    it = blocks.erase(it);  // keeps `it` valid; release_block's erase is then a no-op
    release_block(b);
  }
  return released >= r.size;
}

void DeviceCachingAllocator::release_cached_blocks() {
  for (BlockPool* pool : {&small_blocks_, &large_blocks_}) {
    for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
      Block* b = *it;
      ++it;
      if (!b->is_split()) release_block(b);
    }
  }
}

void DeviceCachingAllocator::garbage_collect(const AllocatorConfig& cfg) {
  const std::size_t limit = allowed_max_ ? *allowed_max_ : device_capacity();
  const auto threshold = static_cast<std::size_t>(cfg.garbage_collection_threshold * static_cast<double>(limit));
  if (reserved_ <= threshold) return;
  const std::size_t target = reserved_ - threshold;
  std::size_t released = 0;
  // Release the oldest whole free segments (age above the average) until
  // enough is back, recomputing the average as blocks go.
  while (released < target) {
    double total_age = 0;
    int count = 0;
    for (Block* b : large_blocks_.blocks) {
      if (!b->is_split()) {
        total_age += b->gc_count;
        ++count;
      }
    }
    if (count == 0) return;
    const double average = total_age / count;
    bool any = false;
    for (auto it = large_blocks_.blocks.begin(); it != large_blocks_.blocks.end() && released < target;) {
      Block* b = *it;
      ++it;
      if (!b->is_split() && b->gc_count >= average) {
        released += b->size;
        release_block(b);
        any = true;
      }
    }
    if (!any) return;
  }
}

std::size_t DeviceCachingAllocator::device_capacity() {
  if (!capacity_) {
    const c10::DeviceGuard guard(npu_device(device_));
    std::size_t free = 0, total = 0;
    NPU_CHECK(aclrtGetMemInfo, ACL_HBM_MEM, &free, &total);
    capacity_ = total;
  }
  return *capacity_;
}

void DeviceCachingAllocator::throw_oom(const Request& r, std::size_t requested, bool fraction_limited) {
  std::size_t free = 0, total = 0;
  {
    const c10::DeviceGuard guard(npu_device(device_));
    NPU_CHECK(aclrtGetMemInfo, ACL_HBM_MEM, &free, &total);
  }
  const auto& allocated = stats_.allocated_bytes[kAggregate].current;
  const auto& active = stats_.active_bytes[kAggregate].current;
  const auto& reserved = stats_.reserved_bytes[kAggregate].current;
  std::ostringstream os;
  os << "NPU out of memory. Tried to allocate " << format_size(r.alloc_size) << " (NPU " << static_cast<int>(device_)
     << "; " << format_size(total) << " total capacity; " << format_size(allocated) << " already allocated; "
     << format_size(active) << " current active; " << format_size(free) << " free; " << format_size(reserved)
     << " reserved in total by PyTorch) Of the reserved memory "
     << format_size(static_cast<uint64_t>(reserved - allocated)) << " is reserved by PyTorch but unallocated.";
  if (fraction_limited) {
    os << " The per-process memory fraction allows this process " << format_size(*allowed_max_) << " of "
       << format_size(total) << ".";
  }
  os << " If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation. "
     << "(Request of " << requested << " bytes, rounded to a block of " << r.size << " bytes.)";
  TORCH_CHECK_WITH(OutOfMemoryError, false, os.str());
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  synchronize_and_free_events();
  unpark_all();
  release_cached_blocks();
}

DeviceStats DeviceCachingAllocator::stats() {
  const AllocatorConfig& cfg = allocator_config();
  std::lock_guard<std::mutex> lock(mutex_);
  unpark_all();
  DeviceStats copy = stats_;
  copy.max_split_size = cfg.max_split_size == std::numeric_limits<std::size_t>::max()
                            ? -1
                            : static_cast<int64_t>(cfg.max_split_size);
  return copy;
}

namespace {

// Every Stat of `stats`: each pool's counts and the oversize ones (what the
// resets below act on).
template <class F>
void for_each_stat(DeviceStats& stats, F f) {
  for (auto* array : {&stats.allocation, &stats.segment, &stats.active, &stats.inactive_split, &stats.allocated_bytes,
                      &stats.reserved_bytes, &stats.active_bytes, &stats.inactive_split_bytes, &stats.requested_bytes}) {
    for (auto& stat : *array) f(stat);
  }
  f(stats.oversize_allocations);
  f(stats.oversize_segments);
}

}  // namespace

void DeviceCachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for_each_stat(stats_, [](auto& stat) { stat.reset_accumulated(); });
  stats_.num_alloc_retries = 0;
  stats_.num_ooms = 0;
  stats_.num_sync_all_streams = 0;
  stats_.num_device_alloc = 0;
  stats_.num_device_free = 0;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for_each_stat(stats_, [](auto& stat) { stat.reset_peak(); });
}

void DeviceCachingAllocator::set_memory_fraction(double fraction) {
  TORCH_CHECK(fraction >= 0.0 && fraction <= 1.0, "set_per_process_memory_fraction: invalid fraction ", fraction,
              "; it must be between 0 and 1");
  std::lock_guard<std::mutex> lock(mutex_);
  allowed_max_ = static_cast<std::size_t>(fraction * static_cast<double>(device_capacity()));
}

std::vector<SegmentSnapshot> DeviceCachingAllocator::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  unpark_all();
  std::vector<SegmentSnapshot> segments;
  for (const auto& [key, owned] : blocks_) {
    const Block* head = owned.get();
    if (head->prev != nullptr) continue;  // not the first block of its segment
    SegmentSnapshot seg;
    seg.device = device_;
    seg.address = reinterpret_cast<uintptr_t>(head->ptr);
    seg.stream = reinterpret_cast<uintptr_t>(head->stream);
    seg.is_large = !head->pool->is_small;
    for (const Block* b = head; b != nullptr; b = b->next) {
      BlockSnapshot bs;
      bs.address = reinterpret_cast<uintptr_t>(b->ptr);
      bs.size = b->size;
      bs.requested_size = b->requested_size;
      const bool active = b->allocated || b->event_count > 0 || !b->stream_uses.empty();
      bs.state = b->allocated ? "active_allocated" : active ? "active_pending_free" : "inactive";
      seg.total_size += b->size;
      if (b->allocated) {
        seg.allocated_size += b->size;
        seg.requested_size += b->requested_size;
      }
      if (active) seg.active_size += b->size;
      seg.blocks.push_back(bs);
    }
    segments.push_back(std::move(seg));
  }
  std::sort(segments.begin(), segments.end(),
            [](const SegmentSnapshot& a, const SegmentSnapshot& b) { return a.address < b.address; });
  return segments;
}

}  // namespace npu::memory
