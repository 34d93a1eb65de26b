// The table of storage formats an NPU tensor can have, numbered as aclFormat
// so a Format crosses the C API by a plain cast. FORMATS.md is the spec: which
// formats exist, what their base (logical) format is, which ranks they take.
// Storage shapes and C0 live in storage_desc.h; this file is the table only.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace npu::model {

enum class Format : int32_t {
  Undefined = -1,
  NCHW = 0,
  NHWC = 1,
  ND = 2,
  NC1HWC0 = 3,
  FRACTAL_Z = 4,
  NC1HWC0_C04 = 12,
  HWCN = 16,
  NDHWC = 27,
  FRACTAL_NZ = 29,
  NCDHW = 30,
  NDC1HWC0 = 32,
  FRACTAL_Z_3D = 33,
  NC = 35,
  NCL = 47,
  FRACTAL_NZ_C0_16 = 50,
  FRACTAL_NZ_C0_32 = 51,
  FRACTAL_NZ_C0_2 = 52,
  FRACTAL_NZ_C0_4 = 53,
  FRACTAL_NZ_C0_8 = 54,
};

// Upper rank bound of formats that take any rank (ND, the NZ family).
inline constexpr int64_t kAnyRank = std::numeric_limits<int32_t>::max();

struct FormatInfo {
  Format format;
  const char* name;
  // The layout the logical sizes describe. Undefined for UNDEFINED and for
  // HWCN, which npu-emu knows by id but cannot store.
  Format base;
  // Ranks of the logical shape the format accepts. For the 4-D blocked
  // formats this includes ranks below 4, which are padded (see
  // storage_desc.h); rank fallbacks (NZ below 2, NCHW not 4) are applied by
  // resolve_format before this range is checked.
  int64_t min_rank;
  int64_t max_rank;
};

// Every format of the table, in id order.
const std::vector<FormatInfo>& format_table();

// The table entry of `format`; every enumerator has one.
const FormatInfo& format_info(Format format);

// The Format with this aclFormat id, or nullopt when the id is not in the table.
std::optional<Format> format_from_acl(int64_t id);

// Like format_from_acl, but an unknown id throws std::invalid_argument whose
// message names the id and lists every allowed id.
Format format_from_id(int64_t id);

const char* format_name(Format format);
// "NAME (id)", the form every error message uses.
std::string format_label(Format format);
// "NCHW (0), NHWC (1), ...": the allowed ids, for error messages.
std::string allowed_format_ids();

Format base_format(Format format);
// True when the storage is the logical shape, row-major: the base format is
// the format itself (ND, NCHW, NHWC, NCDHW, and the rank labels NC and NCL).
bool is_base_format(Format format);
// True when the storage layout differs from the logical one and data must be
// transformed to move between them.
bool is_private_format(Format format);
// True when npu-emu can hold a tensor in this format (not UNDEFINED or HWCN).
bool is_storable_format(Format format);
bool rank_allowed(Format format, int64_t rank);

// The format a new device tensor gets from its rank alone, as torch_npu
// guesses it: 4-D NCHW, 5-D NCDHW, otherwise ND.
Format guess_base_format(int64_t rank);

}  // namespace npu::model
