#include "call_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace npu::standin {

namespace {

// The open log file. The descriptor is kept open between calls (reopened
// when NPU_STANDIN_LOG names another file) because ops are logged at kernel
// launch rate.
class LogFile {
 public:
  void append(const std::string& line) {
    const char* path = std::getenv("NPU_STANDIN_LOG");
    if (path == nullptr || *path == '\0') return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (path_ != path) reopen(path);
    if (fd_ < 0) return;
    // flock serializes with the other stand-in libraries and processes,
    // which have descriptors of their own on the same file.
    while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
    write_all(line);
    flock(fd_, LOCK_UN);
  }

 private:
  void reopen(const char* path) {
    if (fd_ >= 0) close(fd_);
    path_ = path;
    fd_ = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) std::fprintf(stderr, "npu-emu vendor stand-in: cannot open NPU_STANDIN_LOG=%s for appending\n", path);
  }

  void write_all(const std::string& line) {
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      const ssize_t n = write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // a full disk loses the line; the call still goes through
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

  std::mutex mutex_;
  std::string path_;
  int fd_ = -1;
};

LogFile& log_file() {
  // Never destroyed: ACL calls can come from other libraries' static
  // destructors at exit, after this library's statics would be gone.
  static LogFile* const file = new LogFile;
  return *file;
}

}  // namespace

void log_call(const char* name) { log_file().append(std::string(name) + '\n'); }

void log_call(const char* name, const void* stream) {
  char hex[2 + 16 + 1];
  std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(stream));
  log_file().append(std::string(name) + " stream=" + hex + '\n');
}

}  // namespace npu::standin
