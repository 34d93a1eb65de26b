// The foreach family's fast route (ops/table/foreach.yaml): the argument
// checks the generated `foreach:` wrappers run, and the two shapes of such a
// wrapper (functional: new outputs; in place: self), each launching one aclnn
// op per list when the lists can take it and running PyTorch's per-tensor
// loop (its slow kernel) otherwise.
#pragma once

#include <initializer_list>
#include <vector>

#include <ATen/Tensor.h>
#include <ATen/core/List.h>

#include "dispatch/fallback/capability.h"
#include "dispatch/ops/foreach_route.h"

namespace npu::ops {

using ScalarList = at::ArrayRef<at::Scalar>;

// A scalar the list kernels take (not complex).
bool real_scalar(const at::Scalar& s);
bool all_real_scalars(ScalarList scalars);

// A 0-dim real tensor on self's device: the scalar the .Tensor forms take (a
// 1-element tensor with dims would broadcast self's 0-dim entries). A 0-dim
// entry of self promotes with it as with any tensor (float16 * float32 is
// float32): the functional form then needs the loop for its result dtype;
// in place, the result is rounded back to the entry's dtype, and computing
// in the entry's opmath type (float for float16/bfloat16) is the same
// computation. Anything else (a CPU tensor, complex) keeps the loop.
bool device_scalar(const at::Tensor& t, at::TensorList self, bool in_place);

std::vector<at::Tensor> empty_results(at::TensorList self);

// The per-tensor scalars of a ScalarList form as a 1-D device tensor (the
// aclTensor CANN's Addc*ScalarList ops take), in float64 for float64 lists
// and float32 otherwise: the precision PyTorch's kernels use them in. Staged
// in pinned host memory so the copy stays in flight: a pageable source would
// make every call (two per AdamW step) wait for the stream.
at::Tensor scalars_tensor(ScalarList scalars, at::TensorList self);

// In place (out = self) when `ok`, else PyTorch's per-tensor loop.
template <class Launch, class Slow>
void foreach_in_place(const AclnnCapability& cap, const char* schema, std::initializer_list<at::TensorList> lists,
                      bool ok, Launch launch, Slow slow) {
  const at::TensorList self = *lists.begin();
  if (!ok || !foreach_fast_route(lists, true) || !run_native(cap, schema, foreach_dtypes(self))) {
    slow();
    return;
  }
  const ListDeviceGuard guard(self);
  launch(at::ITensorListRef(self));
}

template <class Launch, class Slow>
std::vector<at::Tensor> foreach_functional(const AclnnCapability& cap, const char* schema,
                                           std::initializer_list<at::TensorList> lists, bool ok, Launch launch,
                                           Slow slow) {
  const at::TensorList self = *lists.begin();
  if (!ok || !foreach_fast_route(lists, false) || !run_native(cap, schema, foreach_dtypes(self))) return slow();
  const ListDeviceGuard guard(self);
  std::vector<at::Tensor> out = empty_results(self);
  launch(at::ITensorListRef(out));
  return out;
}

}  // namespace npu::ops
