// ProfilerActivity.PrivateUse1 for npu: a kineto activity-profiler plugin
// (PyTorch's PrivateUse1ProfilerRegistry, torch/csrc/profiler/standalone/
// privateuse1_profiler.h) that turns the emulator's task records
// (emulator/task_recorder.h, read through the emulator's aclemuTaskRecorder*
// functions, include/acl/acl_emu_profiling.h) into kineto device activities:
//
//   torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1])
//
// then shows every aclnn kernel, async copy, memset and event record/wait
// the streams ran, one track per stream of each device, each linked to the
// aten op that launched it (so key_averages() has device times).
//
// Linking: kineto pushes a CPU op's correlation id on the op's thread when
// the op starts and pops it when it ends; a task is linked to the innermost
// op whose push..pop interval on the launching thread holds its submit time.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <libkineto.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include "acl/acl_emu_profiling.h"
#include "dispatch/driver/optional_symbol.h"

namespace npu::profiler {
namespace {

using libkineto::ActivityType;

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t system_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Kernel thread ids, as the task recorder's submit_tid.
int64_t thread_id() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

// The device activity types a task becomes. Event records and waits are
// device work of no kernel: kineto has no better type for them than a sync.
ActivityType activity_type(const aclemuTaskRecord& r) {
  if ((r.flags & 1u) != 0) return ActivityType::CONCURRENT_KERNEL;
  const std::string name = r.name;
  if (name == "aclrtMemcpyAsync") return ActivityType::GPU_MEMCPY;
  if (name == "aclrtMemsetAsync") return ActivityType::GPU_MEMSET;
  return ActivityType::CONCURRENT_KERNEL;
}

const char* task_kind(const aclemuTaskRecord& r) {
  if ((r.flags & 1u) != 0) return "kernel";
  const std::string name = r.name;
  if (name == "aclrtMemcpyAsync") return "copy";
  if (name == "aclrtMemsetAsync") return "memset";
  if (name == "aclrtRecordEvent") return "event_record";
  if (name == "aclrtStreamWaitEvent") return "event_wait";
  return "other";
}

// One CPU op's correlation id and when it was current on its thread.
struct Interval {
  int64_t begin_ns;
  int64_t end_ns;  // INT64_MAX while open
  uint64_t correlation;
};

// Per thread: the intervals seen (in push order, so by begin) and the
// indices of the open ones.
struct ThreadCorrelations {
  std::vector<Interval> intervals;
  std::vector<std::size_t> open;
};

// The task recorder's functions in the loaded emulator; all null on real CANN.
struct Recorder {
  decltype(&aclemuTaskRecorderOpen) open = nullptr;
  decltype(&aclemuTaskRecorderTakeFrom) take = nullptr;
  decltype(&aclemuTaskRecorderClose) close = nullptr;

  static Recorder find() {
    Recorder r;
    r.open = driver::optional_function<decltype(&aclemuTaskRecorderOpen)>("aclemuTaskRecorderOpen");
    r.take = driver::optional_function<decltype(&aclemuTaskRecorderTakeFrom)>("aclemuTaskRecorderTakeFrom");
    r.close = driver::optional_function<decltype(&aclemuTaskRecorderClose)>("aclemuTaskRecorderClose");
    if (r.open == nullptr || r.take == nullptr || r.close == nullptr) return Recorder{};
    return r;
  }
};

class Session final : public libkineto::IActivityProfilerSession {
 public:
  explicit Session(bool record) : record_(record) {}
  ~Session() override { close(); }

  void start() override {
    if (!record_) return;
    recorder_ = Recorder::find();
    if (recorder_.open == nullptr) return;  // real CANN, or npu not initialized: nothing to record
    // steady_clock (the records) -> system_clock (kineto's time line).
    clock_offset_ns_ = system_ns() - steady_ns();
    handle_ = recorder_.open();
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void stop() override {
    if (handle_ == 0) return;
    // Only finished tasks are recorded: what is still queued or running when
    // the profiler stops is not in the trace (synchronize first, as on CUDA).
    records_.resize(recorder_.take(handle_, nullptr, 0));
    records_.resize(recorder_.take(handle_, records_.data(), records_.size()));
    close();
    std::sort(records_.begin(), records_.end(),
              [](const aclemuTaskRecord& a, const aclemuTaskRecord& b) { return a.seq < b.seq; });
    for (const aclemuTaskRecord& r : records_) {
      const auto key = std::make_pair(r.device, r.stream);
      if (tracks_.count(key) != 0) continue;
      int32_t& count = streams_per_device_[r.device];
      tracks_[key] = ++count;
    }
    status_ = libkineto::TraceStatus::PROCESSING;
  }

  std::vector<std::string> errors() override { return {}; }

  void processTrace(libkineto::ActivityLogger& logger) override {
    processTrace(logger, [](int32_t) -> const libkineto::ITraceActivity* { return nullptr; }, 0, 0);
  }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked_activity,
                    int64_t window_start, int64_t window_end) override {
    buffer_ = std::make_unique<libkineto::CpuTraceBuffer>();
    buffer_->span = libkineto::TraceSpan(window_start, window_end, "npu-emu");
    buffer_->gpuOpCount = static_cast<int>(records_.size());
    const std::lock_guard<std::mutex> lock(correlation_mutex_);
    for (const aclemuTaskRecord& r : records_) {
      auto activity = std::make_unique<libkineto::GenericTraceActivity>(buffer_->span, activity_type(r), r.name);
      activity->startTime = r.start_ns + clock_offset_ns_;
      activity->endTime = r.end_ns + clock_offset_ns_;
      activity->id = static_cast<int32_t>(r.seq);
      activity->device = r.device;
      activity->resource = tracks_.at(std::make_pair(r.device, r.stream));
      activity->threadId = activity->resource;
      const uint64_t correlation = correlation_of(r.submit_tid, r.submit_ns);
      if (correlation != 0) activity->linked = linked(linked_activity, correlation);
      activity->addMetadataQuoted("kind", task_kind(r));
      activity->addMetadataQuoted("stream", fmt::format("0x{:x}", r.stream));
      activity->addMetadata("seq", r.seq);
      activity->addMetadata("submitted_ns", r.submit_ns + clock_offset_ns_);
      activity->addMetadata("submit_thread", r.submit_tid);
      activity->addMetadata("run_thread", r.run_tid);
      if (correlation != 0) activity->addMetadata("cpu_correlation", correlation);
      if ((r.flags & 4u) != 0) activity->addMetadata("failed", 1);
      activity->log(logger);
      buffer_->activities.push_back(std::move(activity));
    }
  }

  // The CPU op of `correlation`: kineto's own activity when it has one,
  // else a stand-in carrying the id (PyTorch reads only the correlation id
  // of a device activity's link: it puts the task under its op in
  // key_averages). Stand-ins live in the buffer, as long as the trace, and
  // are not logged.
  const libkineto::ITraceActivity* linked(const libkineto::getLinkedActivityCallback& kineto_activity,
                                          uint64_t correlation) {
    if (const libkineto::ITraceActivity* cpu_op = kineto_activity(static_cast<int32_t>(correlation))) {
      return cpu_op;
    }
    auto& stand_in = stand_ins_[correlation];
    if (stand_in == nullptr) {
      auto op = std::make_unique<libkineto::GenericTraceActivity>(buffer_->span, ActivityType::CPU_OP, "cpu op");
      op->id = static_cast<int32_t>(correlation);
      stand_in = op.get();
      buffer_->activities.push_back(std::move(op));
    }
    return stand_in;
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    // Kineto takes one device description per session: the first device used.
    const int32_t device = streams_per_device_.empty() ? 0 : streams_per_device_.begin()->first;
    return std::make_unique<libkineto::DeviceInfo>(libkineto::DeviceInfo{
        device, device, "npu:" + std::to_string(device) + " (npu-emu streams)", "npu " + std::to_string(device)});
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (const auto& [key, track] : tracks_) {
      out.push_back(libkineto::ResourceInfo{track, track, key.first,
                                            fmt::format("stream {} (0x{:x})", track, key.second)});
    }
    return out;
  }

  // The activities, handed to kineto after processTrace logged them: they
  // must outlive this session (kineto's trace keeps pointers to them).
  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return std::move(buffer_); }

  void pushCorrelationId(uint64_t id) override {
    const int64_t now = steady_ns();
    const std::lock_guard<std::mutex> lock(correlation_mutex_);
    ThreadCorrelations& t = correlations_[thread_id()];
    t.open.push_back(t.intervals.size());
    t.intervals.push_back(Interval{now, INT64_MAX, id});
  }

  void popCorrelationId() override {
    const int64_t now = steady_ns();
    const std::lock_guard<std::mutex> lock(correlation_mutex_);
    ThreadCorrelations& t = correlations_[thread_id()];
    if (t.open.empty()) return;  // pushed before this session began
    t.intervals[t.open.back()].end_ns = now;
    t.open.pop_back();
  }

 private:
  void close() {
    if (handle_ == 0) return;
    recorder_.close(handle_);
    handle_ = 0;
  }

  // The innermost correlation interval of thread `tid` holding `when`; 0 if
  // none. Intervals on a thread nest, so going back from the last one that
  // began by `when`, the first that has not ended before it is the innermost.
  uint64_t correlation_of(int64_t tid, int64_t when) const {
    const auto found = correlations_.find(tid);
    if (found == correlations_.end()) return 0;
    const std::vector<Interval>& intervals = found->second.intervals;
    auto it = std::upper_bound(intervals.begin(), intervals.end(), when,
                               [](int64_t t, const Interval& i) { return t < i.begin_ns; });
    while (it != intervals.begin()) {
      --it;
      if (it->end_ns >= when) return it->correlation;
    }
    return 0;
  }

  const bool record_;
  Recorder recorder_;
  int handle_ = 0;
  int64_t clock_offset_ns_ = 0;
  std::vector<aclemuTaskRecord> records_;
  std::map<std::pair<int32_t, uint64_t>, int32_t> tracks_;  // (device, stream) -> track id from 1
  std::map<int32_t, int32_t> streams_per_device_;
  std::unique_ptr<libkineto::CpuTraceBuffer> buffer_;
  std::unordered_map<uint64_t, const libkineto::GenericTraceActivity*> stand_ins_;
  mutable std::mutex correlation_mutex_;
  std::unordered_map<int64_t, ThreadCorrelations> correlations_;
};

// Device kernels are asked for only with ProfilerActivity.PrivateUse1 (or
// CUDA); a CPU-only profile configures this plugin too, with the host-side
// PRIVATEUSE1_RUNTIME/DRIVER types among the CPU ones, and gets an idle session.
bool wants_device(const std::set<ActivityType>& types) {
  return types.count(ActivityType::CONCURRENT_KERNEL) != 0;
}

class NpuEmuActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }
  const std::set<ActivityType>& availableActivities() const override { return types_; }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& activity_types,
                                                                 const libkineto::Config&) override {
    return std::make_unique<Session>(wants_device(activity_types));
  }
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t, int64_t,
                                                                 const std::set<ActivityType>& activity_types,
                                                                 const libkineto::Config& config) override {
    return configure(activity_types, config);
  }

 private:
  const std::string name_{"npu-emu"};
  const std::set<ActivityType> types_{ActivityType::CONCURRENT_KERNEL, ActivityType::GPU_MEMCPY,
                                      ActivityType::GPU_MEMSET};
};

REGISTER_PRIVATEUSE1_PROFILER(NpuEmuActivityProfiler);

}  // namespace
}  // namespace npu::profiler
