// The driver seam: a table of ACL function pointers filled by dlopen/dlsym
// from either the emulator library (NPU=emu) or the CANN libraries (NPU=acl).
// Dispatch code calls ACL only through this table, so it never links either.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/driver/acl_symbols.h"

namespace npu::driver {

struct AclDriver {
#define NPU_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
#define NPU_DECLARE_OP_POINTERS(name) \
  decltype(&::name##GetWorkspaceSize) name##GetWorkspaceSize = nullptr; decltype(&::name) name = nullptr;
  NPU_ACL_RUNTIME_SYMBOLS(NPU_DECLARE_POINTER)
  NPU_ACL_TENSOR_SYMBOLS(NPU_DECLARE_POINTER)
  NPU_ACLNN_OPS(NPU_DECLARE_OP_POINTERS)
  NPU_ACL_EMU_SYMBOLS(NPU_DECLARE_POINTER)
#undef NPU_DECLARE_POINTER
#undef NPU_DECLARE_OP_POINTERS

  std::string mode;                    // "emu" or "acl"
  std::vector<std::string> libraries;  // what was loaded, for messages
};

// Loads the libraries of `mode` ("emu": the emulator library at `emu_library`;
// "acl": libascendcl.so, libnnopbase.so, libopapi.so from ASCEND_HOME_PATH's
// lib64, then the library path) and resolves every symbol. Throws with a
// clear message when a library or a required runtime symbol is missing.
// Loading twice with the same mode is a no-op; another mode is an error.
void load(const std::string& mode, const std::string& emu_library);


namespace detail {
// The registry's table once load() has filled it, null before (never reset:
// a loaded driver stays loaded). Constant-initialized, so usable at any time.
extern std::atomic<const AclDriver*> g_loaded_table;
[[noreturn]] void throw_not_loaded();
}  // namespace detail

// The loaded table; throws when load() has not succeeded. Inline: every
// launch reaches the table about ten times (each description made and
// destroyed, the op pair), an out-of-line call with a function-local static
// each time cost more than the loads themselves.
inline const AclDriver& driver() {
  const AclDriver* table = detail::g_loaded_table.load(std::memory_order_acquire);
  if (table == nullptr) detail::throw_not_loaded();
  return *table;
}

// Asked by every free of npu memory.
inline bool loaded() { return detail::g_loaded_table.load(std::memory_order_acquire) != nullptr; }

// Returns `fn`, or throws naming `symbol` and the loaded libraries when the
// driver did not provide it (a CANN version without that op, say).
template <class Fn>
Fn require(Fn fn, const char* symbol);
[[noreturn]] void throw_missing_symbol(const char* symbol);

// Whether the loaded driver resolved both functions of aclnn op `name`
// ("aclnnAdd": aclnnAddGetWorkspaceSize and aclnnAdd). Op symbols are
// optional (a CANN version may lack an op): dispatch asks before launching
// and falls back instead of failing mid-launch. False for a name that is not
// in NPU_ACLNN_OPS. A name lookup; NPU_ACLNN_PRESENT(op) is the per-op form.
bool has_op(std::string_view name);

// The loaded libraries, for messages ("libascendcl.so libnnopbase.so ...").
std::string loaded_libraries();

template <class Fn>
Fn require(Fn fn, const char* symbol) {
  if (fn == nullptr) throw_missing_symbol(symbol);
  return fn;
}

}  // namespace npu::driver

// Whether the loaded driver resolved aclnn op `op`'s pair: two pointer tests.
#define NPU_ACLNN_PRESENT(op)                                   \
  (::npu::driver::driver().op##GetWorkspaceSize != nullptr && \
   ::npu::driver::driver().op != nullptr)

// Calls an ACL function through the driver table: NPU_ACL(aclrtMalloc)(&p, n, policy).
#define NPU_ACL(name) (::npu::driver::require(::npu::driver::driver().name, #name))
