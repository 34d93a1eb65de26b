// The attention family's task makers (kernels/attention/attention.h): the
// arguments are checked here, at GetWorkspaceSize, so a bad call fails
// before anything is queued.
#include "emulator/ops/attention.h"

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "kernels/attention/attention.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

kn::AttentionParams params(const aclTensor* query, const aclTensor* key, const aclTensor* value,
                           const aclTensor* attnBiasOptional, double scaleValue, bool isCausal, double dropoutP,
                           int64_t seed, int64_t offset) {
  const auto v = require_views<3>({{{query, "query"}, {key, "key"}, {value, "value"}}});
  kn::AttentionParams p{v[0], v[1], v[2], std::nullopt, scaleValue, isCausal, dropoutP,
                        kn::PhiloxInputs{static_cast<uint64_t>(seed), static_cast<uint64_t>(offset)}};
  if (attnBiasOptional != nullptr) {
    if (v[0].dim() != 4 || v[1].dim() != 4) fail(ACLNN_ERR_PARAM_INVALID, "query and key must be 4-D (BNSD)");
    const kn::Shape scores{v[0].sizes[0], v[0].sizes[1], v[0].sizes[2], v[1].sizes[2]};
    try {
      p.bias = kn::broadcast_to(attnBiasOptional->view(), scores);
    } catch (const kn::KernelError& e) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string("attnBiasOptional must broadcast to the scores' shape: ") + e.what());
    }
  }
  return p;
}

}  // namespace

TaskBody fused_attention_task(const aclTensor* query, const aclTensor* key, const aclTensor* value,
                              const aclTensor* attnBiasOptional, double scaleValue, bool isCausal, double dropoutP,
                              int64_t seed, int64_t offset, aclTensor* out, aclTensor* logSumExp) {
  const kn::AttentionParams p =
      params(query, key, value, attnBiasOptional, scaleValue, isCausal, dropoutP, seed, offset);
  const auto o = require_views<2>({{{out, "out"}, {logSumExp, "logSumExp"}}});
  checked([&] { kn::check_attention_forward(p, o[0], o[1]); });
  return [p, o] { kn::attention_forward(p, o[0], o[1]); };
}

TaskBody fused_attention_backward_task(const aclTensor* gradOut, const aclTensor* query, const aclTensor* key,
                                       const aclTensor* value, const aclTensor* attnBiasOptional,
                                       const aclTensor* out, const aclTensor* logSumExp, double scaleValue,
                                       bool isCausal, double dropoutP, int64_t seed, int64_t offset,
                                       aclTensor* gradQuery, aclTensor* gradKey, aclTensor* gradValue) {
  const kn::AttentionParams p =
      params(query, key, value, attnBiasOptional, scaleValue, isCausal, dropoutP, seed, offset);
  const auto t = require_views<6>({{{gradOut, "gradOut"},
                                    {out, "out"},
                                    {logSumExp, "logSumExp"},
                                    {gradQuery, "gradQuery"},
                                    {gradKey, "gradKey"},
                                    {gradValue, "gradValue"}}});
  checked([&] { kn::check_attention_backward(p, t[0], t[1], t[2], t[3], t[4], t[5]); });
  return [p, t] { kn::attention_backward(p, t[0], t[1], t[2], t[3], t[4], t[5]); };
}

}  // namespace npu::emu
