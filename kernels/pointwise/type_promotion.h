// PyTorch's result-type rule for pointwise ops (torch.result_type), over
// npu-emu operands. Operands rank by priority: tensors with dims, then 0-dim
// tensors, then host scalars; a lower-priority operand changes the result
// only when its category (bool < integer < floating < complex) is higher.
#pragma once

#include <initializer_list>

#include "kernels/pointwise/operand.h"
#include "kernels/pointwise/pointwise_kinds.h"

namespace npu::kernels {

// The floating dtype PyTorch picks when integers must become floats (true
// division, exp of an int, an int tensor times 2.5): its default dtype. The
// caller's output reveals it: float64 when `out` is float64, else float32.
DType default_float(DType out);
// Likewise for complex: complex128 when `out` is, else complex64.
DType default_complex(DType out);

// The common dtype of the present operands. `out` only serves as the hint for
// the default float/complex dtype that host floating scalars take.
DType result_type(std::initializer_list<const Operand*> operands, DType out);

// The dtype an op computes in, given its inputs' common dtype; throws
// KernelError when the op does not support that dtype. `out` hints the
// default float dtype.
DType compute_dtype(const OpInfo& info, DType common, DType out);

// The dtype an op returns when computing in `compute`.
DType result_dtype(const OpInfo& info, DType compute);

}  // namespace npu::kernels
