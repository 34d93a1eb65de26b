// Task records for the profilers (see task_recorder.h) and the C entry points
// they read them with (include/acl/acl_emu_profiling.h): npu_emu.profiler
// through ctypes, the torch.profiler plugin (dispatch/profiler/) through
// dispatch/driver/optional_symbol.h.

#include "emulator/task_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "acl/acl_emu_profiling.h"
#include "emulator/acl_error.h"
#include "emulator/device.h"
#include "emulator/stream.h"

namespace npu::emu::task_recorder {

std::atomic<bool> g_enabled{false};

namespace {

std::mutex g_mutex;
// Each open subscription's records (guarded by g_mutex); recording runs while
// any is open.
std::map<int, std::vector<aclemuTaskRecord>> g_subscriptions;
int g_next_handle = 1;
// The subscription of the single-consumer entry points (Enable/Take), 0: none.
int g_legacy_handle = 0;
std::atomic<uint64_t> g_seq{0};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t thread_id() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

// The wrapped body: records where and when the original ran, also when it
// throws (the stream turns the exception into the op's error as before).
struct Recorded {
  TaskBody body;
  aclemuTaskRecord record;

  void operator()() {
    record.start_ns = now_ns();
    record.run_tid = thread_id();
    struct Finish {
      aclemuTaskRecord& r;
      bool ok = false;
      ~Finish() {
        r.end_ns = now_ns();
        if (!ok) r.flags |= 4u;
        const std::lock_guard<std::mutex> lock(g_mutex);
        for (auto& [handle, records] : g_subscriptions) records.push_back(r);
      }
    } finish{record};
    body();
    finish.ok = true;
  }
};

}  // namespace

void instrument(Task& task, const Stream& stream) {
  aclemuTaskRecord r{};
  r.name = task.name;
  r.seq = g_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  r.stream = reinterpret_cast<uint64_t>(&stream);
  r.device = stream.device();
  r.flags = (task.is_kernel ? 1u : 0u) | (task.may_block ? 2u : 0u);
  r.submit_ns = now_ns();
  r.submit_tid = thread_id();
  task.body = Recorded{std::move(task.body), r};
}

}  // namespace npu::emu::task_recorder

namespace rec = npu::emu::task_recorder;

namespace {

// Callers hold rec::g_mutex.
int open_locked() {
  // The sequence restarts with the first subscription of a quiet recorder.
  if (rec::g_subscriptions.empty()) rec::g_seq.store(0, std::memory_order_relaxed);
  const int handle = rec::g_next_handle++;
  rec::g_subscriptions.emplace(handle, std::vector<aclemuTaskRecord>{});
  rec::g_enabled.store(true, std::memory_order_relaxed);
  return handle;
}

void close_locked(int handle) {
  rec::g_subscriptions.erase(handle);
  rec::g_enabled.store(!rec::g_subscriptions.empty(), std::memory_order_relaxed);
}

size_t take_locked(int handle, aclemuTaskRecord* out, size_t capacity) {
  const auto it = rec::g_subscriptions.find(handle);
  if (it == rec::g_subscriptions.end()) return 0;
  std::vector<aclemuTaskRecord>& records = it->second;
  if (out == nullptr) return records.size();
  const size_t n = capacity < records.size() ? capacity : records.size();
  for (size_t i = 0; i < n; ++i) out[i] = records[i];
  records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY int aclemuTaskRecorderOpen(void) {
  const std::lock_guard<std::mutex> lock(rec::g_mutex);
  return open_locked();
}

ACL_FUNC_VISIBILITY size_t aclemuTaskRecorderTakeFrom(int handle, aclemuTaskRecord* out, size_t capacity) {
  const std::lock_guard<std::mutex> lock(rec::g_mutex);
  return take_locked(handle, out, capacity);
}

ACL_FUNC_VISIBILITY void aclemuTaskRecorderClose(int handle) {
  const std::lock_guard<std::mutex> lock(rec::g_mutex);
  close_locked(handle);
}

ACL_FUNC_VISIBILITY void aclemuTaskRecorderDrain(void) {
  // Not under rec::g_mutex: a finishing task takes it to leave its record.
  try {
    npu::emu::Runtime& rt = npu::emu::Runtime::get();
    for (int32_t d = 0; d < rt.device_count(); ++d) rt.drain_device(d);
  } catch (const npu::emu::AclError&) {
    // No runtime (bad configuration, a forked child): nothing was submitted.
  }
}

// The single-consumer form npu_emu.profiler uses: on (re)opens its
// subscription (dropping earlier records), off closes it.
ACL_FUNC_VISIBILITY void aclemuTaskRecorderEnable(int on) {
  const std::lock_guard<std::mutex> lock(rec::g_mutex);
  if (rec::g_legacy_handle != 0) close_locked(rec::g_legacy_handle);
  rec::g_legacy_handle = on != 0 ? open_locked() : 0;
}

// Moves up to `capacity` of that subscription's records into `out` (oldest
// first) and returns how many; with out == nullptr returns how many are waiting.
ACL_FUNC_VISIBILITY size_t aclemuTaskRecorderTake(aclemuTaskRecord* out, size_t capacity) {
  const std::lock_guard<std::mutex> lock(rec::g_mutex);
  return take_locked(rec::g_legacy_handle, out, capacity);
}

}  // extern "C"
