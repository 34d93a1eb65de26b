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

kn::LstmLayerArgs lstm_args(const RnnLayerInputs& in) {
  const auto v = require_views<5>(
      {{{in.input, "input"}, {in.weightIh, "weightIh"}, {in.weightHh, "weightHh"}, {in.hx, "hx"}, {in.cx, "cx"}}});
  return kn::LstmLayerArgs{v[0], v[1], v[2], optional_view(in.biasIh), optional_view(in.biasHh),
                           v[3], v[4], int_values(in.batchSizes), in.reverse};
}

kn::GruLayerArgs gru_args(const RnnLayerInputs& in) {
  const auto v = require_views<4>(
      {{{in.input, "input"}, {in.weightIh, "weightIh"}, {in.weightHh, "weightHh"}, {in.hx, "hx"}}});
  return kn::GruLayerArgs{v[0], v[1], v[2], optional_view(in.biasIh), optional_view(in.biasHh),
                          v[3], int_values(in.batchSizes), in.reverse};
}

}  // namespace

TaskBody lstm_layer_task(const RnnLayerInputs& in, aclTensor* output, aclTensor* hy, aclTensor* cy,
                         aclTensor* reserve) {
  const kn::LstmLayerArgs a = lstm_args(in);
  const auto o = require_views<4>({{{output, "output"}, {hy, "hy"}, {cy, "cy"}, {reserve, "reserve"}}});
  checked([&] { kn::check_lstm_layer(a, o[0], o[1], o[2], o[3]); });
  return [a, o] { kn::lstm_layer_forward(a, o[0], o[1], o[2], o[3]); };
}

TaskBody lstm_layer_backward_task(const RnnLayerInputs& in, const aclTensor* reserve,
                                  const aclTensor* gradOutputOptional, const aclTensor* gradHyOptional,
                                  const aclTensor* gradCyOptional, aclTensor* gradInput, aclTensor* gradWeightIh,
                                  aclTensor* gradWeightHh, aclTensor* gradBiasIhOptional,
                                  aclTensor* gradBiasHhOptional, aclTensor* gradHx, aclTensor* gradCx) {
  const kn::LstmLayerArgs a = lstm_args(in);
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

TaskBody gru_layer_task(const RnnLayerInputs& in, aclTensor* output, aclTensor* hy, aclTensor* reserve) {
  const kn::GruLayerArgs a = gru_args(in);
  const auto o = require_views<3>({{{output, "output"}, {hy, "hy"}, {reserve, "reserve"}}});
  checked([&] { kn::check_gru_layer(a, o[0], o[1], o[2]); });
  return [a, o] { kn::gru_layer_forward(a, o[0], o[1], o[2]); };
}

TaskBody gru_layer_backward_task(const RnnLayerInputs& in, const aclTensor* reserve,
                                 const aclTensor* gradOutputOptional, const aclTensor* gradHyOptional,
                                 aclTensor* gradInput, aclTensor* gradWeightIh, aclTensor* gradWeightHh,
                                 aclTensor* gradBiasIhOptional, aclTensor* gradBiasHhOptional, aclTensor* gradHx) {
  const kn::GruLayerArgs a = gru_args(in);
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
