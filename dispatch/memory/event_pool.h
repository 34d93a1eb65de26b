// ACL events for the allocator's stream bookkeeping (record_stream): a freed
// block used on other streams may be reused only once an event recorded on
// each of those streams has completed. Events are recycled, since frees are
// frequent and event creation is not free on real hardware.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <c10/core/Device.h>

#include "acl/acl_base.h"

namespace npu::memory {

// Owns one ACL event; destroying it destroys the event (if the driver is
// still loaded: at process exit it may be gone).
class AclEvent {
 public:
  AclEvent();  // on the current device; throws c10::Error when aclrtCreateEvent fails
  ~AclEvent();
  AclEvent(const AclEvent&) = delete;
  AclEvent& operator=(const AclEvent&) = delete;

  // Marks the point after all work queued so far on `stream`.
  void record(aclrtStream stream);
  // True once the work before the recorded point has run.
  bool query() const;
  void synchronize() const;
  // The device that was current when the event was created.
  c10::DeviceIndex device() const { return device_; }

 private:
  aclrtEvent handle_ = nullptr;
  c10::DeviceIndex device_;
};

// Recycles events of one device; the caller holds that device current when
// it asks for a new one (ACL events belong to the current device).
class EventPool {
 public:
  std::unique_ptr<AclEvent> acquire();
  void release(std::unique_ptr<AclEvent> event);

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<AclEvent>> free_;
};

}  // namespace npu::memory
