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
  const std::size_t rounded = (std::max<std::size_t>(size, 1) + kAlignment - 1) / kAlignment * kAlignment;
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + rounded > capacity_) {
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
  return p >= it->first && p + size <= it->first + it->second;
}

uint64_t MemoryArena::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

}  // namespace npu::emu
