// The recurrent family's task makers (kernels/rnn/): arguments are checked
// here, at GetWorkspaceSize, so a bad call fails before anything is queued.
#include "emulator/ops/rnn.h"

#include <optional>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "kernels/rnn/gru_layer.h"
#include "kernels/rnn/lstm_layer.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

kn::LstmLayerArgs layer_args(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                             const aclTensor* biasIh, const aclTensor* biasHh, const aclTensor* hx,
                             const aclTensor* cx, const aclIntArray* batchSizes, bool reverse) {
  const auto v = require_views<5>(
      {{{input, "input"}, {weightIh, "weightIh"}, {weightHh, "weightHh"}, {hx, "hx"}, {cx, "cx"}}});
  return kn::LstmLayerArgs{v[0], v[1], v[2], optional_view(biasIh), optional_view(biasHh),
                           v[3], v[4], int_values(batchSizes), reverse};
}

kn::GruLayerArgs gru_args(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                          const aclTensor* biasIh, const aclTensor* biasHh, const aclTensor* hx,
                          const aclIntArray* batchSizes, bool reverse) {
  const auto v = require_views<4>({{{input, "input"}, {weightIh, "weightIh"}, {weightHh, "weightHh"}, {hx, "hx"}}});
  return kn::GruLayerArgs{v[0], v[1], v[2], optional_view(biasIh), optional_view(biasHh),
                          v[3], int_values(batchSizes), reverse};
}

}  // namespace

TaskBody lstm_layer_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                         const aclTensor* biasIhOptional, const aclTensor* biasHhOptional, const aclTensor* hx,
                         const aclTensor* cx, const aclIntArray* batchSizes, bool reverse, aclTensor* output,
                         aclTensor* hy, aclTensor* cy, aclTensor* reserve) {
  const kn::LstmLayerArgs a =
      layer_args(input, weightIh, weightHh, biasIhOptional, biasHhOptional, hx, cx, batchSizes, reverse);
  const auto o = require_views<4>({{{output, "output"}, {hy, "hy"}, {cy, "cy"}, {reserve, "reserve"}}});
  checked([&] { kn::check_lstm_layer(a, o[0], o[1], o[2], o[3]); });
  return [a, o] { kn::lstm_layer_forward(a, o[0], o[1], o[2], o[3]); };
}

TaskBody lstm_layer_backward_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                                  const aclTensor* hx, const aclTensor* cx, const aclTensor* reserve,
                                  const aclTensor* gradOutputOptional, const aclTensor* gradHyOptional,
                                  const aclTensor* gradCyOptional, const aclIntArray* batchSizes, bool reverse,
                                  aclTensor* gradInput, aclTensor* gradWeightIh, aclTensor* gradWeightHh,
                                  aclTensor* gradBiasIhOptional, aclTensor* gradBiasHhOptional, aclTensor* gradHx,
                                  aclTensor* gradCx) {
  const kn::LstmLayerArgs a = layer_args(input, weightIh, weightHh, nullptr, nullptr, hx, cx, batchSizes, reverse);
  const auto r = require_views<1>({{{reserve, "reserve"}}});
  const kn::LstmLayerGrads g{optional_view(gradOutputOptional), optional_view(gradHyOptional),
                             optional_view(gradCyOptional)};
  const auto o = require_views<5>({{{gradInput, "gradInput"},
                                    {gradWeightIh, "gradWeightIh"},
                                    {gradWeightHh, "gradWeightHh"},
                                    {gradHx, "gradHx"},
                                    {gradCx, "gradCx"}}});
  const kn::LstmLayerGradOutputs out{o[0], o[1], o[2], optional_view(gradBiasIhOptional),
                                     optional_view(gradBiasHhOptional), o[3], o[4]};
  checked([&] { kn::check_lstm_layer_backward(a, r[0], g, out); });
  return [a, r, g, out] { kn::lstm_layer_backward(a, r[0], g, out); };
}

TaskBody gru_layer_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                        const aclTensor* biasIhOptional, const aclTensor* biasHhOptional, const aclTensor* hx,
                        const aclIntArray* batchSizes, bool reverse, aclTensor* output, aclTensor* hy,
                        aclTensor* reserve) {
  const kn::GruLayerArgs a =
      gru_args(input, weightIh, weightHh, biasIhOptional, biasHhOptional, hx, batchSizes, reverse);
  const auto o = require_views<3>({{{output, "output"}, {hy, "hy"}, {reserve, "reserve"}}});
  checked([&] { kn::check_gru_layer(a, o[0], o[1], o[2]); });
  return [a, o] { kn::gru_layer_forward(a, o[0], o[1], o[2]); };
}

TaskBody gru_layer_backward_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                                 const aclTensor* hx, const aclTensor* reserve, const aclTensor* gradOutputOptional,
                                 const aclTensor* gradHyOptional, const aclIntArray* batchSizes, bool reverse,
                                 aclTensor* gradInput, aclTensor* gradWeightIh, aclTensor* gradWeightHh,
                                 aclTensor* gradBiasIhOptional, aclTensor* gradBiasHhOptional, aclTensor* gradHx) {
  const kn::GruLayerArgs a = gru_args(input, weightIh, weightHh, nullptr, nullptr, hx, batchSizes, reverse);
  const auto r = require_views<1>({{{reserve, "reserve"}}});
  const kn::GruLayerGrads g{optional_view(gradOutputOptional), optional_view(gradHyOptional)};
  const auto o = require_views<4>(
      {{{gradInput, "gradInput"}, {gradWeightIh, "gradWeightIh"}, {gradWeightHh, "gradWeightHh"}, {gradHx, "gradHx"}}});
  const kn::GruLayerGradOutputs out{o[0], o[1], o[2], optional_view(gradBiasIhOptional),
                                    optional_view(gradBiasHhOptional), o[3]};
  checked([&] { kn::check_gru_layer_backward(a, r[0], g, out); });
  return [a, r, g, out] { kn::gru_layer_backward(a, r[0], g, out); };
}

}  // namespace npu::emu
