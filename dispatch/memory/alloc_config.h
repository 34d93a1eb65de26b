// The caching allocator's configuration: PYTORCH_NPU_ALLOC_CONF (or
// PYTORCH_ALLOC_CONF, never both) and PYTORCH_NO_NPU_MEMORY_CACHING, read
// once, when the allocator is first used.
//
// Syntax: comma-separated "key:value" pairs, e.g.
//   max_split_size_mb:128,garbage_collection_threshold:0.6,
//   roundup_power2_divisions:[256:1,512:2,>:4],expandable_segments:False,
//   base_addr_aligned_kb:16,per_process_memory_fraction:0.5
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

namespace npu::memory {

// Power-of-two size intervals roundup_power2_divisions can address: interval
// i holds sizes in [1 MiB << i, 1 MiB << (i + 1)); the last one is open-ended.
inline constexpr std::size_t kRoundupIntervals = 16;

struct AllocatorConfig {
  // Blocks of at least this size are never split (and are not handed out for
  // smaller requests). SIZE_MAX: no limit.
  std::size_t max_split_size = std::numeric_limits<std::size_t>::max();
  // Fraction (0, 1) of the allowed device memory above which free cached
  // segments are released before new ones are requested; 0: off.
  double garbage_collection_threshold = 0.0;
  // Per interval: round sizes up to one of this many steps between powers
  // of two (0 or 1: plain 512-byte rounding).
  std::array<std::size_t, kRoundupIntervals> roundup_power2_divisions{};
  // Accepted for compatibility; the emulator always uses fixed segments.
  bool expandable_segments = false;
  // torch_npu's base address alignment (KiB, 0..16); effective only with
  // expandable segments, so recorded but unused here.
  std::size_t base_addr_aligned_kb = 16;
  // PYTORCH_NO_NPU_MEMORY_CACHING=1: every block is its own device
  // allocation, returned to the device as soon as it is free.
  bool caching_enabled = true;
  // torch_npu's per_process_memory_fraction: the share [0, 1] of the device
  // capacity this process may reserve, as if set_per_process_memory_fraction
  // had been called before the first allocation; unset: the whole device.
  std::optional<double> per_process_memory_fraction;
};

// Parses one configuration string. Throws std::invalid_argument naming the
// offending key and its allowed values ("Unrecognized CachingAllocator
// option: <key>" for unknown keys).
AllocatorConfig parse_allocator_config(const std::string& text);

// The process's configuration, parsed from the environment at the first call.
// A bad configuration throws c10::Error (RuntimeError in Python) at that call
// and at every later one, so no allocation proceeds with a half-read setup.
const AllocatorConfig& allocator_config();

}  // namespace npu::memory
