// Failures of the stand-in's own entry points: the error code to return plus
// the text torch_npu reads back through aclGetRecentErrMsg, which the
// stand-in wraps so its messages and the emulator's share one channel.
#pragma once

#include <string>

namespace npu::standin {

// Records `message` as this thread's recent error and returns `code`.
__attribute__((visibility("default"))) int fail(int code, const std::string& message);

// The standard refusal of an entry point the emulator does not provide:
// names the function and says what to do instead.
__attribute__((visibility("default"))) int unsupported(const char* function, const std::string& what_instead);

}  // namespace npu::standin
