// The stand-in HCCL's communicator lifecycle and queries: root info,
// init (with and without a configuration), destroy, name, rank, size, the
// asynchronous error torch_npu's watchdog polls, error strings.
#include <cstring>
#include <memory>
#include <string>

#include "acl/acl_base.h"
#include "hccl_entry.h"

using npu::standin::hccl::Communicator;
using npu::standin::hccl::communicator;
using npu::standin::hccl::guarded;
using npu::standin::hccl::HcclError;

namespace {

std::string default_name(const HcclRootInfo& root, uint32_t size) {
  // Unique per root info (its bytes carry a nonce), the same on every rank.
  uint64_t hash = 1469598103934665603ull;
  for (const char byte : root.internal) hash = (hash ^ static_cast<unsigned char>(byte)) * 1099511628211ull;
  return "npu-emu-hccl-" + std::to_string(size) + "-" + std::to_string(hash % 1000000007ull);
}

HcclResult init(const char* function, uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                const HcclCommConfig* config, HcclComm* comm) {
  return guarded(function, [&] {
    if (rootInfo == nullptr) throw HcclError(HCCL_E_PTR, "rootInfo is null");
    if (comm == nullptr) throw HcclError(HCCL_E_PTR, "comm is null");
    std::string name = default_name(*rootInfo, nRanks);
    // The name field exists only when the configuration's header says the
    // structure is large enough (torch_npu shrinks it for old HCCLs).
    if (config != nullptr) {
      size_t declared = 0;
      std::memcpy(&declared, config, sizeof(declared));
      if (declared >= offsetof(HcclCommConfig, hcclCommName) + NPU_EMU_HCCL_COMM_NAME_MAX &&
          config->hcclCommName[0] != '\0') {
        name.assign(config->hcclCommName, strnlen(config->hcclCommName, NPU_EMU_HCCL_COMM_NAME_MAX));
      }
    }
    *comm = npu::standin::hccl::register_communicator(
        std::make_unique<Communicator>(nRanks, *rootInfo, rank, std::move(name)));
  });
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) {
  return guarded("HcclGetRootInfo", [&] {
    if (rootInfo == nullptr) throw HcclError(HCCL_E_PTR, "rootInfo is null");
    npu::standin::hccl::make_root_info(*rootInfo);
  });
}

ACL_FUNC_VISIBILITY HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                                    HcclComm* comm) {
  return init("HcclCommInitRootInfo", nRanks, rootInfo, rank, nullptr, comm);
}

ACL_FUNC_VISIBILITY HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo* rootInfo,
                                                          uint32_t rank, const HcclCommConfig* config,
                                                          HcclComm* comm) {
  return init("HcclCommInitRootInfoConfig", nRanks, rootInfo, rank, config, comm);
}

ACL_FUNC_VISIBILITY HcclResult HcclCommDestroy(HcclComm comm) {
  return guarded("HcclCommDestroy", [&] { npu::standin::hccl::destroy_communicator(comm); });
}

// Fields of HcclCommConfig below this number are honoured: the buffer size
// and determinism (accepted; the host exchange has neither) and the name.
ACL_FUNC_VISIBILITY uint32_t HcclGetCommConfigCapability() { return NPU_EMU_HCCL_COMM_CONFIG_COMM_NAME + 1; }

ACL_FUNC_VISIBILITY HcclResult HcclGetCommName(HcclComm comm, char* commName) {
  return guarded("HcclGetCommName", [&] {
    if (commName == nullptr) throw HcclError(HCCL_E_PTR, "commName is null");
    const std::string& name = communicator(comm).name();
    const size_t length = std::min<size_t>(name.size(), NPU_EMU_HCCL_COMM_NAME_MAX - 1);
    std::memcpy(commName, name.data(), length);
    commName[length] = '\0';
  });
}

ACL_FUNC_VISIBILITY HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  return guarded("HcclGetRankSize", [&] {
    if (rankSize == nullptr) throw HcclError(HCCL_E_PTR, "rankSize is null");
    *rankSize = communicator(comm).size();
  });
}

ACL_FUNC_VISIBILITY HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  return guarded("HcclGetRankId", [&] {
    if (rank == nullptr) throw HcclError(HCCL_E_PTR, "rank is null");
    *rank = communicator(comm).rank();
  });
}

ACL_FUNC_VISIBILITY HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  return guarded("HcclGetCommAsyncError", [&] {
    if (asyncError == nullptr) throw HcclError(HCCL_E_PTR, "asyncError is null");
    *asyncError = communicator(comm).async_error();
  });
}

ACL_FUNC_VISIBILITY const char* HcclGetErrorString(HcclResult code) {
  switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not supported feature";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_TCP_CONNECT: return "tcp connect failed";
    case HCCL_E_TCP_TRANSFER: return "tcp transfer failed";
    case HCCL_E_RUNTIME: return "runtime (ACL) call failed";
    case HCCL_E_REMOTE: return "remote error";
    default: return "unknown HCCL error";
  }
}

// HCCL's global configuration (deterministic reduction, ...): the stand-in
// reduces in rank order, so it is deterministic whatever is set.
ACL_FUNC_VISIBILITY HcclResult HcclSetConfig(int, int32_t) { return HCCL_SUCCESS; }

}  // extern "C"
