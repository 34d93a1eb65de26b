#include "queue_stopped.h"

#include <stdexcept>

namespace npu::standin {

void raise_if_dropped_by_stopped_queue(const std::string& message) {
  // torch_npu's wording (NPUQueue.cpp, Repository::Enqueue).
  static const std::string drop = "Task queue thread is exit, can't call Enqueue() for ";
  const auto at = message.find(drop);
  if (at == std::string::npos) return;
  const std::string what = message.substr(at + drop.size());
  if (what.rfind("executing", 0) != 0 && what.rfind("copy", 0) != 0) return;
  throw std::runtime_error(
      "torch_npu's task queue stopped after an earlier error (the first exception raised) and now drops every "
      "operation queued to it, which would leave its results silently wrong; npu-emu's CANN stand-in raises instead. "
      "torch_npu cannot restart its queue: start a new process. (Dropped: " + what + ")");
}

}  // namespace npu::standin
