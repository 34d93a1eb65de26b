#include "dispatch/debug/format_trace.h"

#include <mutex>
#include <optional>

#include <ATen/record_function.h>
#include <torch/csrc/utils/pybind.h>

#include "acl/acl_emu_profiling.h"
#include "device_model/dtype.h"
#include "dispatch/driver/optional_symbol.h"
#include "dispatch/format/storage_format.h"

namespace py = pybind11;

namespace npu::trace {

std::atomic<bool> g_formats_on{false};

namespace {

thread_local std::vector<std::string> t_ops;

std::unique_ptr<at::ObserverContext> enter_op(const at::RecordFunction& fn) {
  t_ops.emplace_back(fn.name());
  return nullptr;
}

void exit_op(const at::RecordFunction&, at::ObserverContext*) {
  // An op already running when the trace was switched on has no entry.
  if (!t_ops.empty()) t_ops.pop_back();
}

// The Python callable events go to, and the RecordFunction observer naming
// the ops. Leaked on purpose: a py::object must not be destroyed after the
// interpreter is gone (npu_emu.debug.trace clears it at exit).
struct Sink {
  std::mutex mutex;
  std::optional<py::object> callback;
  std::optional<at::CallbackHandle> observer;
};

Sink& sink() {
  static Sink* s = new Sink;
  return *s;
}

void entry_cast(const aclemuFormatStage* stage);

// The emulator's report of the conversions its aclnn entries make through
// base-format scratch (NPU=emu only: real CANN has no such hook).
void set_stage_hook(aclemuFormatStageHook hook) {
  const auto set = driver::optional_function<decltype(&aclemuSetFormatStageHook)>("aclemuSetFormatStageHook");
  if (set != nullptr) set(hook);
}

// Called with the GIL held (from Python).
void set_sink(const py::object& callback) {
  Sink& s = sink();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (callback.is_none()) {
    g_formats_on.store(false);
    set_stage_hook(nullptr);
    if (s.observer) at::removeCallback(*s.observer);
    s.observer.reset();
    s.callback.reset();
    return;
  }
  s.callback = callback;
  if (!s.observer) {
    s.observer = at::addGlobalCallback(
        at::RecordFunctionCallback(&enter_op, &exit_op)
            .needsInputs(false)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
  }
  g_formats_on.store(true);
  set_stage_hook(&entry_cast);
}

void emit(py::dict event) {
  // Called from C++ code that may have released the GIL; events are rare.
  py::gil_scoped_acquire gil;
  std::optional<py::object> callback;
  {
    const std::lock_guard<std::mutex> lock(sink().mutex);
    callback = sink().callback;
  }
  if (!callback) return;
  event["op_stack"] = op_stack();
  event["op"] = current_op();
  try {
    (*callback)(event);
  } catch (py::error_already_set& e) {
    // A broken sink must not break the program being traced.
    e.discard_as_unraisable("npu_emu format trace sink");
  }
}

py::dict tensor_info(const at::Tensor& t) {
  const model::StorageDesc d = storage_desc(t);
  py::dict info;
  info["shape"] = t.sizes().vec();
  info["dtype"] = std::string(model::dtype_name(d.dtype));
  info["format"] = std::string(model::format_name(has_private_format(t) ? d.npu_format
                                                                        : model::guess_base_format(t.dim())));
  info["storage_shape"] = d.storage_sizes;
  return info;
}

// The npu tensors on a stack, and the bytes a CPU round trip of them moves.
py::list npu_tensors(const torch::jit::Stack& stack, int64_t& bytes) {
  py::list out;
  const auto add = [&](const at::Tensor& t) {
    if (!t.defined() || !t.is_privateuseone()) return;
    out.append(tensor_info(t));
    bytes += static_cast<int64_t>(t.numel()) * static_cast<int64_t>(t.element_size());
  };
  for (const c10::IValue& v : stack) {
    if (v.isTensor()) {
      add(v.toTensor());
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add(t);
    } else if (v.isOptionalTensorList()) {
      for (const std::optional<at::Tensor>& t : v.toOptionalTensorList().vec()) {
        if (t) add(*t);
      }
    }
  }
  return out;
}

std::string format_label(int32_t acl_format) {
  const std::optional<model::Format> f = model::format_from_acl(acl_format);
  return f ? std::string(model::format_name(*f)) : std::to_string(acl_format);
}

// "entry_cast": a private-format parameter an aclnn entry computes on through
// base-format scratch (to_storage 0: its storage read into scratch; 1: the
// output's scratch laid into its storage). Called by the emulator on the
// launching thread while the entry's op runs; must not throw into it.
void entry_cast(const aclemuFormatStage* stage) {
  try {
    py::gil_scoped_acquire gil;
    const std::string private_format = format_label(stage->private_format);
    const std::string base_format = format_label(stage->base_format);
    const std::optional<model::DType> dtype = model::dtype_from_acl(stage->data_type);
    py::dict e;
    e["event"] = "entry_cast";
    e["entry"] = std::string(stage->entry);
    e["param"] = std::string(stage->param);
    e["from"] = stage->to_storage != 0 ? base_format : private_format;
    e["to"] = stage->to_storage != 0 ? private_format : base_format;
    e["shape"] = std::vector<int64_t>(stage->dims, stage->dims + stage->dim_num);
    e["dtype"] = dtype ? std::string(model::dtype_name(*dtype)) : std::to_string(stage->data_type);
    e["bytes"] = stage->bytes;
    emit(std::move(e));
  } catch (const std::exception& ex) {
    TORCH_WARN("npu_emu format trace: an entry cast was not recorded: ", ex.what());
  }
}

}  // namespace

std::vector<std::string> op_stack() { return t_ops; }

std::string current_op() { return t_ops.empty() ? std::string() : t_ops.front(); }

void format_change(const char* kind, const at::Tensor& src, model::Format from, model::Format to, int64_t bytes) {
  py::gil_scoped_acquire gil;
  py::dict e;
  e["event"] = kind;
  e["from"] = std::string(model::format_name(from));
  e["to"] = std::string(model::format_name(to));
  e["shape"] = src.sizes().vec();
  e["dtype"] = std::string(model::dtype_name(to_model_dtype(src.scalar_type())));
  e["bytes"] = bytes;
  const FormatOrigin reason = current_format_reason();
  e["reason"] = reason.rule != nullptr ? std::string(reason.rule) : std::string();
  e["decided_by"] = reason.op != nullptr ? std::string(reason.op) : std::string();
  emit(std::move(e));
}

void format_created(const at::Tensor& t) {
  py::gil_scoped_acquire gil;
  const FormatOrigin origin = storage_origin(t);
  py::dict e;
  e["event"] = "create";
  e["tensor"] = tensor_info(t);
  e["reason"] = origin.rule != nullptr ? std::string(origin.rule) : std::string();
  e["decided_by"] = origin.op != nullptr ? std::string(origin.op) : std::string();
  emit(std::move(e));
}

void fallback(const std::string& op, const torch::jit::Stack& inputs, const torch::jit::Stack& outputs) {
  py::gil_scoped_acquire gil;
  int64_t bytes = 0;
  py::dict e;
  e["event"] = "fallback";
  e["fallback_op"] = op;
  e["inputs"] = npu_tensors(inputs, bytes);
  e["outputs"] = npu_tensors(outputs, bytes);
  e["bytes"] = bytes;
  emit(std::move(e));
}

void bind(py::module_& m) {
  m.def("_set_format_trace", &set_sink,
        "Sends format changes and CPU fallbacks to `callback(event: dict)`; None switches the trace off");
  m.def("_format_trace_on", &formats_on);
}

}  // namespace npu::trace
