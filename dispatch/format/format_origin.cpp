#include "dispatch/format/format_origin.h"

#include "dispatch/debug/format_trace.h"

namespace npu {

namespace {

struct OpenReason {
  const char* op = nullptr;
  const char* rule = nullptr;
};

thread_local OpenReason g_reason;

}  // namespace

FormatReason::FormatReason(const char* op, const char* rule) : owner_(g_reason.op == nullptr) {
  if (owner_) g_reason = {op, rule};
}

FormatReason::~FormatReason() {
  if (owner_) g_reason = {};
}

FormatOrigin current_format_reason() {
  FormatOrigin origin{g_reason.op, g_reason.rule, {}};
  if (trace::formats_on()) origin.traced_op = trace::current_op();
  return origin;
}

}  // namespace npu
