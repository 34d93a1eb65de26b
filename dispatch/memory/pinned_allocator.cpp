#include "dispatch/memory/pinned_allocator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <ATen/core/CachingHostAllocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/memory/event_pool.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_stream.h"

namespace npu {

namespace {

struct PinnedBlock {
  size_t size = 0;
  // Recorded after asynchronous copies that use the block.
  std::vector<std::unique_ptr<memory::AclEvent>> uses;
};

// A block whose tensor died while queued copies still use it.
struct PendingBlock {
  void* ptr;
  size_t size;
  std::vector<std::unique_ptr<memory::AclEvent>> uses;
};

// Live pinned blocks (base -> block): ACL cannot be asked whether a host
// address is pinned, so the allocator remembers what it handed out. Blocks
// whose tensor died while a copy still used them wait in `pending` until
// their events completed.
struct PinnedRegistry {
  std::mutex mutex;
  std::map<const char*, PinnedBlock> blocks;
  std::vector<PendingBlock> pending;
  // What get_stats reports: live tensors (active_*) and what ACL still holds
  // for this process, live or waiting for a copy (allocations, allocated_bytes).
  at::HostStats stats;
};

// Never destroyed: pinned tensors may die during interpreter shutdown.
PinnedRegistry& registry() {
  static PinnedRegistry& r = *new PinnedRegistry();
  return r;
}

bool all_done(const std::vector<std::unique_ptr<memory::AclEvent>>& events) {
  for (const auto& e : events) {
    if (!e->query()) return false;
  }
  return true;
}

// Frees the deferred blocks whose copies have run; the caller holds the lock.
void release_completed(PinnedRegistry& r) {
  if (!driver::loaded()) return;
  for (auto it = r.pending.begin(); it != r.pending.end();) {
    if (all_done(it->uses)) {
      driver::driver().aclrtFreeHost(it->ptr);
      r.stats.allocations.decrease(1);
      r.stats.allocated_bytes.decrease(it->size);
      r.stats.num_host_free += 1;
      it = r.pending.erase(it);
    } else {
      ++it;
    }
  }
}

void free_pinned(void* ptr) {
  // In a forked child the block belongs to the parent's runtime: left alone.
  if (ptr == nullptr || in_bad_fork()) return;
  PinnedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.blocks.find(static_cast<const char*>(ptr));
  if (it == r.blocks.end() || !driver::loaded()) return;
  auto uses = std::move(it->second.uses);
  const size_t size = it->second.size;
  r.blocks.erase(it);
  r.stats.active_requests.decrease(1);
  r.stats.active_bytes.decrease(size);
  try {
    if (all_done(uses)) {
      driver::driver().aclrtFreeHost(ptr);
      r.stats.allocations.decrease(1);
      r.stats.allocated_bytes.decrease(size);
      r.stats.num_host_free += 1;
    } else {
      r.pending.push_back(PendingBlock{ptr, size, std::move(uses)});
    }
    release_completed(r);
  } catch (const std::exception& e) {
    // A deleter must not throw.
    TORCH_WARN("npu pinned allocator: freeing ", ptr, " failed: ", e.what());
  }
}

// The block holding `ptr` in `r`, or end(); the caller holds the lock.
std::map<const char*, PinnedBlock>::iterator find_block(PinnedRegistry& r, const void* ptr);

// Also PyTorch's host allocator for PrivateUse1 (at::getHostAllocator), which
// torch.accelerator.memory.empty_host_cache and the host memory statistics use.
// Applies `reset` (at::Stat::reset_accumulated or reset_peak) to each Stat of
// `stats` (its counters and durations are not Stats).
void reset_each_stat(at::HostStats& stats, void (at::Stat::*reset)()) {
  for (at::Stat* stat : {&stats.active_requests, &stats.active_bytes, &stats.allocations, &stats.allocated_bytes}) {
    (stat->*reset)();
  }
}

class PinnedAllocator final : public at::HostAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    void* ptr = nullptr;
    if (nbytes > 0) {
      PinnedRegistry& r = registry();
      {
        std::lock_guard<std::mutex> lock(r.mutex);
        release_completed(r);
      }
      NPU_CHECK(aclrtMallocHost, &ptr, nbytes);
      std::lock_guard<std::mutex> lock(r.mutex);
      r.blocks[static_cast<const char*>(ptr)].size = nbytes;
      r.stats.active_requests.increase(1);
      r.stats.active_bytes.increase(nbytes);
      r.stats.allocations.increase(1);
      r.stats.allocated_bytes.increase(nbytes);
      r.stats.num_host_alloc += 1;
    }
    return {ptr, ptr, &free_pinned, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_pinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

  bool record_event(void* ptr, void*, c10::Stream stream) override {
    if (stream.device_type() != c10::DeviceType::PrivateUse1 || !is_pinned(ptr)) return false;
    const c10::DeviceGuard guard(stream.device());
    record_pinned_use(ptr, acl_stream(stream));
    return true;
  }

  // Blocks are returned to ACL when their tensor dies; what remains are the
  // blocks whose asynchronous copies are still queued, freed as they finish.
  void empty_cache() override {
    PinnedRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    release_completed(r);
  }

  at::HostStats get_stats() override {
    PinnedRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.stats;
  }

  void reset_accumulated_stats() override {
    PinnedRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    reset_each_stat(r.stats, &at::Stat::reset_accumulated);
    r.stats.num_host_alloc = 0;
    r.stats.num_host_free = 0;
  }

  void reset_peak_stats() override {
    PinnedRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    reset_each_stat(r.stats, &at::Stat::reset_peak);
  }
};

std::map<const char*, PinnedBlock>::iterator find_block(PinnedRegistry& r, const void* ptr) {
  const auto* p = static_cast<const char*>(ptr);
  auto it = r.blocks.upper_bound(p);
  if (it == r.blocks.begin()) return r.blocks.end();
  --it;
  return p < it->first + it->second.size ? it : r.blocks.end();
}

}  // namespace

c10::Allocator& pinned_allocator() {
  // Never destroyed, like the registry: pinned tensors may die at exit.
  static PinnedAllocator& allocator = *new PinnedAllocator();
  return allocator;
}

namespace {
// Without it at::getHostAllocator(PrivateUse1) is a null pointer that
// torch.accelerator.memory.empty_host_cache() calls through.
const bool g_host_allocator_registered = [] {
  at::setHostAllocator(c10::DeviceType::PrivateUse1, static_cast<PinnedAllocator*>(&pinned_allocator()));
  return true;
}();
}  // namespace

bool is_pinned(const void* ptr) {
  PinnedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return find_block(r, ptr) != r.blocks.end();
}

void record_pinned_use(const void* ptr, aclrtStream stream) {
  PinnedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = find_block(r, ptr);
  if (it == r.blocks.end()) return;
  auto& uses = it->second.uses;
  // Events of finished copies are dropped, so a long-lived buffer reused for
  // many copies keeps only those still in flight.
  uses.erase(std::remove_if(uses.begin(), uses.end(), [](const auto& e) { return e->query(); }), uses.end());
  auto event = std::make_unique<memory::AclEvent>();
  event->record(stream);
  uses.push_back(std::move(event));
}

}  // namespace npu
