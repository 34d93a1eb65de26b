// The two halves every aclnn entry shares: preparing an executor (validation
// on the host, at ...GetWorkspaceSize time) and launching it on a stream.
#pragma once

#include <string>
#include <tuple>

#include "acl/acl_base.h"
#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/format_scope.h"

namespace npu::emu {

// Hands out an executor that will run `body` (the validated kernel task).
void make_executor(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor, TaskBody&& body);

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
    make_executor(op_name, workspace_size, executor, prepare());
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
    // 664 bytes): from its maker into here, then into the executor.
    TaskBody body = std::apply(prepare, substitutes);
    if (scope.substituted()) body = scope.wrap(std::move(body));
    make_executor(op_name, workspace_size, executor, std::move(body));
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
