// Task makers of ops/table/rnn_cann.yaml: CANN's aclnnLSTM and
// aclnnLstmBackward, which the real torch_npu calls for nn.LSTM.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "emulator/task_body.h"

namespace npu::emu {

TaskBody lstm_cann_task(const aclTensor* input, const aclTensorList* params, const aclTensorList* hx,
                        const aclTensor* batchSizes, bool hasBias, int64_t numLayers, double dropout, bool train,
                        bool bidirectional, bool batchFirst, aclTensor* output, aclTensor* hy, aclTensor* cy,
                        aclTensorList* iOut, aclTensorList* jOut, aclTensorList* fOut, aclTensorList* oOut,
                        aclTensorList* hOut, aclTensorList* cOut, aclTensorList* tanhCOut);

TaskBody lstm_cann_backward_task(const aclTensor* input, const aclTensorList* hx, const aclTensorList* params,
                                 const aclTensor* dy, const aclTensor* dh, const aclTensor* dc,
                                 const aclTensorList* i, const aclTensorList* g, const aclTensorList* f,
                                 const aclTensorList* o, const aclTensorList* h, const aclTensorList* c,
                                 const aclTensorList* tanhc, const aclTensor* batchSizesOptional, bool hasBias,
                                 int64_t numLayers, double dropout, bool train, bool bidirectional, bool batchFirst,
                                 const aclBoolArray* outputMask, aclTensor* dxOut, aclTensor* dhPrevOut,
                                 aclTensor* dcPrevOut, aclTensorList* dparamsOut);

}  // namespace npu::emu
