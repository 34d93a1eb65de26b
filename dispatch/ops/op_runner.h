// Running one aclnn op from a PyTorch kernel: describe the arguments, call
// <op>GetWorkspaceSize, get the workspace from the allocator, launch <op> on
// the current stream. Everything goes through the driver table.
#pragma once

#include <list>
#include <tuple>
#include <utility>
#include <vector>
#include <type_traits>

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/ops/acl_args.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_stream.h"

namespace npu::ops {

// Counts native launches per op name (what fallback_report compares with).
// `op` must have static storage (a string literal): counters are found by
// its address.
void count_native_launch(const char* op);

// The device an op runs on: that of its first npu tensor argument.
inline void find_device(std::optional<c10::Device>&) {}
template <class T, class... Rest>
void find_device(std::optional<c10::Device>& found, const T& first, const Rest&... rest) {
  if constexpr (std::is_same_v<T, at::Tensor>) {
    if (!found && first.defined() && first.is_privateuseone()) found = first.device();
  }
  find_device(found, rest...);
}

// Launches one aclnn op whose tensor arguments are in base formats (or that
// understands private formats itself, like aclnnNpuFormatCast), then calls
// `after(owners...)` with the ACL argument owners still alive: ops whose
// output shape depends on the data (aclnnNonzero) are read back through them.
template <class Prepare, class Launch, class After, class... Args>
void run_aclnn_then(const char* name, const char* prepare_name, Prepare prepare, Launch launch, After after,
                    const Args&... args) {
  // Kernels registered for PrivateUse1 get no device guard from PyTorch: the
  // launch must go to the stream of the device the tensors live on.
  // Only a launch on another device than the thread's current one pays for
  // a guard (a virtual guard-impl lookup and two device switches).
  std::optional<c10::Device> device;
  find_device(device, args...);
  const DeviceAndStream current = current_device_and_stream();
  const c10::DeviceIndex launch_device = device ? device->index() : current.device;
  std::optional<c10::DeviceGuard> guard;
  if (launch_device != current.device) guard.emplace(*device);
  // The argument owners live until the launch returned: CANN's executor
  // refers to them until then.
  std::tuple<AclArg<Args>...> owners(args...);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  std::apply([&](auto&... o) { check_acl(prepare(o.get()..., &workspace_size, &executor), prepare_name); }, owners);
  at::Tensor workspace;
  void* workspace_ptr = nullptr;
  if (workspace_size > 0) {
    workspace = at::empty({static_cast<int64_t>(workspace_size)},
                          at::TensorOptions().dtype(at::kByte).device(c10::DeviceType::PrivateUse1));
    workspace_ptr = workspace.data_ptr();
  }
  check_acl(launch(workspace_ptr, workspace_size, executor, guard ? current_acl_stream(launch_device) : current.stream), name);
  // Counted once launched: an entry that refused its arguments (a dtype its
  // kernel lacks) launched nothing, and the fallback that follows counts.
  count_native_launch(name);
  std::apply(after, owners);
}

template <class Prepare, class Launch, class... Args>
void run_aclnn_raw(const char* name, const char* prepare_name, Prepare prepare, Launch launch, const Args&... args) {
  run_aclnn_then(name, prepare_name, prepare, launch, [](const auto&...) {}, args...);
}

// The view shape the runtime gave `t` (the sizes a data-dependent op wrote),
// read after synchronizing the current stream.
std::vector<int64_t> synchronized_view_shape(const AclTensor& t);

// Whether the aclnn entry `op` takes private-format tensors that describe a
// whole tensor as they are (in the emulator: entries that use a FormatScope).
// Until the op table says it per argument, a list of entry names.
bool entry_takes_private_formats(const char* op);

// The parameter types of an aclnn ...GetWorkspaceSize function; a parameter
// of type `aclTensor*` (not const) is one the op writes (out, selfRef).
template <class F>
struct AclnnParams;
template <class R, class... P>
struct AclnnParams<R (*)(P...)> {
  using type = std::tuple<P...>;
};
template <class Prepare, std::size_t I>
inline constexpr bool kWrittenParam =
    std::is_same_v<std::tuple_element_t<I, typename AclnnParams<Prepare>::type>, aclTensor*>;

// Whether parameter `index` of the aclnn op `op` is one it writes: a non-const
// aclTensor* (`written_type`), or the selfRef every aclnnInplace* op takes
// first, which CANN declares const for some (aclnnInplaceUniform, ...Normal).
bool writes_param(const char* op, std::size_t index, bool written_type);

// How tensor arguments in private formats reach an aclnn op. A tensor that
// is its whole private storage (or a dim permutation of it) goes as it is
// (format and storage dims) to an entry that takes private formats. Anything
// else cannot be described to aclnn: an input becomes a base-format copy of
// the view; an argument the op writes becomes a base-format temporary (with
// the view's values) that write_results() copies into the view after the
// launch; an input that is the same view shares that temporary. A private
// storage's bytes and descriptor change only through the op's own outputs.
class PrivateFormatArgs {
 public:
  explicit PrivateFormatArgs(const char* op) : takes_private_(entry_takes_private_formats(op)) {}
  // First pass: every written tensor argument gets its temporary if it needs one.
  template <class T>
  void note_written(const T&) {}
  void note_written(const at::Tensor& arg);
  void note_written(const std::optional<at::Tensor>& arg) {
    if (arg) note_written(*arg);
  }
  // Second pass: what the op is given for each argument.
  template <class T>
  const T& substitute(const T& arg) {
    return arg;
  }
  const at::Tensor& substitute(const at::Tensor& arg);
  const std::optional<at::Tensor>& substitute(const std::optional<at::Tensor>& arg);
  // Tensor lists are inputs (cat, stack, index lists): base copies.
  at::ITensorListRef substitute(const at::ITensorListRef& list);
  // Copies every temporary into the view it stands for (launches copies: run
  // after the op's launch, never from a destructor).
  void write_results();

 private:
  bool passes_as_is(const at::Tensor& arg) const;
  const bool takes_private_;
  struct Written {
    at::Tensor target;  // the argument, a view of a private storage
    at::Tensor temp;    // its base-format stand-in
  };
  // Lists keep handed-out references valid and, unlike a deque, allocate
  // nothing while empty.
  std::list<Written> written_;
  std::list<at::Tensor> inputs_;
  std::list<std::optional<at::Tensor>> optionals_;
  std::list<std::vector<at::Tensor>> lists_;
};

// True when some argument is an npu tensor (or a list holding one) whose
// storage is in a private format: the only case PrivateFormatArgs is needed.
bool any_private_format(const at::Tensor& t);
bool any_private_format(const std::optional<at::Tensor>& t);
bool any_private_format(const at::ITensorListRef& list);
template <class T>
bool any_private_format(const T&) {
  return false;
}

template <class Prepare, class Launch, class After, class... Args, std::size_t... I>
void run_aclnn_formats_impl(const char* name, const char* prepare_name, Prepare prepare, Launch launch, After after,
                            std::index_sequence<I...>, const Args&... args) {
  if (!(any_private_format(args) || ...)) {
    run_aclnn_then(name, prepare_name, prepare, launch, after, args...);
    return;
  }
  PrivateFormatArgs formats(name);
  ((writes_param(name, I, kWrittenParam<Prepare, I>) ? formats.note_written(args) : void()), ...);
  run_aclnn_then(name, prepare_name, prepare, launch, after, formats.substitute(args)...);
  formats.write_results();
}

template <class Prepare, class Launch, class After, class... Args>
void run_aclnn_formats_then(const char* name, const char* prepare_name, Prepare prepare, Launch launch, After after,
                            const Args&... args) {
  run_aclnn_formats_impl(name, prepare_name, prepare, launch, after, std::index_sequence_for<Args...>{}, args...);
}

template <class Prepare, class Launch, class... Args>
void run_aclnn(const char* name, const char* prepare_name, Prepare prepare, Launch launch, const Args&... args) {
  run_aclnn_formats_then(name, prepare_name, prepare, launch, [](const auto&...) {}, args...);
}

}  // namespace npu::ops

// NPU_RUN(aclnnAdd, self, other, alpha, out): the aclnn pair named once.
#define NPU_RUN(op, ...)                                                                                  \
  ::npu::ops::run_aclnn(#op, #op "GetWorkspaceSize", NPU_ACL(op##GetWorkspaceSize), NPU_ACL(op), \
                        __VA_ARGS__)
// The same for ops that take private-format tensors as they are.
#define NPU_RUN_RAW(op, ...)                                                                                  \
  ::npu::ops::run_aclnn_raw(#op, #op "GetWorkspaceSize", NPU_ACL(op##GetWorkspaceSize), NPU_ACL(op), \
                            __VA_ARGS__)
// NPU_RUN_THEN(aclnnNonzero, after, self, out): `after` sees the argument owners.
#define NPU_RUN_THEN(op, after, ...)                                                                          \
  ::npu::ops::run_aclnn_formats_then(#op, #op "GetWorkspaceSize", NPU_ACL(op##GetWorkspaceSize), NPU_ACL(op), \
                                     after, __VA_ARGS__)
