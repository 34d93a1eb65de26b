// The storage format as serialization metadata: torch.save records a private
// format (or a base format the rank would not give) as the key
// "npu_format_<id>" of the tensor's backend metadata, and
// torch.load re-lays the loaded (base-format) tensor in that format. The bytes
// written are always base-format ones (python/npu_emu/serialization.py
// converts before pickling), so a checkpoint loads anywhere, CPU included;
// only a load onto npu brings the format back.
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <torch/csrc/jit/serialization/pickler_helper.h>

#include "device_model/format.h"
#include "device_model/storage_desc.h"
#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"

namespace npu {

namespace {

constexpr const char* kFormatKey = "npu_format_";

using Metadata = std::unordered_map<std::string, bool>;

// Recorded whenever a fresh tensor of the loaded shape would not get the
// format back by itself: every private format, and a base format other than
// the one guessed from the rank (a 4-D tensor relabelled ND or NHWC,
// a 5-D one ND), so that save/load keeps every format exactly.
// A view of a private storage (not laid out in that format by itself) and a
// base label its rank cannot carry are saved as plain base-format values.
void describe_format(const at::Tensor& t, Metadata& metadata) {
  const model::StorageDesc desc = storage_desc(t);
  const model::Format format = desc.npu_format;
  if (model::is_private_format(format)) {
    if (!covers_storage(t, desc)) return;
  } else if (format == model::guess_base_format(t.dim()) || !model::rank_allowed(format, t.dim())) {
    return;
  }
  metadata[kFormatKey + std::to_string(static_cast<int>(format))] = true;
}

// The format a checkpoint's metadata names, once it is known to fit the
// loaded tensor. describe_format never writes a format the tensor cannot hold,
// so anything else is a damaged or edited file: it is refused here, before
// any cast (which would fall back with a warning or fail in a later op).
model::Format checked_loaded_format(const at::Tensor& t, const std::string& key, int64_t id) {
  std::optional<model::Format> format;
  try {
    format = model::format_from_id(id);
  } catch (const std::invalid_argument& e) {
    TORCH_CHECK_VALUE(false, "torch.load: the checkpoint's npu format metadata '", key, "' names ", id,
                ", which is not a known npu format (", e.what(), ")");
  }
  TORCH_CHECK_VALUE(model::is_storable_format(*format), "torch.load: the checkpoint's npu format metadata '", key,
              "' names ", id, " (", model::format_name(*format),
              "), which is not a known npu format a tensor can be stored in");
  try {
    model::check_format_fits(*format, t.sizes().vec(), to_model_dtype(t.scalar_type()));
  } catch (const std::invalid_argument& e) {
    TORCH_CHECK_VALUE(false, "torch.load: the checkpoint's npu format metadata '", key, "' names ",
                model::format_name(*format), " (", id, "), but the loaded tensor of shape ", t.sizes(), " and dtype ",
                t.scalar_type(), " cannot hold that format (", e.what(), "); the file was damaged or edited");
  }
  return *format;
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
    format_cast_(t, checked_loaded_format(t, key, id));
  }
}

const bool registered = [] {
  torch::jit::TensorBackendMetaRegistry(c10::DeviceType::PrivateUse1, &describe_format, &restore_format);
  return true;
}();

}  // namespace

}  // namespace npu
