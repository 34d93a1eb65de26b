#include "emulator_link.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace npu::standin {

namespace {

// The already loaded emulator library (a DT_NEEDED dependency of every
// stand-in library, so RTLD_NOLOAD always finds it).
void* emulator_handle() {
  static void* const handle = [] {
    void* h = dlopen("libnpu_emu_acl.so", RTLD_LAZY | RTLD_NOLOAD);
    if (h == nullptr) throw std::runtime_error(std::string("npu-emu CANN stand-in: the emulator library is not loaded: ") + dlerror());
    return h;
  }();
  return handle;
}

}  // namespace

void* emulator_symbol(const char* name) {
  void* symbol = dlsym(emulator_handle(), name);
  if (symbol == nullptr) throw std::runtime_error(std::string("npu-emu CANN stand-in: the emulator library lacks ") + name);
  return symbol;
}

}  // namespace npu::standin
