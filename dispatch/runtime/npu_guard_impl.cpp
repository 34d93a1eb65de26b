// The DeviceGuardImplInterface for PrivateUse1: how PyTorch switches devices
// and streams and uses events on npu (device guards, torch.Stream/Event,
// torch.accelerator, autograd's stream handling all go through it).
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include "acl/acl_rt.h"
#include "dispatch/driver/acl_driver.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_stream.h"

namespace npu {
namespace {

constexpr auto kNpu = c10::DeviceType::PrivateUse1;

class NpuGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override { return kNpu; }

  c10::Device exchangeDevice(c10::Device d) const override {
    const c10::Device old = getDevice();
    if (d.index() != old.index()) set_device(d.index());
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(kNpu, current_device()); }
  void setDevice(c10::Device d) const override { set_device(d.index()); }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    try {
      set_device(d.index());
    } catch (...) {  // noexcept by contract: a guard restoring a device must not throw
    }
  }

  c10::Stream getStream(c10::Device d) const override { return current_stream(d.index()); }
  c10::Stream getDefaultStream(c10::Device d) const override { return default_stream(d.index()); }
  c10::Stream getNewStream(c10::Device d, int priority) const override { return pool_stream(d.index(), priority); }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool) const override { return pool_stream(d.index(), 0); }
  c10::Stream exchangeStream(c10::Stream s) const override {
    // torch.accelerator.set_stream hands over whatever stream it is given.
    TORCH_CHECK(s.device_type() == kNpu, "set_stream: expected an npu stream, got a stream of device ", s.device(),
                "; use torch.npu.Stream() or torch.Stream(device='npu')");
    return exchange_stream(s);
  }
  void* getStreamNativeHandle(const c10::Stream s) const override { return acl_stream(s); }

  c10::DeviceIndex deviceCount() const noexcept override { return device_count(); }

  bool queryStream(const c10::Stream& s) const override { return query_stream(s); }
  void synchronizeStream(const c10::Stream& s) const override { synchronize_stream(s); }
  void synchronizeDevice(const c10::DeviceIndex index) const override { synchronize_device(index); }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag flag) const override {
    // DeviceIndex is an int8_t: printed as it is, it would be a character.
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "Event.record: the event belongs to npu:",
                static_cast<int>(device_index), " (where it was first recorded or created) but the stream is on npu:",
                static_cast<int>(stream.device_index()),
                "; an event records streams of its own device only: use a new event for npu:",
                static_cast<int>(stream.device_index()));
    if (*event == nullptr) {
      // PyTorch's default event is cheap (no timing); BACKEND_DEFAULT asks for timing.
      const uint32_t flags = flag == c10::EventFlag::BACKEND_DEFAULT ? ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC
                                                                      : ACL_EVENT_SYNC;
      NPU_CHECK(aclrtCreateEventWithFlag, event, flags);
    }
    NPU_CHECK(aclrtRecordEvent, *event, acl_stream(stream));
  }

  void block(void* event, const c10::Stream& stream) const override {
    if (event == nullptr) return;  // never recorded: nothing to wait for
    NPU_CHECK(aclrtStreamWaitEvent, acl_stream(stream), event);
  }

  bool queryEvent(void* event) const override {
    if (event == nullptr) return true;
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    NPU_CHECK(aclrtQueryEventStatus, event, &status);
    return status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
  }

  void synchronizeEvent(void* event) const override {
    if (event == nullptr) return;
    NPU_CHECK(aclrtSynchronizeEvent, event);
  }

  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start != nullptr && end != nullptr,
                "elapsed_time: both events must have been recorded before computing the elapsed time");
    float ms = 0;
    NPU_CHECK(aclrtEventElapsedTime, &ms, start, end);
    return ms;
  }

  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    if (event != nullptr && driver::loaded()) driver::driver().aclrtDestroyEvent(event);
  }

  void recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const override;
};

}  // namespace

// Defined by the allocator (it owns the record_stream bookkeeping).
void record_stream_for_allocator(const c10::DataPtr& data_ptr, c10::Stream stream);

void NpuGuardImpl::recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const {
  record_stream_for_allocator(data_ptr, stream);
}

C10_REGISTER_GUARD_IMPL(PrivateUse1, NpuGuardImpl);

}  // namespace npu
