#include "dispatch/memory/pinned_allocator.h"

#include <map>
#include <mutex>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"

namespace npu {

namespace {

// Live pinned blocks (base -> size): ACL cannot be asked whether a host
// address is pinned, so the allocator remembers what it handed out.
struct PinnedRegistry {
  std::mutex mutex;
  std::map<const char*, size_t> blocks;
};

PinnedRegistry& registry() {
  static PinnedRegistry r;
  return r;
}

void free_pinned(void* ptr) {
  if (ptr == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().blocks.erase(static_cast<const char*>(ptr));
  }
  if (driver::loaded()) driver::driver().aclrtFreeHost(ptr);
}

class PinnedAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    void* ptr = nullptr;
    if (nbytes > 0) {
      NPU_CHECK(aclrtMallocHost, &ptr, nbytes);
      std::lock_guard<std::mutex> lock(registry().mutex);
      registry().blocks.emplace(static_cast<const char*>(ptr), nbytes);
    }
    return {ptr, ptr, &free_pinned, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_pinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
};

}  // namespace

c10::Allocator& pinned_allocator() {
  static PinnedAllocator allocator;
  return allocator;
}

bool is_pinned(const void* ptr) {
  const auto* p = static_cast<const char*>(ptr);
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto it = registry().blocks.upper_bound(p);
  if (it == registry().blocks.begin()) return false;
  --it;
  return p < it->first + it->second;
}

}  // namespace npu
