#include "dispatch/memory/alloc_config.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include <c10/util/Exception.h>

namespace npu::memory {

namespace {

constexpr std::size_t kMiB = 1024 * 1024;
// max_split_size_mb must leave room for a whole 20 MiB segment to be split.
constexpr std::size_t kMinMaxSplitMb = 20;
constexpr std::size_t kMaxAlignedKb = 16;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

// Splits at commas outside [...] (roundup_power2_divisions' list form).
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (depth != 0) throw std::invalid_argument("CachingAllocator config has unbalanced brackets: '" + text + "'");
  items.push_back(trim(current));
  return items;
}

[[noreturn]] void bad_value(const std::string& key, const std::string& value, const std::string& allowed) {
  throw std::invalid_argument("Invalid value for CachingAllocator option " + key + ": '" + value + "'; allowed: " +
                              allowed);
}

// A non-negative decimal integer, the whole string.
std::optional<std::size_t> parse_uint(const std::string& s) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<std::size_t>(std::stoull(s));
}

bool is_power_of_two(std::size_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::size_t log2_floor(std::size_t v) {
  std::size_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

void parse_max_split(AllocatorConfig& cfg, const std::string& key, const std::string& value) {
  const auto mb = parse_uint(value);
  // Above kMaxMaxSplitMb the size in bytes does not fit in 64 bits (it
  // wrapped to a tiny or zero limit before).
  constexpr std::size_t kMaxMaxSplitMb = std::numeric_limits<std::size_t>::max() / kMiB;
  if (!mb || *mb <= kMinMaxSplitMb || *mb > kMaxMaxSplitMb) {
    bad_value(key, value, "an integer number of MiB greater than 20 and at most " + std::to_string(kMaxMaxSplitMb));
  }
  cfg.max_split_size = *mb * kMiB;
}

// The whole text as a number, or nullopt. A value too small for a normal
// double (5e-324) is still that number: strtod's underflow, not an error
// (std::stod throws for it).
std::optional<double> parse_double(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;
  return v;
}

void parse_gc_threshold(AllocatorConfig& cfg, const std::string& key, const std::string& value) {
  const auto v = parse_double(value);
  if (!v || !(*v > 0.0 && *v < 1.0)) bad_value(key, value, "a number strictly between 0.0 and 1.0");
  cfg.garbage_collection_threshold = *v;
}

void parse_memory_fraction(AllocatorConfig& cfg, const std::string& key, const std::string& value) {
  const auto v = parse_double(value);
  if (!v || !(*v >= 0.0 && *v <= 1.0)) bad_value(key, value, "a number between 0.0 and 1.0");
  cfg.per_process_memory_fraction = *v;
}

std::size_t parse_division(const std::string& key, const std::string& text, const std::string& whole) {
  const auto v = parse_uint(text);
  if (!v || (*v != 0 && !is_power_of_two(*v))) {
    bad_value(key, whole, "a power of two (or 0), or a list [<MiB>:<power of two>,...,>:<power of two>]");
  }
  return *v;
}

void parse_roundup(AllocatorConfig& cfg, const std::string& key, const std::string& value) {
  auto& div = cfg.roundup_power2_divisions;
  if (value.empty() || value.front() != '[') {
    div.fill(parse_division(key, value, value));
    return;
  }
  const std::string allowed = "a list [<MiB>:<power of two>,...,>:<power of two>] with increasing power-of-two MiB sizes";
  if (value.back() != ']') bad_value(key, value, allowed);
  // PyTorch's and torch_npu's meaning, which users' settings are tuned to:
  // "<N>:<d>" gives d divisions to the interval that starts at N MiB, i.e.
  // sizes in [N, 2N) MiB; the first entry also covers every interval below
  // it; ">:<d>" covers every interval above the last entry. Intervals between
  // two listed sizes that are not neighbours keep 0 (no power-of-two
  // rounding), as in PyTorch. "[256:1,512:2,>:4]": 1 division below 512 MiB,
  // 2 from 512 MiB to 1 GiB, 4 from 1 GiB.
  std::optional<std::size_t> last;  // interval of the previous "<N>:<d>"
  bool any = false, open_ended = false;
  for (const auto& item : split_top_level(value.substr(1, value.size() - 2))) {
    const auto colon = item.find(':');
    if (colon == std::string::npos || open_ended) bad_value(key, value, allowed);
    const std::string size_text = trim(item.substr(0, colon));
    const std::size_t divisions = parse_division(key, trim(item.substr(colon + 1)), value);
    if (size_text == ">") {
      std::fill(div.begin() + static_cast<std::ptrdiff_t>(last.value_or(0) + 1), div.end(), divisions);
      open_ended = true;
    } else {
      const auto mb = parse_uint(size_text);
      if (!mb || !is_power_of_two(*mb)) bad_value(key, value, allowed);
      // Sizes of 32 GiB and more share the last, open-ended interval.
      const std::size_t interval = std::min(log2_floor(*mb), kRoundupIntervals - 1);
      if (last && interval <= *last) bad_value(key, value, allowed);
      if (!last) std::fill(div.begin(), div.begin() + static_cast<std::ptrdiff_t>(interval), divisions);
      div[interval] = divisions;
      last = interval;
    }
    any = true;
  }
  if (!any) bad_value(key, value, allowed);
}

bool parse_bool(const std::string& key, const std::string& value) {
  if (value == "True" || value == "true") return true;
  if (value == "False" || value == "false") return false;
  bad_value(key, value, "True or False");
}

void parse_aligned_kb(AllocatorConfig& cfg, const std::string& key, const std::string& value) {
  const auto kb = parse_uint(value);
  if (!kb || *kb > kMaxAlignedKb) bad_value(key, value, "an integer from 0 to 16");
  cfg.base_addr_aligned_kb = *kb;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

AllocatorConfig config_from_environment() {
  const char* npu_conf = env("PYTORCH_NPU_ALLOC_CONF");
  const char* generic_conf = env("PYTORCH_ALLOC_CONF");
  if (npu_conf != nullptr && generic_conf != nullptr) {
    throw std::invalid_argument(
        "PYTORCH_NPU_ALLOC_CONF and PYTORCH_ALLOC_CONF are both set; they configure the same allocator, set only "
        "one of them");
  }
  const char* variable = npu_conf ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_ALLOC_CONF";
  const char* text = npu_conf ? npu_conf : generic_conf ? generic_conf : "";
  AllocatorConfig cfg;
  try {
    cfg = parse_allocator_config(text);
  } catch (const std::invalid_argument& e) {
    // The parser's message names the option; the user also needs to know
    // which setting holds it.
    throw std::invalid_argument(std::string(variable) + "='" + text + "': " + e.what());
  }
  if (const char* off = env("PYTORCH_NO_NPU_MEMORY_CACHING")) {
    const std::string text(off);
    if (text != "0" && text != "1") {
      throw std::invalid_argument("PYTORCH_NO_NPU_MEMORY_CACHING must be 0 or 1 (1 turns the caching allocator off), got '" +
                                  text + "'");
    }
    cfg.caching_enabled = text == "0";
  }
  return cfg;
}

}  // namespace

AllocatorConfig parse_allocator_config(const std::string& text) {
  AllocatorConfig cfg;
  if (trim(text).empty()) return cfg;
  for (const auto& item : split_top_level(text)) {
    if (item.empty()) continue;  // tolerate "a:1,,b:2" and a trailing comma
    const auto colon = item.find(':');
    const std::string key = trim(item.substr(0, colon));
    const std::string value = colon == std::string::npos ? "" : trim(item.substr(colon + 1));
    if (key == "max_split_size_mb") {
      parse_max_split(cfg, key, value);
    } else if (key == "garbage_collection_threshold") {
      parse_gc_threshold(cfg, key, value);
    } else if (key == "roundup_power2_divisions") {
      parse_roundup(cfg, key, value);
    } else if (key == "expandable_segments") {
      cfg.expandable_segments = parse_bool(key, value);
    } else if (key == "base_addr_aligned_kb") {
      parse_aligned_kb(cfg, key, value);
    } else if (key == "per_process_memory_fraction") {
      parse_memory_fraction(cfg, key, value);
    } else {
      throw std::invalid_argument("Unrecognized CachingAllocator option: " + key +
                                  "; allowed options: max_split_size_mb, garbage_collection_threshold, "
                                  "roundup_power2_divisions, expandable_segments, base_addr_aligned_kb, "
                                  "per_process_memory_fraction");
    }
  }
  return cfg;
}

namespace {
// Read on every allocation and free (several times per small op): once
// parsed and warned about, one load of this constant-initialized pointer.
// (A function-local static with a constructor costs a guard check per
// access, before any early return.)
std::atomic<const AllocatorConfig*> g_ready_config{nullptr};
}  // namespace

const AllocatorConfig& allocator_config() {
  if (const AllocatorConfig* ready = g_ready_config.load(std::memory_order_acquire)) return *ready;
  static std::once_flag once;
  static AllocatorConfig config;
  static std::string error;
  std::call_once(once, [] {
    try {
      config = config_from_environment();
    } catch (const std::invalid_argument& e) {
      error = e.what();
    }
  });
  TORCH_CHECK(error.empty(), error);
  static std::once_flag warned;
  std::call_once(warned, [] {
    if (config.expandable_segments) {
      TORCH_WARN("expandable_segments:True is accepted but not supported by npu-emu's allocator: it uses fixed "
                 "segments (base_addr_aligned_kb has no effect either)");
    }
  });
  g_ready_config.store(&config, std::memory_order_release);
  return config;
}

}  // namespace npu::memory
