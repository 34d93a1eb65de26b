// Private-format tensors at an aclnn entry, as CANN receives them: an
// aclTensor whose format is private (FRACTAL_NZ, NC1HWC0, FRACTAL_Z, ...)
// describes a whole tensor (its view dims are the logical shape, possibly
// with permuted dims; offset 0) and its storage dims the physical layout.
//
// An entry's kernels iterate base-format (row-major) views. A FormatScope
// stands between the entry's parameters and its code: each private-format
// tensor is validated and replaced by a base-format description of a host
// scratch buffer the executor owns; the task fills input scratch from the
// private storage before the kernel runs and lays output scratch into the
// output's private storage after it. Inputs are never written back; a
// parameter that is both (self and out of an in-place op) shares one scratch.
#pragma once

#include <memory>
#include <tuple>

#include "emulator/acl_objects.h"
#include "emulator/task_body.h"

namespace npu::emu {

// The parameters of one entry a FormatScope looks at, by role. `native`
// opts a parameter out: the entry takes its private format itself.
struct TensorIn {
  const aclTensor* tensor;
  const char* name;
  bool native = false;
};
struct TensorOut {
  aclTensor* tensor;
  const char* name;
  bool native = false;
  // Read-modify-write (an aclnnInplace* selfRef the op reads, like
  // aclnnInplaceAddmm's): its scratch is filled from storage first.
  bool reads = false;
};
struct ListIn {
  const aclTensorList* list;
  const char* name;
};

class FormatScope {
 public:
  explicit FormatScope(const char* entry);
  FormatScope(const FormatScope&) = delete;
  FormatScope& operator=(const FormatScope&) = delete;
  ~FormatScope();

  // What the entry's code uses in place of the parameter: the parameter
  // itself (null, base format, or native), or a base-format substitute over
  // scratch. Throws AclError(ACLNN_ERR_PARAM_INVALID) naming the entry, the
  // parameter and the format when a private-format tensor is not a whole
  // tensor or its storage dims do not fit the format. Substitutes live as
  // long as the scope and the task wrap() returns.
  const aclTensor* substitute(const TensorIn& p);
  aclTensor* substitute(const TensorOut& p);
  const aclTensorList* substitute(const ListIn& p);

  // `body` preceded by filling input scratch and followed by laying output
  // scratch into private storage. `body` itself when nothing was substituted.
  TaskBody wrap(TaskBody body);
  // Whether any parameter was substituted (wrap() would add work).
  bool substituted() const { return state_ != nullptr; }

 private:
  struct State;
  aclTensor* stage(const aclTensor& t, const char* name, bool output);
  const char* entry_;
  std::shared_ptr<State> state_;  // created on the first substitution; shared with the task
};

// The tensor parameters of one entry call, in the order `prepare` receives
// their substitutes: FormatArgs{TensorIn{self, "self"}, TensorOut{out, "out"}}.
template <class... Params>
struct FormatArgs {
  explicit FormatArgs(Params... p) : params(p...) {}
  std::tuple<Params...> params;
};
template <class... Params>
FormatArgs(Params...) -> FormatArgs<Params...>;

}  // namespace npu::emu
