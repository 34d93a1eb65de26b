// CANN's aclnnFlashAttentionScore and aclnnFlashAttentionScoreGrad on the
// fused attention kernels (kernels/attention/attention.h), which compute in
// the BNSD layout on strided views: every other layout is viewed as BNSD
// without a copy. The positional shift (pse), the masks of sparseMode 0-4
// and the attention mask become one float additive bias built when the task
// runs; dropout reads the bit-packed dropMask aclnnDropoutGenMask made. What
// the kernels cannot express (the TND layout, prefix modes 5/6, the varlen
// modes 7/8) is refused by name.
//
// softmaxMaxOut / softmaxSumOut ([B, N, S1, 8] float32, CANN's 8 equal lanes
// per row): npu-emu stores each row's log-sum-exp as its max and 1 as its
// sum, so exp(score - max) / sum is the softmax exactly as with the chip's
// (max, sum) pair; the grad reads any (max, sum) as log-sum-exp max + log(sum).
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/ops/attention.h"
#include "kernels/attention/attention.h"
#include "kernels/core/dtype_dispatch.h"

namespace npu::emu {

namespace {

namespace kn = kernels;
using kn::Shape;
using kn::TensorView;

constexpr int64_t kSoftmaxLanes = 8;

enum class Layout { BNSD, BSND, BSH, SBH };

Layout parse_layout(const char* inputLayout) {
  const std::string s = inputLayout == nullptr ? "" : inputLayout;
  if (s == "BNSD") return Layout::BNSD;
  if (s == "BSND") return Layout::BSND;
  if (s == "BSH") return Layout::BSH;
  if (s == "SBH") return Layout::SBH;
  fail(ACLNN_ERR_PARAM_INVALID, "inputLayout '" + s +
                                    "' is not supported: use BNSD, BSND, BSH or SBH (TND is "
                                    "aclnnFlashAttentionVarLenScore's, not emulated)");
}

// `t` (in `layout`, `heads` heads) as a [B, N, S, D] view of its storage.
TensorView as_bnsd(const TensorView& t, Layout layout, int64_t heads, const char* name) {
  const int64_t want = layout == Layout::BSH || layout == Layout::SBH ? 3 : 4;
  if (t.dim() != want) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be " + std::to_string(want) +
                                      "-D for its inputLayout, got shape " + kn::shape_str(t.sizes));
  }
  TensorView v = t;
  switch (layout) {
    case Layout::BNSD:
      return v;
    case Layout::BSND:
      v.sizes = {t.sizes[0], t.sizes[2], t.sizes[1], t.sizes[3]};
      v.strides = {t.strides[0], t.strides[2], t.strides[1], t.strides[3]};
      return v;
    case Layout::BSH:
    case Layout::SBH: {
      if (heads <= 0 || t.sizes[2] % heads != 0) {
        fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + "'s hidden size " + std::to_string(t.sizes[2]) +
                                          " is not a multiple of its head count " + std::to_string(heads));
      }
      const int64_t d = t.sizes[2] / heads;
      const int64_t b = layout == Layout::BSH ? 0 : 1, s = 1 - b;
      v.sizes = {t.sizes[b], heads, t.sizes[s], d};
      v.strides = {t.strides[b], d * t.strides[2], t.strides[s], t.strides[2]};
      return v;
    }
  }
  return v;
}

// The key/value head count: from the shape in BNSD/BSND, else from the hidden
// size and the query's head dim.
int64_t kv_heads(const TensorView& kv, const TensorView& query, Layout layout, int64_t headNum) {
  if (layout == Layout::BNSD) return kv.sizes[1];
  if (layout == Layout::BSND) return kv.sizes[2];
  const int64_t d = query.sizes[2] / headNum;
  if (d == 0 || kv.sizes[2] % d != 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "key's hidden size " + std::to_string(kv.sizes[2]) +
                                      " is not a multiple of the query's head dim " + std::to_string(d));
  }
  return kv.sizes[2] / d;
}

// The masking and shift a call asks for, turned into the kernels' terms:
// top-left causal, or an additive float bias (scale * pse, -inf where
// masked) built when the task runs (mask and pse are device data).
struct Masking {
  bool causal = false;
  std::optional<TensorView> mask;  // attenMask broadcast to [B, N, S1, S2]; nonzero = masked out
  bool band = false;               // keep j with i - pre <= j <= i + next
  int64_t pre = 0, next = 0;
  std::optional<TensorView> pse;   // realShift broadcast to [B, N, S1, S2]
  double pse_scale = 1.0;          // CANN adds pse before the scale: the bias is scale * pse

  bool any() const { return mask.has_value() || band || pse.has_value(); }
};

Masking masking(const aclTensor* attenMaskOptional, int64_t sparseMode, int64_t preTokens, int64_t nextTokens,
                const Shape& scores) {
  const int64_t s1 = scores[2], s2 = scores[3];
  Masking m;
  const auto given_mask = [&] {
    if (attenMaskOptional == nullptr) return;
    const TensorView v = attenMaskOptional->view();
    if (v.dtype != model::DType::Bool && v.dtype != model::DType::UInt8) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string("attenMaskOptional must be bool or uint8, got ") +
                                        model::dtype_name(v.dtype));
    }
    try {
      m.mask = kn::broadcast_to(v, scores);
    } catch (const kn::KernelError& e) {
      fail(ACLNN_ERR_PARAM_INVALID,
           std::string("attenMaskOptional must broadcast to [B, N, S1, S2] with sparseMode 0 or 1: ") + e.what());
    }
  };
  // The band of sparseMode 3/4 is anchored at the bottom-right corner: row i
  // of the query sits at key position i + (S2 - S1).
  const auto bottom_right_band = [&](int64_t pre, int64_t next) {
    m.band = true;
    m.pre = pre - (s2 - s1);
    m.next = next + (s2 - s1);
  };
  switch (sparseMode) {
    case 0:  // defaultMask: the given mask and, with it, the preTokens/nextTokens band
      given_mask();
      if (m.mask && (preTokens < s1 || nextTokens < s2)) {
        m.band = true;
        m.pre = preTokens;
        m.next = nextTokens;
      }
      return m;
    case 1:  // allMask: the given full mask only
      given_mask();
      return m;
    case 2:  // leftUpCausal (the mask is CANN's compressed 2048 x 2048 triangle: implied)
      m.causal = true;
      return m;
    case 3:  // rightDownCausal
      if (s1 == s2) {
        m.causal = true;
      } else {
        bottom_right_band(std::numeric_limits<int64_t>::max() / 4, 0);
      }
      return m;
    case 4:  // band: preTokens/nextTokens from the bottom-right corner (compressed triangle implied)
      bottom_right_band(preTokens, nextTokens);
      return m;
    default:
      fail(ACLNN_ERR_PARAM_INVALID, "sparseMode " + std::to_string(sparseMode) +
                                        " is not emulated: use 0 (defaultMask), 1 (allMask), 2 (leftUpCausal), "
                                        "3 (rightDownCausal) or 4 (band); 5/6 (prefix) and 7/8 (varlen) are not");
  }
}

bool masked_at(const Masking& m, int64_t b, int64_t n, int64_t i, int64_t j) {
  if (m.band && (j > i + m.next || j < i - m.pre)) return true;
  if (!m.mask) return false;
  const TensorView& t = *m.mask;
  return t.ptr<const uint8_t>()[b * t.strides[0] + n * t.strides[1] + i * t.strides[2] + j * t.strides[3]] != 0;
}

// The float bias for `m` over [B, N, S1, S2], filled when called: float, so
// a float16/bfloat16 pse is scaled without a second rounding.
TensorView build_bias(const Masking& m, const Shape& scores, std::vector<float>& storage) {
  const int64_t count = scores[0] * scores[1] * scores[2] * scores[3];
  storage.assign(static_cast<std::size_t>(count), 0.0f);
  const auto fill = [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::size_t e = 0;
    for (int64_t b = 0; b < scores[0]; ++b) {
      for (int64_t n = 0; n < scores[1]; ++n) {
        for (int64_t i = 0; i < scores[2]; ++i) {
          for (int64_t j = 0; j < scores[3]; ++j, ++e) {
            if (masked_at(m, b, n, i, j)) {
              storage[e] = -std::numeric_limits<float>::infinity();
            } else if constexpr (kn::is_floating_v<T>) {
              if (m.pse) {
                const TensorView& t = *m.pse;
                const T v = t.ptr<const T>()[b * t.strides[0] + n * t.strides[1] + i * t.strides[2] + j * t.strides[3]];
                storage[e] = static_cast<float>(m.pse_scale * static_cast<double>(kn::convert<float>(v)));
              }
            }
          }
        }
      }
    }
  };
  kn::visit_dtype(m.pse ? m.pse->dtype : model::DType::Float32, fill);
  return TensorView{storage.data(), model::DType::Float32, scores, kn::contiguous_strides(scores)};
}

struct Call {
  kn::AttentionParams params;
  Masking mask;
  Shape scores;
  Layout layout;
  int64_t heads;
};

Call prepare(const FlashAttentionArgs& a) {
  const auto v = require_views<3>({{{a.query, "query"}, {a.key, "key"}, {a.value, "value"}}});
  if (!(a.keepProb >= 0.0 && a.keepProb <= 1.0)) {
    fail(ACLNN_ERR_PARAM_INVALID, "keepProb must be in [0, 1], got " + std::to_string(a.keepProb));
  }
  for (const auto& t : v) {
    if (t.dtype != model::DType::Float32 && t.dtype != model::DType::Float16 && t.dtype != model::DType::BFloat16) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string("query, key and value must be float16, bfloat16 or float32, got ") +
                                        model::dtype_name(t.dtype));
    }
  }
  if (a.headNum <= 0) fail(ACLNN_ERR_PARAM_INVALID, "headNum must be positive, got " + std::to_string(a.headNum));
  const Layout layout = parse_layout(a.inputLayout);
  const TensorView q = as_bnsd(v[0], layout, a.headNum, "query");
  if (q.sizes[1] != a.headNum) {
    fail(ACLNN_ERR_PARAM_INVALID, "query has " + std::to_string(q.sizes[1]) + " heads, headNum says " +
                                      std::to_string(a.headNum));
  }
  if (v[1].dim() != v[0].dim() || v[2].dim() != v[0].dim()) {
    fail(ACLNN_ERR_PARAM_INVALID, "key and value must have the query's layout");
  }
  const int64_t kv = kv_heads(v[1], v[0], layout, a.headNum);
  const TensorView k = as_bnsd(v[1], layout, kv, "key");
  const TensorView val = as_bnsd(v[2], layout, kv, "value");
  Call c{kn::AttentionParams{q, k, val, std::nullopt, a.scaleValue, false, 0.0, kn::PhiloxInputs{0, 0}}, {}, {},
         layout, a.headNum};
  c.scores = {q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2]};
  c.mask = masking(a.attenMask, a.sparseMode, a.preTokens, a.nextTokens, c.scores);
  c.params.causal = c.mask.causal;
  if (a.pse != nullptr) {
    const TensorView pse = a.pse->view();
    if (pse.dtype != q.dtype || pse.dim() != 4) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string("realShiftOptional/pseShiftOptional must be 4-D in the query's dtype ") +
                                        model::dtype_name(q.dtype) + ", got " + model::dtype_name(pse.dtype) + " " +
                                        kn::shape_str(pse.sizes));
    }
    try {
      c.mask.pse = kn::broadcast_to(pse, c.scores);
    } catch (const kn::KernelError&) {
      fail(ACLNN_ERR_PARAM_INVALID, "realShiftOptional/pseShiftOptional " + kn::shape_str(pse.sizes) +
                                        " must be [B, N, S1, S2], [B, N, 1, S2] or [1, N, S1, S2] for scores " +
                                        kn::shape_str(c.scores) + " (the alibi-compressed form is not emulated)");
    }
    c.mask.pse_scale = a.scaleValue;
  }
  if (a.keepProb < 1.0) {
    // CANN's dropout: one bit per score element, made by aclnnDropoutGenMask(V2).
    if (a.dropMask == nullptr) {
      fail(ACLNN_ERR_PARAM_NULLPTR, "dropMaskOptional is required with keepProb " + std::to_string(a.keepProb) +
                                        " < 1: the bit-packed keep mask of aclnnDropoutGenMaskV2 over B*N*S1*S2 "
                                        "elements");
    }
    const TensorView bits = a.dropMask->view();
    const int64_t count = c.scores[0] * c.scores[1] * c.scores[2] * c.scores[3];
    if (bits.dtype != model::DType::UInt8 || bits.dim() != 1 || (bits.sizes[0] > 1 && bits.strides[0] != 1) ||
        bits.sizes[0] < (count + 7) / 8) {
      fail(ACLNN_ERR_PARAM_INVALID, "dropMaskOptional must be a contiguous 1-D uint8 tensor of at least " +
                                        std::to_string((count + 7) / 8) + " bytes (one bit per element of [B, N, S1, "
                                        "S2] = " + kn::shape_str(c.scores) + "), got " +
                                        model::dtype_name(bits.dtype) + " " + kn::shape_str(bits.sizes));
    }
    c.params.dropout_p = 1.0 - a.keepProb;
    c.params.keep_bits = bits.ptr<const uint8_t>();
  }
  return c;
}

TensorView softmax_stat(const aclTensor* t, const Shape& scores, const char* name) {
  require_tensor(t, name);
  const TensorView v = t->view();
  const Shape want{scores[0], scores[1], scores[2], kSoftmaxLanes};
  if (v.sizes != want || v.dtype != model::DType::Float32) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be float32 " + kn::shape_str(want) + ", got " +
                                      model::dtype_name(v.dtype) + " " + kn::shape_str(v.sizes));
  }
  return v;
}

// [B, N, S1] view of lane 0 of a softmax statistic.
TensorView lane0(const TensorView& stat) {
  return TensorView{stat.data, stat.dtype, {stat.sizes[0], stat.sizes[1], stat.sizes[2]},
                    {stat.strides[0], stat.strides[1], stat.strides[2]}};
}

float& at3(const TensorView& t, int64_t b, int64_t n, int64_t i, int64_t lane) {
  return t.ptr<float>()[b * t.strides[0] + n * t.strides[1] + i * t.strides[2] + lane * t.strides[3]];
}

// dpse = scale * dS (dense [B, N, S1, S2] float) summed over the dimensions
// of size 1 in dpse (those pse broadcast in), rounded once into dpse.
void write_pse_grad(const std::vector<float>& ds, const Shape& scores, double scale, const TensorView& dpse) {
  const Shape& shape = dpse.sizes;
  std::vector<double> sum(static_cast<std::size_t>(shape[0] * shape[1] * shape[2] * shape[3]), 0.0);
  const Shape dense = kn::contiguous_strides(shape);
  std::size_t e = 0;
  for (int64_t b = 0; b < scores[0]; ++b) {
    for (int64_t n = 0; n < scores[1]; ++n) {
      for (int64_t i = 0; i < scores[2]; ++i) {
        for (int64_t j = 0; j < scores[3]; ++j, ++e) {
          const int64_t at = (shape[0] == 1 ? 0 : b) * dense[0] + (shape[1] == 1 ? 0 : n) * dense[1] +
                             (shape[2] == 1 ? 0 : i) * dense[2] + (shape[3] == 1 ? 0 : j) * dense[3];
          sum[static_cast<std::size_t>(at)] += static_cast<double>(ds[e]);
        }
      }
    }
  }
  kn::visit_dtype(dpse.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kn::is_floating_v<T>) {
      for (int64_t b = 0; b < shape[0]; ++b) {
        for (int64_t n = 0; n < shape[1]; ++n) {
          for (int64_t i = 0; i < shape[2]; ++i) {
            for (int64_t j = 0; j < shape[3]; ++j) {
              const double v = scale * sum[static_cast<std::size_t>(b * dense[0] + n * dense[1] + i * dense[2] + j * dense[3])];
              dpse.ptr<T>()[b * dpse.strides[0] + n * dpse.strides[1] + i * dpse.strides[2] + j * dpse.strides[3]] =
                  kn::convert<T>(static_cast<float>(v));
            }
          }
        }
      }
    }
  });
}

}  // namespace

TaskBody flash_attention_score_task(const FlashAttentionArgs& args, const aclTensor* softmaxMaxOut,
                                    const aclTensor* softmaxSumOut, const aclTensor* attentionOutOut) {
  const Call c = prepare(args);
  const TensorView smax = softmax_stat(softmaxMaxOut, c.scores, "softmaxMaxOut");
  const TensorView ssum = softmax_stat(softmaxSumOut, c.scores, "softmaxSumOut");
  const TensorView out_raw = require_views<1>({{{attentionOutOut, "attentionOutOut"}}})[0];
  const TensorView out = as_bnsd(out_raw, c.layout, c.heads, "attentionOutOut");
  const TensorView lse = lane0(smax);
  checked([&] { kn::check_attention_forward(c.params, out, lse); });
  return [c, smax, ssum, out, lse] {
    kn::AttentionParams p = c.params;
    std::vector<float> bias;
    if (c.mask.any()) p.bias = build_bias(c.mask, c.scores, bias);
    kn::attention_forward(p, out, lse);
    for (int64_t b = 0; b < c.scores[0]; ++b) {
      for (int64_t n = 0; n < c.scores[1]; ++n) {
        for (int64_t i = 0; i < c.scores[2]; ++i) {
          const float v = at3(smax, b, n, i, 0);
          for (int64_t l = 0; l < kSoftmaxLanes; ++l) {
            at3(smax, b, n, i, l) = v;
            at3(ssum, b, n, i, l) = 1.0f;
          }
        }
      }
    }
  };
}

TaskBody flash_attention_score_grad_task(const FlashAttentionArgs& args, const aclTensor* dy,
                                         const aclTensor* softmaxMaxOptional, const aclTensor* softmaxSumOptional,
                                         const aclTensor* attentionInOptional, const aclTensor* dqOut,
                                         const aclTensor* dkOut, const aclTensor* dvOut, const aclTensor* dpseOut) {
  const Call c = prepare(args);
  if (softmaxMaxOptional == nullptr || softmaxSumOptional == nullptr || attentionInOptional == nullptr) {
    fail(ACLNN_ERR_PARAM_NULLPTR, "softmaxMaxOptional, softmaxSumOptional and attentionInOptional (the forward's "
                                  "outputs) are required: npu-emu does not recompute the forward");
  }
  const TensorView smax = softmax_stat(softmaxMaxOptional, c.scores, "softmaxMaxOptional");
  const TensorView ssum = softmax_stat(softmaxSumOptional, c.scores, "softmaxSumOptional");
  const auto t = require_views<5>(
      {{{dy, "dy"}, {attentionInOptional, "attentionInOptional"}, {dqOut, "dqOut"}, {dkOut, "dkOut"}, {dvOut, "dvOut"}}});
  const TensorView grad_out = as_bnsd(t[0], c.layout, c.heads, "dy");
  const TensorView out = as_bnsd(t[1], c.layout, c.heads, "attentionInOptional");
  const TensorView dq = as_bnsd(t[2], c.layout, c.heads, "dqOut");
  const TensorView dk = as_bnsd(t[3], c.layout, c.params.key.sizes[1], "dkOut");
  const TensorView dv = as_bnsd(t[4], c.layout, c.params.key.sizes[1], "dvOut");
  const Shape rows{c.scores[0], c.scores[1], c.scores[2]};
  const TensorView lse_shape{nullptr, model::DType::Float32, rows, kn::contiguous_strides(rows)};
  checked([&] { kn::check_attention_backward(c.params, grad_out, out, lse_shape, dq, dk, dv); });
  // dpseOut: pse's gradient, scale * dS summed over the dimensions pse broadcasts in.
  std::optional<TensorView> dpse;
  if (args.pse != nullptr) {
    dpse = require_views<1>({{{dpseOut, "dpseOut"}}})[0];
    const TensorView pse = args.pse->view();
    if (dpse->sizes != pse.sizes || dpse->dtype != pse.dtype) {
      fail(ACLNN_ERR_PARAM_INVALID, "dpseOut must have pseShiftOptional's shape " + kn::shape_str(pse.sizes) +
                                        " and dtype, got " + model::dtype_name(dpse->dtype) + " " +
                                        kn::shape_str(dpse->sizes));
    }
  }
  return [c, smax, ssum, grad_out, out, dq, dk, dv, rows, dpse] {
    kn::AttentionParams p = c.params;
    std::vector<float> bias;
    if (c.mask.any()) p.bias = build_bias(c.mask, c.scores, bias);
    std::vector<float> lse(static_cast<std::size_t>(rows[0] * rows[1] * rows[2]));
    std::size_t e = 0;
    for (int64_t b = 0; b < rows[0]; ++b) {
      for (int64_t n = 0; n < rows[1]; ++n) {
        for (int64_t i = 0; i < rows[2]; ++i) lse[e++] = at3(smax, b, n, i, 0) + std::log(at3(ssum, b, n, i, 0));
      }
    }
    const TensorView lse_view{lse.data(), model::DType::Float32, rows, kn::contiguous_strides(rows)};
    std::vector<float> ds;
    std::optional<TensorView> ds_view;
    if (dpse) {
      ds.resize(static_cast<std::size_t>(c.scores[0] * c.scores[1] * c.scores[2] * c.scores[3]));
      ds_view = TensorView{ds.data(), model::DType::Float32, c.scores, kn::contiguous_strides(c.scores)};
    }
    kn::attention_backward(p, grad_out, out, lse_view, dq, dk, dv, ds_view);
    if (dpse) write_pse_grad(ds, c.scores, c.params.scale, *dpse);
  };
}

}  // namespace npu::emu
