// Device memory of one emulated device: host memory handed out as "device
// addresses", with the SoC's HBM capacity enforced and every live allocation
// known, so bad pointers and double frees are caught like the real runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace npu::emu {

class MemoryArena {
 public:
  explicit MemoryArena(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}
  ~MemoryArena();
  MemoryArena(const MemoryArena&) = delete;
  MemoryArena& operator=(const MemoryArena&) = delete;

  // Throws AclError(ACL_ERROR_RT_MEMORY_ALLOCATION) when `size` does not fit.
  void* allocate(std::size_t size);
  // Throws AclError(ACL_ERROR_RT_MEMORY_FREE) for a pointer it did not hand out.
  void release(void* ptr);

  // True when [ptr, ptr + size) lies inside one live allocation.
  bool contains(const void* ptr, std::size_t size) const;

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const;

 private:
  const uint64_t capacity_;
  mutable std::mutex mutex_;
  uint64_t used_ = 0;
  std::map<uintptr_t, std::size_t> live_;  // base address -> size
};

}  // namespace npu::emu
