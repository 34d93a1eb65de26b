// The GEMM engine's per-thread scratch reuse (kernels/linalg/reused_buffer.h):
// a released block serves the next request that fits on the same thread,
// blocks in use are never handed out twice (nested products), and oversized
// blocks are not kept.
#include <catch2/catch.hpp>

#include <cstddef>
#include <thread>

#include "kernels/linalg/reused_buffer.h"

using npu::kernels::linalg::ReusedBuffer;

namespace {

// Runs on a fresh thread: its cache starts empty whatever ran before.
void reuse_on_one_thread() {
  const std::size_t mb = std::size_t{1} << 20;
  const std::byte* first = nullptr;
  {
    const ReusedBuffer a(3 * mb);
    first = a.as<std::byte>();
  }
  {
    // A smaller request takes the released block; a second one, while the
    // first is held, gets another.
    const ReusedBuffer a(2 * mb);
    CHECK(a.as<std::byte>() == first);
    const ReusedBuffer b(2 * mb);
    CHECK(b.as<std::byte>() != first);
  }
  // Another thread has its own cache.
  const std::byte* other = nullptr;
  std::thread([&] {
    const ReusedBuffer a(3 * mb);
    other = a.as<std::byte>();
  }).join();
  CHECK(other != first);
  // Moving transfers the block: it returns to the cache once.
  {
    ReusedBuffer a(3 * mb);
    ReusedBuffer b(std::move(a));
    CHECK(!a);
    CHECK(b.as<std::byte>() == first);
  }
  const ReusedBuffer again(3 * mb);
  CHECK(again.as<std::byte>() == first);
}

}  // namespace

TEST_CASE("ReusedBuffer reuses released blocks per thread, never one in use", "[gemm][reused_buffer]") {
  std::thread(reuse_on_one_thread).join();
}
