// Refusing the legacy aclop path at torch_npu's call site.
//
// torch_npu runs an aclop operator in two halves: the calling thread builds
// the operator's tensor descriptions (aclCreateTensorDesc), calls
// aclSetCompileopt(ACL_OP_JIT_COMPILE) and queues the operator; its task-queue
// thread later calls aclopCompileAndExecute. A failure in the queue thread
// stops torch_npu's task queue for good, and from then on torch_npu drops
// every operation it queues (results silently wrong). So the stand-in refuses
// an aclop operator in the first half, where torch_npu raises the error at
// the call and keeps working: aclSetCompileopt(ACL_OP_JIT_COMPILE) with
// descriptions built on the same thread since the previous compile option is
// an aclop operator on its way to the queue. (A user's own
// torch.npu.set_compile_mode builds no descriptions, so it is not refused.)
#pragma once

#include <string>

#include "standin_types.h"

#define NPU_STANDIN_SHARED __attribute__((visibility("default")))

namespace npu::standin {

// Bookkeeping of aclCreateTensorDesc / aclDestroyTensorDesc on this thread.
void note_created(const aclTensorDesc* desc);
void note_destroyed(const aclTensorDesc* desc);

// The descriptions built on this thread since the last call, as text
// ("float32 NC1HWC0 [2,2,5,6,16]; ..."), and forgets them. Empty when none.
NPU_STANDIN_SHARED std::string take_pending_descriptions();

// Bookkeeping of aclopCreateAttr / aclopDestroyAttr (any thread): the
// attribute set created last on a thread belongs to the operator being built.
void note_attr_created(const aclopAttr* attr);
void note_attr_destroyed(const aclopAttr* attr);

// The attributes of the operator being built on this thread ("cell_type=LSTM,
// direction=UNIDIRECTIONAL, ..."), which often name what the operator is,
// and forgets it. Empty when it set none.
NPU_STANDIN_SHARED std::string take_pending_attributes();

// One line per description: its dtype, format name and dims.
std::string describe(const aclTensorDesc& desc);

}  // namespace npu::standin
