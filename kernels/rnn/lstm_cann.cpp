#include "kernels/rnn/lstm_cann.h"

#include <array>
#include <string>

#include "kernels/copy/copy.h"
#include "kernels/core/dims.h"
#include "kernels/core/scratch.h"
#include "kernels/pointwise/unary_ops.h"
#include "kernels/rnn/lstm_layer.h"

namespace npu::kernels {

namespace {

LstmLayerArgs layer_args(const LstmCannLayer& a) {
  return LstmLayerArgs{a.input, a.weight_ih, a.weight_hh, a.bias_ih, a.bias_hh, a.hx, a.cx, {}, false};
}

// The layer kernel's reserve, [T*B, 6H] in its compute dtype.
ScratchTensor make_reserve(const LstmCannLayer& a) {
  const int64_t T = a.input.sizes[0], B = a.input.sizes[1], H = a.weight_hh.sizes[1];
  return ScratchTensor(lstm_reserve_dtype(a.input.dtype), {T * B, lstm_reserve_width(H)});
}

// The reserve's [T, B, H] column block `k` (0..5: i, f, g, o, c, h).
TensorView reserve_block(const TensorView& reserve, int64_t T, int64_t B, int64_t H, int64_t k) {
  TensorView v = reserve;
  v.sizes = {T, B, 6, H};
  v.strides = contiguous_strides(v.sizes);
  return select(v, 2, k);
}

// CANN's tensors in the reserve's column order.
std::array<const TensorView*, 6> in_reserve_order(const LstmCannSaved& s) {
  return {&s.i, &s.f, &s.j, &s.o, &s.c, &s.h};
}

void require_seq(const TensorView& t, const Shape& shape, DType dtype, const std::string& name) {
  if (t.sizes != shape || t.dtype != dtype) {
    throw KernelError("aclnnLSTM: " + name + " must be " + model::dtype_name(dtype) + " " + shape_str(shape) +
                      ", got " + model::dtype_name(t.dtype) + " " + shape_str(t.sizes));
  }
}

void check_saved(const LstmCannLayer& a, const LstmCannSaved& s) {
  const Shape shape{a.input.sizes[0], a.input.sizes[1], a.weight_hh.sizes[1]};
  const std::array<std::pair<const TensorView*, const char*>, 7> all{
      {{&s.i, "i"}, {&s.j, "j"}, {&s.f, "f"}, {&s.o, "o"}, {&s.h, "h"}, {&s.c, "c"}, {&s.tanhc, "tanhc"}}};
  for (const auto& [t, name] : all) require_seq(*t, shape, a.input.dtype, name);
}

}  // namespace

void check_lstm_cann_forward(const LstmCannLayer& a, const TensorView& output, const TensorView& hy,
                             const TensorView& cy, const std::optional<LstmCannSaved>& saved) {
  if (a.input.dim() != 3) throw KernelError("aclnnLSTM: input must be 3-D, got " + shape_str(a.input.sizes));
  const ScratchTensor reserve = make_reserve(a);
  check_lstm_layer(layer_args(a), output, hy, cy, reserve.view());
  if (saved) check_saved(a, *saved);
}

void lstm_cann_forward(const LstmCannLayer& a, const TensorView& output, const TensorView& hy, const TensorView& cy,
                       const std::optional<LstmCannSaved>& saved) {
  const ScratchTensor reserve = make_reserve(a);
  lstm_layer_forward(layer_args(a), output, hy, cy, reserve.view());
  if (!saved) return;
  const int64_t T = a.input.sizes[0], B = a.input.sizes[1], H = a.weight_hh.sizes[1];
  const auto dst = in_reserve_order(*saved);
  for (int64_t k = 0; k < 6; ++k) copy(*dst[static_cast<std::size_t>(k)], reserve_block(reserve.view(), T, B, H, k));
  // tanh(c) from the compute-dtype cell state, rounded once into tanhc.
  unary(UnaryFn::Tanh, saved->tanhc, reserve_block(reserve.view(), T, B, H, 4));
}

void check_lstm_cann_backward(const LstmCannLayer& a, const LstmCannSaved& saved, const LstmCannGrads& g,
                              const LstmCannGradOutputs& out) {
  if (a.input.dim() != 3) throw KernelError("aclnnLstmBackward: input must be 3-D, got " + shape_str(a.input.sizes));
  check_saved(a, saved);
  const ScratchTensor reserve = make_reserve(a);
  check_lstm_layer_backward(layer_args(a), reserve.view(), LstmLayerGrads{g.dy, g.dh, g.dc},
                            LstmLayerGradOutputs{out.dx, out.dw_ih, out.dw_hh, out.db_ih, out.db_hh, out.dh_prev,
                                                 out.dc_prev});
}

void lstm_cann_backward(const LstmCannLayer& a, const LstmCannSaved& saved, const LstmCannGrads& g,
                        const LstmCannGradOutputs& out) {
  const int64_t T = a.input.sizes[0], B = a.input.sizes[1], H = a.weight_hh.sizes[1];
  const ScratchTensor reserve = make_reserve(a);
  const auto src = in_reserve_order(saved);
  for (int64_t k = 0; k < 6; ++k) copy(reserve_block(reserve.view(), T, B, H, k), *src[static_cast<std::size_t>(k)]);
  lstm_layer_backward(layer_args(a), reserve.view(), LstmLayerGrads{g.dy, g.dh, g.dc},
                      LstmLayerGradOutputs{out.dx, out.dw_ih, out.dw_hh, out.db_ih, out.db_hh, out.dh_prev,
                                           out.dc_prev});
}

}  // namespace npu::kernels
