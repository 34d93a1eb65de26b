// Emulator-only functions that only a debugging tool needs (the task
// recorder, the format-conversion hook: include/acl/acl_emu_profiling.h),
// looked up in the loaded ACL libraries on demand instead of through the
// driver table, which every launch path includes.
#pragma once

namespace npu::driver {

// The symbol `name` of the loaded ACL libraries, or null (real CANN, or the
// driver not loaded yet).
void* optional_symbol(const char* name);

// `optional_symbol(name)` as a pointer to the function `Fn` (declared by
// acl_emu_profiling.h): `optional_function<decltype(&aclemuTaskRecorderOpen)>("aclemuTaskRecorderOpen")`.
template <class Fn>
Fn optional_function(const char* name) {
  return reinterpret_cast<Fn>(optional_symbol(name));
}

}  // namespace npu::driver
