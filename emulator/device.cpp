#include "emulator/device.h"

#include <pthread.h>
#include <tbb/global_control.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "device_model/limits.h"
#include "emulator/acl_error.h"
#include "emulator/fault_injection.h"

namespace npu::emu {

namespace {

using model::kMaxDevices;
thread_local int32_t t_current_device = -1;

std::string env_str(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// Parses a whole decimal integer in [lo, hi], or fails naming the variable.
int64_t parse_int(const std::string& text, const char* what, int64_t lo, int64_t hi) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi) {
    std::ostringstream os;
    os << what << " must be an integer from " << lo << " to " << hi << ", got '" << text << "'";
    fail(ACL_ERROR_INVALID_PARAM, os.str());
  }
  return v;
}

// The emulated machine's NPUs: NPU_EMU_DEVICE_COUNT when set; otherwise what
// a torch_npu user's launch implies without it: a whole server when
// ASCEND_RT_VISIBLE_DEVICES picks device ids (any of 0..kMaxDevices-1), one
// device per local rank under torchrun (LOCAL_WORLD_SIZE, each rank calling
// torch.npu.set_device(LOCAL_RANK)), else one.
int32_t physical_device_count() {
  const std::string count_text = env_str("NPU_EMU_DEVICE_COUNT");
  if (!count_text.empty()) {
    return static_cast<int32_t>(parse_int(count_text, "NPU_EMU_DEVICE_COUNT", 1, kMaxDevices));
  }
  if (!env_str("ASCEND_RT_VISIBLE_DEVICES").empty()) return kMaxDevices;
  const std::string local_world = env_str("LOCAL_WORLD_SIZE");
  if (!local_world.empty()) {
    return static_cast<int32_t>(parse_int(
        local_world,
        "LOCAL_WORLD_SIZE (torchrun's processes per node; npu-emu emulates one device per local rank unless "
        "NPU_EMU_DEVICE_COUNT says otherwise)",
        1, kMaxDevices));
  }
  return 1;
}

// CANN's ASCEND_RT_VISIBLE_DEVICES: a comma list of physical device ids; the
// process sees those only, numbered from 0 in the list's order.
std::vector<int32_t> visible_devices(int32_t physical_count) {
  const std::string spec = env_str("ASCEND_RT_VISIBLE_DEVICES");
  std::vector<int32_t> ids;
  if (spec.empty()) {
    for (int32_t i = 0; i < physical_count; ++i) ids.push_back(i);
    return ids;
  }
  const std::string what = "each ASCEND_RT_VISIBLE_DEVICES entry (a comma list of device ids of the emulated machine, "
                           "which has " + std::to_string(physical_count) + " devices)";
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto id = static_cast<int32_t>(parse_int(item, what.c_str(), 0, physical_count - 1));
    for (const int32_t seen : ids) {
      if (seen == id) fail(ACL_ERROR_INVALID_PARAM, "ASCEND_RT_VISIBLE_DEVICES lists device " + item + " twice");
    }
    ids.push_back(id);
  }
  return ids;
}

// Set in a forked child when the parent's runtime had started stream
// threads: none of them exists in the child.
std::atomic<bool> g_bad_fork{false};

void mark_child_after_fork() {
  if (Stream::any_worker_started()) g_bad_fork.store(true, std::memory_order_release);
}

}  // namespace

Device::Device(int32_t id, int32_t physical_id, const model::SocProfile& profile, uint64_t hbm_bytes)
    : id_(id), physical_id_(physical_id), profile_(profile), memory_(hbm_bytes),
      default_stream_(std::make_unique<Stream>(id, 0)) {}

bool Runtime::in_bad_fork() { return g_bad_fork.load(std::memory_order_acquire); }

Runtime& Runtime::get() {
  if (in_bad_fork()) {
    fail(ACL_ERROR_UNINITIALIZE,
         "Cannot re-initialize NPU in forked subprocess. To use NPU with multiprocessing, you must use the "
         "'spawn' start method");
  }
  // Deliberately leaked: tensors and events may be freed (and may free
  // device memory) during static destruction at exit, after a static
  // Runtime would be gone; and in a forked child, destroying the parent's
  // streams would wait for threads that do not exist there. Construction
  // retries on the next call if it threw (nothing is leaked then).
  static Runtime& runtime = []() -> Runtime& {
    Runtime& created = *new Runtime();
    pthread_atfork(nullptr, nullptr, &mark_child_after_fork);
    // atexit rather than a static destructor, registered once the runtime
    // exists: it runs before the static destructors of libraries loaded
    // earlier (oneTBB), whose code the stream workers may be running.
    std::atexit(&Runtime::shut_down_at_exit);
    return created;
  }();
  return runtime;
}

void Runtime::shut_down_at_exit() {
  // In a bad fork the streams, their locks and condition variables belong
  // to the parent's threads: leave them alone.
  if (in_bad_fork()) return;
  try {
    get().shut_down();
  } catch (const std::exception&) {
    // Nothing may escape an exit handler; the process ends either way.
  }
}

void Runtime::shut_down() {
  for (int32_t id = 0; id < device_count(); ++id) {
    for (const auto& s : streams_of(id)) s->stop();
  }
  // Every kernel has returned, so oneTBB has no work left; waiting for its
  // worker threads to end as well means none is still running when the
  // process's libraries are finalized. Fails harmlessly (false) when another
  // user of oneTBB in the process still holds it.
  tbb::task_scheduler_handle tbb_threads{tbb::attach{}};
  (void)tbb::finalize(tbb_threads, std::nothrow);
}

Runtime::Runtime() {
  const std::string soc = env_str("NPU_EMU_SOC");
  try {
    profile_ = &model::soc_profile(soc.empty() ? model::kDefaultSoc : soc);
  } catch (const std::invalid_argument& e) {
    fail(ACL_ERROR_INVALID_PARAM, std::string("NPU_EMU_SOC: ") + e.what());
  }
  const int32_t physical = physical_device_count();
  const std::string hbm_text = env_str("NPU_EMU_HBM_MB");
  const uint64_t hbm = hbm_text.empty()
                           ? profile_->hbm_bytes
                           : static_cast<uint64_t>(parse_int(hbm_text, "NPU_EMU_HBM_MB", 1, 1 << 24)) << 20;
  // Read now so that a bad value fails aclInit, not the first launch.
  (void)LaunchSettings::kernel_delay_us();
  (void)LaunchSettings::launch_blocking();
  check_fault_setting();
  const auto ids = visible_devices(physical);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    devices_.push_back(std::make_unique<Device>(static_cast<int32_t>(i), ids[i], *profile_, hbm));
  }
}

Device& Runtime::device(int32_t id) {
  if (id < 0 || id >= device_count()) {
    std::ostringstream os;
    os << "invalid device id " << id << ": " << device_count() << " device(s) visible, ids 0.." << device_count() - 1;
    fail(ACL_ERROR_RT_INVALID_DEVICEID, os.str());
  }
  return *devices_[id];
}

void Runtime::set_current_device(int32_t id) {
  device(id);  // validates
  t_current_device = id;
}

bool Runtime::has_current_device() const { return t_current_device >= 0; }

Device& Runtime::current_device() {
  if (t_current_device < 0) fail(ACL_ERROR_RT_CONTEXT_NULL, "no device is set on this thread (call aclrtSetDevice)");
  return device(t_current_device);
}

Stream& Runtime::stream(aclrtStream handle) {
  if (handle == nullptr) return current_device().default_stream();
  // Every launch names its stream: a thread remembers the last one it found,
  // until any stream is destroyed (a new stream may reuse a freed address).
  struct Found {
    aclrtStream handle = nullptr;
    Stream* stream = nullptr;
    uint64_t generation = 0;
  };
  thread_local Found last;
  const uint64_t generation = streams_generation_.load(std::memory_order_acquire);
  if (last.handle == handle && last.generation == generation) return *last.stream;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = streams_.find(handle);
  if (it == streams_.end()) fail(ACL_ERROR_RT_PARAM_INVALID, "stream handle is not a live stream (destroyed?)");
  last = Found{handle, it->second.get(), generation};
  return *it->second;
}

aclrtStream Runtime::create_stream(uint32_t priority) {
  auto s = std::make_shared<Stream>(current_device().id(), priority);
  aclrtStream handle = s.get();
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.emplace(handle, std::move(s));
  return handle;
}

void Runtime::destroy_stream(aclrtStream handle) {
  std::shared_ptr<Stream> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(handle);
    if (it == streams_.end()) fail(ACL_ERROR_RT_PARAM_INVALID, "stream handle is not a live stream (destroyed twice?)");
    doomed = std::move(it->second);
    streams_.erase(it);
    streams_generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  // Drain outside the registry lock. A device synchronize running on another
  // thread may still hold the stream; the last holder destroys it.
  doomed->drain();
}

std::vector<std::shared_ptr<Stream>> Runtime::streams_of(int32_t id) {
  Device& dev = device(id);
  // The default stream lives as long as the device (the whole process), so
  // it is held by a non-owning (aliasing, empty) shared_ptr.
  std::vector<std::shared_ptr<Stream>> streams{std::shared_ptr<Stream>(std::shared_ptr<void>(), &dev.default_stream())};
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [handle, s] : streams_) {
    if (s->device() == id) streams.push_back(s);
  }
  return streams;
}

void Runtime::synchronize_device(int32_t id) {
  std::optional<AclError> first_failure;
  for (const auto& s : streams_of(id)) {
    try {
      s->synchronize();
    } catch (const AclError& e) {
      if (!first_failure) first_failure = e;
    }
  }
  if (first_failure) throw *first_failure;
}

void Runtime::drain_device(int32_t id) {
  for (const auto& s : streams_of(id)) s->drain();
}

std::shared_ptr<Event> Runtime::event(aclrtEvent handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = events_.find(handle);
  if (it == events_.end()) fail(ACL_ERROR_RT_PARAM_INVALID, "event handle is not a live event (destroyed?)");
  return it->second;
}

aclrtEvent Runtime::create_event(uint32_t flags, bool timing) {
  auto e = std::make_shared<Event>(flags, timing);
  aclrtEvent handle = e.get();
  std::lock_guard<std::mutex> lock(mutex_);
  events_.emplace(handle, std::move(e));
  return handle;
}

void Runtime::destroy_event(aclrtEvent handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.erase(handle) == 0) fail(ACL_ERROR_RT_PARAM_INVALID, "event handle is not a live event (destroyed twice?)");
}

void* Runtime::allocate_host(std::size_t size) {
  void* p = std::aligned_alloc(64, (std::max<std::size_t>(size, 1) + 63) / 64 * 64);
  if (p == nullptr) fail(ACL_ERROR_BAD_ALLOC, "pinned host allocation failed");
  std::lock_guard<std::mutex> lock(mutex_);
  host_allocations_.emplace(p, size);
  return p;
}

void Runtime::free_host(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (host_allocations_.erase(ptr) == 0) {
    fail(ACL_ERROR_RT_MEMORY_FREE, "address is not a live pinned host allocation (double free?)");
  }
  std::free(ptr);
}

bool Runtime::is_host_allocation(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = host_allocations_.upper_bound(ptr);
  if (it == host_allocations_.begin()) return false;
  --it;
  return static_cast<const char*>(ptr) < static_cast<const char*>(it->first) + std::max<std::size_t>(it->second, 1);
}

Device* Runtime::device_of(const void* ptr, std::size_t size) {
  for (auto& d : devices_) {
    if (d->memory().contains(ptr, size)) return d.get();
  }
  return nullptr;
}

}  // namespace npu::emu
