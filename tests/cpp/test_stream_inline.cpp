// Which thread runs a stream's tasks: a short task submitted to an idle
// stream runs on the submitting thread (no hand-off to the worker); the
// worker runs everything else, and the stream's order and one-task-at-a-time
// execution hold across both.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "acl_test_support.h"
#include "emulator/op_launch.h"
#include "emulator/stream.h"

using acl_test::KernelDelay;
using npu::emu::Stream;

namespace {

// Submits a task that records the thread that ran it.
void submit_recording(Stream& s, std::thread::id& ran_on, bool is_kernel = true, bool may_block = false) {
  s.submit({"record thread", [&ran_on] { ran_on = std::this_thread::get_id(); }, is_kernel, may_block});
}

}  // namespace

TEST_CASE("a short task submitted to an idle stream runs on the submitting thread", "[streams][inline]") {
  Stream s(0, 0);
  std::thread::id kernel_thread, api_thread;
  submit_recording(s, kernel_thread);
  submit_recording(s, api_thread, /*is_kernel=*/false);
  s.synchronize();
  CHECK(kernel_thread == std::this_thread::get_id());
  CHECK(api_thread == std::this_thread::get_id());
}

TEST_CASE("with a kernel delay a launch returns before the kernel ran, on the worker", "[streams][inline]") {
  Stream s(0, 0);
  KernelDelay delay(20'000);
  std::atomic<bool> ran{false};
  std::thread::id ran_on;
  s.submit({"delayed", [&] {
              ran_on = std::this_thread::get_id();
              ran = true;
            },
            true});
  CHECK_FALSE(s.idle());
  CHECK_FALSE(ran.load());
  s.synchronize();
  CHECK(ran.load());
  CHECK(ran_on != std::this_thread::get_id());
}

TEST_CASE("a task that may block (an event wait) never runs on the submitting thread", "[streams][inline]") {
  Stream s(0, 0);
  std::thread::id ran_on;
  submit_recording(s, ran_on, /*is_kernel=*/false, /*may_block=*/true);
  s.synchronize();
  CHECK(ran_on != std::this_thread::get_id());
}

TEST_CASE("a task submitted while the stream is busy queues behind, in order", "[streams][inline]") {
  Stream s(0, 0);
  std::vector<int> order;
  std::thread::id second_ran_on;
  {
    KernelDelay delay(20'000);
    s.submit({"first", [&] { order.push_back(1); }, true});
  }
  // No delay now, but the stream is busy with "first".
  s.submit({"second", [&] {
              order.push_back(2);
              second_ran_on = std::this_thread::get_id();
            },
            true});
  s.synchronize();
  CHECK(order == std::vector<int>{1, 2});
  CHECK(second_ran_on != std::this_thread::get_id());
}

TEST_CASE("after two long kernels the next one goes to the worker; short ones come back", "[streams][inline]") {
  Stream s(0, 0);
  // Kernels that compute for 2 ms (long, as a big tensor's would be).
  const auto long_kernel = [] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  std::thread::id after_two_long;
  s.submit({"long", long_kernel, true});
  s.synchronize();
  s.submit({"long", long_kernel, true});
  s.synchronize();
  submit_recording(s, after_two_long);
  s.synchronize();
  CHECK(after_two_long != std::this_thread::get_id());
  // Short kernels bring the stream back to running them here. (Tried a few
  // times: on a loaded machine a short one may be preempted and look long.)
  bool back_here = false;
  for (int attempt = 0; attempt < 100 && !back_here; ++attempt) {
    std::thread::id ran_on;
    submit_recording(s, ran_on);
    s.synchronize();
    back_here = ran_on == std::this_thread::get_id();
  }
  CHECK(back_here);
}

TEST_CASE("long kernels after a run of short ones go to the worker after at most kTimeEvery + 1", "[streams][inline]") {
  // Only one kernel in kTimeEvery is timed while they are short: the first
  // long ones may go untimed, then two timed long ones in a row are needed.
  Stream s(0, 0);
  for (int i = 0; i < 3 * static_cast<int>(Stream::kTimeEvery) + 3; ++i) {
    s.submit({"short", [] {}, true});
  }
  s.synchronize();
  const auto long_kernel = [] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  int long_ones_here = 0;
  for (;;) {
    std::thread::id ran_on;
    // A long kernel that records where it ran.
    s.submit({"long", [&] {
                ran_on = std::this_thread::get_id();
                long_kernel();
              },
              true});
    s.synchronize();
    if (ran_on != std::this_thread::get_id()) break;
    ++long_ones_here;
    REQUIRE(long_ones_here <= static_cast<int>(Stream::kTimeEvery) + 1);
  }
}

TEST_CASE("tasks from several threads run one at a time and in each thread's order", "[streams][inline]") {
  Stream s(0, 0);
  constexpr int kPerThread = 3000;
  std::atomic<int> running{0};
  std::atomic<int> overlaps{0};
  std::vector<std::pair<int, int>> seen;  // appended by tasks only, one at a time
  seen.reserve(2 * kPerThread);
  auto submitter = [&](int id) {
    for (int i = 0; i < kPerThread; ++i) {
      // A few tasks are slowed so that both the worker and the submitting
      // threads end up running tasks.
      const bool slow = i % 500 == 0;
      s.submit({"task", [&, id, i, slow] {
                  if (running.fetch_add(1) != 0) overlaps.fetch_add(1);
                  if (slow) std::this_thread::yield();
                  seen.emplace_back(id, i);
                  running.fetch_sub(1);
                },
                true});
    }
  };
  std::thread a(submitter, 0);
  std::thread b(submitter, 1);
  a.join();
  b.join();
  s.synchronize();
  CHECK(overlaps.load() == 0);
  REQUIRE(seen.size() == 2 * kPerThread);
  int next[2] = {0, 0};
  bool in_order = true;
  for (const auto& [id, i] : seen) {
    in_order = in_order && i == next[id];
    next[id] = i + 1;
  }
  CHECK(in_order);
}

namespace {

// A task callable that counts how often it is moved and run.
struct MoveCounter {
  int* moves;
  int* runs;
  MoveCounter(int* m, int* r) : moves(m), runs(r) {}
  MoveCounter(MoveCounter&& o) noexcept : moves(o.moves), runs(o.runs) { ++*moves; }
  MoveCounter(const MoveCounter&) = delete;
  void operator()() { ++*runs; }
};

}  // namespace

// A small op's task body (664 bytes for the binary family) goes from the
// entry to the stream; each move would be a copy of its capture. A body its
// maker builds in place (TaskBody::make_inline) is constructed in the
// executor and run from there: never moved. A body built from a callable is
// moved once, into its TaskBody.
TEST_CASE("a launched task body built in place is not moved on its way to an idle stream", "[streams][inline]") {
  acl_test::use_device0();
  const acl_test::StreamHandle stream;
  int moves = 0, runs = 0;
  auto in_place = [&] { return npu::emu::TaskBody::make_inline<MoveCounter>([&] { return MoveCounter(&moves, &runs); }); };
  auto converted = [&] { return npu::emu::TaskBody(MoveCounter(&moves, &runs)); };
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  // Launches what prepare_op prepared and runs it once.
  const auto launch_once = [&](aclnnStatus prepared) {
    REQUIRE(prepared == ACLNN_SUCCESS);
    REQUIRE(npu::emu::launch_op("moves", executor, stream.get()) == ACLNN_SUCCESS);
    REQUIRE(aclrtSynchronizeStream(stream.get()) == ACL_SUCCESS);
    CHECK(runs == 1);
  };
  SECTION("entry without format arguments, body built in place") {
    launch_once(npu::emu::prepare_op("moves", &workspace, &executor, in_place));
    CHECK(moves == 0);
  }
  SECTION("entry without format arguments, body converted from a callable") {
    launch_once(npu::emu::prepare_op("moves", &workspace, &executor, converted));
    CHECK(moves == 1);
  }
  SECTION("entry with format arguments (as the generated entries prepare)") {
    const aclTensor* absent = nullptr;
    launch_once(npu::emu::prepare_op("moves", &workspace, &executor, npu::emu::FormatArgs{npu::emu::TensorIn{absent, "self"}},
                                     [&](const aclTensor*) { return in_place(); }));
    CHECK(moves == 0);
  }
}
