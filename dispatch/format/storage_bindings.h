// Python bindings of the format debug API (npu_emu.storage_desc / storage_data).
#pragma once

#include <torch/csrc/utils/pybind.h>

namespace npu {

void bind_storage_debug(pybind11::module_& m);

}  // namespace npu
