// torch_npu's format operators under the `npu` namespace (torch.ops.npu.*):
// npu_format_cast (+ in-place and Tensor forms, and torch_npu's private
// _npu_format_cast overloads), get_npu_format, get_storage_size,
// empty_with_format, unsafe_empty_with_format. Schemas as the torch_npu 2.13
// wheel registers them (argument names included).
#include <ATen/native/Resize.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "dispatch/format/format_cast.h"
#include "dispatch/format/format_config.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/ops/acl_args.h"
#include "dispatch/runtime/npu_device.h"

namespace npu {

int64_t get_npu_format(const at::Tensor& self) {
  TORCH_CHECK(self.is_privateuseone(), "get_npu_format expects an npu tensor, got a ", self.device().type(), " tensor");
  return static_cast<int64_t>(storage_desc(self).npu_format);
}

int64_t get_storage_size(const at::Tensor& self) {
  TORCH_CHECK(self.is_privateuseone(), "get_storage_size expects an npu tensor, got a ", self.device().type(),
              " tensor");
  return storage_desc(self).storage_numel();
}

// torch_npu numbers dtypes two ways in customize_dtype/input_dtype: a
// PyTorch ScalarType code, or one of its own (an aclDataType + 256, e.g.
// torch_npu.int4). Only those with a PyTorch dtype exist on npu-emu.
constexpr int64_t kTorchNpuDtypeOffset = 256;

namespace {

at::ScalarType dtype_from_torch_npu_code(const char* arg, int64_t code) {
  if (code >= 0 && code < static_cast<int64_t>(at::ScalarType::NumOptions)) return static_cast<at::ScalarType>(code);
  if (code >= kTorchNpuDtypeOffset) {
    for (const at::ScalarType t : {at::kBool, at::kByte, at::kChar, at::kShort, at::kInt, at::kLong, at::kHalf,
                                   at::kBFloat16, at::kFloat, at::kDouble, at::kComplexFloat, at::kComplexDouble,
                                   at::kUInt16, at::kUInt32, at::kUInt64}) {
      if (static_cast<int64_t>(ops::to_acl_dtype(t)) == code - kTorchNpuDtypeOffset) return t;
    }
    TORCH_CHECK_NOT_IMPLEMENTED(false, "npu_format_cast: ", arg, " ", code, " (torch_npu's aclDataType ",
                                code - kTorchNpuDtypeOffset, ", a dtype PyTorch lacks) is not emulated; use a "
                                "torch.dtype such as torch.int8 or torch.float16");
  }
  TORCH_CHECK(false, "npu_format_cast: ", arg, " must be a torch.dtype, its ScalarType code or a torch_npu dtype "
              "code (>= 256), got ", code);
}

}  // namespace

at::Tensor format_cast_kernel(const at::Tensor& self, int64_t acl_format, std::optional<int64_t> customize_dtype,
                              std::optional<int64_t> input_dtype) {
  std::optional<at::ScalarType> custom;
  if (customize_dtype) custom = dtype_from_torch_npu_code("customize_dtype", *customize_dtype);
  // input_dtype says what self's bits hold when torch_npu stores a dtype
  // PyTorch lacks in another one; npu-emu has none of those.
  TORCH_CHECK_NOT_IMPLEMENTED(!input_dtype || dtype_from_torch_npu_code("input_dtype", *input_dtype) ==
                                                  self.scalar_type(),
                              "npu_format_cast: input_dtype differs from the input's dtype ", self.scalar_type(),
                              " (torch_npu's reinterpreted custom dtypes are not emulated); leave it None");
  const FormatReason reason("npu_format_cast", "an explicit npu_format_cast always gives the requested format");
  return format_cast(self, format_from_user_id(acl_format), custom);
}

// Autograd: the gradient goes back to the input's format.
namespace {

struct FormatCastFunction : torch::autograd::Function<FormatCastFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self, int64_t acl_format,
                            std::optional<int64_t> customize_dtype, std::optional<int64_t> input_dtype) {
    ctx->saved_data["input_format"] = get_npu_format(self);
    at::AutoDispatchBelowADInplaceOrView guard;
    return format_cast_kernel(self, acl_format, customize_dtype, input_dtype);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto fmt = static_cast<model::Format>(ctx->saved_data["input_format"].toInt());
    const FormatReason reason("npu_format_cast backward", "the gradient of npu_format_cast goes back to the input's format");
    return {format_cast(grads[0], fmt), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor format_cast_autograd(const at::Tensor& self, int64_t acl_format, std::optional<int64_t> customize_dtype,
                                std::optional<int64_t> input_dtype) {
  return FormatCastFunction::apply(self, acl_format, customize_dtype, input_dtype);
}

// npu_format_cast through the dispatcher, so autograd sees the cast.
namespace {

at::Tensor call_format_cast(const at::Tensor& self, int64_t acl_format, std::optional<int64_t> customize_dtype,
                            std::optional<int64_t> input_dtype) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("npu::npu_format_cast", "")
                             .typed<at::Tensor(const at::Tensor&, int64_t, std::optional<int64_t>, std::optional<int64_t>)>();
  return op.call(self, acl_format, customize_dtype, input_dtype);
}

}  // namespace

at::Tensor format_cast_like(const at::Tensor& self, const at::Tensor& dst, std::optional<int64_t> customize_dtype,
                            std::optional<int64_t> input_dtype) {
  return call_format_cast(self, get_npu_format(dst), customize_dtype, input_dtype);
}

// torch_npu's private overloads (what its npu_format_cast calls), the same cast.
at::Tensor private_format_cast(const at::Tensor& self, int64_t acl_format) {
  return call_format_cast(self, acl_format, std::nullopt, std::nullopt);
}

at::Tensor private_format_cast_custom(const at::Tensor& self, int64_t acl_format, int64_t customize_dtype) {
  return call_format_cast(self, acl_format, customize_dtype, std::nullopt);
}

at::Tensor private_format_cast_input_dtype(const at::Tensor& self, int64_t acl_format, int64_t customize_dtype,
                                           int64_t input_dtype) {
  return call_format_cast(self, acl_format, customize_dtype, input_dtype);
}

namespace {

// The in-place cast re-lays self's storage in place: a C0 other than that of
// self's own dtype would need a storage of another size, which only the
// out-of-place cast makes.
void refuse_inplace_dtype_args(const at::Tensor& self, std::optional<int64_t> customize_dtype,
                               std::optional<int64_t> input_dtype) {
  TORCH_CHECK_NOT_IMPLEMENTED(
      !customize_dtype || dtype_from_torch_npu_code("customize_dtype", *customize_dtype) == self.scalar_type(),
      "npu_format_cast_: customize_dtype other than the tensor's own dtype is not emulated in place; use "
      "t = torch_npu.npu_format_cast(t, acl_format, customize_dtype=...)");
  TORCH_CHECK_NOT_IMPLEMENTED(!input_dtype || dtype_from_torch_npu_code("input_dtype", *input_dtype) ==
                                                  self.scalar_type(),
                              "npu_format_cast_: input_dtype differs from the tensor's dtype ", self.scalar_type(),
                              " (torch_npu's reinterpreted custom dtypes are not emulated); leave it None");
}

}  // namespace

at::Tensor& format_cast_inplace(at::Tensor& self, int64_t acl_format, std::optional<int64_t> customize_dtype,
                                std::optional<int64_t> input_dtype) {
  refuse_inplace_dtype_args(self, customize_dtype, input_dtype);
  const FormatReason reason("npu_format_cast_", "an explicit in-place npu_format_cast_ re-lays the whole storage");
  format_cast_(self, format_from_user_id(acl_format));
  return self;
}

at::Tensor& format_cast_inplace_like(at::Tensor& self, const at::Tensor& src, std::optional<int64_t> customize_dtype,
                                     std::optional<int64_t> input_dtype) {
  refuse_inplace_dtype_args(self, customize_dtype, input_dtype);
  const FormatReason reason("npu_format_cast_", "an explicit in-place npu_format_cast_ re-lays the whole storage");
  format_cast_(self, storage_desc(src).npu_format);
  return self;
}

namespace {

c10::Device factory_device(std::optional<c10::Device> device) {
  if (!device) return c10::Device(c10::DeviceType::PrivateUse1, current_device());
  TORCH_CHECK(device->type() == c10::DeviceType::PrivateUse1, "empty_with_format creates npu tensors, got device ",
              *device);
  return device->has_index() ? *device : c10::Device(c10::DeviceType::PrivateUse1, current_device());
}


at::Tensor make_with_format(at::IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<c10::Device> device,
                            int64_t acl_format, bool keep_format) {
  model::Format format = format_from_user_id(acl_format);
  if (model::is_private_format(format) && !keep_format && !allow_internal_format()) {
    TORCH_WARN("empty_with_format: torch.npu.config.allow_internal_format is False, so the tensor is created in its "
               "base format instead of ", model::format_label(format),
               " (set it to True, or use unsafe_empty_with_format(keep_format=True))");
    format = model::guess_base_format(static_cast<int64_t>(size.size()));
  }
  const FormatReason reason(keep_format ? "unsafe_empty_with_format" : "empty_with_format",
                            keep_format ? "unsafe_empty_with_format(keep_format=True) keeps the requested format"
                                        : "empty_with_format gives the requested format when allow_internal_format "
                                          "is on");
  return empty_with_format(size, dtype.value_or(at::get_default_dtype_as_scalartype()), factory_device(device), format);
}

}  // namespace

at::Tensor empty_with_format_op(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                                std::optional<at::Layout> layout, std::optional<c10::Device> device,
                                std::optional<bool> pin_memory, int64_t acl_format,
                                std::optional<int64_t> base_addr_aligned_kb) {
  return make_with_format(size, dtype, device, acl_format, false);
}

at::Tensor unsafe_empty_with_format_op(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                                       std::optional<at::Layout> layout, std::optional<c10::Device> device,
                                       std::optional<bool> pin_memory, int64_t acl_format, bool keep_format) {
  return make_with_format(size, dtype, device, acl_format, keep_format);
}

// The npu library itself: torch_npu's schemas are fragments of it, rows of
// the op table (ops/table/format_cast.yaml and the fused families' `schemas:`).
TORCH_LIBRARY(npu, m) {}

}  // namespace npu
