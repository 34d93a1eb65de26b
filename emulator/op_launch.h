// The two halves every aclnn entry shares: preparing an executor (validation
// on the host, at ...GetWorkspaceSize time) and launching it on a stream.
#pragma once

#include <memory>
#include <string>
#include <tuple>

#include "acl/acl_base.h"
#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/format_scope.h"

namespace npu::emu {

// An executor with an empty body (reused from the thread's cache when it
// can), for the entry to build its body in.
std::unique_ptr<aclOpExecutor> new_executor();
// Hands out `ex`, whose body is the validated kernel task, through the
// entry's out parameters.
void hand_out_executor(const char* op_name, std::unique_ptr<aclOpExecutor> ex, uint64_t* workspace_size,
                       aclOpExecutor** executor);

// Runs `prepare` (which validates and returns the kernel body to run later)
// and hands out an executor for it. Errors become aclnn status codes.
// A template, not a std::function parameter: every launch goes through here
// and the entries' capturing lambdas would otherwise be heap-allocated.
template <class Prepare>
aclnnStatus prepare_op(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor, Prepare&& prepare) {
  return guarded(op_name, [&] {
    if (workspace_size == nullptr || executor == nullptr) {
      fail(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be null");
    }
    std::unique_ptr<aclOpExecutor> ex = new_executor();
    ex->task.body.assign_from(std::forward<Prepare>(prepare));  // built in the executor, not moved in
    hand_out_executor(op_name, std::move(ex), workspace_size, executor);
  });
}

// The same for an entry whose tensor parameters are listed in `args`:
// `prepare` is called with what a FormatScope substitutes for each of them,
// in order (base-format descriptions of scratch for private-format tensors,
// the parameters themselves otherwise), and the body it returns is wrapped
// so that scratch is filled before it and laid into outputs after it.
template <class... Params, class Prepare>
aclnnStatus prepare_op(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                       const FormatArgs<Params...>& args, Prepare&& prepare) {
  return guarded(op_name, [&] {
    if (workspace_size == nullptr || executor == nullptr) {
      fail(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be null");
    }
    FormatScope scope(op_name);
    // Braced initialization: parameters are substituted left to right.
    const auto substitutes = std::apply(
        [&](const auto&... p) { return std::tuple{scope.substitute(p)...}; }, args.params);
    // A task body is moved as few times as possible (the binary family's is
    // 664 bytes): without substitutes, the body its maker returns is built
    // in the executor; with them, it is moved into the wrapping body.
    std::unique_ptr<aclOpExecutor> ex = new_executor();
    if (scope.substituted()) {
      ex->task.body = scope.wrap(std::apply(prepare, substitutes));
    } else {
      ex->task.body.assign_from([&] { return std::apply(prepare, substitutes); });
    }
    hand_out_executor(op_name, std::move(ex), workspace_size, executor);
  });
}

// Enqueues the executor's body on `stream` and frees the executor.
aclnnStatus launch_op(const char* api, aclOpExecutor* executor, aclrtStream stream);

// Output dtypes/shapes checks shared by op families.
void require_shape(const aclTensor* t, const kernels::Shape& shape, const char* name);

// A contiguous host-memory copy of `src` converted to `dtype` (used by ops to
// bring mixed-dtype operands to the compute dtype before a kernel runs).
class ConvertedOperand {
 public:
  ConvertedOperand(const kernels::TensorView& src, model::DType dtype);
  const kernels::TensorView& view() const { return view_; }

 private:
  std::unique_ptr<unsigned char[]> buffer_;
  kernels::TensorView view_;
};

}  // namespace npu::emu

// Defines the launch half of an aclnn pair.
#define NPU_EMU_DEFINE_LAUNCH(name)                                                                  \
  extern "C" aclnnStatus name(void*, uint64_t, aclOpExecutor* executor, aclrtStream stream) { \
    return npu::emu::launch_op(#name, executor, stream);                                             \
  }
