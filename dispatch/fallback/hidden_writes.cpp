// Design: a curated list, not a general content comparison.
//
// A general check would have to keep a second CPU copy of every npu input of
// every fallback call and compare it with the CPU copy after the kernel ran:
// twice the host memory and a full extra pass over all inputs on each call,
// to find writes that the schema annotations already describe for all but a
// handful of ops. Those few were found by auditing ATen: its CPU kernels that
// write through data pointers into arguments the schema leaves unannotated,
// cross-checked by running PyTorch's OpInfo and ModuleInfo samples on the CPU
// under a dispatch mode that compared every unannotated tensor argument before
// and after each aten op (only native_batch_norm showed up there;
// batch_norm_update_stats is not reached by those samples but its CPU kernel
// writes the running statistics the same way). Ops whose hidden writes exist
// only in CUDA kernels (batch_norm_gather_stats*, the cudnn/miopen norms)
// have no CPU kernel and are refused by the fallback anyway; the other
// running-statistics ops (_native_batch_norm_legit, _batch_norm_with_update,
// _fused_moving_avg_obs_fq_helper, _amp_update_scale_, rrelu_with_noise) are
// annotated and written back by PyTorch's fallback itself.
//
// An entry names its arguments; a PyTorch whose schema no longer has one makes
// the fallback refuse the op instead of silently dropping the write.
#include "dispatch/fallback/hidden_writes.h"

#include <array>
#include <optional>
#include <string_view>

#include <c10/util/Exception.h>

namespace npu {

namespace {

struct HiddenWrite {
  std::string_view op;                         // aten name, every overload
  std::array<std::string_view, 2> arguments;   // written tensor arguments
  std::optional<std::string_view> only_if;     // a bool argument that must be true for the write
};

// running_mean/running_var are optional: an undefined one is simply not written.
constexpr std::array<HiddenWrite, 2> kHiddenWrites{{
    {"aten::native_batch_norm", {"running_mean", "running_var"}, "training"},
    {"aten::batch_norm_update_stats", {"running_mean", "running_var"}, std::nullopt},
}};

std::optional<std::size_t> argument_index(const c10::FunctionSchema& schema, std::string_view name) {
  const auto& arguments = schema.arguments();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].name() == name) return i;
  }
  return std::nullopt;
}

std::size_t required_index(const c10::FunctionSchema& schema, std::string_view name) {
  const auto index = argument_index(schema, name);
  TORCH_CHECK(index.has_value(), schema.name(), " has no argument '", name,
              "' in this PyTorch, but npu-emu's CPU fallback lists it as written by the CPU kernel without a "
              "schema annotation; refusing the op rather than losing that write (update "
              "dispatch/fallback/hidden_writes.cpp for this PyTorch version)");
  return *index;
}

}  // namespace

std::vector<std::size_t> hidden_writes(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const auto& schema = op.schema();
  const HiddenWrite* entry = nullptr;
  for (const auto& candidate : kHiddenWrites) {
    if (schema.name() == candidate.op) entry = &candidate;
  }
  if (entry == nullptr) return {};

  const std::size_t first = stack.size() - schema.arguments().size();
  if (entry->only_if) {
    const auto& flag = stack[first + required_index(schema, *entry->only_if)];
    if (!flag.toBool()) return {};
  }
  std::vector<std::size_t> positions;
  for (const auto name : entry->arguments) {
    const std::size_t index = required_index(schema, name);
    const auto* alias = schema.arguments()[index].alias_info();
    if (alias != nullptr && alias->isWrite()) continue;  // annotated by now: PyTorch's fallback writes it back
    positions.push_back(index);
  }
  return positions;
}

}  // namespace npu
