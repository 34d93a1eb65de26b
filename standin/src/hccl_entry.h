// What every C entry of the stand-in HCCL shares: turning exceptions into
// HcclResult codes with a message torch_npu shows, finding the communicator
// behind a handle, and moving buffers between the emulated device and host.
//
// Ordering with the stream: a collective first synchronizes the stream it is
// given, then exchanges and writes its results with synchronous copies before
// returning. So it reads its inputs only after all prior work on that stream
// (including the event waits torch_npu puts there for the compute stream),
// and work enqueued after it (torch_npu's end event) completes after it. The
// emulator's public ACL API has no host-callback task (aclrtLaunchCallback is
// refused), which would have let the call return before the exchange; the
// cost of synchronizing is that the calling thread (torch_npu's task-queue
// thread) waits for the peers, as a blocking collective does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "hccl_comm.h"
#include "hccl_error.h"
#include "hccl_types.h"

namespace npu::standin::hccl {

// Runs `body`; an HcclError becomes its code, recorded (with the function's
// name) as the recent error torch_npu appends to its exception and printed to
// stderr, since a failure inside torch_npu's task queue may surface later.
template <typename F>
HcclResult guarded(const char* function, F&& body);

HcclResult report(const char* function, HcclResult code, const std::string& message);

// The communicator behind `comm`; throws naming `function` for an unknown one.
Communicator& communicator(HcclComm comm);
HcclComm register_communicator(std::unique_ptr<Communicator> owned);
void destroy_communicator(HcclComm comm);

void wait_for_stream(aclrtStream stream);
std::vector<std::byte> from_device(const void* device, uint64_t bytes);
void to_device(void* device, const std::vector<std::byte>& host, uint64_t offset, uint64_t bytes);
uint64_t byte_count(uint64_t count, HcclDataType type);
void require_pointer(const void* pointer, uint64_t bytes, const char* argument);

template <typename F>
HcclResult guarded(const char* function, F&& body) {
  try {
    body();
    return HCCL_SUCCESS;
  } catch (const HcclError& error) {
    return report(function, error.code(), error.what());
  } catch (const std::exception& error) {
    return report(function, HCCL_E_INTERNAL, error.what());
  }
}

}  // namespace npu::standin::hccl
