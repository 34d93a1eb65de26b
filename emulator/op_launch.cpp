#include "emulator/op_launch.h"

#include <memory>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/device.h"
#include "kernels/copy/copy.h"

namespace npu::emu {

namespace {

// Every launch makes one executor and the launch frees it: a thread keeps a
// few freed ones (bodies already moved out) for its next launches.
// `executor_cache_gone` lets a release during thread exit, after the cache
// was destroyed, fall back to delete.
thread_local bool executor_cache_gone = false;

class ExecutorCache {
 public:
  ExecutorCache() = default;
  ExecutorCache(const ExecutorCache&) = delete;
  ExecutorCache& operator=(const ExecutorCache&) = delete;
  ~ExecutorCache() { executor_cache_gone = true; }
  std::unique_ptr<aclOpExecutor> take() {
    if (free_.empty()) return std::make_unique<aclOpExecutor>();
    std::unique_ptr<aclOpExecutor> ex = std::move(free_.back());
    free_.pop_back();
    return ex;
  }
  void give(std::unique_ptr<aclOpExecutor> ex) {
    if (free_.size() < kMaxCached) free_.push_back(std::move(ex));
  }

 private:
  static constexpr std::size_t kMaxCached = 16;
  std::vector<std::unique_ptr<aclOpExecutor>> free_;
};

ExecutorCache& executor_cache() {
  thread_local ExecutorCache cache;
  return cache;
}

}  // namespace

void make_executor(const char*, uint64_t* workspace_size, aclOpExecutor** executor, TaskBody&& body) {
  std::unique_ptr<aclOpExecutor> ex =
      executor_cache_gone ? std::make_unique<aclOpExecutor>() : executor_cache().take();
  ex->task.body = std::move(body);
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
    if (!executor_cache_gone) executor_cache().give(std::move(owned));
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
