// MemoryArena on its own, at small capacities: the process's devices read
// their capacity from the environment once, so exhausting one through the C
// API would need a 64 GiB test; the arena is where the limit lives.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/memory_arena.h"

using npu::emu::AclError;
using npu::emu::MemoryArena;

namespace {
// The ACL code of the AclError `f` throws; 0 when it does not throw.
template <class F>
int error_code_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const AclError& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  return 0;
}
}  // namespace

TEST_CASE("MemoryArena rounds requests up to 512 bytes and counts them", "[runtime]") {
  MemoryArena arena(4096);
  REQUIRE(arena.capacity() == 4096);
  void* a = arena.allocate(1);
  REQUIRE(arena.used() == 512);
  void* b = arena.allocate(513);
  REQUIRE(arena.used() == 512 + 1024);
  REQUIRE(reinterpret_cast<uintptr_t>(a) % 512 == 0);
  REQUIRE(reinterpret_cast<uintptr_t>(b) % 512 == 0);
  arena.release(a);
  REQUIRE(arena.used() == 1024);
  arena.release(b);
  REQUIRE(arena.used() == 0);
}

TEST_CASE("MemoryArena fails with ACL_ERROR_RT_MEMORY_ALLOCATION at its capacity", "[runtime]") {
  MemoryArena arena(4096);
  std::vector<void*> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(arena.allocate(512));  // exactly full
  REQUIRE(arena.used() == 4096);
  std::string msg;
  REQUIRE(error_code_of([&] { arena.allocate(1); }, &msg) == ACL_ERROR_RT_MEMORY_ALLOCATION);
  REQUIRE(msg.find("requested 1 bytes") != std::string::npos);
  REQUIRE(msg.find("4096 of 4096") != std::string::npos);
  REQUIRE(arena.used() == 4096);  // the failed request took nothing

  // Freeing makes room again.
  arena.release(blocks.back());
  blocks.pop_back();
  blocks.push_back(arena.allocate(500));
  for (void* p : blocks) arena.release(p);
  REQUIRE(arena.used() == 0);
}

TEST_CASE("MemoryArena: a single request larger than the capacity fails", "[runtime]") {
  MemoryArena arena(1 << 20);
  REQUIRE(error_code_of([&] { arena.allocate((1 << 20) + 1); }) == ACL_ERROR_RT_MEMORY_ALLOCATION);
  void* whole = arena.allocate(1 << 20);  // the exact capacity fits
  arena.release(whole);
}

TEST_CASE("MemoryArena: sizes near SIZE_MAX do not wrap around", "[runtime]") {
  MemoryArena arena(1 << 20);
  void* held = arena.allocate(4096);  // so used + size would overflow too
  for (const std::size_t huge : {std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max() - 511,
                                 std::numeric_limits<std::size_t>::max() - 4096}) {
    CAPTURE(huge);
    REQUIRE(error_code_of([&] { arena.allocate(huge); }) == ACL_ERROR_RT_MEMORY_ALLOCATION);
  }
  REQUIRE(arena.used() == 4096);
  arena.release(held);
}

TEST_CASE("MemoryArena rejects foreign pointers and double releases", "[runtime]") {
  MemoryArena arena(4096);
  void* p = arena.allocate(100);
  int local = 0;
  std::string msg;
  REQUIRE(error_code_of([&] { arena.release(&local); }, &msg) == ACL_ERROR_RT_MEMORY_FREE);
  REQUIRE(msg.find("not a live device allocation") != std::string::npos);
  REQUIRE(error_code_of([&] { arena.release(static_cast<char*>(p) + 1); }) == ACL_ERROR_RT_MEMORY_FREE);
  arena.release(p);
  REQUIRE(error_code_of([&] { arena.release(p); }) == ACL_ERROR_RT_MEMORY_FREE);
  REQUIRE(arena.used() == 0);
}

TEST_CASE("MemoryArena::contains checks whole ranges inside one allocation", "[runtime]") {
  MemoryArena arena(8192);
  auto* p = static_cast<char*>(arena.allocate(1000));  // 1024 usable
  REQUIRE(arena.contains(p, 1));
  REQUIRE(arena.contains(p + 1000, 24));
  REQUIRE_FALSE(arena.contains(p + 1000, 25));
  REQUIRE_FALSE(arena.contains(p - 1, 1));
  int local = 0;
  REQUIRE_FALSE(arena.contains(&local, 1));
  // A range that wraps around the address space is never inside.
  REQUIRE_FALSE(arena.contains(p + 8, std::numeric_limits<std::size_t>::max()));
  arena.release(p);
  REQUIRE_FALSE(arena.contains(p, 1));
}
