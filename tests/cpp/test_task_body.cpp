// TaskBody, the stream task's callable: inline storage for ordinary
// captures, the heap beyond, move-only, and std::function's empty states.
#include <catch2/catch.hpp>

#include <array>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>

#include "emulator/task_body.h"

using npu::emu::TaskBody;

namespace {

// Counts live copies of itself, so a test sees every capture destroyed once.
struct Tracked {
  explicit Tracked(int* live) : live(live) { ++*live; }
  Tracked(const Tracked& o) : live(o.live) { ++*live; }
  Tracked(Tracked&& o) noexcept : live(o.live) { ++*live; }
  Tracked& operator=(const Tracked&) = delete;
  ~Tracked() { --*live; }
  int* live;
};

template <std::size_t Bytes>
TaskBody summing_task(int* live, int* sum) {
  std::array<unsigned char, Bytes> payload{};
  payload.front() = 3;
  payload.back() = 4;
  return [payload, t = Tracked(live), sum] { *sum += payload.front() + payload.back(); };
}

}  // namespace

TEST_CASE("TaskBody keeps small and large captures, runs them and destroys them once", "[task_body]") {
  for (const bool large : {false, true}) {
    int live = 0, sum = 0;
    {
      TaskBody body = large ? summing_task<4 * TaskBody::kInlineBytes>(&live, &sum) : summing_task<256>(&live, &sum);
      CHECK(body.holds_inline() == !large);
      CHECK(live == 1);
      TaskBody moved = std::move(body);
      CHECK_FALSE(body);
      CHECK(moved);
      CHECK(live == 1);
      moved();
      moved();
      CHECK(sum == 14);
      TaskBody assigned;
      assigned = std::move(moved);
      assigned();
      CHECK(sum == 21);
      assigned = nullptr;
      CHECK(live == 0);
      CHECK_FALSE(assigned);
    }
    CHECK(live == 0);
  }
}

TEST_CASE("TaskBody takes move-only captures and std::function, and is empty like std::function", "[task_body]") {
  auto owned = std::make_unique<int>(5);
  int seen = 0;
  TaskBody move_only = [p = std::move(owned), &seen] { seen = *p; };
  CHECK(move_only.holds_inline());
  move_only();
  CHECK(seen == 5);

  // Task makers that return std::function<void()> still convert.
  TaskBody from_function = std::function<void()>([&seen] { seen = 7; });
  REQUIRE(from_function);
  from_function();
  CHECK(seen == 7);

  TaskBody from_empty = std::function<void()>();
  CHECK_FALSE(from_empty);
  CHECK_THROWS_AS(from_empty(), std::bad_function_call);
  TaskBody none = nullptr;
  CHECK_FALSE(none);
  CHECK_FALSE(none.holds_inline());
}

TEST_CASE("TaskBody propagates what its callable throws", "[task_body]") {
  TaskBody failing = [] { throw std::runtime_error("kernel failed"); };
  CHECK_THROWS_WITH(failing(), "kernel failed");
}

namespace {
// A callable holding a Tracked: counts its live copies.
struct TrackedTask {
  Tracked tracked;
  void operator()() {}
};
}  // namespace

TEST_CASE("TaskBody builds a callable in place and replaces itself with a maker's result", "[task_body]") {
  int live = 0;
  SECTION("make_inline keeps the made callable and destroys it once") {
    {
      TaskBody body = TaskBody::make_inline<TrackedTask>([&] { return TrackedTask{Tracked(&live)}; });
      CHECK(body.holds_inline());
      CHECK(live == 1);
      body();
    }
    CHECK(live == 0);
  }
  SECTION("assign_from destroys the old callable and holds the new one") {
    TaskBody body = TaskBody::make_inline<TrackedTask>([&] { return TrackedTask{Tracked(&live)}; });
    int runs = 0;
    body.assign_from([&] { return TaskBody([&runs] { ++runs; }); });
    CHECK(live == 0);
    body();
    CHECK(runs == 1);
  }
  SECTION("a throwing maker leaves the body empty, its old callable destroyed") {
    TaskBody body = TaskBody::make_inline<TrackedTask>([&] { return TrackedTask{Tracked(&live)}; });
    CHECK_THROWS_AS(body.assign_from([]() -> TaskBody { throw std::runtime_error("maker failed"); }),
                    std::runtime_error);
    CHECK(live == 0);
    CHECK_FALSE(body);
    CHECK_THROWS_AS(body(), std::bad_function_call);
  }
}
