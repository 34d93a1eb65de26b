#include "dispatch/memory/size_rules.h"

namespace npu::memory {

namespace {

std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

std::size_t floor_log2(std::size_t v) {
  std::size_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

// Which roundup_power2_divisions interval `size` falls in (1 MiB << i).
std::size_t interval_of(std::size_t size) {
  const std::size_t log = floor_log2(size);
  const std::size_t base = floor_log2(kSmallSize);
  if (log <= base) return 0;
  return std::min(log - base, kRoundupIntervals - 1);
}

// The smallest of `divisions` equal steps between the powers of two around
// `size` that is not below it (a power of two itself stays as is).
std::size_t round_to_division(std::size_t size, std::size_t divisions) {
  const std::size_t lower = std::size_t{1} << floor_log2(size);
  if (lower == size) return size;
  const std::size_t step = lower / divisions;
  if (step == 0) return lower * 2;
  return round_up(size, step);
}

}  // namespace

std::size_t round_size(std::size_t requested, const AllocatorConfig& config) {
  const std::size_t padded = requested + kBlockPadding;
  if (padded <= kMinBlockSize) return kMinBlockSize;
  const std::size_t divisions = config.roundup_power2_divisions[interval_of(padded)];
  if (divisions > 1 && padded > kMinBlockSize * divisions) {
    return round_up(round_to_division(padded, divisions), kMinBlockSize);
  }
  return round_up(padded, kMinBlockSize);
}

std::size_t segment_size(std::size_t size) {
  if (is_small(size)) return kSmallBuffer;
  if (size <= kMinLargeAlloc) return kLargeBuffer;
  return round_up(size, kRoundLarge);
}

bool should_split(std::size_t block_size, std::size_t size, bool small_pool, const AllocatorConfig& config) {
  const std::size_t remaining = block_size - size;
  if (small_pool) return remaining >= kMinBlockSize;
  return size < config.max_split_size && remaining > kSmallSize;
}

}  // namespace npu::memory
