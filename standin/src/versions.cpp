// Version and capability queries. The stand-in reports one CANN version for
// every package (NPU_EMU_CANN_VERSION, set by standin/CMakeLists.txt, which
// also writes it into the layout's version file): torch_npu picks its routes
// from it, and from 9.1.0 on format casts and ops go through aclnn, the
// interface the emulator implements.
#include <cstdio>
#include <cstring>
#include <string>

#include "recent_error.h"
#include "standin_types.h"

#ifndef NPU_EMU_CANN_VERSION
#error "NPU_EMU_CANN_VERSION must be defined by the build"
#endif

namespace {

constexpr const char* kVersion = NPU_EMU_CANN_VERSION;

// The dot-separated part `index` of the version ("0" when absent, as CANN
// fills parts it does not know).
std::string version_part(int index) {
  std::string text = kVersion;
  for (int i = 0; i < index; ++i) {
    const auto dot = text.find('.');
    if (dot == std::string::npos) return "0";
    text = text.substr(dot + 1);
  }
  return text.substr(0, text.find('.'));
}

void copy_text(char* destination, size_t capacity, const std::string& text) {
  std::snprintf(destination, capacity, "%s", text.c_str());
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion* version) {
  if (version == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: version is null");
  if (name < ACL_PKG_NAME_CANN || name > ACL_PKG_NAME_DRIVER) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: unknown package name " + std::to_string(name));
  }
  std::memset(version, 0, sizeof *version);
  copy_text(version->version, sizeof version->version, kVersion);
  copy_text(version->majorVersion, sizeof version->majorVersion, version_part(0));
  copy_text(version->minorVersion, sizeof version->minorVersion, version_part(1));
  copy_text(version->releaseVersion, sizeof version->releaseVersion, version_part(2));
  copy_text(version->patchVersion, sizeof version->patchVersion, version_part(3));
  return ACL_SUCCESS;
}

// The per-component query of newer CANN (package names such as "runtime",
// "opbase"): every component of the stand-in has the one version.
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char* pkgName, char* versionStr) {
  if (pkgName == nullptr || versionStr == nullptr) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr: pkgName or versionStr is null");
  }
  copy_text(versionStr, ACL_PKG_VERSION_MAX_SIZE, kVersion);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetVersion: an output is null");
  }
  *majorVersion = std::stoi(version_part(0));
  *minorVersion = std::stoi(version_part(1));
  *patchVersion = std::stoi(version_part(2));
  return ACL_SUCCESS;
}

// The emulator computes in IEEE arithmetic (inf/nan propagate), supports
// bfloat16 and compiles nothing at run time.
ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  if (value == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: value is null");
  switch (cannAttr) {
    case ACL_CANN_ATTR_INF_NAN: *value = 1; return ACL_SUCCESS;
    case ACL_CANN_ATTR_BF16: *value = 1; return ACL_SUCCESS;
    case ACL_CANN_ATTR_JIT_COMPILE: *value = 0; return ACL_SUCCESS;
    case ACL_CANN_ATTR_UNDEFINED: break;
  }
  return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: unknown attribute " + std::to_string(cannAttr));
}

ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  static const aclCannAttr supported[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16};
  if (cannAttrList == nullptr || num == nullptr) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList: an output is null");
  }
  *cannAttrList = supported;
  *num = sizeof supported / sizeof supported[0];
  return ACL_SUCCESS;
}

}  // extern "C"
