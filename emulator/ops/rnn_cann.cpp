#include "emulator/ops/rnn_cann.h"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "emulator/op_args.h"
#include "kernels/core/dims.h"
#include "kernels/rnn/lstm_cann.h"

namespace npu::emu {

namespace {

namespace kn = kernels;

// npu-emu runs the LSTMs torch_npu 2.13 sends to aclnn (one unidirectional
// layer with biases, dense sequences); it sends every other LSTM to the
// legacy aclop path. Anything else is refused by name.
void require_supported(const char* op, const aclTensor* batchSizes, bool hasBias, int64_t numLayers,
                       bool bidirectional) {
  const auto refuse = [op](const std::string& what) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + what +
                                      " is not supported by npu-emu (it runs one unidirectional layer with biases "
                                      "over a dense sequence, what torch_npu sends to aclnn); use nn.LSTM on "
                                      "npu-emu's own backend (without the real torch_npu) for other LSTMs");
  };
  if (numLayers != 1) refuse("numLayers=" + std::to_string(numLayers));
  if (bidirectional) refuse("bidirectional=true");
  if (!hasBias) refuse("hasBias=false");
  if (batchSizes != nullptr) refuse("a packed sequence (batchSizes)");
}

// Time-major view of a [B, T, X] tensor when batchFirst.
kn::TensorView time_major(kn::TensorView v, bool batchFirst) {
  if (batchFirst && v.dim() == 3) {
    std::swap(v.sizes[0], v.sizes[1]);
    std::swap(v.strides[0], v.strides[1]);
  }
  return v;
}

// The only layer's [B, H] state of a [1, B, H] tensor.
kn::TensorView layer_state(const kn::TensorView& v, const char* op, const char* name) {
  if (v.dim() != 3 || v.sizes[0] != 1) {
    fail(ACLNN_ERR_PARAM_INVALID,
         std::string(op) + ": " + name + " must be [1, batch, hidden] for one layer, got " + kn::shape_str(v.sizes));
  }
  return kn::select(v, 0, 0);
}

kn::LstmCannLayer layer_of(const char* op, const aclTensor* input, const aclTensorList* params,
                           const aclTensorList* hx, bool batchFirst) {
  require_tensor(input, "input");
  const std::vector<kn::TensorView> p = required_views(params, "params");
  if (p.size() != 4) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": params must hold weight_ih, weight_hh, bias_ih, bias_hh (4 "
                                                    "tensors), got " + std::to_string(p.size()));
  }
  const std::vector<kn::TensorView> states = required_views(hx, "hx");
  if (states.size() != 2) {
    fail(ACLNN_ERR_PARAM_INVALID,
         std::string(op) + ": hx must hold the initial hidden and cell states (2 tensors), got " +
             std::to_string(states.size()));
  }
  return kn::LstmCannLayer{time_major(input->view(), batchFirst), p[0], p[1], p[2], p[3],
                           layer_state(states[0], op, "hx[0]"), layer_state(states[1], op, "hx[1]")};
}

// The one [T, B, H] entry of each saved list.
kn::LstmCannSaved saved_of(const char* op, const std::array<std::pair<const aclTensorList*, const char*>, 7>& lists) {
  std::array<kn::TensorView, 7> v;
  for (std::size_t k = 0; k < lists.size(); ++k) {
    const std::vector<kn::TensorView> entries = required_views(lists[k].first, lists[k].second);
    if (entries.size() != 1) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + lists[k].second + " must hold one tensor per layer (1), got " +
                                        std::to_string(entries.size()));
    }
    v[k] = entries[0];
  }
  return kn::LstmCannSaved{v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

std::optional<kn::TensorView> optional_state(const aclTensor* t, const char* op, const char* name) {
  if (t == nullptr) return std::nullopt;
  return layer_state(t->view(), op, name);
}

}  // namespace

TaskBody lstm_cann_task(const aclTensor* input, const aclTensorList* params, const aclTensorList* hx,
                        const aclTensor* batchSizes, bool hasBias, int64_t numLayers, double /*dropout*/, bool train,
                        bool bidirectional, bool batchFirst, aclTensor* output, aclTensor* hy, aclTensor* cy,
                        aclTensorList* iOut, aclTensorList* jOut, aclTensorList* fOut, aclTensorList* oOut,
                        aclTensorList* hOut, aclTensorList* cOut, aclTensorList* tanhCOut) {
  constexpr const char* op = "aclnnLSTM";
  // dropout applies between layers only: with one layer it has no effect.
  require_supported(op, batchSizes, hasBias, numLayers, bidirectional);
  const kn::LstmCannLayer a = layer_of(op, input, params, hx, batchFirst);
  const auto o = require_views<3>({{{output, "output"}, {hy, "hy"}, {cy, "cy"}}});
  const kn::TensorView out = time_major(o[0], batchFirst);
  const kn::TensorView h_last = layer_state(o[1], op, "hy"), c_last = layer_state(o[2], op, "cy");
  // Without train torch_npu passes empty lists (and placeholder h/c lists): nothing is saved.
  std::optional<kn::LstmCannSaved> saved;
  if (train) {
    saved = saved_of(op, {{{iOut, "iOut"}, {jOut, "jOut"}, {fOut, "fOut"}, {oOut, "oOut"}, {hOut, "hOut"},
                           {cOut, "cOut"}, {tanhCOut, "tanhCOut"}}});
  }
  checked([&] { kn::check_lstm_cann_forward(a, out, h_last, c_last, saved); });
  return [a, out, h_last, c_last, saved] { kn::lstm_cann_forward(a, out, h_last, c_last, saved); };
}

TaskBody lstm_cann_backward_task(const aclTensor* input, const aclTensorList* hx, const aclTensorList* params,
                                 const aclTensor* dy, const aclTensor* dh, const aclTensor* dc,
                                 const aclTensorList* i, const aclTensorList* g, const aclTensorList* f,
                                 const aclTensorList* o, const aclTensorList* h, const aclTensorList* c,
                                 const aclTensorList* tanhc, const aclTensor* batchSizesOptional, bool hasBias,
                                 int64_t numLayers, double /*dropout*/, bool /*train*/, bool bidirectional,
                                 bool batchFirst, const aclBoolArray* /*outputMask*/, aclTensor* dxOut,
                                 aclTensor* dhPrevOut, aclTensor* dcPrevOut, aclTensorList* dparamsOut) {
  constexpr const char* op = "aclnnLstmBackward";
  require_supported(op, batchSizesOptional, hasBias, numLayers, bidirectional);
  const kn::LstmCannLayer a = layer_of(op, input, params, hx, batchFirst);
  const kn::LstmCannSaved saved =
      saved_of(op, {{{i, "i"}, {g, "g"}, {f, "f"}, {o, "o"}, {h, "h"}, {c, "c"}, {tanhc, "tanhc"}}});
  std::optional<kn::TensorView> grad_y;
  if (dy != nullptr) grad_y = time_major(dy->view(), batchFirst);
  const kn::LstmCannGrads grads{grad_y, optional_state(dh, op, "dh"), optional_state(dc, op, "dc")};
  const auto outs = require_views<3>({{{dxOut, "dxOut"}, {dhPrevOut, "dhPrevOut"}, {dcPrevOut, "dcPrevOut"}}});
  const std::vector<kn::TensorView> dp = required_views(dparamsOut, "dparamsOut");
  if (dp.size() != 4) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": dparamsOut must hold 4 tensors (as params), got " +
                                      std::to_string(dp.size()));
  }
  const kn::LstmCannGradOutputs go{time_major(outs[0], batchFirst), layer_state(outs[1], op, "dhPrevOut"),
                                   layer_state(outs[2], op, "dcPrevOut"), dp[0], dp[1], dp[2], dp[3]};
  checked([&] { kn::check_lstm_cann_backward(a, saved, grads, go); });
  return [a, saved, grads, go] { kn::lstm_cann_backward(a, saved, grads, go); };
}

}  // namespace npu::emu
