// npu-emu extensions to the ACL API: knobs that only an emulator can offer.
// Dispatch code resolves these symbols optionally; real CANN does not have them.
#pragma once

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Adds this many microseconds of latency to every task a stream runs, so tests
// can observe asynchrony without sleeping. Also set by NPU_EMU_KERNEL_DELAY_US.
ACL_FUNC_VISIBILITY aclError aclemuSetKernelDelayUs(uint64_t delayUs);
ACL_FUNC_VISIBILITY uint64_t aclemuGetKernelDelayUs(void);

#ifdef __cplusplus
}
#endif
