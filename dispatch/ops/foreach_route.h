// When tensor lists can go to one aclnn launch (the foreach and fused
// optimizer families), and the device guard such a launch needs.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include <ATen/Tensor.h>
#include <c10/core/DeviceGuard.h>

namespace npu::ops {

// The dtypes the list kernels compute in: float16, bfloat16, float32, float64.
bool is_list_kernel_dtype(at::ScalarType type);

// True when every list is as long as the first (self), every tensor is a
// defined npu tensor on self[0]'s device in a base format, and position i
// of every list has self[i]'s dtype (a list-kernel dtype) and sizes. With
// `in_place`, self[i] must not overlap itself and overlap the other lists'
// entry i fully or not at all (PyTorch's in-place ops refuse partial overlap only).
// Also with `in_place`, no two positions may share memory (in any list): the
// list kernels update positions concurrently, PyTorch one after the other.
// False for an empty self.
bool foreach_fast_route(std::initializer_list<at::TensorList> lists, bool in_place);

// Whether an entry at position i of some list shares memory with an entry at
// another position j != i of some list (byte ranges; conservative for
// strided tensors that interleave without touching).
bool overlap_across_positions(std::initializer_list<at::TensorList> lists);

// The distinct dtypes of a list (what run_native checks).
std::vector<at::ScalarType> foreach_dtypes(at::TensorList list);

// Launches go to the stream of the lists' device: run_aclnn finds the device
// of plain tensor arguments only, not of lists.
class ListDeviceGuard {
 public:
  explicit ListDeviceGuard(at::TensorList list);

 private:
  std::optional<c10::DeviceGuard> guard_;
};

}  // namespace npu::ops
