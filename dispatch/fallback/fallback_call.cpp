#include "dispatch/fallback/fallback_call.h"

namespace npu::fallback_detail {

const ArgRef& aliased_argument(const Results& r, std::size_t index) {
  const auto& result = r.schema.returns().at(index);
  const c10::AliasInfo* alias = result.alias_info();
  TORCH_INTERNAL_ASSERT(alias != nullptr, r.schema.name(), ": result ", index,
                        " aliases no argument; return it as at::Tensor, not as a reference");
  const auto& arguments = r.schema.arguments();
  for (std::size_t a = 0; a < arguments.size() && a < r.num_args; ++a) {
    const c10::AliasInfo* arg_alias = arguments[a].alias_info();
    if (arg_alias != nullptr && arg_alias->beforeSets() == alias->beforeSets()) return r.args[a];
  }
  TORCH_INTERNAL_ASSERT(false, r.schema.name(), ": no argument has the alias set of result ", index);
}

void check_result_count(const Results& r, std::size_t expected) {
  TORCH_INTERNAL_ASSERT(r.schema.returns().size() == expected && r.stack.size() == expected, r.schema.name(),
                        " returns ", r.schema.returns().size(), " value(s) (", r.stack.size(),
                        " on the stack), but fallback_call was asked for ", expected);
}

void check_argument_count(const c10::OperatorHandle& op, std::size_t given) {
  const std::size_t expected = op.schema().arguments().size();
  TORCH_INTERNAL_ASSERT(given == expected, op.schema().name(), " takes ", expected,
                        " argument(s) (every schema argument, defaults included); fallback_call got ", given);
}

}  // namespace npu::fallback_detail
