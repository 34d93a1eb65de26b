// The sizing rules of torch_npu's caching allocator: how a request becomes a
// block size, which pool serves it, how big a new segment is, and when a
// cached block is split. Pure functions of sizes and the configuration.
#pragma once

#include <cstddef>

#include "dispatch/memory/alloc_config.h"

namespace npu::memory {

inline constexpr std::size_t kMinBlockSize = 512;           // every block is a multiple of this
inline constexpr std::size_t kBlockPadding = 32;            // added to every request (torch_npu)
inline constexpr std::size_t kSmallSize = 1 << 20;          // largest small-pool block: 1 MiB
inline constexpr std::size_t kSmallBuffer = 2 << 20;        // small-pool segment: 2 MiB
inline constexpr std::size_t kLargeBuffer = 20 << 20;       // segment for blocks up to 10 MiB: 20 MiB
inline constexpr std::size_t kMinLargeAlloc = 10 << 20;     // blocks above this get their own segment ...
inline constexpr std::size_t kRoundLarge = 2 << 20;         // ... rounded up to 2 MiB

// Block size for a request of `requested` bytes: +32 bytes, then up to a
// multiple of 512 (at least 512), or to a power-of-two division when
// roundup_power2_divisions asks for it.
std::size_t round_size(std::size_t requested, const AllocatorConfig& config);

// True when a block of `size` (already rounded) belongs in the small pool.
inline bool is_small(std::size_t size) { return size <= kSmallSize; }

// Size of the device allocation (segment) made for a block of `size` when
// no cached block fits.
std::size_t segment_size(std::size_t size);

// Whether a free block of `block_size` taken for a request of `size` is split,
// leaving the rest in the pool: small blocks when at least 512 bytes remain,
// large ones when more than 1 MiB remains and `size` is below max_split_size.
bool should_split(std::size_t block_size, std::size_t size, bool small_pool, const AllocatorConfig& config);

}  // namespace npu::memory
