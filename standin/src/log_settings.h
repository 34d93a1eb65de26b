// The stand-in's own settings, read from the environment once: CANN's log
// switches (ASCEND_GLOBAL_LOG_LEVEL, ASCEND_SLOG_PRINT_TO_STDOUT) and
// NPU_EMU_STANDIN_VERBOSE. Parsed strictly: a bad value is reported with the
// variable and the values it takes, never read as a default.
#pragma once

#include <string>

namespace npu::standin {

struct LogSettings {
  int level = 3;              // ASCEND_GLOBAL_LOG_LEVEL: 0 debug .. 3 error, 4 nothing
  bool print_to_stdout = false;  // ASCEND_SLOG_PRINT_TO_STDOUT
  bool verbose = false;       // NPU_EMU_STANDIN_VERBOSE: echo each failing call's message
  std::string error;          // what is wrong with the environment's values; empty when all are valid
};

// This process's settings (the defaults in place of a bad value, with `error` set).
const LogSettings& log_settings();

}  // namespace npu::standin

// The settings' error text, or null when they are valid: the Python switch
// (python/_npu_emu_standin.py) raises it when it loads the stand-in, as
// `import torch_npu`'s error.
extern "C" __attribute__((visibility("default"))) const char* npuEmuStandinSettingsError(void);
