// Argument conversions of ops/table/activation_backward.yaml's maps.
#pragma once

#include <c10/util/Exception.h>
#include <c10/util/string_view.h>

namespace npu::table {

// aclnnGeluBackwardV2's approximate: CANN takes the mode's name as a
// (non-const) char*; the entry only reads it.
inline char* gelu_approximate_name(c10::string_view approximate) {
  static char none[] = "none";
  static char tanh[] = "tanh";
  if (approximate == "none") return none;
  if (approximate == "tanh") return tanh;
  TORCH_CHECK(false, "approximate argument must be either none or tanh.");
}

}  // namespace npu::table
