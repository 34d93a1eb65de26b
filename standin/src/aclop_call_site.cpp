#include "aclop_call_site.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include "device_model/dtype.h"
#include "device_model/format.h"
#include "legacy_op_objects.h"

namespace npu::standin {

namespace {

// Descriptions built on this thread since the last take, in creation order.
// torch_npu destroys them after the operator ran (or was refused), so a
// destroyed one is forgotten here before its address can be reused.
thread_local std::vector<const aclTensorDesc*> t_pending;

// The attribute set created last on this thread. torch_npu may destroy an
// attribute set on another thread (its task queue's), so a pointer is read
// only while it is in the set of live ones.
thread_local const aclopAttr* t_attr = nullptr;
std::mutex live_attrs_mutex;
std::set<const aclopAttr*> live_attrs;

}  // namespace

void note_created(const aclTensorDesc* desc) { t_pending.push_back(desc); }

void note_destroyed(const aclTensorDesc* desc) {
  t_pending.erase(std::remove(t_pending.begin(), t_pending.end(), desc), t_pending.end());
}

void note_attr_created(const aclopAttr* attr) {
  {
    const std::lock_guard<std::mutex> lock(live_attrs_mutex);
    live_attrs.insert(attr);
  }
  t_attr = attr;
}

void note_attr_destroyed(const aclopAttr* attr) {
  const std::lock_guard<std::mutex> lock(live_attrs_mutex);
  live_attrs.erase(attr);
}

std::string take_pending_attributes() {
  std::string text;
  const std::lock_guard<std::mutex> lock(live_attrs_mutex);
  if (t_attr != nullptr && live_attrs.count(t_attr) != 0) {
    for (const auto& [name, value] : t_attr->values) text += (text.empty() ? "" : ", ") + name + "=" + value;
  }
  t_attr = nullptr;
  return text;
}

std::string describe(const aclTensorDesc& desc) {
  const auto dtype = model::dtype_from_acl(desc.data_type);
  const auto format = model::format_from_acl(desc.format);
  std::string text = dtype ? model::dtype_name(*dtype) : "dtype " + std::to_string(desc.data_type);
  text += " " + (format ? model::format_label(*format) : "format " + std::to_string(desc.format)) + " [";
  for (std::size_t i = 0; i < desc.dims.size(); ++i) text += (i ? "," : "") + std::to_string(desc.dims[i]);
  return text + "]";
}

std::string take_pending_descriptions() {
  std::string text;
  for (const aclTensorDesc* desc : t_pending) text += (text.empty() ? "" : "; ") + describe(*desc);
  t_pending.clear();
  return text;
}

}  // namespace npu::standin
