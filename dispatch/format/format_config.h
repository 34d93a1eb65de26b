// torch.npu.config.allow_internal_format: whether tensors may be created in
// private formats. Its default is the SoC profile's.
#pragma once

namespace npu {

bool allow_internal_format();
void set_allow_internal_format(bool allow);

}  // namespace npu
