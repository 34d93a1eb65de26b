// aclAppLog: CANN's application log, through which torch_npu reports (at
// warning level) each aclnn name it failed to resolve. The stand-in records
// those names for the coverage report and, like CANN, writes log lines to the
// terminal only with ASCEND_SLOG_PRINT_TO_STDOUT=1, filtered by
// ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error, 4 none; default 3; log_settings.h). A line reporting
// an operation dropped by torch_npu's stopped task queue raises instead
// (queue_stopped.h).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "coverage.h"
#include "log_settings.h"
#include "queue_stopped.h"
#include "standin_types.h"

namespace {

int threshold() { return npu::standin::log_settings().level; }

bool print_to_stdout() { return npu::standin::log_settings().print_to_stdout; }

// "... dlsym <name> from <library> failed ..." (op-plugin's failed lookup).
void note_failed_lookup(const std::string& message) {
  const auto start = message.find("dlsym ");
  if (start == std::string::npos) return;
  const auto name_begin = start + 6;
  const auto name_end = message.find(" from ", name_begin);
  if (name_end == std::string::npos || message.find(" failed", name_end) == std::string::npos) return;
  const std::string name = message.substr(name_begin, name_end - name_begin);
  if (name.rfind("aclnn", 0) == 0) npu::standin::record_missing_aclnn(name);
}

const char* level_name(int level) {
  switch (level) {
    case ACL_DEBUG: return "DEBUG";
    case ACL_INFO: return "INFO";
    case ACL_WARNING: return "WARNING";
    default: return "ERROR";
  }
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line,
                                              const char* fmt, ...) {
  if (fmt == nullptr) return;
  const bool dropped_task = std::strstr(fmt, "Enqueue()") != nullptr;  // cheap test first: most lines are not
  if (!dropped_task && static_cast<int>(logLevel) < threshold()) return;
  va_list args;
  va_start(args, fmt);
  char buffer[2048];
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  const std::string message = buffer;
  if (dropped_task) npu::standin::raise_if_dropped_by_stopped_queue(message);
  if (static_cast<int>(logLevel) < threshold()) return;
  if (logLevel == ACL_WARNING) note_failed_lookup(message);
  if (print_to_stdout()) {
    std::printf("[%s] %s:%u %s: %s\n", level_name(logLevel), file != nullptr ? file : "?", line, func != nullptr ? func : "?",
                message.c_str());
  }
}
