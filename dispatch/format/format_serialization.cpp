// The storage format as serialization metadata: torch.save records a private
// format as the key "npu_format_<id>" of the tensor's backend metadata, and
// torch.load re-lays the loaded (base-format) tensor in that format. The bytes
// written are always base-format ones (python/npu_emu/serialization.py
// converts before pickling), so a checkpoint loads anywhere, CPU included;
// only a load onto npu brings the format back.
#include <string>
#include <unordered_map>

#include <torch/csrc/jit/serialization/pickler_helper.h>

#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"

namespace npu {

namespace {

constexpr const char* kFormatKey = "npu_format_";

using Metadata = std::unordered_map<std::string, bool>;

void describe_format(const at::Tensor& t, Metadata& metadata) {
  if (!has_private_format(t)) return;
  metadata[kFormatKey + std::to_string(static_cast<int>(storage_desc(t).npu_format))] = true;
}

void restore_format(const at::Tensor& t, Metadata& metadata) {
  for (const auto& [key, value] : metadata) {
    if (!value || key.rfind(kFormatKey, 0) != 0) continue;
    int64_t id = 0;
    try {
      id = std::stoll(key.substr(std::char_traits<char>::length(kFormatKey)));
    } catch (const std::exception&) {
      TORCH_CHECK(false, "torch.load: malformed npu format metadata '", key, "' (expected npu_format_<id>)");
    }
    format_cast_(t, format_from_user_id(id));
  }
}

const bool registered = [] {
  torch::jit::TensorBackendMetaRegistry(c10::DeviceType::PrivateUse1, &describe_format, &restore_format);
  return true;
}();

}  // namespace

}  // namespace npu
