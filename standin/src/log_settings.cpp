#include "log_settings.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace npu::standin {

namespace {

// One whole decimal digit string in [lo, hi] ("" = unset, the default);
// appends to `error` otherwise.
int parse_level(const char* name, int lo, int hi, int fallback, const char* allowed, std::string& error) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const std::string text(v);
  if (text.size() == 1 && text[0] >= '0' + lo && text[0] <= '0' + hi) return text[0] - '0';
  if (!error.empty()) error += "; ";
  error += std::string(name) + " must be " + allowed + ", got '" + text + "'";
  return fallback;
}

LogSettings read() {
  LogSettings s;
  s.level = parse_level("ASCEND_GLOBAL_LOG_LEVEL", 0, 4, s.level,
                        "one of 0 (debug), 1 (info), 2 (warning), 3 (error), 4 (no log)", s.error);
  s.print_to_stdout = parse_level("ASCEND_SLOG_PRINT_TO_STDOUT", 0, 1, 0, "0 or 1", s.error) == 1;
  s.verbose = parse_level("NPU_EMU_STANDIN_VERBOSE", 0, 1, 0, "0 or 1", s.error) == 1;
  return s;
}

const LogSettings& parsed() {
  static const LogSettings settings = read();
  return settings;
}

}  // namespace

const LogSettings& log_settings() {
  // Loaded through the Python switch, a bad value has already failed
  // `import torch_npu`; loaded some other way, the stand-in has no call that
  // could fail with it, so it says so once, on stderr, and keeps the defaults.
  static const bool warned = [] {
    if (!parsed().error.empty()) std::fprintf(stderr, "npu-emu CANN stand-in: %s (using the defaults)\n", parsed().error.c_str());
    return true;
  }();
  (void)warned;
  return parsed();
}

}  // namespace npu::standin

extern "C" const char* npuEmuStandinSettingsError(void) {
  const std::string& error = npu::standin::parsed().error;
  return error.empty() ? nullptr : error.c_str();
}
