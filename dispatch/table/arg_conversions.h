// Small conversions the table's `map:` expressions use to turn an aten
// argument into the aclnn parameter CANN defines.
#pragma once

#include <optional>

#include <c10/util/Exception.h>
#include <c10/util/string_view.h>

namespace npu::table {

// aclnnDivMod's mode: 0 true division, 1 trunc, 2 floor.
inline int rounding_mode_code(std::optional<c10::string_view> mode) {
  if (!mode) return 0;
  if (*mode == "trunc") return 1;
  if (*mode == "floor") return 2;
  TORCH_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

}  // namespace npu::table
