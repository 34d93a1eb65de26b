// Where the stand-in vendor libraries send each call: the same-named symbol
// of the emulator library, so the NPU=acl path of the dispatch layer can be
// exercised end to end without Ascend hardware.
//
// The target is the library named by NPU_STANDIN_TARGET, or else the
// emulator library this build produced (its path is baked in at build time).
// It is loaded on the first forwarded call (RTLD_NOW | RTLD_LOCAL) and never
// unloaded: the emulator owns stream worker threads. A target that cannot be
// loaded, or that lacks a symbol, aborts the process with a message naming
// it: a stand-in that silently returned made-up results would hide exactly
// the mismatches its tests exist to find.
#pragma once

namespace npu::standin {

// The address of `symbol` in the target library; never null.
void* resolve(const char* symbol);

}  // namespace npu::standin
