// The emulated devices and the handles the ACL API gives out (streams,
// events), owned by one registry per process.
#pragma once

#include <atomic>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "acl/acl_base.h"
#include "device_model/soc_profile.h"
#include "emulator/event.h"
#include "emulator/memory_arena.h"
#include "emulator/stream.h"

namespace npu::emu {

class Device {
 public:
  Device(int32_t id, int32_t physical_id, const model::SocProfile& profile, uint64_t hbm_bytes);

  int32_t id() const { return id_; }
  int32_t physical_id() const { return physical_id_; }
  const model::SocProfile& profile() const { return profile_; }
  MemoryArena& memory() { return memory_; }
  Stream& default_stream() { return *default_stream_; }

 private:
  const int32_t id_;
  const int32_t physical_id_;
  const model::SocProfile& profile_;
  MemoryArena memory_;
  std::unique_ptr<Stream> default_stream_;
};

// The process's emulated runtime. Configuration comes from the environment
// when it is first used:
//   NPU_EMU_DEVICE_COUNT (1..16; default 1, or torchrun's LOCAL_WORLD_SIZE,
//   or 16 with ASCEND_RT_VISIBLE_DEVICES), ASCEND_RT_VISIBLE_DEVICES,
//   NPU_EMU_SOC (default Ascend910B1), NPU_EMU_HBM_MB (overrides capacity).
//
// Lifecycle: the runtime is never destroyed. At process exit its streams
// are drained and their workers joined (an atexit handler), while every
// library their kernels use is still intact; device memory stays valid for
// tensors freed later in the exit sequence, and tasks submitted after that
// run on the caller's thread. A child forked after any stream thread started
// has lost those threads (and possibly locks they held): there the runtime
// is unusable, every call fails with ACL_ERROR_UNINITIALIZE and a message
// pointing to the 'spawn' start method, and nothing of the parent's runtime
// is touched, not even at exit.
class Runtime {
 public:
  // Throws AclError when the environment's configuration is invalid, or in
  // a child forked after the runtime was used.
  static Runtime& get();
  // True in a process forked after this runtime had started threads.
  static bool in_bad_fork();

  int32_t device_count() const { return static_cast<int32_t>(devices_.size()); }
  Device& device(int32_t id);  // throws ACL_ERROR_RT_INVALID_DEVICEID
  const model::SocProfile& profile() const { return *profile_; }

  // The calling thread's current device (aclrtSetDevice is per thread).
  void set_current_device(int32_t id);
  Device& current_device();  // throws when no device was set on this thread
  bool has_current_device() const;

  // nullptr is the current device's default stream; other handles must be live.
  Stream& stream(aclrtStream handle);
  aclrtStream create_stream(uint32_t priority);
  void destroy_stream(aclrtStream handle);
  // Waits for every stream of the device, then throws the first pending task
  // error (a failing stream does not cut the wait short).
  void synchronize_device(int32_t id);
  // Waits for every stream of the device without consuming task errors.
  void drain_device(int32_t id);

  // Shared so a pending record or wait keeps the event alive past destroy.
  std::shared_ptr<Event> event(aclrtEvent handle);
  aclrtEvent create_event(uint32_t flags, bool timing);
  void destroy_event(aclrtEvent handle);

  // Pinned host memory (aclrtMallocHost).
  void* allocate_host(std::size_t size);
  void free_host(void* ptr);
  bool is_host_allocation(const void* ptr) const;

  // The device whose memory holds [ptr, ptr+size), or nullptr.
  Device* device_of(const void* ptr, std::size_t size);

 private:
  Runtime();
  // Drains every stream and joins its worker (see the class comment).
  void shut_down();
  static void shut_down_at_exit();
  // The device's default stream and its live created streams, held so that
  // a concurrent destroy_stream cannot free one while it is being waited on.
  std::vector<std::shared_ptr<Stream>> streams_of(int32_t id);

  const model::SocProfile* profile_ = nullptr;
  std::vector<std::unique_ptr<Device>> devices_;
  mutable std::mutex mutex_;
  std::map<aclrtStream, std::shared_ptr<Stream>> streams_;
  // Bumped by every stream destruction: invalidates the threads' caches of
  // the last stream they looked up (see stream()).
  std::atomic<uint64_t> streams_generation_{1};
  std::map<aclrtEvent, std::shared_ptr<Event>> events_;
  std::map<const void*, std::size_t> host_allocations_;
};

}  // namespace npu::emu
