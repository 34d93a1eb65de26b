// aten::record_stream: tells the caching allocator that `stream` uses the
// tensor's memory, so its block is not reused before that stream's work is
// done (see memory/device_caching_allocator.h). The stream may be on another
// device than the tensor: a device-to-device copy reads the source on the
// destination's stream.
#include "dispatch/memory/npu_allocator.h"

namespace npu::ops {

void record_stream(at::Tensor& self, c10::Stream stream) {
  TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1, "record_stream: expected an npu stream, got ",
              stream);
  npu_allocator().recordStream(self.storage().data_ptr(), stream);
}

}  // namespace npu::ops
