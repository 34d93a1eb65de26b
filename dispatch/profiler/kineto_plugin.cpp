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

#include <ATen/record_function.h>
#include <libkineto.h>
#include <output_base.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>
#include <torch/csrc/profiler/util.h>

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
  decltype(&aclemuTaskRecorderDrain) drain = nullptr;

  static Recorder find() {
    Recorder r;
    r.open = driver::optional_function<decltype(&aclemuTaskRecorderOpen)>("aclemuTaskRecorderOpen");
    r.take = driver::optional_function<decltype(&aclemuTaskRecorderTakeFrom)>("aclemuTaskRecorderTakeFrom");
    r.close = driver::optional_function<decltype(&aclemuTaskRecorderClose)>("aclemuTaskRecorderClose");
    r.drain = driver::optional_function<decltype(&aclemuTaskRecorderDrain)>("aclemuTaskRecorderDrain");
    if (r.open == nullptr || r.take == nullptr || r.close == nullptr || r.drain == nullptr) return Recorder{};
    return r;
  }
};

// --- The estimated device time ---------------------------------------------
// Each task's estimate on the emulated SoC (docs/device_time.md) needs what
// its aten op computes and moves. A RecordFunction callback, on while a
// device session records, keeps per top-level aten op of the npu: when it ran
// on which thread, PyTorch's own FLOP count of the Cube ops inside it
// (torch::profiler::impl::computeFlops: conv2d, mm, addmm, bmm, baddbmm) and
// the bytes of its tensors. The roofline itself and the SoC figures are the
// Python ones (npu_emu.profiler.kineto_estimate), asked once per trace.

struct OpFacts {
  int64_t tid = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int32_t device = -1;  // the first npu tensor's device; -1: no npu tensor
  std::string name;
  double cube_flops = 0;
  double bytes = 0;
  double elements = 0;  // of its largest tensor
  int itemsize = 0;     // of its widest floating tensor
  std::set<c10::DeviceType> device_types;
  double output_bytes = 0;
};

bool is_cube_op(const std::string& name) {
  static const std::set<std::string> cube{"aten::conv2d", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"};
  return cube.count(name) != 0;
}

bool is_copy_op(const std::string& name) {
  static const std::set<std::string> copies{"aten::to", "aten::copy_", "aten::_to_copy", "aten::clone",
                                            "aten::_copy_from", "aten::_copy_from_and_resize", "aten::contiguous"};
  return copies.count(name) != 0;
}

void add_tensor(OpFacts& op, const at::Tensor& t, bool output) {
  if (!t.defined()) return;
  op.device_types.insert(t.device().type());
  if (t.device().type() == c10::DeviceType::PrivateUse1 && op.device < 0) op.device = t.device().index();
  const auto numel = static_cast<double>(t.numel());
  const double nbytes = numel * static_cast<double>(t.element_size());
  op.bytes += nbytes;
  if (output) op.output_bytes += nbytes;
  op.elements = std::max(op.elements, numel);
  if (t.is_floating_point()) op.itemsize = std::max(op.itemsize, static_cast<int>(t.element_size()));
}

void add_values(OpFacts& op, c10::ArrayRef<const c10::IValue> values, bool output) {
  for (const c10::IValue& v : values) {
    if (v.isTensor()) {
      add_tensor(op, v.toTensor(), output);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add_tensor(op, t, output);
    }
  }
}

class Session;

// The sessions that want op facts, and the callback that feeds them.
struct OpWatch {
  std::mutex mutex;
  std::set<Session*> sessions;
  at::CallbackHandle handle = 0;
};

OpWatch& op_watch() {
  static OpWatch& w = *new OpWatch();  // never destroyed: callbacks may run during exit
  return w;
}

// Per thread: the depth of nested aten ops, of nested Cube ops, and the
// top-level op's facts.
struct ThreadOps {
  int depth = 0;
  int cube_depth = 0;
  OpFacts top;
};
thread_local ThreadOps t_ops;

void deliver(OpFacts&& op);

// A context for every op, so that the end callback runs for each start.
struct OpContext final : at::ObserverContext {
  explicit OpContext(bool cube) : cube(cube) {}
  const bool cube;
};

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  ThreadOps& t = t_ops;
  const std::string name = fn.name();
  if (t.depth++ == 0) {
    t.top = OpFacts{};
    t.top.tid = thread_id();
    t.top.begin_ns = steady_ns();
    t.top.name = name;
    add_values(t.top, fn.inputs(), false);
  }
  const bool cube = is_cube_op(name);
  // Only the outermost Cube op counts: one redispatched to itself (a
  // dispatch mode, a composite calling its own op) is the same work.
  if (cube && t.cube_depth++ == 0) {
    t.top.cube_flops += static_cast<double>(
        torch::profiler::impl::computeFlops(name, torch::profiler::impl::saveExtraArgs(fn)));
  }
  return std::make_unique<OpContext>(cube);
}

void on_op_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  ThreadOps& t = t_ops;
  if (t.depth == 0) return;  // began before the callback was added
  if (context != nullptr && static_cast<const OpContext*>(context)->cube && t.cube_depth > 0) --t.cube_depth;
  if (--t.depth != 0) return;
  t.top.end_ns = steady_ns();
  const std::vector<c10::IValue>& outputs = fn.outputs();
  add_values(t.top, c10::ArrayRef<const c10::IValue>(outputs.data(), outputs.size()), true);
  if (t.top.device >= 0) deliver(std::move(t.top));
}

// The roofline's inputs for one op, as npu_emu.profiler.estimate.OpCost
// has them: (unit, flops, bytes, itemsize).
std::tuple<std::string, double, double, int> op_cost(const OpFacts& op) {
  const int itemsize = op.itemsize > 0 ? op.itemsize : 4;
  if (is_copy_op(op.name)) {
    if (op.device_types.size() > 1) return {"host_link", 0.0, op.output_bytes, itemsize};
    return {"hbm", 0.0, op.bytes, itemsize};
  }
  if (op.cube_flops > 0) return {"cube", op.cube_flops, op.bytes, itemsize};
  if (op.bytes == 0) return {"none", 0.0, 0.0, itemsize};
  return {"vector", op.elements, op.bytes, itemsize};
}

// The estimate's answer for one trace: the SoC, its launch cost and each
// op's roofline time; empty soc when there are no figures (or no Python).
struct Estimates {
  std::string soc;
  double launch_us = 0;
  std::vector<double> op_us;
};

Estimates estimate(int32_t device, const std::vector<std::tuple<std::string, double, double, int>>& costs) {
  namespace py = pybind11;
  if (Py_IsInitialized() == 0) return {};
  const py::gil_scoped_acquire gil;
  try {
    const py::object answer =
        py::module_::import("npu_emu.profiler.kineto_estimate").attr("estimates")(device, costs);
    if (answer.is_none()) return {};
    auto [soc, launch_us, op_us] = answer.cast<std::tuple<std::string, double, std::vector<double>>>();
    return Estimates{std::move(soc), launch_us, std::move(op_us)};
  } catch (const py::error_already_set& e) {
    // A trace without estimates rather than no trace: say why once.
    TORCH_WARN("npu-emu profiler: no estimated device time: ", e.what());
    return {};
  }
}

class Session final : public libkineto::IActivityProfilerSession {
 public:
  explicit Session(bool record) : record_(record) {}
  ~Session() override {
    watch_ops(false);
    close();
  }

  void start() override {
    if (!record_) return;
    recorder_ = Recorder::find();
    if (recorder_.open == nullptr) return;  // real CANN, or npu not initialized: nothing to record
    // steady_clock (the records) -> system_clock (kineto's time line).
    clock_offset_ns_ = system_ns() - steady_ns();
    handle_ = recorder_.open();
    watch_ops(true);
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void add_op(OpFacts&& op) {
    const std::lock_guard<std::mutex> lock(ops_mutex_);
    ops_.push_back(std::move(op));
  }

  void stop() override {
    if (handle_ == 0) return;
    // Tasks are recorded when they finish. torch.profiler synchronizes only
    // the current device before it stops; what is still queued or running on
    // any stream of any device is waited for here (as CUDA's profiler flushes
    // its activity buffers), so every task launched inside the profile is in
    // the trace. The wait leaves task errors pending for the application.
    recorder_.drain();
    watch_ops(false);
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
    estimate_tasks();
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
    // Kineto asks a session for one device description (getDeviceInfo: the
    // first device); the others are named here, so that each device's
    // process in the trace is named as CUDA's are ("GPU N" there).
    for (const auto& [device, count] : streams_per_device_) {
      if (device != first_device()) logger.handleDeviceInfo(device_info(device), window_start);
    }
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
      if (const auto est = estimated_us_.find(r.seq); est != estimated_us_.end()) {
        activity->addMetadata("estimated_us", fmt::format("{:.3f}", est->second));
        activity->addMetadataQuoted("estimated_on", estimates_soc_);
      }
      activity->log(logger);
      buffer_->activities.push_back(std::move(activity));
    }
    log_estimated_tracks(logger);
  }

  // Beside each stream's track, the same tasks laid end to end by their
  // estimated time ("stream N (0x...) estimated on <SoC>"), each starting no
  // earlier than it was submitted: what the step would look like on the SoC
  // (a host-bound step shows gaps). They are user-annotation activities, so
  // PyTorch keeps them out of its ops' kernels and of the device-time totals.
  void log_estimated_tracks(libkineto::ActivityLogger& logger) {
    if (estimated_us_.empty()) return;
    std::map<std::pair<int32_t, uint64_t>, int64_t> free_at;
    for (const aclemuTaskRecord& r : records_) {
      const auto key = std::make_pair(r.device, r.stream);
      const int64_t submitted = r.submit_ns + clock_offset_ns_;
      int64_t& free = free_at[key];
      const int64_t start = std::max(free, submitted);
      const int64_t end = start + static_cast<int64_t>(estimated_us_.at(r.seq) * 1e3);
      free = end;
      // Named apart from the kernel: key_averages() lists these as their own
      // rows, whose device time is the estimate.
      auto activity = std::make_unique<libkineto::GenericTraceActivity>(
          buffer_->span, ActivityType::GPU_USER_ANNOTATION, fmt::format("{} [est. {}]", r.name, estimates_soc_));
      activity->startTime = start;
      activity->endTime = end;
      activity->device = r.device;
      activity->resource = estimate_track(tracks_.at(key));
      activity->threadId = activity->resource;
      activity->addMetadataQuoted("kind", task_kind(r));
      activity->addMetadata("seq", r.seq);
      activity->addMetadata("estimated_us", fmt::format("{:.3f}", estimated_us_.at(r.seq)));
      activity->addMetadataQuoted("estimated_on", estimates_soc_);
      activity->log(logger);
      buffer_->activities.push_back(std::move(activity));
    }
  }

  // The estimate track of stream track `track`, clear of the stream tracks.
  static int32_t estimate_track(int32_t track) { return kEstimateTrackBase + track; }
  static constexpr int32_t kEstimateTrackBase = 1000;

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
    return std::make_unique<libkineto::DeviceInfo>(device_info(first_device()));
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (const auto& [key, track] : tracks_) {
      // Each stream's estimate track right below it.
      out.push_back(libkineto::ResourceInfo{track, 2 * track, key.first,
                                            fmt::format("stream {} (0x{:x})", track, key.second)});
      if (!estimated_us_.empty()) {
        out.push_back(libkineto::ResourceInfo{estimate_track(track), 2 * track + 1, key.first,
                                              fmt::format("stream {} (0x{:x}) estimated on {}", track, key.second,
                                                          estimates_soc_)});
      }
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

  int32_t first_device() const { return streams_per_device_.empty() ? 0 : streams_per_device_.begin()->first; }

  // The process of `device`'s streams: named "npu:N", labelled "NPU N".
  static libkineto::DeviceInfo device_info(int32_t device) {
    return libkineto::DeviceInfo{device, device, fmt::format("npu:{}", device), fmt::format("NPU {} (npu-emu)", device)};
  }

  void watch_ops(bool on) {
    OpWatch& w = op_watch();
    const std::lock_guard<std::mutex> lock(w.mutex);
    if (on) {
      w.sessions.insert(this);
      if (w.handle == 0) {
        w.handle = at::addGlobalCallback(at::RecordFunctionCallback(&on_op_start, &on_op_end)
                                             .needsInputs(true)
                                             .needsOutputs(true)
                                             .scopes({at::RecordScope::FUNCTION}));
      }
    } else {
      w.sessions.erase(this);
      if (w.sessions.empty() && w.handle != 0) {
        at::removeCallback(w.handle);
        w.handle = 0;
      }
    }
  }

  // Each recorded task's estimated time (estimated_us_, by seq): the launch
  // cost, plus for the kernels, copies and memsets of an aten op an even
  // share of the op's roofline time.
  void estimate_tasks() {
    std::vector<OpFacts> ops;
    {
      const std::lock_guard<std::mutex> lock(ops_mutex_);
      ops.swap(ops_);
    }
    if (records_.empty()) return;
    std::sort(ops.begin(), ops.end(), [](const OpFacts& a, const OpFacts& b) { return a.begin_ns < b.begin_ns; });
    std::unordered_map<int64_t, std::vector<std::size_t>> ops_of_thread;
    for (std::size_t i = 0; i < ops.size(); ++i) ops_of_thread[ops[i].tid].push_back(i);
    // The op each busy task belongs to (an op's interval holds its submit).
    std::vector<std::vector<uint64_t>> busy(ops.size());
    for (const aclemuTaskRecord& r : records_) {
      const std::string kind = task_kind(r);
      if (kind != "kernel" && kind != "copy" && kind != "memset") continue;
      const auto found = ops_of_thread.find(r.submit_tid);
      if (found == ops_of_thread.end()) continue;
      const std::vector<std::size_t>& mine = found->second;
      auto it = std::upper_bound(mine.begin(), mine.end(), r.submit_ns,
                                 [&](int64_t t, std::size_t i) { return t < ops[i].begin_ns; });
      if (it == mine.begin()) continue;
      const std::size_t op = *std::prev(it);
      if (ops[op].end_ns >= r.submit_ns) busy[op].push_back(r.seq);
    }
    std::vector<std::tuple<std::string, double, double, int>> costs;
    std::vector<std::size_t> costed;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (busy[i].empty()) continue;
      costs.push_back(op_cost(ops[i]));
      costed.push_back(i);
    }
    const Estimates e = estimate(first_device(), costs);
    if (e.soc.empty() || e.op_us.size() != costs.size()) return;
    estimates_soc_ = e.soc;
    for (const aclemuTaskRecord& r : records_) estimated_us_[r.seq] = e.launch_us;
    for (std::size_t k = 0; k < costed.size(); ++k) {
      const std::vector<uint64_t>& tasks = busy[costed[k]];
      const double share = e.op_us[k] / static_cast<double>(tasks.size());
      for (const uint64_t seq : tasks) estimated_us_[seq] = e.launch_us + share;
    }
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
  std::mutex ops_mutex_;
  std::vector<OpFacts> ops_;  // guarded by ops_mutex_ (the callback runs on any thread)
  std::unordered_map<uint64_t, double> estimated_us_;  // by task seq
  std::string estimates_soc_;
  mutable std::mutex correlation_mutex_;
  std::unordered_map<int64_t, ThreadCorrelations> correlations_;
};

void deliver(OpFacts&& op) {
  OpWatch& w = op_watch();
  const std::lock_guard<std::mutex> lock(w.mutex);
  for (Session* s : w.sessions) s->add_op(OpFacts(op));
}

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
