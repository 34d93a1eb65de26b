// Bool elements as PyTorch reads them: any nonzero byte is true. A bool
// tensor can hold bytes 2..255 (a uint8 tensor viewed as bool, frombuffer,
// set_), and C++ code that loads such a byte as `bool` gets the raw byte
// back (254 + 0 is 254, 254 == true is false). Kernels therefore read bool
// inputs through normalized_bools, which costs one byte scan and nothing
// else when every byte is already 0 or 1 (the common case).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "kernels/core/tensor_view.h"

namespace npu::kernels {

// Owns the normalized bytes a view returned by normalized_bools points into.
class BoolBytes {
 public:
  explicit BoolBytes(int64_t bytes) : buffer_(std::make_unique<uint8_t[]>(bytes > 0 ? bytes : 1)) {}
  uint8_t* data() const { return buffer_.get(); }

 private:
  std::unique_ptr<uint8_t[]> buffer_;
};

// `in` itself unless it is a bool view holding a byte other than 0 or 1;
// then the same view (sizes and strides unchanged, so plans made for `in`
// still apply) over a copy of its memory span with every byte set to
// "byte != 0", kept alive by `holder`.
TensorView normalized_bools(const TensorView& in, std::optional<BoolBytes>& holder);

// Whether normalized_bools would copy: a bool view with a byte above one.
bool has_bool_bytes_above_one(const TensorView& in);

}  // namespace npu::kernels
