#include "call_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

namespace npu::standin {

namespace {

// The open log file. The descriptor is kept open between calls (reopened
// when NPU_STANDIN_LOG names another file) because ops are logged at kernel
// launch rate. It holds no heap memory (the path is a fixed buffer): the
// object is never destroyed (see log_file()), and a heap block would be lost
// each time the library is unloaded (LeakSanitizer found one per dlclose).
class LogFile {
 public:
  void append(const std::string& line) {
    const char* path = std::getenv("NPU_STANDIN_LOG");
    if (path == nullptr || *path == '\0') return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::strcmp(path_.data(), path) != 0) reopen(path);
    if (fd_ < 0) return;
    // flock serializes with the other stand-in libraries and processes,
    // which have descriptors of their own on the same file.
    while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
    write_all(line);
    flock(fd_, LOCK_UN);
  }

  // When the library is unloaded or the process exits. A later call (from
  // another library's static destructor) opens the file again.
  void close_file() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    path_[0] = '\0';
  }

 private:
  void reopen(const char* path) {
    if (fd_ >= 0) close(fd_);
    // A path too long for the buffer is opened on every call (open() refuses
    // paths that long anyway).
    const std::size_t length = std::strlen(path);
    if (length < path_.size()) {
      std::memcpy(path_.data(), path, length + 1);
    } else {
      path_[0] = '\0';
    }
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
  std::array<char, PATH_MAX> path_{};
  int fd_ = -1;
};

LogFile& log_file() {
  // Never destroyed: ACL calls can come from other libraries' static
  // destructors at exit, after this library's statics would be gone. Built
  // in this library's static storage rather than on the heap, so unloading
  // the library loses nothing.
  alignas(LogFile) static unsigned char storage[sizeof(LogFile)];
  static LogFile* const file = new (storage) LogFile;
  return *file;
}

// Runs at dlclose and at exit: the descriptor is not left open behind an
// unloaded library.
__attribute__((destructor)) void close_log_file() { log_file().close_file(); }

}  // namespace

void log_call(const char* name) { log_file().append(std::string(name) + '\n'); }

void log_call(const char* name, const void* stream) {
  char hex[2 + 16 + 1];
  std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(stream));
  log_file().append(std::string(name) + " stream=" + hex + '\n');
}

}  // namespace npu::standin
