#include "emulator/op_launch.h"

#include <array>
#include <memory>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/device.h"
#include "emulator/fault_injection.h"
#include "kernels/copy/copy.h"

namespace npu::emu {

namespace {

// Every launch makes one executor and the launch frees it: a thread keeps a
// few freed ones (bodies already moved out) for its next launches. The cache
// is trivially destructible, so reaching it is one thread-local lookup (a
// thread_local with a destructor costs a second one, for its guard, on every
// access); ExecutorCacheCleanup, set up by the first executor given back,
// frees the cached ones at thread exit and closes the cache: executors
// released later are deleted.
struct ExecutorCache {
  static constexpr std::size_t kMaxCached = 16;
  std::array<aclOpExecutor*, kMaxCached> items{};
  std::size_t count = 0;
  bool cleanup_registered = false;
  bool closed = false;
};
thread_local ExecutorCache t_executor_cache;

struct ExecutorCacheCleanup {
  ExecutorCacheCleanup() = default;
  ExecutorCacheCleanup(const ExecutorCacheCleanup&) = delete;
  ExecutorCacheCleanup& operator=(const ExecutorCacheCleanup&) = delete;
  ~ExecutorCacheCleanup() {
    ExecutorCache& cache = t_executor_cache;
    for (std::size_t i = 0; i < cache.count; ++i) delete cache.items[i];
    cache.count = 0;
    cache.closed = true;
  }
};

std::unique_ptr<aclOpExecutor> take_cached_executor() {
  ExecutorCache& cache = t_executor_cache;
  if (cache.count == 0) return std::make_unique<aclOpExecutor>();
  return std::unique_ptr<aclOpExecutor>(cache.items[--cache.count]);
}

// Out of line and after the executor is stored, as register_handle_cleanup
// in api_tensor.cpp: one thread-local lookup on the common path.
[[gnu::noinline]] void register_executor_cleanup() {
  thread_local ExecutorCacheCleanup cleanup;
  t_executor_cache.cleanup_registered = true;
}

void give_executor(std::unique_ptr<aclOpExecutor> ex) {
  ExecutorCache& cache = t_executor_cache;
  if (cache.closed || cache.count == cache.items.size()) return;  // `ex` deletes it
  cache.items[cache.count++] = ex.release();
  if (!cache.cleanup_registered) register_executor_cleanup();
}

}  // namespace

std::unique_ptr<aclOpExecutor> new_executor() { return take_cached_executor(); }

void hand_out_executor(const char* op_name, std::unique_ptr<aclOpExecutor> ex, uint64_t* workspace_size,
                       aclOpExecutor** executor) {
  inject_op_fault(op_name);  // NPU_EMU_FAULTS=aclnn_error@...
  *workspace_size = 0;  // the emulator needs no device workspace
  *executor = ex.release();
}

aclnnStatus launch_op(const char* api, aclOpExecutor* executor, aclrtStream stream) {
  return guarded(api, [&] {
    if (executor == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "executor is null");
    std::unique_ptr<aclOpExecutor> owned(executor);
    Stream& s = Runtime::get().stream(stream);
    // Submitted from the executor: a task run here is not moved, a queued
    // one is moved out. Either way its body is empty afterwards (submit
    // releases what a task run here captured before it counts as done).
    owned->task.name = api;
    owned->task.is_kernel = true;
    owned->task.may_block = false;
    s.submit(std::move(owned->task));
    owned->task.body = nullptr;
    give_executor(std::move(owned));
  });
}

void require_shape(const aclTensor* t, const kernels::Shape& shape, const char* name) {
  if (t->view_dims != shape) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " has shape " + kernels::shape_str(t->view_dims) +
                                      ", expected " + kernels::shape_str(shape));
  }
}

ConvertedOperand::ConvertedOperand(const kernels::TensorView& src, model::DType dtype) {
  if (src.dtype == dtype) {
    view_ = src;
    return;
  }
  const int64_t n = src.numel();
  buffer_ = std::make_unique<unsigned char[]>(std::max<std::size_t>(n * model::itemsize(dtype), 1));
  view_ = kernels::TensorView{buffer_.get(), dtype, src.sizes, kernels::contiguous_strides(src.sizes)};
  kernels::copy(view_, src);
}

}  // namespace npu::emu
