// Task makers of the recurrent family (ops/table/rnn.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// What one layer/direction reads in both directions, as the entries pass it:
// input, weights, initial states (cx: LSTM only, null for GRU), batchSizes
// and reverse; the backwards pass no biases (null).
struct RnnLayerInputs {
  const aclTensor* input;
  const aclTensor *weightIh, *weightHh, *biasIh, *biasHh;
  const aclTensor *hx, *cx;
  const aclIntArray* batchSizes;
  bool reverse;
};

// One LSTM layer/direction over a sequence (kernels/rnn/lstm_layer.h).
TaskBody lstm_layer_task(const RnnLayerInputs& in, aclTensor* output, aclTensor* hy, aclTensor* cy,
                         aclTensor* reserve);
// Its gradients, from the forward's reserve.
TaskBody lstm_layer_backward_task(const RnnLayerInputs& in, const aclTensor* reserve,
                                  const aclTensor* gradOutputOptional, const aclTensor* gradHyOptional,
                                  const aclTensor* gradCyOptional, aclTensor* gradInput, aclTensor* gradWeightIh,
                                  aclTensor* gradWeightHh, aclTensor* gradBiasIhOptional,
                                  aclTensor* gradBiasHhOptional, aclTensor* gradHx, aclTensor* gradCx);

// One GRU layer/direction over a sequence (kernels/rnn/gru_layer.h).
TaskBody gru_layer_task(const RnnLayerInputs& in, aclTensor* output, aclTensor* hy, aclTensor* reserve);
// Its gradients, from the forward's reserve.
TaskBody gru_layer_backward_task(const RnnLayerInputs& in, const aclTensor* reserve,
                                 const aclTensor* gradOutputOptional, const aclTensor* gradHyOptional,
                                 aclTensor* gradInput, aclTensor* gradWeightIh, aclTensor* gradWeightHh,
                                 aclTensor* gradBiasIhOptional, aclTensor* gradBiasHhOptional, aclTensor* gradHx);

}  // namespace npu::emu
