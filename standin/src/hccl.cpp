// libhccl.so entries npu-emu's HCCL does not provide: the rank-table and
// scalable/sub-communicator initialisations, several devices per process,
// zero-copy memory registration, resumption and NIC selection. Each fails
// with HCCL_E_NOT_SUPPORT and a message naming it (printed once per function,
// and recorded as the recent error torch_npu appends to its exception);
// torch_npu falls back to HcclCommInitRootInfoConfig where it has a fallback.
// The supported entries: hccl_comm_api.cpp, hccl_collectives.cpp, hccl_p2p.cpp.
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "acl/acl_base.h"
#include "hccl_types.h"
#include "recent_error.h"

namespace {

HcclResult refuse(const char* function) {
  const std::string message = std::string(function) +
                              " is not emulated by npu-emu's HCCL (one device per process, communicators from "
                              "HcclGetRootInfo + HcclCommInitRootInfo(Config) only).";
  static std::mutex mutex;
  static std::set<std::string> reported;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (reported.insert(function).second) std::fprintf(stderr, "[npu-emu CANN stand-in] %s\n", message.c_str());
  }
  return npu::standin::fail(HCCL_E_NOT_SUPPORT, message);
}

}  // namespace

// The arguments are never read: every entry refuses before touching them, so
// one parameterless definition per name serves all of HCCL's signatures
// under the platform C calling convention.
#define NPU_EMU_HCCL_REFUSED(name) \
  extern "C" ACL_FUNC_VISIBILITY HcclResult name() { return refuse(#name); }

NPU_EMU_HCCL_REFUSED(HcclGetRootInfoScalable)
NPU_EMU_HCCL_REFUSED(HcclCommInitRootInfoScalable)
NPU_EMU_HCCL_REFUSED(HcclCommInitClusterInfoConfig)
NPU_EMU_HCCL_REFUSED(HcclCommInitAll)
NPU_EMU_HCCL_REFUSED(HcclCreateSubCommConfig)
NPU_EMU_HCCL_REFUSED(HcclAlltoAllVC)
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
