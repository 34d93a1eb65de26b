// The stand-in HCCL's point-to-point calls: HcclSend/HcclRecv, batches of them
// (HcclBatchSendRecv), and HcclGroupStart/End, between which sends and
// receives wait and then run together (torch_npu groups the sends and
// receives of gather, scatter and all-to-all lists this way; running them one
// by one could block two ranks sending each other large buffers).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "hccl_entry.h"

using npu::standin::hccl::byte_count;
using npu::standin::hccl::Communicator;
using npu::standin::hccl::communicator;
using npu::standin::hccl::from_device;
using npu::standin::hccl::guarded;
using npu::standin::hccl::HcclError;
using npu::standin::hccl::Incoming;
using npu::standin::hccl::Outgoing;
using npu::standin::hccl::require_pointer;
using npu::standin::hccl::to_device;
using npu::standin::hccl::wait_for_stream;

namespace {

struct PointToPoint {
  bool send;
  void* buffer;
  uint64_t bytes;
  uint32_t peer;
  HcclComm comm;
  aclrtStream stream;
};

// The calls between HcclGroupStart and HcclGroupEnd of this thread (torch_npu
// makes them all from its task-queue thread); depth counts nested groups.
thread_local int group_depth = 0;
thread_local std::vector<PointToPoint> grouped;

PointToPoint describe(bool send, void* buffer, uint64_t count, HcclDataType type, uint32_t peer, HcclComm comm,
                      aclrtStream stream) {
  const Communicator& group = communicator(comm);
  if (peer >= group.size() || peer == group.rank()) {
    throw HcclError(HCCL_E_PARA, std::string(send ? "destRank " : "srcRank ") + std::to_string(peer) +
                                     " is not another rank of the communicator (0 .. " +
                                     std::to_string(group.size() - 1) + ", this rank is " +
                                     std::to_string(group.rank()) + ")");
  }
  const uint64_t bytes = byte_count(count, type);
  require_pointer(buffer, bytes, send ? "sendBuf" : "recvBuf");
  return {send, buffer, bytes, peer, comm, stream};
}

// Runs the calls together, one exchange per communicator, in the order the
// communicators first appear (the same on every rank that groups the same calls).
void run(const char* operation, const std::vector<PointToPoint>& calls) {
  std::vector<HcclComm> order;
  for (const PointToPoint& call : calls) {
    if (std::find(order.begin(), order.end(), call.comm) == order.end()) order.push_back(call.comm);
    wait_for_stream(call.stream);
  }
  for (const HcclComm comm : order) {
    Communicator& group = communicator(comm);
    std::vector<std::vector<std::byte>> staged;
    std::vector<Outgoing> outgoing;
    std::vector<Incoming> incoming;
    std::vector<const PointToPoint*> receivers;
    staged.reserve(calls.size());
    for (const PointToPoint& call : calls) {
      if (call.comm != comm) continue;
      if (call.send) {
        staged.push_back(from_device(call.buffer, call.bytes));
        outgoing.push_back({call.peer, staged.back().data(), call.bytes});
      } else {
        staged.emplace_back(call.bytes);
        incoming.push_back({call.peer, staged.back().data(), call.bytes});
        receivers.push_back(&call);
      }
    }
    group.exchange(operation, outgoing, incoming);
    for (size_t i = 0; i < receivers.size(); ++i) {
      std::vector<std::byte> data(incoming[i].data, incoming[i].data + incoming[i].bytes);
      to_device(receivers[i]->buffer, data, 0, data.size());
    }
  }
}

HcclResult point_to_point(const char* function, bool send, void* buffer, uint64_t count, HcclDataType type,
                          uint32_t peer, HcclComm comm, aclrtStream stream) {
  return guarded(function, [&] {
    const PointToPoint call = describe(send, buffer, count, type, peer, comm, stream);
    if (group_depth > 0) {
      grouped.push_back(call);
    } else {
      run("HcclSendRecv", {call});
    }
  });
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                        HcclComm comm, aclrtStream stream) {
  return point_to_point("HcclSend", true, sendBuf, count, dataType, destRank, comm, stream);
}

ACL_FUNC_VISIBILITY HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                        HcclComm comm, aclrtStream stream) {
  return point_to_point("HcclRecv", false, recvBuf, count, dataType, srcRank, comm, stream);
}

ACL_FUNC_VISIBILITY HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                                 aclrtStream stream) {
  return guarded("HcclBatchSendRecv", [&] {
    if (sendRecvInfo == nullptr && itemNum > 0) throw HcclError(HCCL_E_PTR, "sendRecvInfo is null");
    std::vector<PointToPoint> calls;
    for (uint32_t i = 0; i < itemNum; ++i) {
      const HcclSendRecvItem& item = sendRecvInfo[i];
      if (item.sendRecvType != HCCL_SEND && item.sendRecvType != HCCL_RECV) {
        throw HcclError(HCCL_E_PARA, "sendRecvInfo[" + std::to_string(i) + "].sendRecvType is " +
                                         std::to_string(static_cast<int>(item.sendRecvType)) +
                                         "; allowed: HCCL_SEND 0, HCCL_RECV 1");
      }
      calls.push_back(describe(item.sendRecvType == HCCL_SEND, item.buf, item.count, item.dataType, item.remoteRank,
                               comm, stream));
    }
    run("HcclSendRecv", calls);
  });
}

ACL_FUNC_VISIBILITY HcclResult HcclGroupStart() {
  ++group_depth;
  return HCCL_SUCCESS;
}

ACL_FUNC_VISIBILITY HcclResult HcclGroupEnd() {
  return guarded("HcclGroupEnd", [&] {
    if (group_depth == 0) throw HcclError(HCCL_E_PARA, "HcclGroupEnd without HcclGroupStart");
    if (--group_depth > 0) return;
    const std::vector<PointToPoint> calls = std::move(grouped);
    grouped.clear();
    if (!calls.empty()) run("HcclSendRecv", calls);
  });
}

}  // extern "C"
