#include "emulator/format_scope.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl_emu_profiling.h"
#include "device_model/storage_desc.h"
#include "emulator/acl_error.h"
#include "kernels/format/format_transform.h"

namespace npu::emu {

namespace {

std::string describe(const aclTensor& t) {
  return "shape " + kernels::shape_str(t.view_dims) + ", strides " + kernels::shape_str(t.strides) + ", offset " +
         std::to_string(t.offset) + ", storage dims " + kernels::shape_str(t.storage_dims);
}

// One private storage seen through scratch: the storage's descriptor, where
// it lives, and its values in the base format.
struct Staged {
  model::StorageDesc desc;
  void* storage = nullptr;
  std::unique_ptr<unsigned char[]> scratch;
  std::size_t bytes = 0;  // of scratch: the base-format values
  bool read = false;   // an input views it: fill scratch before the body
  bool write = false;  // an output views it: lay scratch back after the body
  std::string param;   // the first parameter that staged it, for the hook
};

// The NPU_EMU_TRACE=formats hook (aclemuSetFormatStageHook): null when off.
std::atomic<aclemuFormatStageHook> g_stage_hook{nullptr};

// Tells the hook about each conversion the task will make (scratch filled
// from a private storage, scratch laid into one).
void report(aclemuFormatStageHook hook, const char* entry, const Staged& s) {
  const int64_t storage_bytes =
      s.desc.storage_numel() * static_cast<int64_t>(model::itemsize(s.desc.dtype));
  for (const bool to_storage : {false, true}) {
    if (!(to_storage ? s.write : s.read)) continue;
    aclemuFormatStage stage{};
    stage.entry = entry;
    stage.param = s.param.c_str();
    stage.to_storage = to_storage ? 1 : 0;
    stage.private_format = static_cast<int32_t>(s.desc.npu_format);
    stage.base_format = static_cast<int32_t>(s.desc.origin_format);
    stage.data_type = static_cast<int32_t>(s.desc.dtype);  // DType's values are aclDataType's
    stage.dims = s.desc.base_sizes.data();
    stage.dim_num = s.desc.base_sizes.size();
    stage.bytes = storage_bytes + static_cast<int64_t>(s.bytes);
    hook(&stage);
  }
}

// Whether `strides` lay `sizes` out contiguously in the order given (dims of
// size 1 may have any stride).
bool in_given_order(const model::Dims& sizes, const model::Dims& strides) {
  int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= std::max<int64_t>(sizes[i], 1);
  }
  return true;
}

}  // namespace

struct FormatScope::State {
  std::vector<Staged> staged;
  // Descriptions the entry's code sees; unique_ptr keeps their addresses.
  std::vector<std::unique_ptr<aclTensor>> substitutes;
  std::vector<std::unique_ptr<aclTensorList>> lists;

  void before() const {
    for (const Staged& s : staged) {
      if (s.read) {
        kernels::storage_to_base(s.desc, s.storage, s.scratch.get());
      } else {
        // An output-only scratch is laid back whole: what a kernel leaves
        // unwritten must not be whatever the allocation held.
        std::memset(s.scratch.get(), 0, s.bytes);
      }
    }
  }
  void after() const {
    for (const Staged& s : staged) {
      if (s.write) kernels::base_to_storage(s.desc, s.scratch.get(), s.storage);
    }
  }
};

FormatScope::FormatScope(const char* entry) : entry_(entry) {}
FormatScope::~FormatScope() = default;

aclTensor* FormatScope::stage(const aclTensor& t, const char* name, bool output) {
  if (t.format == ACL_FORMAT_ND) return nullptr;  // nearly every tensor: no table lookup on the launch path
  const std::optional<model::Format> format = model::format_from_acl(t.format);
  if (!format) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(entry_) + ": " + name + " has unknown format " +
                                      std::to_string(static_cast<int>(t.format)) + "; allowed: " +
                                      model::allowed_format_ids());
  }
  if (!model::is_private_format(*format)) return nullptr;
  const std::string label = model::format_label(*format);
  const std::optional<model::Dims> order = model::contiguous_order(t.view_dims.vec(), t.strides.vec());
  if (t.offset != 0 || !order) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(entry_) + ": " + name + " in " + label +
                                      " must describe a whole tensor (offset 0, contiguous or permuted dims); got " +
                                      describe(t));
  }
  model::Dims origin = model::permuted(t.view_dims.vec(), *order);
  const auto describe_origin = [&](const model::Dims& dims) {
    try {
      return model::describe_storage(dims, t.dtype, *format);
    } catch (const std::invalid_argument& e) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(entry_) + ": " + name + ": " + e.what());
    }
  };
  model::StorageDesc desc = describe_origin(origin);
  if (!t.storage_dims.empty() && t.storage_dims != desc.storage_sizes && origin != t.view_dims.vec() &&
      in_given_order(t.view_dims.vec(), t.strides.vec())) {
    // Dims of size 0 or 1 leave the order ambiguous ([1, 0] with strides
    // [1, 1] reads as either order): the unpermuted one, when its storage
    // dims are the ones the caller passed, is the tensor's.
    const model::StorageDesc unpermuted = describe_origin(t.view_dims.vec());
    if (unpermuted.storage_sizes == t.storage_dims) {
      origin = t.view_dims.vec();
      desc = unpermuted;
    }
  }
  if (!t.storage_dims.empty() && t.storage_dims != desc.storage_sizes) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(entry_) + ": " + name + " in " + label + " of logical shape " +
                                      model::dims_str(origin) + " must have storage dims " +
                                      model::dims_str(desc.storage_sizes) + "; got " + describe(t));
  }
  if (!state_) state_ = std::make_shared<State>();
  Staged* staged = nullptr;
  for (Staged& s : state_->staged) {
    if (s.storage == t.data) {
      if (s.desc.base_sizes != desc.base_sizes || s.desc.npu_format != desc.npu_format ||
          model::itemsize(s.desc.dtype) != model::itemsize(desc.dtype)) {
        fail(ACLNN_ERR_PARAM_INVALID, std::string(entry_) + ": " + name + " in " + label +
                                          " shares its storage with another parameter that describes it "
                                          "differently; got " + describe(t));
      }
      staged = &s;
    }
  }
  if (staged == nullptr) {
    Staged s;
    s.storage = t.data;
    s.bytes = static_cast<std::size_t>(desc.base_numel()) * model::itemsize(t.dtype);
    s.scratch.reset(new unsigned char[std::max<std::size_t>(s.bytes, 1)]);  // filled or zeroed by the task
    s.desc = std::move(desc);
    s.param = name;
    staged = &state_->staged.emplace_back(std::move(s));
  }
  (output ? staged->write : staged->read) = true;
  // The same dims and strides over the base-format values.
  auto sub = std::make_unique<aclTensor>();
  sub->view_dims = t.view_dims;
  sub->strides = t.strides;
  sub->dtype = t.dtype;
  sub->format = static_cast<aclFormat>(staged->desc.origin_format);
  sub->storage_dims = staged->desc.base_sizes;
  sub->data = staged->scratch.get();
  return state_->substitutes.emplace_back(std::move(sub)).get();
}

// A base-format (ND) tensor, nearly every argument of every launch, is its
// own substitute: checked here, without the call to stage().
const aclTensor* FormatScope::substitute(const TensorIn& p) {
  if (p.tensor == nullptr || p.native || p.tensor->format == ACL_FORMAT_ND) return p.tensor;
  const aclTensor* sub = stage(*p.tensor, p.name, false);
  return sub != nullptr ? sub : p.tensor;
}

aclTensor* FormatScope::substitute(const TensorOut& p) {
  if (p.tensor == nullptr || p.native || p.tensor->format == ACL_FORMAT_ND) return p.tensor;
  if (p.reads) stage(*p.tensor, p.name, false);  // the same scratch, marked read too
  aclTensor* sub = stage(*p.tensor, p.name, true);
  return sub != nullptr ? sub : p.tensor;
}

const aclTensorList* FormatScope::substitute(const ListIn& p) {
  if (p.list == nullptr) return nullptr;
  std::vector<const aclTensor*> subs;
  bool any = false;
  for (std::size_t i = 0; i < p.list->tensors.size(); ++i) {
    const aclTensor* t = p.list->tensors[i].get();
    const std::string name = std::string(p.name) + "[" + std::to_string(i) + "]";
    const aclTensor* sub = t != nullptr ? stage(*t, name.c_str(), false) : nullptr;
    any = any || sub != nullptr;
    subs.push_back(sub != nullptr ? sub : t);
  }
  if (!any) return p.list;
  // A list owns its tensors: it gets copies of the descriptions.
  auto list = std::make_unique<aclTensorList>();
  for (const aclTensor* t : subs) {
    list->tensors.emplace_back(t != nullptr ? std::make_unique<aclTensor>(*t) : nullptr);
  }
  return state_->lists.emplace_back(std::move(list)).get();
}

TaskBody FormatScope::wrap(TaskBody body) {
  if (!state_) return body;
  // Reported here, once the entry has accepted every parameter.
  if (const aclemuFormatStageHook hook = g_stage_hook.load(std::memory_order_acquire)) {
    for (const Staged& s : state_->staged) report(hook, entry_, s);
  }
  // Larger than a TaskBody's inline room: the rare private-format launch
  // pays one allocation.
  return [state = state_, body = std::move(body)]() mutable {
    state->before();
    body();
    state->after();
  };
}

}  // namespace npu::emu

extern "C" ACL_FUNC_VISIBILITY void aclemuSetFormatStageHook(aclemuFormatStageHook hook) {
  npu::emu::g_stage_hook.store(hook, std::memory_order_release);
}
