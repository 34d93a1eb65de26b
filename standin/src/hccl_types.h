// HCCL's public C types as torch_npu 2.13 passes them (hccl_types.h of CANN's
// public headers): result codes, reduction operations, data types, the root
// info blob, the communicator configuration and the send/recv items. Written
// for the stand-in from those facts; numeric values and layouts follow CANN.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int HcclResult;
enum : int {
  HCCL_SUCCESS = 0,
  HCCL_E_PARA = 1,
  HCCL_E_PTR = 2,
  HCCL_E_INTERNAL = 4,
  HCCL_E_NOT_SUPPORT = 5,
  HCCL_E_TIMEOUT = 9,
  HCCL_E_TCP_CONNECT = 11,
  HCCL_E_TCP_TRANSFER = 13,
  HCCL_E_RUNTIME = 15,
  HCCL_E_REMOTE = 21,
};

typedef void* HcclComm;

typedef enum {
  HCCL_REDUCE_SUM = 0,
  HCCL_REDUCE_PROD = 1,
  HCCL_REDUCE_MAX = 2,
  HCCL_REDUCE_MIN = 3,
} HcclReduceOp;

typedef enum {
  HCCL_DATA_TYPE_INT8 = 0,
  HCCL_DATA_TYPE_INT16 = 1,
  HCCL_DATA_TYPE_INT32 = 2,
  HCCL_DATA_TYPE_FP16 = 3,
  HCCL_DATA_TYPE_FP32 = 4,
  HCCL_DATA_TYPE_INT64 = 5,
  HCCL_DATA_TYPE_UINT64 = 6,
  HCCL_DATA_TYPE_UINT8 = 7,
  HCCL_DATA_TYPE_UINT16 = 8,
  HCCL_DATA_TYPE_UINT32 = 9,
  HCCL_DATA_TYPE_FP64 = 10,
  HCCL_DATA_TYPE_BFP16 = 11,
} HcclDataType;

// The root info is an opaque blob of this size that the caller moves between
// ranks (torch_npu: through its c10d store).
#define NPU_EMU_HCCL_ROOT_INFO_BYTES 4108
typedef struct HcclRootInfoDef {
  char internal[NPU_EMU_HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

// The configuration torch_npu fills with CANN's HcclCommConfigInit: a header
// (size, magic word, version, reserved) followed by the fields. The stand-in
// reads only the communicator name, and only when the header's size covers it.
#define NPU_EMU_HCCL_COMM_NAME_MAX 128
typedef struct HcclCommConfigDef {
  char reserved[24];
  uint32_t hcclBufferSize;
  uint32_t hcclDeterministic;
  char hcclCommName[NPU_EMU_HCCL_COMM_NAME_MAX];
} HcclCommConfig;

// Capability numbers (HcclCommConfigCapability): a field is supported when its
// number is below what HcclGetCommConfigCapability returns.
#define NPU_EMU_HCCL_COMM_CONFIG_COMM_NAME 2

typedef enum {
  HCCL_SEND = 0,
  HCCL_RECV = 1,
} HcclSendRecvType;

typedef struct HcclSendRecvItemDef {
  HcclSendRecvType sendRecvType;
  void* buf;
  uint64_t count;
  HcclDataType dataType;
  uint32_t remoteRank;
} HcclSendRecvItem;

}  // extern "C"
