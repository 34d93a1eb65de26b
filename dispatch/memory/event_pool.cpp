#include "dispatch/memory/event_pool.h"

#include "acl/acl_rt.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"

namespace npu::memory {

AclEvent::AclEvent() : device_(current_device()) { NPU_CHECK(aclrtCreateEvent, &handle_); }

AclEvent::~AclEvent() {
  if (handle_ != nullptr && driver::loaded()) driver::driver().aclrtDestroyEvent(handle_);
}

void AclEvent::record(aclrtStream stream) { NPU_CHECK(aclrtRecordEvent, handle_, stream); }

bool AclEvent::query() const {
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  NPU_CHECK(aclrtQueryEventStatus, handle_, &status);
  return status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
}

void AclEvent::synchronize() const { NPU_CHECK(aclrtSynchronizeEvent, handle_); }

std::unique_ptr<AclEvent> EventPool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      auto event = std::move(free_.back());
      free_.pop_back();
      return event;
    }
  }
  return std::make_unique<AclEvent>();
}

void EventPool::release(std::unique_ptr<AclEvent> event) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(event));
}

}  // namespace npu::memory
