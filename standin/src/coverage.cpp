#include "coverage.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace npu::standin {

namespace {

class Coverage {
 public:
  void record(const char* kind, const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_[{kind, name}];
  }

  std::vector<std::string> names(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [key, count] : counts_) {
      if (key.first == kind) out.push_back(key.second);
    }
    return out;
  }

  // Runs at exit (a static's destructor): the report file, if asked for.
  ~Coverage() {
    const char* path = std::getenv("NPU_EMU_STANDIN_REPORT");
    if (path == nullptr || *path == '\0') return;
    std::FILE* file = std::fopen(path, "w");
    if (file == nullptr) {
      std::fprintf(stderr, "npu-emu CANN stand-in: cannot write NPU_EMU_STANDIN_REPORT=%s\n", path);
      return;
    }
    for (const auto& [key, count] : counts_) std::fprintf(file, "%s %s %zu\n", key.first.c_str(), key.second.c_str(), count);
    std::fclose(file);
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, size_t> counts_;
};

Coverage& coverage() {
  static Coverage instance;
  return instance;
}

// Created when the library loads, so a run that misses nothing still writes
// its (empty) report at exit.
const bool created_at_load = (coverage(), true);

}  // namespace

void record_missing_aclnn(const std::string& name) { coverage().record("missing-aclnn", name); }
void record_aclop(const std::string& op_type) { coverage().record("aclop", op_type); }
std::vector<std::string> missing_aclnn_names() { return coverage().names("missing-aclnn"); }

}  // namespace npu::standin
