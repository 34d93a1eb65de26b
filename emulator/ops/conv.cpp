// The convolution family's task makers (kernels/conv/conv.h). Every shape
// rule is checked here, at GetWorkspaceSize time, so the task cannot fail on
// the stream; messages name the parameter and what was expected.
#include "emulator/ops/conv.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "device_model/format.h"
#include "device_model/storage_desc.h"
#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "kernels/conv/conv.h"

namespace npu::emu {

namespace {

namespace kc = kernels::conv;
using kernels::Shape;
using model::Format;

[[noreturn]] void invalid(const std::string& what) { fail(ACLNN_ERR_PARAM_INVALID, what); }

Format format_of(const aclTensor* t) {
  const std::optional<Format> f = model::format_from_acl(t->format);
  if (!f) invalid("unknown aclFormat " + std::to_string(t->format));
  return *f;
}

// A tensor parameter as the kernels address it. Base formats are strided
// views; the channel-blocked formats are read through their index maps
// (FORMATS.md): e.g. NC1HWC0 element (n, c, h, w) is at
// (((n*C1 + c/16)*H + h)*W + w)*16 + c%16.
kc::ConvOperand operand(const aclTensor* t, const char* name) {
  const Format f = format_of(t);
  if (!model::is_private_format(f)) return kc::strided_operand(t->view());
  const Shape& dims = t->view_dims;
  const auto expected = model::infer_storage_shape(f, dims.vec(), t->dtype);
  if (t->offset != 0 || Shape(expected.begin(), expected.end()) != t->storage_dims) {
    invalid(std::string(name) + " in " + model::format_label(f) + " must be a whole tensor of storage dims " +
            model::dims_str(expected) + ", got " + kernels::shape_str(t->storage_dims) + " at offset " +
            std::to_string(t->offset));
  }
  const int64_t c0 = model::format_c0(f, t->dtype);
  kc::ConvOperand op;
  op.data = t->data;
  op.dtype = t->dtype;
  const int64_t d0 = dims[0];
  const int64_t d1 = dims[1];
  const int64_t c1 = (d1 + c0 - 1) / c0;
  auto blocked_channels = [&](int64_t block) {
    op.channel.resize(static_cast<std::size_t>(d1));
    for (int64_t c = 0; c < d1; ++c) op.channel[static_cast<std::size_t>(c)] = (c / c0) * block + c % c0;
  };
  if ((f == Format::NC1HWC0 && dims.size() == 4) || (f == Format::NDC1HWC0 && dims.size() == 5)) {
    const int64_t h = dims[dims.size() - 2];
    const int64_t w = dims[dims.size() - 1];
    const int64_t d = dims.size() == 5 ? dims[2] : 1;
    op.outer.resize(static_cast<std::size_t>(d0));
    for (int64_t n = 0; n < d0; ++n) op.outer[static_cast<std::size_t>(n)] = n * d * c1 * h * w * c0;
    blocked_channels(h * w * c0);
    if (dims.size() == 5) op.spatial = {d, h, w}, op.spatial_strides = {c1 * h * w * c0, w * c0, c0};
    else op.spatial = {h, w}, op.spatial_strides = {w * c0, c0};
    return op;
  }
  if ((f == Format::FRACTAL_Z && dims.size() == 4) || (f == Format::FRACTAL_Z_3D && dims.size() == 5)) {
    const int64_t h = dims[dims.size() - 2];
    const int64_t w = dims[dims.size() - 1];
    const int64_t d = dims.size() == 5 ? dims[2] : 1;
    const int64_t n1 = (d0 + model::kFractalEdge - 1) / model::kFractalEdge;
    const int64_t tile = n1 * model::kFractalEdge * c0;  // one (c1, d, h, w) slot: all of dim 0 by C0
    op.outer.resize(static_cast<std::size_t>(d0));
    for (int64_t o = 0; o < d0; ++o) op.outer[static_cast<std::size_t>(o)] = o * c0;
    blocked_channels(h * w * tile);
    if (dims.size() == 5) op.spatial = {d, h, w}, op.spatial_strides = {c1 * h * w * tile, w * tile, tile};
    else op.spatial = {h, w}, op.spatial_strides = {w * tile, tile};
    return op;
  }
  invalid(std::string(name) + " in " + model::format_label(f) + " of shape " + kernels::shape_str(dims) +
          " is not supported by convolution; use a base format, NC1HWC0 (4-d) / NDC1HWC0 (5-d) for activations "
          "or FRACTAL_Z (4-d) / FRACTAL_Z_3D (5-d) for weights");
}

// A private-format output's storage, zeroed before the kernel writes the
// logical elements: its padding slots (channels beyond C up to the C0 block)
// must read as zero. Captured by value: the aclTensor may be gone when the
// task runs.
struct PaddedStorage {
  void* data = nullptr;
  std::size_t bytes = 0;
  void zero() const {
    if (bytes > 0) std::memset(data, 0, bytes);
  }
};

PaddedStorage padded_storage(const aclTensor* t) {
  if (t == nullptr || !model::is_private_format(format_of(t))) return {};
  int64_t numel = 1;
  for (int64_t d : t->storage_dims) numel *= d;
  return {t->data, static_cast<std::size_t>(numel) * model::itemsize(t->dtype)};
}

// One value per spatial dim: a single value applies to all.
Shape per_dim(const aclIntArray* a, const char* name, int64_t spatial, int64_t fallback, int64_t min) {
  std::vector<int64_t> v = int_values(a);
  if (v.empty() && a == nullptr) v.assign(static_cast<std::size_t>(spatial), fallback);
  if (v.size() == 1) v.assign(static_cast<std::size_t>(spatial), v[0]);
  if (static_cast<int64_t>(v.size()) != spatial) {
    invalid(std::string(name) + " must hold 1 or " + std::to_string(spatial) + " values for a " +
            std::to_string(spatial) + "-d convolution, got " + std::to_string(v.size()));
  }
  for (int64_t x : v) {
    if (x < min) {
      invalid(std::string(name) + " values must be >= " + std::to_string(min) + ", got " + std::to_string(x));
    }
  }
  return Shape(v.begin(), v.end());
}

void require_dtype_supported(const aclTensor* t, const char* name) {
  switch (t->dtype) {
    case model::DType::Float32:
    case model::DType::Float64:
    case model::DType::Float16:
    case model::DType::BFloat16:
    case model::DType::Int64:
      return;
    default:
      fail_dtype(t, name, "float32, float64, float16, bfloat16 or int64");
  }
}

void require_same_dtype(const aclTensor* t, const char* name, const aclTensor* ref) {
  if (t != nullptr && t->dtype != ref->dtype) {
    invalid(std::string(name) + " has dtype " + model::dtype_name(t->dtype) + ", expected input's " +
            model::dtype_name(ref->dtype));
  }
}

void require_shape(const aclTensor* t, const char* name, const Shape& expected) {
  if (t != nullptr && t->view_dims != expected) {
    invalid(std::string(name) + " has shape " + kernels::shape_str(t->view_dims) + ", expected " +
            kernels::shape_str(expected));
  }
}

// The checked geometry of one convolution: the parameters per spatial dim
// and the output's shape.
struct Problem {
  kc::ConvParams params;
  Shape output;  // [N, Cout, spatial...]
};

Problem problem(const aclTensor* input, const aclTensor* weight, const aclIntArray* stride,
                const aclIntArray* padding, const aclIntArray* dilation, bool transposed,
                const aclIntArray* outputPadding, int64_t groups, int8_t cubeMathType) {
  require_dtype_supported(input, "input");
  require_same_dtype(weight, "weight", input);
  const Shape& in = input->view_dims;
  const Shape& w = weight->view_dims;
  if (in.size() < 3 || in.size() > 5) {
    invalid("input must have rank 3, 4 or 5 ([N, C, spatial...]), got shape " + kernels::shape_str(in));
  }
  if (w.size() != in.size()) {
    invalid("weight must have input's rank " + std::to_string(in.size()) + ", got shape " + kernels::shape_str(w));
  }
  if (cubeMathType < 0 || cubeMathType > 3) {
    invalid("cubeMathType must be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16) or 3 (USE_HF32), got " +
            std::to_string(cubeMathType));
  }
  const int64_t spatial = static_cast<int64_t>(in.size()) - 2;
  Problem pr;
  pr.params.stride = per_dim(stride, "stride", spatial, 1, 1);
  pr.params.padding = per_dim(padding, "padding", spatial, 0, 0);
  pr.params.dilation = per_dim(dilation, "dilation", spatial, 1, 1);
  const Shape out_pad = transposed ? per_dim(outputPadding, "outputPadding", spatial, 0, 0) : Shape(spatial, 0);
  if (groups <= 0) invalid("groups must be positive, got " + std::to_string(groups));
  pr.params.groups = groups;
  const int64_t in_channels = transposed ? w[0] : w[1] * groups;
  const int64_t out_channels = transposed ? w[1] * groups : w[0];
  if (in[1] != in_channels) {
    invalid("input has " + std::to_string(in[1]) + " channels, but weight " + kernels::shape_str(w) + " with groups=" +
            std::to_string(groups) + " expects " + std::to_string(in_channels));
  }
  if (w[0] % groups != 0) {
    invalid("weight's dim 0 (" + std::to_string(w[0]) + ") must be divisible by groups=" + std::to_string(groups));
  }
  pr.output = {in[0], out_channels};
  for (int64_t d = 0; d < spatial; ++d) {
    const auto i = static_cast<std::size_t>(d);
    const int64_t k = w[2 + i];
    const int64_t s = pr.params.stride[i], p = pr.params.padding[i], dl = pr.params.dilation[i];
    if (transposed && out_pad[i] >= s && out_pad[i] >= dl) {
      invalid("outputPadding must be smaller than stride or dilation, got " + std::to_string(out_pad[i]));
    }
    const int64_t size = transposed ? (in[2 + i] - 1) * s - 2 * p + dl * (k - 1) + out_pad[i] + 1
                                    : (in[2 + i] + 2 * p - dl * (k - 1) - 1) / s + 1;
    if (size <= 0 || (!transposed && in[2 + i] + 2 * p < dl * (k - 1) + 1)) {
      invalid("the output's spatial size would be " + std::to_string(size) + " for input " + kernels::shape_str(in) +
              " and weight " + kernels::shape_str(w) + ": the (padded) input is smaller than the (dilated) kernel");
    }
    pr.output.push_back(size);
  }
  // Where PyTorch's CPU runs its slow path, which keeps the col2im pass in
  // the reduced dtype: always for float16 (oneDNN's float16 convolution
  // needs AVX512-FP16), for bfloat16 only in transposed convolutions whose
  // output_padding reaches the stride (oneDNN takes the rest).
  bool big_output_padding = false;
  for (int64_t d = 0; d < spatial; ++d) {
    big_output_padding |= out_pad[static_cast<std::size_t>(d)] >= pr.params.stride[static_cast<std::size_t>(d)];
  }
  pr.params.round_intermediates = input->dtype == model::DType::Float16 ||
                                  (input->dtype == model::DType::BFloat16 && transposed && big_output_padding);
  return pr;
}

}  // namespace

TaskBody convolution_task(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                          const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation,
                          bool transposed, const aclIntArray* outputPadding, int64_t groups, aclTensor* output,
                          int8_t cubeMathType) {
  require_tensor(input, "input");
  require_tensor(weight, "weight");
  require_tensor(output, "output");
  const Problem pr =
      problem(input, weight, stride, padding, dilation, transposed, outputPadding, groups, cubeMathType);
  require_same_dtype(output, "output", input);
  require_shape(output, "output", pr.output);
  std::optional<kernels::TensorView> bias_view;
  if (bias != nullptr) {
    require_same_dtype(bias, "bias", input);
    require_shape(bias, "bias", Shape{pr.output[1]});
    bias_view = bias->view();
  }
  const kc::ConvOperand in = operand(input, "input");
  const kc::ConvOperand w = operand(weight, "weight");
  const kc::ConvOperand out = operand(output, "output");
  return [in, w, out, bias_view, params = pr.params, transposed, padded = padded_storage(output)] {
    padded.zero();
    kc::convolution(in, w, bias_view ? &*bias_view : nullptr, out, params, transposed);
  };
}

TaskBody convolution_backward_task(const aclTensor* gradOutput, const aclTensor* input, const aclTensor* weight,
                                   const aclIntArray* biasSizes, const aclIntArray* stride,
                                   const aclIntArray* padding, const aclIntArray* dilation, bool transposed,
                                   const aclIntArray* outputPadding, int groups, const aclBoolArray* outputMask,
                                   int8_t cubeMathType, aclTensor* gradInput, aclTensor* gradWeight,
                                   aclTensor* gradBias) {
  require_tensor(gradOutput, "gradOutput");
  require_tensor(input, "input");
  require_tensor(weight, "weight");
  if (outputMask == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "outputMask is a null aclBoolArray");
  if (outputMask->values.size() != 3) {
    invalid("outputMask must hold 3 values (gradInput, gradWeight, gradBias), got " +
            std::to_string(outputMask->values.size()));
  }
  const Problem pr =
      problem(input, weight, stride, padding, dilation, transposed, outputPadding, groups, cubeMathType);
  require_same_dtype(gradOutput, "gradOutput", input);
  require_shape(gradOutput, "gradOutput", pr.output);
  const std::array<aclTensor*, 3> outs{gradInput, gradWeight, gradBias};
  const std::array<const char*, 3> names{"gradInput", "gradWeight", "gradBias"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (outputMask->values[i] && outs[i] == nullptr) {
      fail(ACLNN_ERR_PARAM_NULLPTR, std::string(names[i]) + " is null but outputMask selects it");
    }
    require_same_dtype(outs[i], names[i], input);
  }
  const bool want_input = outputMask->values[0];
  const bool want_weight = outputMask->values[1];
  const bool want_bias = outputMask->values[2];
  if (want_input) require_shape(gradInput, "gradInput", input->view_dims);
  if (want_weight) require_shape(gradWeight, "gradWeight", weight->view_dims);
  std::optional<kernels::TensorView> bias_view;
  if (want_bias) {
    const std::vector<int64_t> sizes = int_values(biasSizes);
    if (sizes.size() != 1 || sizes[0] != pr.output[1]) {
      invalid("biasSizes must be [" + std::to_string(pr.output[1]) + "] (the output's channels)");
    }
    require_shape(gradBias, "gradBias", Shape{pr.output[1]});
    bias_view = gradBias->view();
  }
  const kc::ConvOperand go = operand(gradOutput, "gradOutput");
  const kc::ConvOperand in = operand(input, "input");
  const kc::ConvOperand w = operand(weight, "weight");
  std::optional<kc::ConvOperand> gi;
  std::optional<kc::ConvOperand> gw;
  if (want_input) gi = operand(gradInput, "gradInput");
  if (want_weight) gw = operand(gradWeight, "gradWeight");
  return [go, in, w, gi, gw, bias_view, params = pr.params, transposed,
          padded = padded_storage(want_input ? gradInput : nullptr)] {
    padded.zero();
    kc::convolution_backward(go, in, w, gi ? &*gi : nullptr, gw ? &*gw : nullptr, bias_view ? &*bias_view : nullptr,
                             params, transposed);
  };
}

}  // namespace npu::emu
