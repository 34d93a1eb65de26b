#include "target_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef NPU_STANDIN_DEFAULT_TARGET
#error "NPU_STANDIN_DEFAULT_TARGET (the emulator library's path) must be defined by the build"
#endif

namespace npu::standin {

namespace {

struct Target {
  std::string path;
  void* handle = nullptr;
};

Target open_target() {
  Target t;
  const char* env = std::getenv("NPU_STANDIN_TARGET");
  t.path = (env != nullptr && *env != '\0') ? env : NPU_STANDIN_DEFAULT_TARGET;
  t.handle = dlopen(t.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (t.handle == nullptr) {
    std::fprintf(stderr, "npu-emu vendor stand-in: cannot load the target library %s: %s\n", t.path.c_str(),
                 dlerror());
    std::abort();
  }
  return t;
}

const Target& target() {
  static const Target t = open_target();  // thread-safe, once per library
  return t;
}

}  // namespace

void* resolve(const char* symbol) {
  const Target& t = target();
  dlerror();
  void* address = dlsym(t.handle, symbol);
  if (address == nullptr) {
    std::fprintf(stderr, "npu-emu vendor stand-in: the target library %s has no symbol %s\n", t.path.c_str(), symbol);
    std::abort();
  }
  return address;
}

}  // namespace npu::standin
