// Many host threads driving many streams at once. Catch2 assertions are not
// thread safe, so worker threads record failures as text and the test thread
// checks that none were recorded.
#include <catch2/catch.hpp>

#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl_test_support.h"

using acl_test::KernelDelay;
using acl_test::Tensor1D;

namespace {

class FailureLog {
 public:
  void add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_.push_back(what);
  }
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(failures_);
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> failures_;
};

// Records `call` as a failure when `status` is not success.
bool ok(FailureLog& log, int thread, const char* call, int status) {
  if (status == ACL_SUCCESS) return true;
  std::ostringstream os;
  os << "thread " << thread << ": " << call << " returned " << status;
  if (const char* msg = aclGetRecentErrMsg()) os << " (" << msg << ")";
  log.add(os.str());
  return false;
}

// One thread's work: a producer stream and a consumer stream ordered by an
// event, with allocation, frees and stream destruction racing the other
// threads' device-wide synchronizations (aclrtMemcpy, aclrtFree).
void producer_consumer_rounds(int thread, int rounds, FailureLog& log) {
  if (!ok(log, thread, "aclrtSetDevice", aclrtSetDevice(0))) return;
  constexpr int64_t n = 4096;
  constexpr int kAdds = 20;
  for (int round = 0; round < rounds; ++round) {
    aclrtStream a = nullptr, b = nullptr;
    aclrtEvent ev = nullptr;
    void* xbuf = nullptr;
    void* ybuf = nullptr;
    if (!ok(log, thread, "aclrtCreateStream", aclrtCreateStream(&a)) ||
        !ok(log, thread, "aclrtCreateStream", aclrtCreateStream(&b)) ||
        !ok(log, thread, "aclrtCreateEvent", aclrtCreateEvent(&ev)) ||
        !ok(log, thread, "aclrtMalloc", aclrtMalloc(&xbuf, n * 4, ACL_MEM_MALLOC_HUGE_FIRST)) ||
        !ok(log, thread, "aclrtMalloc", aclrtMalloc(&ybuf, n * 4, ACL_MEM_MALLOC_HUGE_FIRST))) {
      return;
    }
    {
      Tensor1D x(xbuf, n), y(ybuf, n);
      const double start = thread * 1000 + round;
      ok(log, thread, "fill", acl_test::launch_fill(x, start, a));
      for (int i = 0; i < kAdds; ++i) ok(log, thread, "adds", acl_test::launch_adds(x, x, 1.0, a));
      ok(log, thread, "aclrtRecordEvent", aclrtRecordEvent(ev, a));
      ok(log, thread, "aclrtStreamWaitEvent", aclrtStreamWaitEvent(b, ev));
      ok(log, thread, "muls", acl_test::launch_muls(y, x, 2.0, b));
      std::vector<float> host(n, -1.0f);
      ok(log, thread, "aclrtMemcpyAsync",
         aclrtMemcpyAsync(host.data(), n * 4, ybuf, n * 4, ACL_MEMCPY_DEVICE_TO_HOST, b));
      ok(log, thread, "aclrtSynchronizeStream", aclrtSynchronizeStream(b));
      const auto expected = static_cast<float>(2 * (start + kAdds));
      for (int64_t i = 0; i < n; ++i) {
        if (host[i] != expected) {
          std::ostringstream os;
          os << "thread " << thread << " round " << round << ": y[" << i << "] = " << host[i] << ", expected "
             << expected;
          log.add(os.str());
          break;
        }
      }
      // A blocking copy synchronizes the whole device, other threads' streams included.
      std::vector<float> x_host(n);
      ok(log, thread, "aclrtMemcpy", aclrtMemcpy(x_host.data(), n * 4, xbuf, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    }
    ok(log, thread, "aclrtFree", aclrtFree(xbuf));
    ok(log, thread, "aclrtFree", aclrtFree(ybuf));
    ok(log, thread, "aclrtDestroyEvent", aclrtDestroyEvent(ev));
    ok(log, thread, "aclrtDestroyStream", aclrtDestroyStream(a));
    ok(log, thread, "aclrtDestroyStream", aclrtDestroyStream(b));
  }
}

}  // namespace

TEST_CASE("many threads with streams of their own get correct results", "[streams]") {
  KernelDelay delay(100);
  FailureLog log;
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(producer_consumer_rounds, t, 6, std::ref(log));
  for (auto& th : threads) th.join();
  const auto failures = log.take();
  for (const auto& f : failures) UNSCOPED_INFO(f);
  REQUIRE(failures.empty());
}

TEST_CASE("many threads launching on one shared stream lose no task", "[streams]") {
  acl_test::use_device0();
  KernelDelay delay(50);
  constexpr int kThreads = 8;
  constexpr int kLaunches = 50;
  constexpr int64_t n = 256;
  acl_test::DeviceBuffer buf(n * sizeof(float));
  acl_test::StreamHandle shared;
  Tensor1D x(buf.get(), n);
  REQUIRE(acl_test::launch_fill(x, 0.0, shared.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(shared.get()) == ACL_SUCCESS);

  FailureLog log;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      if (!ok(log, t, "aclrtSetDevice", aclrtSetDevice(0))) return;
      // Each thread describes the same memory with tensors of its own.
      Tensor1D mine(buf.get(), n);
      for (int i = 0; i < kLaunches; ++i) ok(log, t, "adds", acl_test::launch_adds(mine, mine, 1.0, shared.get()));
    });
  }
  for (auto& th : threads) th.join();
  const auto failures = log.take();
  for (const auto& f : failures) UNSCOPED_INFO(f);
  REQUIRE(failures.empty());
  // Every increment ran, one at a time: the stream serializes them.
  REQUIRE(acl_test::read_floats(buf.get(), n, shared.get()) ==
          std::vector<float>(n, static_cast<float>(kThreads * kLaunches)));
}

TEST_CASE("threads synchronizing the device while others destroy streams", "[streams]") {
  KernelDelay delay(200);
  FailureLog log;
  std::vector<std::thread> threads;
  // Half the threads churn streams; the other half synchronize the device,
  // which visits every stream of it.
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      if (!ok(log, t, "aclrtSetDevice", aclrtSetDevice(0))) return;
      void* mem = nullptr;
      if (!ok(log, t, "aclrtMalloc", aclrtMalloc(&mem, 1024, ACL_MEM_MALLOC_HUGE_FIRST))) return;
      Tensor1D x(mem, 256);
      for (int i = 0; i < 40; ++i) {
        aclrtStream s = nullptr;
        if (!ok(log, t, "aclrtCreateStream", aclrtCreateStream(&s))) break;
        ok(log, t, "fill", acl_test::launch_fill(x, i, s));
        ok(log, t, "aclrtDestroyStream", aclrtDestroyStream(s));
      }
      ok(log, t, "aclrtFree", aclrtFree(mem));
    });
    threads.emplace_back([&, t] {
      if (!ok(log, 100 + t, "aclrtSetDevice", aclrtSetDevice(0))) return;
      for (int i = 0; i < 200; ++i) ok(log, 100 + t, "aclrtSynchronizeDevice", aclrtSynchronizeDevice());
    });
  }
  for (auto& th : threads) th.join();
  const auto failures = log.take();
  for (const auto& f : failures) UNSCOPED_INFO(f);
  REQUIRE(failures.empty());
}
