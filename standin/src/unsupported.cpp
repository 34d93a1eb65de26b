// Entry points of features the emulator does not have. Each fails with
// ACL_ERROR_FEATURE_UNSUPPORTED (or the runtime's "feature not supported")
// and a message naming the function and what to use instead; torch_npu
// raises it with that text (aclGetRecentErrMsg).
#include <string>

#include "recent_error.h"
#include "standin_types.h"

namespace {

using npu::standin::unsupported;

const std::string kVirtualMemory =
    "Virtual memory (reserve/map/export) backs the caching allocator's expandable segments, which the emulator does "
    "not provide: leave expandable_segments off in PYTORCH_NPU_ALLOC_CONF.";
const std::string kKernels =
    "Device kernel binaries (Ascend C, Triton, MLIR) cannot run on the emulator; use the aclnn operators "
    "(torch_npu's eager ops).";
const std::string kGraphs = "Graph capture (torch.npu.NPUGraph, aclgraph) is not emulated; run the model eagerly.";
const std::string kIpc = "Inter-process sharing of device memory and events is not emulated; share tensors through the host.";
const std::string kCallbacks = "Host callbacks on streams are not emulated; synchronize the stream and run the host code after it.";

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void**, size_t, size_t, void*, uint64_t) {
  return unsupported("aclrtReserveMemAddress", kVirtualMemory);
}
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void*) { return unsupported("aclrtReleaseMemAddress", kVirtualMemory); }
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle*, size_t, const aclrtPhysicalMemProp*, uint64_t) {
  return unsupported("aclrtMallocPhysical", kVirtualMemory);
}
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle) { return unsupported("aclrtFreePhysical", kVirtualMemory); }
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void*, size_t, size_t, aclrtDrvMemHandle, uint64_t) {
  return unsupported("aclrtMapMem", kVirtualMemory);
}
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void*) { return unsupported("aclrtUnmapMem", kVirtualMemory); }
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle, aclrtMemHandleType, uint64_t, uint64_t*) {
  return unsupported("aclrtMemExportToShareableHandle", kVirtualMemory);
}
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(uint64_t, int32_t, aclrtDrvMemHandle*) {
  return unsupported("aclrtMemImportFromShareableHandle", kVirtualMemory);
}
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(uint64_t, int32_t*, size_t) {
  return unsupported("aclrtMemSetPidToShareableHandle", kVirtualMemory);
}

ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromData(const void*, size_t, const aclrtBinaryLoadOptions*, aclrtBinHandle*) {
  return unsupported("aclrtBinaryLoadFromData", kKernels);
}
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunction(const aclrtBinHandle, const char*, aclrtFuncHandle*) {
  return unsupported("aclrtBinaryGetFunction", kKernels);
}
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAddr(aclrtFuncHandle, void**, void**) {
  return unsupported("aclrtGetFunctionAddr", kKernels);
}
// The runtime (rt*) kernel interface returns the runtime's code.
ACL_FUNC_VISIBILITY int32_t rtDevBinaryRegister(const void*, void**) {
  unsupported("rtDevBinaryRegister", kKernels);
  return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}
ACL_FUNC_VISIBILITY int32_t rtFunctionRegister(void*, const void*, const char*, const void*, uint32_t) {
  unsupported("rtFunctionRegister", kKernels);
  return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}
ACL_FUNC_VISIBILITY int32_t rtKernelLaunch(const void*, uint32_t, void*, uint32_t, void*, aclrtStream) {
  unsupported("rtKernelLaunch", kKernels);
  return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}
ACL_FUNC_VISIBILITY int32_t rtGetC2cCtrlAddr(uint64_t*, uint32_t*) {
  unsupported("rtGetC2cCtrlAddr", "There is no chip-to-chip interconnect on the emulator.");
  return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

// No stream is ever capturing: the status query answers truthfully, so
// torch_npu's eager checks pass; starting a capture is refused.
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream, aclmdlRICaptureStatus* status, aclmdlRI* modelRI) {
  if (status == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureGetInfo: status is null");
  *status = 0;  // ACL_MODEL_RI_CAPTURE_STATUS_NONE
  if (modelRI != nullptr) *modelRI = nullptr;
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream, aclmdlRICaptureMode) {
  return unsupported("aclmdlRICaptureBegin", kGraphs);
}
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureToModelRIBegin(aclrtStream, aclmdlRI, aclmdlRICaptureMode) {
  return unsupported("aclmdlRICaptureToModelRIBegin", kGraphs);
}
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream, aclmdlRI*) { return unsupported("aclmdlRICaptureEnd", kGraphs); }
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI, aclrtStream) { return unsupported("aclmdlRIExecuteAsync", kGraphs); }
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI) { return unsupported("aclmdlRIDestroy", kGraphs); }
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpBegin(aclrtStream) { return unsupported("aclmdlRICaptureTaskGrpBegin", kGraphs); }
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpEnd(aclrtStream, aclrtTaskGrp*) {
  return unsupported("aclmdlRICaptureTaskGrpEnd", kGraphs);
}
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream, aclrtTaskGrp) {
  return unsupported("aclmdlRICaptureTaskUpdateBegin", kGraphs);
}
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateEnd(aclmdlRI) { return unsupported("aclmdlRICaptureTaskUpdateEnd", kGraphs); }

ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void*, size_t, char*, size_t, uint64_t) {
  return unsupported("aclrtIpcMemGetExportKey", kIpc);
}
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void**, const char*, uint64_t) { return unsupported("aclrtIpcMemImportByKey", kIpc); }
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char*, int32_t*, size_t) { return unsupported("aclrtIpcMemSetImportPid", kIpc); }
ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char*) { return unsupported("aclrtIpcMemClose", kIpc); }

ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(void*, void*, int, aclrtStream) { return unsupported("aclrtLaunchCallback", kCallbacks); }
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream, void*, void*) { return unsupported("aclrtLaunchHostFunc", kCallbacks); }
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t, aclrtStream) { return unsupported("aclrtSubscribeReport", kCallbacks); }
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t, aclrtStream) { return unsupported("aclrtUnSubscribeReport", kCallbacks); }

}  // extern "C"
