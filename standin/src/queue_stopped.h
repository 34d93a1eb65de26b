// torch_npu's task queue, once an operation in it failed, stops for good and
// from then on drops every operation queued to it, reporting each drop only
// through its log (aclAppLog): every later result would be silently wrong.
// The stand-in turns such a drop into an exception at the call that queued
// it. (The stand-in's own refusals come before queueing, see
// aclop_call_site.h; this catches whatever failed in the queue anyway.)
#pragma once

#include <string>

namespace npu::standin {

// Throws std::runtime_error when `message`, a torch_npu log line, reports an
// operation or a copy dropped by its stopped task queue. (Dropped event
// records are left alone: torch_npu queues those from destructors, which
// must not throw.)
void raise_if_dropped_by_stopped_queue(const std::string& message);

}  // namespace npu::standin
