// Task makers of the recurrent family (ops/table/rnn.yaml).
#pragma once

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

// One LSTM layer/direction over a sequence (kernels/rnn/lstm_layer.h).
TaskBody lstm_layer_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                         const aclTensor* biasIhOptional, const aclTensor* biasHhOptional, const aclTensor* hx,
                         const aclTensor* cx, const aclIntArray* batchSizes, bool reverse, aclTensor* output,
                         aclTensor* hy, aclTensor* cy, aclTensor* reserve);

// Its gradients, from the forward's reserve.
TaskBody lstm_layer_backward_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                                  const aclTensor* hx, const aclTensor* cx, const aclTensor* reserve,
                                  const aclTensor* gradOutputOptional, const aclTensor* gradHyOptional,
                                  const aclTensor* gradCyOptional, const aclIntArray* batchSizes, bool reverse,
                                  aclTensor* gradInput, aclTensor* gradWeightIh, aclTensor* gradWeightHh,
                                  aclTensor* gradBiasIhOptional, aclTensor* gradBiasHhOptional, aclTensor* gradHx,
                                  aclTensor* gradCx);

// One GRU layer/direction over a sequence (kernels/rnn/gru_layer.h).
TaskBody gru_layer_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                        const aclTensor* biasIhOptional, const aclTensor* biasHhOptional, const aclTensor* hx,
                        const aclIntArray* batchSizes, bool reverse, aclTensor* output, aclTensor* hy,
                        aclTensor* reserve);

// Its gradients, from the forward's reserve.
TaskBody gru_layer_backward_task(const aclTensor* input, const aclTensor* weightIh, const aclTensor* weightHh,
                                 const aclTensor* hx, const aclTensor* reserve, const aclTensor* gradOutputOptional,
                                 const aclTensor* gradHyOptional, const aclIntArray* batchSizes, bool reverse,
                                 aclTensor* gradInput, aclTensor* gradWeightIh, aclTensor* gradWeightHh,
                                 aclTensor* gradBiasIhOptional, aclTensor* gradBiasHhOptional, aclTensor* gradHx);

}  // namespace npu::emu
