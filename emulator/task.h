// One unit of work for a stream: what aclnn launches and the runtime's async
// calls (copies, event records and waits) enqueue.
#pragma once

#include "emulator/task_body.h"

namespace npu::emu {

struct Task {
  const char* name;             // op or API name (a string literal), used in error messages
  TaskBody body;                // runs on the worker thread, or on the submitting one (see Stream::submit)
  bool is_kernel = false;       // kernels get the emulator's latency knob
  bool may_block = false;       // waits for other work (an event): never run on the submitting thread
};

}  // namespace npu::emu
