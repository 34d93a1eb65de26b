#include "hccl_entry.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "hccl_reduce.h"
#include "recent_error.h"

namespace npu::standin::hccl {
namespace {

std::mutex communicators_mutex;
std::map<HcclComm, std::unique_ptr<Communicator>> communicators;

std::string recent_acl_error() {
  const char* message = aclGetRecentErrMsg();
  return message == nullptr ? std::string() : std::string(message);
}

}  // namespace

HcclResult report(const char* function, HcclResult code, const std::string& message) {
  const std::string text = std::string(function) + " (npu-emu's HCCL): " + message;
  std::fprintf(stderr, "[npu-emu CANN stand-in] %s\n", text.c_str());
  return npu::standin::fail(code, text);
}

Communicator& communicator(HcclComm comm) {
  const std::lock_guard<std::mutex> lock(communicators_mutex);
  const auto found = communicators.find(comm);
  if (found == communicators.end()) {
    throw HcclError(HCCL_E_PTR, "comm is not a live communicator of this process (destroyed, or never made by "
                                "HcclCommInitRootInfo)");
  }
  return *found->second;
}

HcclComm register_communicator(std::unique_ptr<Communicator> owned) {
  const std::lock_guard<std::mutex> lock(communicators_mutex);
  const HcclComm handle = owned.get();
  communicators.emplace(handle, std::move(owned));
  return handle;
}

void destroy_communicator(HcclComm comm) {
  std::unique_ptr<Communicator> doomed;
  {
    const std::lock_guard<std::mutex> lock(communicators_mutex);
    const auto found = communicators.find(comm);
    if (found == communicators.end()) throw HcclError(HCCL_E_PTR, "comm is not a live communicator of this process");
    doomed = std::move(found->second);
    communicators.erase(found);
  }
  // Closing its sockets here tells the peers this rank is gone.
}

void wait_for_stream(aclrtStream stream) {
  const aclError status = aclrtSynchronizeStream(stream);
  if (status != ACL_SUCCESS) {
    throw HcclError(HCCL_E_RUNTIME, "aclrtSynchronizeStream failed with " + std::to_string(status) +
                                        " (an earlier task on the stream failed)");
  }
}

std::vector<std::byte> from_device(const void* device, uint64_t bytes) {
  std::vector<std::byte> host(bytes);
  if (bytes == 0) return host;
  const aclError status = aclrtMemcpy(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  if (status != ACL_SUCCESS) {
    throw HcclError(HCCL_E_RUNTIME, "reading " + std::to_string(bytes) + " bytes of device memory failed with " +
                                        std::to_string(status) + " (" + recent_acl_error() + ")");
  }
  return host;
}

void to_device(void* device, const std::vector<std::byte>& host, uint64_t offset, uint64_t bytes) {
  if (bytes == 0) return;
  const aclError status = aclrtMemcpy(device, bytes, host.data() + offset, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  if (status != ACL_SUCCESS) {
    throw HcclError(HCCL_E_RUNTIME, "writing " + std::to_string(bytes) + " bytes of device memory failed with " +
                                        std::to_string(status) + " (" + recent_acl_error() + ")");
  }
}

uint64_t byte_count(uint64_t count, HcclDataType type) { return count * element_size(type); }

void require_pointer(const void* pointer, uint64_t bytes, const char* argument) {
  if (pointer == nullptr && bytes > 0) throw HcclError(HCCL_E_PTR, std::string(argument) + " is null");
}

}  // namespace npu::standin::hccl
