// A communicator of the stand-in HCCL: this process's rank among `size`
// ranks, with one loopback TCP connection to every other rank (a full mesh,
// built at init through the root's rendezvous socket named in the root
// info). Messages between two ranks travel in call order on their
// connection, each behind a header naming the operation and its size, so
// ranks that disagree get an error instead of mixed-up data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "hccl_error.h"
#include "hccl_socket.h"
#include "hccl_types.h"

namespace npu::standin::hccl {

// Fills `info` with a fresh rendezvous point owned by this process.
void make_root_info(HcclRootInfo& info);

// One message: to or from `peer`, `bytes` long, tagged with the operation.
struct Outgoing {
  uint32_t peer;
  const std::byte* data;
  uint64_t bytes;
};
struct Incoming {
  uint32_t peer;
  std::byte* data;
  uint64_t bytes;
};

class Communicator {
 public:
  // Joins the communicator described by `root` as `rank` of `size`.
  Communicator(uint32_t size, const HcclRootInfo& root, uint32_t rank, std::string name);

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }
  const std::string& name() const { return name_; }

  // Sends and receives every message at once (so two ranks sending each other
  // large buffers cannot block on full socket buffers), within the
  // HCCL_EXEC_TIMEOUT deadline. `operation` names the collective in headers
  // and errors. After a failure the communicator stays broken: every later
  // call fails with the first error rather than reading a desynchronized stream.
  void exchange(const char* operation, const std::vector<Outgoing>& outgoing, const std::vector<Incoming>& incoming);

  // The first failure, HCCL_SUCCESS if none (HcclGetCommAsyncError).
  HcclResult async_error() const;
  void fail(HcclResult code, const std::string& message);

 private:
  void build_mesh(const HcclRootInfo& root);
  void require_healthy() const;

  uint32_t size_;
  uint32_t rank_;
  std::string name_;
  std::vector<Socket> peers_;  // peers_[rank_] stays invalid
  std::mutex exchange_mutex_;  // one exchange at a time
  // Separate, so that torch_npu's watchdog polling the error never waits
  // for an exchange in progress.
  mutable std::mutex error_mutex_;
  HcclResult error_ = HCCL_SUCCESS;
  std::string error_message_;
};

}  // namespace npu::standin::hccl
