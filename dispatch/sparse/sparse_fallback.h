// The CPU fallback for sparse npu tensors (sparse_fallback.cpp).
#pragma once

namespace npu {

// Registers the sparse CPU fallback under the sparse npu dispatch keys for
// every aten op with a sparse CPU kernel and no sparse npu one, so no
// composite kernel meant for dense tensors takes those ops. Call once, after
// every static registration of the extension ran (its module init).
void register_sparse_fallbacks();

}  // namespace npu
