// Devices as PyTorch sees them: count, the current device, initialization.
#pragma once

#include <c10/core/Device.h>

namespace npu {

// Visible device count; 0 when the driver is not loaded or reports failure.
c10::DeviceIndex device_count() noexcept;

// Throws naming the index and the count when `index` is not a visible device.
void check_device_index(c10::DeviceIndex index);

// Both throw the bad-fork error (see check_not_forked) in a forked child.
c10::DeviceIndex current_device();
void set_device(c10::DeviceIndex index);
struct ThreadState;
// current_device() of the calling thread's `mine` (thread_state()), for
// callers that read more of it.
c10::DeviceIndex current_device(ThreadState& mine);

// True in a process forked after this one's parent had initialized npu (set
// a device): the runtime's threads did not survive the fork, so the child
// must not touch npu. Memory of the parent's tensors is left alone there.
bool in_bad_fork() noexcept;
// Throws RuntimeError "Cannot re-initialize NPU in forked subprocess ..."
// (torch.cuda's wording) in a bad fork.
void check_not_forked();

// Blocks until all work queued on `index` has run; throws its pending errors.
void synchronize_device(c10::DeviceIndex index);

}  // namespace npu
