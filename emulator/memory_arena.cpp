#include "emulator/memory_arena.h"

#include <cstdlib>
#include <sstream>

#include "emulator/acl_error.h"

namespace npu::emu {

namespace {
// Device allocations are 512-byte aligned on Ascend; kernels rely on it too.
constexpr std::size_t kAlignment = 512;
}  // namespace

MemoryArena::~MemoryArena() {
  for (const auto& [base, size] : live_) std::free(reinterpret_cast<void*>(base));
}

void* MemoryArena::allocate(std::size_t size) {
  // Sizes near SIZE_MAX would wrap around in the rounding (and in used + size)
  // and pass the capacity check; rule them out before any arithmetic, and
  // compare against the room left instead of adding.
  const bool fits_at_all = size <= capacity_;
  const uint64_t rounded =
      fits_at_all ? (std::max<uint64_t>(size, 1) + kAlignment - 1) / kAlignment * kAlignment : 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!fits_at_all || rounded > capacity_ - used_) {
    std::ostringstream os;
    os << "device memory exhausted: requested " << size << " bytes, " << used_ << " of " << capacity_
       << " bytes in use";
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, os.str());
  }
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "host memory behind the emulated device is exhausted");
  live_.emplace(reinterpret_cast<uintptr_t>(p), rounded);
  used_ += rounded;
  return p;
}

void MemoryArena::release(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == live_.end()) {
    std::ostringstream os;
    os << "address " << ptr << " is not a live device allocation (double free or foreign pointer)";
    fail(ACL_ERROR_RT_MEMORY_FREE, os.str());
  }
  used_ -= it->second;
  std::free(ptr);
  live_.erase(it);
}

bool MemoryArena::contains(const void* ptr, std::size_t size) const {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(p);
  if (it == live_.begin()) return false;
  --it;
  // Written as a difference so a huge `size` cannot wrap past the end.
  return p >= it->first && p - it->first <= it->second && size <= it->second - (p - it->first);
}

uint64_t MemoryArena::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

}  // namespace npu::emu
