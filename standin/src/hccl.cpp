// libhccl.so: collective communication is not emulated yet (see the
// distributed issue). Every HCCL entry torch_npu looks up fails with
// HCCL_E_NOT_SUPPORT and a message naming it; HCCL has no recent-error
// channel, so the message goes to stderr once per function.
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "standin_types.h"

namespace {

HcclResult refuse(const char* function) {
  static std::mutex mutex;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mutex);
  if (reported.insert(function).second) {
    std::fprintf(stderr,
                 "[npu-emu CANN stand-in] %s: HCCL (torch.distributed with the hccl backend) is not emulated; use the "
                 "gloo backend for CPU-side collectives or run a single process.\n",
                 function);
  }
  return HCCL_E_NOT_SUPPORT;
}

}  // namespace

// HCCL's global configuration (deterministic reduction, ...) is set by
// torch_npu's eager path too; with no collectives to configure it is a no-op.
extern "C" ACL_FUNC_VISIBILITY HcclResult HcclSetConfig(int, int64_t) { return 0; }

// The arguments are never read: every entry refuses before touching them, so
// one parameterless definition per name serves all of HCCL's signatures
// under the platform C calling convention.
#define NPU_EMU_HCCL_REFUSED(name) \
  extern "C" ACL_FUNC_VISIBILITY HcclResult name() { return refuse(#name); }

NPU_EMU_HCCL_REFUSED(HcclGetRootInfo)
NPU_EMU_HCCL_REFUSED(HcclGetRootInfoScalable)
NPU_EMU_HCCL_REFUSED(HcclCommInitRootInfo)
NPU_EMU_HCCL_REFUSED(HcclCommInitRootInfoConfig)
NPU_EMU_HCCL_REFUSED(HcclCommInitRootInfoScalable)
NPU_EMU_HCCL_REFUSED(HcclCommInitClusterInfoConfig)
NPU_EMU_HCCL_REFUSED(HcclCommInitAll)
NPU_EMU_HCCL_REFUSED(HcclCreateSubCommConfig)
NPU_EMU_HCCL_REFUSED(HcclCommDestroy)
NPU_EMU_HCCL_REFUSED(HcclGetCommName)
NPU_EMU_HCCL_REFUSED(HcclGetCommAsyncError)
NPU_EMU_HCCL_REFUSED(HcclGetCommConfigCapability)
NPU_EMU_HCCL_REFUSED(HcclAllReduce)
NPU_EMU_HCCL_REFUSED(HcclAllGather)
NPU_EMU_HCCL_REFUSED(HcclAllGatherV)
NPU_EMU_HCCL_REFUSED(HcclReduceScatter)
NPU_EMU_HCCL_REFUSED(HcclReduceScatterV)
NPU_EMU_HCCL_REFUSED(HcclBroadcast)
NPU_EMU_HCCL_REFUSED(HcclReduce)
NPU_EMU_HCCL_REFUSED(HcclScatter)
NPU_EMU_HCCL_REFUSED(HcclSend)
NPU_EMU_HCCL_REFUSED(HcclRecv)
NPU_EMU_HCCL_REFUSED(HcclBatchSendRecv)
NPU_EMU_HCCL_REFUSED(HcclAlltoAll)
NPU_EMU_HCCL_REFUSED(HcclAlltoAllV)
NPU_EMU_HCCL_REFUSED(HcclAlltoAllVC)
NPU_EMU_HCCL_REFUSED(HcclGroupStart)
NPU_EMU_HCCL_REFUSED(HcclGroupEnd)
NPU_EMU_HCCL_REFUSED(HcclCommRegister)
NPU_EMU_HCCL_REFUSED(HcclCommDeregister)
NPU_EMU_HCCL_REFUSED(HcclCommResume)
NPU_EMU_HCCL_REFUSED(HcclCommWorkingDevNicSet)
NPU_EMU_HCCL_REFUSED(HcclCommSetMemoryRange)
NPU_EMU_HCCL_REFUSED(HcclCommUnsetMemoryRange)
NPU_EMU_HCCL_REFUSED(HcclCommActivateCommMemory)
NPU_EMU_HCCL_REFUSED(HcclCommDeactivateCommMemory)
NPU_EMU_HCCL_REFUSED(HcclCommExchangeMem)
NPU_EMU_HCCL_REFUSED(HcclCommSymWinRegister)
NPU_EMU_HCCL_REFUSED(HcclCommSymWinDeregister)
