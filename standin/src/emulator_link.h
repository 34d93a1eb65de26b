// The stand-in's view of the emulator library (libnpu_emu_acl.so), which
// every stand-in library depends on: most ACL functions torch_npu binds are
// the emulator's own exports, found through that dependency. The few the
// stand-in wraps (aclGetRecentErrMsg) reach the emulator's definition here.
#pragma once

namespace npu::standin {

// The emulator's definition of `name`, never the stand-in's own wrapper of
// the same name; throws std::runtime_error when the emulator lacks it.
void* emulator_symbol(const char* name);

}  // namespace npu::standin
