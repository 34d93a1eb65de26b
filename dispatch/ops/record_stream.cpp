// aten::record_stream: tells the caching allocator that `stream` uses the
// tensor's memory, so its block is not reused before that stream's work is
// done (see memory/device_caching_allocator.h).
#include <torch/library.h>

#include "dispatch/memory/npu_allocator.h"

namespace npu::ops {

namespace {

void record_stream(at::Tensor& self, c10::Stream stream) {
  TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1, "record_stream: expected an npu stream, got ",
              stream);
  TORCH_CHECK(stream.device_index() == self.device().index(), "record_stream: the stream is on npu:",
              static_cast<int>(stream.device_index()), " but the tensor is on ", self.device());
  npu_allocator().recordStream(self.storage().data_ptr(), stream);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("record_stream", TORCH_FN(record_stream)); }

}  // namespace npu::ops
