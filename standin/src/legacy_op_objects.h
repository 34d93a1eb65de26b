// The legacy operator interface's objects (see legacy_op_objects.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "standin_types.h"

struct aclTensorDesc {
  aclDataType data_type;
  std::vector<int64_t> dims;
  aclFormat format;
  std::string name;
  aclMemType placement = ACL_MEMTYPE_DEVICE;
};

struct aclDataBuffer {
  void* data;
  size_t size;
};

// Values are kept as text: nothing executes them, they only describe the call.
struct aclopAttr {
  std::map<std::string, std::string> values;
};
