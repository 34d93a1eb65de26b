// The stand-in vendor libraries (tests/vendor_standin): loaded like CANN's,
// called through dlsym, they must forward to the emulator library and log
// every call in the documented format.
#include <catch2/catch.hpp>

#ifdef NPU_STANDIN_HOME

#include <dlfcn.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_binary.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_copy.h"
#include "emulator/device.h"

namespace {

class Library {
 public:
  explicit Library(const std::string& file) : path_(std::string(NPU_STANDIN_HOME) + "/lib64/" + file) {
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO(dlerror());
    REQUIRE(handle_ != nullptr);
  }
  ~Library() { dlclose(handle_); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool exports(const char* name) const { return dlsym(handle_, name) != nullptr; }

  // The library's `name`, typed like the header's declaration of it.
  template <class Fn>
  Fn* get(const char* name) const {
    void* address = dlsym(handle_, name);
    INFO(path_ << " lacks " << name);
    REQUIRE(address != nullptr);
    return reinterpret_cast<Fn*>(address);
  }

 private:
  std::string path_;
  void* handle_ = nullptr;
};

#define STANDIN_FN(lib, name) (lib).get<decltype(::name)>(#name)

// NPU_STANDIN_LOG pointed at a fresh file for one test, removed afterwards.
class ScopedLog {
 public:
  ScopedLog() {
    char path[] = "/tmp/npu_standin_logXXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    path_ = path;
    REQUIRE(setenv("NPU_STANDIN_LOG", path_.c_str(), 1) == 0);
  }
  ~ScopedLog() {
    unsetenv("NPU_STANDIN_LOG");
    std::remove(path_.c_str());
  }
  ScopedLog(const ScopedLog&) = delete;
  ScopedLog& operator=(const ScopedLog&) = delete;

  std::vector<std::string> lines() const {
    std::ifstream in(path_);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

 private:
  std::string path_;
};

std::string stream_suffix(const void* stream) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(stream));
  return std::string(" stream=") + hex;
}

}  // namespace

TEST_CASE("the stand-in libraries split the ACL API like CANN and have no aclemu symbols", "[standin]") {
  Library ascendcl("libascendcl.so"), nnopbase("libnnopbase.so"), opapi("libopapi.so");
  for (const char* name : {"aclInit", "aclFinalize", "aclGetRecentErrMsg", "aclrtMalloc", "aclrtSynchronizeStream",
                           "aclrtEventElapsedTime"}) {
    CAPTURE(name);
    REQUIRE(ascendcl.exports(name));
    REQUIRE_FALSE(opapi.exports(name));
    REQUIRE_FALSE(nnopbase.exports(name));
  }
  for (const char* name : {"aclCreateTensor", "aclDestroyTensor", "aclGetStorageShape", "aclCreateScalar",
                           "aclCreateIntArray", "aclCreateTensorList"}) {
    CAPTURE(name);
    REQUIRE(nnopbase.exports(name));
    REQUIRE_FALSE(ascendcl.exports(name));
    REQUIRE_FALSE(opapi.exports(name));
  }
  for (const char* name : {"aclnnAdd", "aclnnAddGetWorkspaceSize", "aclnnInplaceCopy", "aclnnInplaceZero"}) {
    CAPTURE(name);
    REQUIRE(opapi.exports(name));
    REQUIRE_FALSE(ascendcl.exports(name));
  }
  for (const char* name : {"aclemuSetKernelDelayUs", "aclemuGetKernelDelayUs"}) {
    CAPTURE(name);
    REQUIRE_FALSE(ascendcl.exports(name));
    REQUIRE_FALSE(nnopbase.exports(name));
    REQUIRE_FALSE(opapi.exports(name));
  }
}

TEST_CASE("calls through the stand-in libraries reach the emulator and are logged", "[standin]") {
  ScopedLog log;  // before the first call: the libraries read it at every call
  Library ascendcl("libascendcl.so"), nnopbase("libnnopbase.so"), opapi("libopapi.so");
  std::vector<std::string> expected;
  auto called = [&](const std::string& line) { expected.push_back(line); };

  REQUIRE(STANDIN_FN(ascendcl, aclInit)(nullptr) == ACL_SUCCESS);
  called("aclInit");
  REQUIRE(STANDIN_FN(ascendcl, aclrtSetDevice)(0) == ACL_SUCCESS);
  called("aclrtSetDevice");
  uint32_t count = 0;
  REQUIRE(STANDIN_FN(ascendcl, aclrtGetDeviceCount)(&count) == ACL_SUCCESS);
  called("aclrtGetDeviceCount");
  REQUIRE(count >= 1);
  aclrtStream stream = nullptr;
  REQUIRE(STANDIN_FN(ascendcl, aclrtCreateStream)(&stream) == ACL_SUCCESS);
  called("aclrtCreateStream");
  void* dev = nullptr;
  REQUIRE(STANDIN_FN(ascendcl, aclrtMalloc)(&dev, 4 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  called("aclrtMalloc");
  // The memory belongs to the emulator library's runtime, not to the copy of
  // the runtime linked into this test program: the call was forwarded there.
  REQUIRE(npu::emu::Runtime::get().device_of(dev, 1) == nullptr);

  REQUIRE(STANDIN_FN(ascendcl, aclrtMemsetAsync)(dev, 16, 0, 16, stream) == ACL_SUCCESS);
  called("aclrtMemsetAsync" + stream_suffix(stream));
  const int64_t n = 4;
  aclTensor* x = STANDIN_FN(nnopbase, aclCreateTensor)(&n, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &n, 1, dev);
  called("aclCreateTensor");
  REQUIRE(x != nullptr);
  double two_and_a_half = 2.5, one = 1.0;
  aclScalar* value = STANDIN_FN(nnopbase, aclCreateScalar)(&two_and_a_half, ACL_DOUBLE);
  called("aclCreateScalar");
  aclScalar* alpha = STANDIN_FN(nnopbase, aclCreateScalar)(&one, ACL_DOUBLE);
  called("aclCreateScalar");
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  REQUIRE(STANDIN_FN(opapi, aclnnAddsGetWorkspaceSize)(x, value, alpha, x, &workspace, &executor) == ACL_SUCCESS);
  called("aclnnAddsGetWorkspaceSize");
  REQUIRE(STANDIN_FN(opapi, aclnnAdds)(nullptr, workspace, executor, stream) == ACL_SUCCESS);
  called("aclnnAdds" + stream_suffix(stream));
  REQUIRE(STANDIN_FN(ascendcl, aclrtSynchronizeStream)(stream) == ACL_SUCCESS);
  called("aclrtSynchronizeStream" + stream_suffix(stream));
  REQUIRE(STANDIN_FN(ascendcl, aclrtSynchronizeStream)(nullptr) == ACL_SUCCESS);
  called("aclrtSynchronizeStream stream=0x0");
  std::vector<float> host(4, 0.0f);
  REQUIRE(STANDIN_FN(ascendcl, aclrtMemcpy)(host.data(), 16, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  called("aclrtMemcpy");
  REQUIRE(host == std::vector<float>(4, 2.5f));

  // Errors and their messages come back from the emulator too.
  REQUIRE(STANDIN_FN(ascendcl, aclrtSetDevice)(99) == ACL_ERROR_RT_INVALID_DEVICEID);
  called("aclrtSetDevice");
  const char* msg = STANDIN_FN(ascendcl, aclGetRecentErrMsg)();
  called("aclGetRecentErrMsg");
  REQUIRE(msg != nullptr);
  REQUIRE(std::string(msg).find("invalid device id 99") != std::string::npos);

  REQUIRE(STANDIN_FN(nnopbase, aclDestroyScalar)(value) == ACL_SUCCESS);
  called("aclDestroyScalar");
  REQUIRE(STANDIN_FN(nnopbase, aclDestroyScalar)(alpha) == ACL_SUCCESS);
  called("aclDestroyScalar");
  REQUIRE(STANDIN_FN(nnopbase, aclDestroyTensor)(x) == ACL_SUCCESS);
  called("aclDestroyTensor");
  REQUIRE(STANDIN_FN(ascendcl, aclrtFree)(dev) == ACL_SUCCESS);
  called("aclrtFree");
  REQUIRE(STANDIN_FN(ascendcl, aclrtDestroyStream)(stream) == ACL_SUCCESS);
  called("aclrtDestroyStream" + stream_suffix(stream));

  REQUIRE(log.lines() == expected);
}

TEST_CASE("the stand-in log keeps one whole line per call from many threads", "[standin]") {
  ScopedLog log;
  Library ascendcl("libascendcl.so"), nnopbase("libnnopbase.so");
  auto get_count = STANDIN_FN(ascendcl, aclrtGetDeviceCount);
  auto create_array = STANDIN_FN(nnopbase, aclCreateIntArray);
  auto destroy_array = STANDIN_FN(nnopbase, aclDestroyIntArray);
  constexpr int kThreads = 8, kCalls = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      const int64_t values[] = {1, 2, 3};
      for (int i = 0; i < kCalls; ++i) {
        uint32_t count = 0;
        get_count(&count);
        destroy_array(create_array(values, 3));  // another library, same file
      }
    });
  }
  for (auto& th : threads) th.join();
  const auto lines = log.lines();
  REQUIRE(lines.size() == 3u * kThreads * kCalls);
  std::size_t counts = 0, creates = 0, destroys = 0;
  for (const auto& line : lines) {
    if (line == "aclrtGetDeviceCount") ++counts;
    else if (line == "aclCreateIntArray") ++creates;
    else if (line == "aclDestroyIntArray") ++destroys;
    else FAIL("torn or unexpected log line: " << line);
  }
  REQUIRE(counts == kThreads * kCalls);
  REQUIRE(creates == kThreads * kCalls);
  REQUIRE(destroys == kThreads * kCalls);
}

TEST_CASE("unloading a stand-in library closes its log and keeps no memory", "[standin]") {
  // Each load had its own never-destroyed log object on the heap, with the
  // file descriptor in it: every dlclose lost both (LeakSanitizer: 80 bytes
  // per load). Counted here through the descriptors.
  ScopedLog log;
  const auto open_descriptors = [] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
  };
  const auto call_once = [] {
    Library ascendcl("libascendcl.so");
    uint32_t count = 0;
    REQUIRE(STANDIN_FN(ascendcl, aclrtGetDeviceCount)(&count) == ACL_SUCCESS);
  };
  call_once();  // what stays loaded after the first use (the emulator library) is loaded now
  const std::size_t before = open_descriptors();
  constexpr int kLoads = 10;
  for (int i = 0; i < kLoads; ++i) call_once();
  REQUIRE(open_descriptors() == before);
  REQUIRE(log.lines().size() == kLoads + 1u);  // every load still logged its call
}

TEST_CASE("the stand-in forwards without logging when NPU_STANDIN_LOG is unset", "[standin]") {
  unsetenv("NPU_STANDIN_LOG");
  Library ascendcl("libascendcl.so");
  uint32_t count = 0;
  REQUIRE(STANDIN_FN(ascendcl, aclrtGetDeviceCount)(&count) == ACL_SUCCESS);
  REQUIRE(count >= 1);
}

#endif  // NPU_STANDIN_HOME
