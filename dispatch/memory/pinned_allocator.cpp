#include "dispatch/memory/pinned_allocator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <c10/util/Exception.h>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/memory/event_pool.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"

namespace npu {

namespace {

struct PinnedBlock {
  size_t size = 0;
  // Recorded after asynchronous copies that use the block.
  std::vector<std::unique_ptr<memory::AclEvent>> uses;
};

// Live pinned blocks (base -> block): ACL cannot be asked whether a host
// address is pinned, so the allocator remembers what it handed out. Blocks
// whose tensor died while a copy still used them wait in `pending` until
// their events completed.
struct PinnedRegistry {
  std::mutex mutex;
  std::map<const char*, PinnedBlock> blocks;
  std::vector<std::pair<void*, std::vector<std::unique_ptr<memory::AclEvent>>>> pending;
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
    if (all_done(it->second)) {
      driver::driver().aclrtFreeHost(it->first);
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
  r.blocks.erase(it);
  try {
    if (all_done(uses)) {
      driver::driver().aclrtFreeHost(ptr);
    } else {
      r.pending.emplace_back(ptr, std::move(uses));
    }
    release_completed(r);
  } catch (const std::exception& e) {
    // A deleter must not throw.
    TORCH_WARN("npu pinned allocator: freeing ", ptr, " failed: ", e.what());
  }
}

class PinnedAllocator final : public c10::Allocator {
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
    }
    return {ptr, ptr, &free_pinned, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_pinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
};

// The live block holding `p`, or end(); the caller holds the lock.
std::map<const char*, PinnedBlock>::iterator find_block(PinnedRegistry& r, const void* ptr) {
  const auto* p = static_cast<const char*>(ptr);
  auto it = r.blocks.upper_bound(p);
  if (it == r.blocks.begin()) return r.blocks.end();
  --it;
  return p < it->first + it->second.size ? it : r.blocks.end();
}

}  // namespace

c10::Allocator& pinned_allocator() {
  static PinnedAllocator allocator;
  return allocator;
}

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
