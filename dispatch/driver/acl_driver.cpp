#include "dispatch/driver/acl_driver.h"
#include "dispatch/driver/optional_symbol.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <atomic>
#include <mutex>
#include <stdexcept>

namespace npu::driver {

namespace {

// Closes a library only on the failure paths of load(). A loaded driver's
// libraries are never closed: see Registry.
struct DlCloser {
  void operator()(void* h) const {
    if (h != nullptr) dlclose(h);
  }
};
using LibraryHandle = std::unique_ptr<void, DlCloser>;

// The loaded libraries and the table: the process's single driver registry.
struct Registry {
  std::mutex mutex;
  std::vector<void*> handles;  // never dlclose'd
  AclDriver table;
  std::atomic<bool> ready{false};
};

// Never destroyed, and the libraries it loaded are never closed, on purpose.
// Unloading the emulator at exit also unloads oneTBB, whose worker threads
// may still be running (a crash in unmapped code); and tensors, events and
// the allocator's cache are released during static destruction, after a
// static registry would be gone, through this table.
Registry& registry() {
  static Registry& r = *new Registry();
  return r;
}

LibraryHandle open_library(const std::string& path) {
  // RTLD_GLOBAL: the CANN libraries resolve each other's symbols.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  return LibraryHandle(h);
}

std::vector<std::string> cann_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("ASCEND_HOME_PATH"); home != nullptr && *home != '\0') {
    dirs.push_back(std::string(home) + "/lib64");
    dirs.push_back(std::string(home) + "/lib");
  }
  dirs.emplace_back("");  // empty: let dlopen search the library path
  return dirs;
}

LibraryHandle open_cann_library(const std::string& file, std::vector<std::string>& loaded) {
  for (const auto& dir : cann_search_dirs()) {
    const std::string path = dir.empty() ? file : dir + "/" + file;
    if (!dir.empty() && !std::filesystem::exists(path)) continue;
    if (auto h = open_library(path)) {
      loaded.push_back(path);
      return h;
    }
  }
  const char* home = std::getenv("ASCEND_HOME_PATH");
  throw std::runtime_error(
      "NPU=acl: the CANN runtime was not found: cannot load " + file + " (searched " +
      (home ? std::string("ASCEND_HOME_PATH=") + home + "/lib64 and " : std::string("")) +
      "the library path). Install CANN and source its set_env.sh, or run on the emulator with NPU=emu.");
}

void* find_symbol(const std::vector<LibraryHandle>& handles, const char* name) {
  for (const auto& h : handles) {
    if (void* p = dlsym(h.get(), name)) return p;
  }
  return nullptr;
}

template <class Fn>
void resolve(const std::vector<LibraryHandle>& handles, Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(find_symbol(handles, name));
}

}  // namespace

void load(const std::string& mode, const std::string& emu_library) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.ready) {
    if (r.table.mode != mode) {
      throw std::runtime_error("the NPU driver is already loaded in mode '" + r.table.mode +
                               "'; it cannot switch to '" + mode + "' in the same process");
    }
    return;
  }
  std::vector<LibraryHandle> handles;
  AclDriver table;
  table.mode = mode;
  if (mode == "emu") {
    auto h = open_library(emu_library);
    if (!h) throw std::runtime_error("NPU=emu: cannot load the emulator library " + emu_library + ": " + dlerror());
    table.libraries.push_back(emu_library);
    handles.push_back(std::move(h));
  } else if (mode == "acl") {
    for (const char* file : {"libascendcl.so", "libnnopbase.so", "libopapi.so"}) {
      handles.push_back(open_cann_library(file, table.libraries));
    }
  } else {
    throw std::invalid_argument("unknown NPU driver mode '" + mode + "'; allowed: emu, acl");
  }

#define NPU_RESOLVE(name) resolve(handles, table.name, #name);
#define NPU_RESOLVE_OP(name)                                                  \
  resolve(handles, table.name##GetWorkspaceSize, #name "GetWorkspaceSize"); \
  resolve(handles, table.name, #name);
  NPU_ACL_RUNTIME_SYMBOLS(NPU_RESOLVE)
  NPU_ACL_TENSOR_SYMBOLS(NPU_RESOLVE)
  NPU_ACLNN_OPS(NPU_RESOLVE_OP)
  NPU_ACL_EMU_SYMBOLS(NPU_RESOLVE)
#undef NPU_RESOLVE
#undef NPU_RESOLVE_OP

  // The runtime and tensor APIs are needed by everything: fail now, by name.
  std::string missing;
#define NPU_CHECK_PRESENT(name) \
  if (table.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
  NPU_ACL_RUNTIME_SYMBOLS(NPU_CHECK_PRESENT)
  NPU_ACL_TENSOR_SYMBOLS(NPU_CHECK_PRESENT)
#undef NPU_CHECK_PRESENT
  if (!missing.empty()) {
    std::string libs;
    for (const auto& l : table.libraries) libs += " " + l;
    throw std::runtime_error("the ACL libraries (" + libs + " ) do not export required symbol(s): " + missing);
  }
  for (auto& h : handles) r.handles.push_back(h.release());
  r.table = std::move(table);
  r.ready = true;
  detail::g_loaded_table.store(&r.table, std::memory_order_release);
}


namespace detail {

std::atomic<const AclDriver*> g_loaded_table{nullptr};

void throw_not_loaded() {
  throw std::runtime_error("the NPU driver is not loaded: import npu_emu (or set NPU=emu) before using npu");
}

}  // namespace detail

std::string loaded_libraries() {
  std::string libs;
  for (const auto& l : registry().table.libraries) libs += (libs.empty() ? "" : " ") + l;
  return libs;
}

[[noreturn]] void throw_missing_symbol(const char* symbol) {
  throw std::runtime_error(std::string("the ACL driver has no symbol '") + symbol + "' (loaded: " +
                           loaded_libraries() + "); this op is not available with this library set");
}

bool has_op(std::string_view name) {
  const AclDriver& d = driver();
#define NPU_HAS_OP(op) \
  if (name == #op) return d.op##GetWorkspaceSize != nullptr && d.op != nullptr;
  NPU_ACLNN_OPS(NPU_HAS_OP)
#undef NPU_HAS_OP
  return false;
}

void* optional_symbol(const char* name) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (void* h : r.handles) {
    if (void* p = dlsym(h, name)) return p;
  }
  return nullptr;
}

}  // namespace npu::driver
