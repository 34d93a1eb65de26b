// Process lifecycle of the emulated runtime: a child forked after streams ran
// (their threads do not exist in it) and streams stopped for process exit.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl_test_support.h"
#include "emulator/stream.h"

using acl_test::DeviceBuffer;
using acl_test::KernelDelay;
using acl_test::Tensor1D;

namespace {

// In the child: no Catch2 (its state is the parent's); the result is the exit status.
[[noreturn]] void child_checks_refusal_then_exits() {
  alarm(30);  // a hang becomes SIGALRM, which the parent sees as a signal, not a stuck suite
  const bool set_refused = aclrtSetDevice(0) == ACL_ERROR_UNINITIALIZE &&
                           acl_test::recent_error().find("Cannot re-initialize NPU in forked subprocess") !=
                               std::string::npos;
  const bool sync_refused = aclrtSynchronizeDevice() == ACL_ERROR_UNINITIALIZE;
  void* p = nullptr;
  const bool malloc_refused = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_UNINITIALIZE;
  // exit(), not _exit(): atexit handlers and static destructors run and must
  // not wait for the parent's stream threads.
  std::exit(set_refused && sync_refused && malloc_refused ? 0 : 3);
}

}  // namespace

TEST_CASE("a child forked while streams run refuses the runtime and exits cleanly", "[lifecycle]") {
  acl_test::use_device0();
  constexpr int64_t n = 1024;
  DeviceBuffer buf(n * sizeof(float));
  Tensor1D x(buf.get(), n);
  REQUIRE(acl_test::launch_fill(x, 1.0, nullptr) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeDevice() == ACL_SUCCESS);
  pid_t pid = -1;
  {
    KernelDelay slow(20000);  // the add is still queued or running when the process forks
    REQUIRE(acl_test::launch_adds(x, x, 1.0, nullptr) == ACL_SUCCESS);
    std::fflush(nullptr);  // else the child's exit() writes the parent's buffered output again
    pid = fork();
    if (pid == 0) child_checks_refusal_then_exits();
  }
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("wait status " << status);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  // The parent's runtime is untouched by the fork.
  REQUIRE(aclrtSynchronizeDevice() == ACL_SUCCESS);
  const std::vector<float> host = acl_test::read_floats(buf.get(), n, nullptr);
  REQUIRE(host == std::vector<float>(n, 2.0f));
}

TEST_CASE("a stopped stream has drained its queue and runs later tasks at submit", "[lifecycle]") {
  npu::emu::Stream stream(0, 0);
  std::vector<int> order;
  {
    KernelDelay slow(5000);
    stream.submit({"first", [&] { order.push_back(1); }, true});
    stream.submit({"second", [&] { order.push_back(2); }, true});
    stream.stop();  // what process exit does: waits for both, then joins the worker
  }
  REQUIRE(order == std::vector<int>{1, 2});
  stream.submit({"after stop", [&] { order.push_back(3); }, false});
  REQUIRE(order == std::vector<int>{1, 2, 3});  // ran on this thread, before submit returned
  REQUIRE(stream.idle());
  stream.submit({"failing after stop", [] { throw std::runtime_error("boom"); }, false});
  REQUIRE_THROWS_WITH(stream.synchronize(), Catch::Contains("failing after stop") && Catch::Contains("boom"));
  stream.synchronize();  // the error was consumed; the stream keeps working
}
