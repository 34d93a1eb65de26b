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
  count_native_launch(name);
  // Kernels registered for PrivateUse1 get no device guard from PyTorch: the
  // launch must go to the stream of the device the tensors live on.
  // Only a launch on another device than the thread's current one pays for
  // a guard (a virtual guard-impl lookup and two device switches).
  std::optional<c10::Device> device;
  find_device(device, args...);
  std::optional<c10::DeviceGuard> guard;
  if (device && device->index() != current_device()) guard.emplace(*device);
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
  check_acl(launch(workspace_ptr, workspace_size, executor, current_acl_stream()), name);
  std::apply(after, owners);
}

template <class Prepare, class Launch, class... Args>
void run_aclnn_raw(const char* name, const char* prepare_name, Prepare prepare, Launch launch, const Args&... args) {
  run_aclnn_then(name, prepare_name, prepare, launch, [](const auto&...) {}, args...);
}

// The view shape the runtime gave `t` (the sizes a data-dependent op wrote),
// read after synchronizing the current stream.
std::vector<int64_t> synchronized_view_shape(const AclTensor& t);

// Kernels see logical strided layouts: a tensor argument whose storage is in
// a private format takes part as the same view of a base-format scratch copy
// of its whole storage. Afterwards each scratch storage is laid back into its
// private storage, in that storage's own format (the argument may have been
// the op's output); the storage's format and descriptor never change.
class PrivateFormatArgs {
 public:
  template <class T>
  const T& substitute(const T& arg) {
    return arg;
  }
  const at::Tensor& substitute(const at::Tensor& arg);
  // Tensor lists are inputs (cat, stack, index lists): base copies, not laid back.
  at::ITensorListRef substitute(const at::ITensorListRef& list);
  ~PrivateFormatArgs() noexcept(false);  // lays the copies back

 private:
  // One scratch per private storage, however many arguments view it, so
  // that an input aliasing the output cannot lay stale values back over it.
  struct Scratch {
    const c10::StorageImpl* storage;
    at::Tensor whole;  // the private storage, as its logical base tensor
    at::Tensor base;   // its values in the base format
  };
  const Scratch& scratch_for(const at::Tensor& arg);
  // Lists keep handed-out references valid and, unlike a deque, allocate
  // nothing while empty (the common case).
  std::list<Scratch> scratches_;
  std::list<at::Tensor> views_;
  std::list<std::vector<at::Tensor>> lists_;
};

template <class Prepare, class Launch, class... Args>
void run_aclnn(const char* name, const char* prepare_name, Prepare prepare, Launch launch, const Args&... args) {
  PrivateFormatArgs formats;
  run_aclnn_raw(name, prepare_name, prepare, launch, formats.substitute(args)...);
}

template <class Prepare, class Launch, class After, class... Args>
void run_aclnn_formats_then(const char* name, const char* prepare_name, Prepare prepare, Launch launch, After after,
                            const Args&... args) {
  PrivateFormatArgs formats;
  run_aclnn_then(name, prepare_name, prepare, launch, after, formats.substitute(args)...);
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
