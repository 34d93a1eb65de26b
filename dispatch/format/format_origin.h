// Why a storage has its format: the op and the rule that decided it, for
// npu_emu.debug.explain and the format trace. Code that decides a format
// (an explicit cast, an op's output rule, a base-format copy) opens a
// FormatReason for the duration of the decision; empty_with_format, where
// every private storage is made, stamps the open reason on the new storage.
// The outermost reason wins: an explicit npu_format_cast that internally
// makes a base-format copy is still an explicit cast.
#pragma once

#include <string>

namespace npu {

struct FormatOrigin {
  const char* op = nullptr;    // string literal: "npu_format_cast", "aten::convolution", ...
  const char* rule = nullptr;  // string literal: the rule, in words
  std::string traced_op;       // the aten op running when it was decided (only while tracing formats)
  bool empty() const { return op == nullptr; }
};

// Opens `op`/`rule` as the current thread's reason unless one is open already.
class FormatReason {
 public:
  FormatReason(const char* op, const char* rule);
  ~FormatReason();
  FormatReason(const FormatReason&) = delete;
  FormatReason& operator=(const FormatReason&) = delete;

 private:
  bool owner_;
};

// The reason open on this thread (an empty origin when none is).
FormatOrigin current_format_reason();

}  // namespace npu
