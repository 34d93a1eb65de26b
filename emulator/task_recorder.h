// The emulator's task recorder behind npu_emu.profiler: when switched on, every
// task a stream accepts (aclnn kernels, async copies and memsets, event
// records and waits) leaves one record with its submit, start and end times.
// Off (the default), a submit pays one relaxed atomic load and a branch.
#pragma once

#include <atomic>
#include <cstdint>

#include "emulator/task.h"

namespace npu::emu {

class Stream;

namespace task_recorder {

// Read on every submit: the only cost of the recorder when it is off.
extern std::atomic<bool> g_enabled;

inline bool enabled() noexcept { return g_enabled.load(std::memory_order_relaxed); }

// Wraps `task`'s body so that running it records the task (called by
// Stream::submit when enabled(); the task runs as it would otherwise).
void instrument(Task& task, const Stream& stream);

}  // namespace task_recorder
}  // namespace npu::emu
