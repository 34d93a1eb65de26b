// npu-emu's emulator-only facilities for debugging tools: the task recorder
// behind npu_emu.profiler and the torch.profiler plugin, and the hook that
// reports the format conversions aclnn entries make internally (the
// NPU_EMU_TRACE=formats trace). Real CANN has none of these; dispatch code
// looks them up optionally (dispatch/driver/optional_symbol.h), Python with
// ctypes. Kept out of acl_emu_ext.h so the driver table does not depend on them.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// The task recorder (emulator/task_recorder.h). One finished task; times are
// std::chrono::steady_clock (CLOCK_MONOTONIC) nanoseconds, thread ids are
// kernel ids (gettid).
typedef struct aclemuTaskRecord {
  const char* name;     // a string literal of the emulator: valid for the process
  uint64_t seq;         // submit order across all streams
  uint64_t stream;      // the stream's address: what aclrtStream handles are
  int32_t device;
  uint32_t flags;       // 1: kernel, 2: may block (event wait), 4: failed
  int64_t submit_ns;
  int64_t start_ns;
  int64_t end_ns;
  int64_t submit_tid;   // the thread that launched it
  int64_t run_tid;      // the thread that ran it (a stream worker, or the launcher)
} aclemuTaskRecord;

// Each consumer (npu_emu.profiler, a torch.profiler session) opens its own
// subscription and takes only its own copies of the records: two profilers
// at once do not steal each other's tasks. Recording runs while any
// subscription is open. Open returns a handle > 0.
ACL_FUNC_VISIBILITY int aclemuTaskRecorderOpen(void);
// Moves up to `capacity` of the subscription's records into `out` (oldest
// first) and returns how many; with out == NULL returns how many are waiting.
ACL_FUNC_VISIBILITY size_t aclemuTaskRecorderTakeFrom(int handle, aclemuTaskRecord* out, size_t capacity);
ACL_FUNC_VISIBILITY void aclemuTaskRecorderClose(int handle);
// Waits until every task already submitted to any stream of any device has
// run (and so is recorded), without taking the tasks' errors: they stay
// pending for the application's next synchronizing call. What a profiler
// calls when it stops, so that work still queued or running is in its trace.
ACL_FUNC_VISIBILITY void aclemuTaskRecorderDrain(void);

// A base-format conversion an aclnn entry makes internally: a private-format
// tensor parameter computed on through base-format scratch
// (emulator/format_scope.h). `to_storage` 0: the input's private storage is
// read into base-format scratch; 1: the output's scratch is laid into its
// private storage. Dims are the logical (view) dims; formats are aclFormat.
typedef struct aclemuFormatStage {
  const char* entry;     // "aclnnAdd"
  const char* param;     // "self"
  int32_t to_storage;
  int32_t private_format;
  int32_t base_format;
  int32_t data_type;     // aclDataType
  const int64_t* dims;
  uint64_t dim_num;
  int64_t bytes;         // read + written by the conversion
} aclemuFormatStage;
typedef void (*aclemuFormatStageHook)(const aclemuFormatStage* stage);
// Called (on the launching thread, when the entry is called) for every
// conversion; NULL switches it off. Off, a conversion pays one atomic load.
ACL_FUNC_VISIBILITY void aclemuSetFormatStageHook(aclemuFormatStageHook hook);


#ifdef __cplusplus
}
#endif
