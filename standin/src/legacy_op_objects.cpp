// The objects of CANN's legacy operator interface: tensor descriptions, data
// buffers and attribute sets. torch_npu builds them on the calling thread
// before it queues an aclop operator, which the stand-in refuses there
// (aclop_call_site.h); they are real objects so that refusal is reached
// cleanly and the message can describe the operator's tensors.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aclop_call_site.h"
#include "legacy_op_objects.h"
#include "recent_error.h"
#include "standin_types.h"

namespace {

template <class T>
std::string join(int count, const T* values) {
  std::string text = "[";
  for (int i = 0; i < count && values != nullptr; ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

aclError set_attr(aclopAttr* attr, const char* name, std::string value) {
  if (attr == nullptr || name == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttr*: attr or attrName is null");
  attr->values[name] = std::move(value);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) { return new aclDataBuffer{data, size}; }
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  delete dataBuffer;
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  return dataBuffer != nullptr ? dataBuffer->data : nullptr;
}
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  return dataBuffer != nullptr ? dataBuffer->size : 0;
}

ACL_FUNC_VISIBILITY aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims, aclFormat format) {
  if (numDims < 0 || (numDims > 0 && dims == nullptr)) return nullptr;
  auto desc = std::make_unique<aclTensorDesc>();
  desc->data_type = dataType;
  desc->dims.assign(dims, dims + numDims);
  desc->format = format;
  npu::standin::note_created(desc.get());
  return desc.release();
}
ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  npu::standin::note_destroyed(desc);
  delete desc;
}
ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) { return desc != nullptr ? desc->dims.size() : 0; }
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
  if (desc == nullptr || dimSize == nullptr || index >= desc->dims.size()) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: null argument or index out of range");
  }
  *dimSize = desc->dims[index];
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
  return desc != nullptr ? desc->format : ACL_FORMAT_UNDEFINED;
}
ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
  return desc != nullptr ? desc->data_type : ACL_DT_UNDEFINED;
}
ACL_FUNC_VISIBILITY void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  if (desc != nullptr && name != nullptr) desc->name = name;
}
ACL_FUNC_VISIBILITY aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format) {
  if (desc == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorFormat: desc is null");
  desc->format = format;
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclSetTensorShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  if (desc == nullptr || numDims < 0 || (numDims > 0 && dims == nullptr)) {
    return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorShape: null desc or bad dims");
  }
  desc->dims.assign(dims, dims + numDims);
  return ACL_SUCCESS;
}
ACL_FUNC_VISIBILITY aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType) {
  if (desc == nullptr) return npu::standin::fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent: desc is null");
  desc->placement = memType;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclopAttr* aclopCreateAttr(void) {
  auto* attr = new aclopAttr;
  npu::standin::note_attr_created(attr);
  return attr;
}
ACL_FUNC_VISIBILITY void aclopDestroyAttr(const aclopAttr* attr) {
  npu::standin::note_attr_destroyed(attr);
  delete attr;
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrBool(aclopAttr* attr, const char* name, uint8_t value) {
  return set_attr(attr, name, value ? "true" : "false");
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrInt(aclopAttr* attr, const char* name, int64_t value) {
  return set_attr(attr, name, std::to_string(value));
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrFloat(aclopAttr* attr, const char* name, float value) {
  return set_attr(attr, name, std::to_string(value));
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrString(aclopAttr* attr, const char* name, const char* value) {
  return set_attr(attr, name, value != nullptr ? value : "");
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrDataType(aclopAttr* attr, const char* name, aclDataType value) {
  return set_attr(attr, name, "dtype " + std::to_string(value));
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrListBool(aclopAttr* attr, const char* name, int count, const uint8_t* values) {
  return set_attr(attr, name, join(count, values));
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrListInt(aclopAttr* attr, const char* name, int count, const int64_t* values) {
  return set_attr(attr, name, join(count, values));
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrListFloat(aclopAttr* attr, const char* name, int count, const float* values) {
  return set_attr(attr, name, join(count, values));
}
ACL_FUNC_VISIBILITY aclError aclopSetAttrListListInt(aclopAttr* attr, const char* name, int numLists, const int* numValues,
                                                     const int64_t* const values[]) {
  std::string text = "[";
  for (int i = 0; i < numLists && numValues != nullptr && values != nullptr; ++i) {
    text += (i ? "," : "") + join(numValues[i], values[i]);
  }
  return set_attr(attr, name, text + "]");
}

}  // extern "C"
