// Task records for the profiler (see task_recorder.h) and the C entry points
// npu_emu.profiler reads them with (ctypes, not the driver table: they are an
// emulator-only facility with no ACL counterpart).

#include "emulator/task_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "acl/acl_base.h"
#include "emulator/stream.h"

extern "C" {
// One finished task, as npu_emu/profiler/_native.py declares it. Times are
// std::chrono::steady_clock (CLOCK_MONOTONIC) nanoseconds, Python's
// time.monotonic_ns(); thread ids are kernel ids (threading.get_native_id()).
struct aclemuTaskRecord {
  const char* name;     // a string literal of the emulator: valid for the process
  uint64_t seq;         // submit order across all streams, from 1 since the last enable
  uint64_t stream;      // the Stream's address: what aclrtStream handles are
  int32_t device;
  uint32_t flags;       // 1: kernel, 2: may block (event wait), 4: failed
  int64_t submit_ns;
  int64_t start_ns;
  int64_t end_ns;
  int64_t submit_tid;   // the thread that launched it
  int64_t run_tid;      // the thread that ran it (a stream worker, or the launcher)
};
}

namespace npu::emu::task_recorder {

std::atomic<bool> g_enabled{false};

namespace {

std::mutex g_mutex;
std::vector<aclemuTaskRecord> g_records;  // guarded by g_mutex
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
        g_records.push_back(r);
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

extern "C" {

// Switches recording on (clearing earlier records and the sequence) or off.
ACL_FUNC_VISIBILITY void aclemuTaskRecorderEnable(int on) {
  if (on != 0) {
    const std::lock_guard<std::mutex> lock(rec::g_mutex);
    rec::g_records.clear();
    rec::g_seq.store(0, std::memory_order_relaxed);
  }
  rec::g_enabled.store(on != 0, std::memory_order_relaxed);
}

// Moves up to `capacity` finished records into `out` (oldest first) and
// returns how many; with out == nullptr returns how many are waiting.
ACL_FUNC_VISIBILITY size_t aclemuTaskRecorderTake(aclemuTaskRecord* out, size_t capacity) {
  const std::lock_guard<std::mutex> lock(rec::g_mutex);
  if (out == nullptr) return rec::g_records.size();
  const size_t n = capacity < rec::g_records.size() ? capacity : rec::g_records.size();
  for (size_t i = 0; i < n; ++i) out[i] = rec::g_records[i];
  rec::g_records.erase(rec::g_records.begin(), rec::g_records.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

}  // extern "C"
