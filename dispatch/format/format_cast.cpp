#include "dispatch/format/format_cast.h"

#include <c10/core/DeviceGuard.h>
#include <c10/util/strides.h>

#include "device_model/storage_desc.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/memory/npu_allocator.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"

namespace npu {

namespace {

std::string shape_text(at::IntArrayRef sizes) { return model::dims_str(sizes.vec()); }

// The device model reports formats that do not fit as std::invalid_argument.
template <class F>
auto model_call(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

model::Format resolve_with_warning(model::Format requested, at::IntArrayRef sizes) {
  const model::FormatChoice choice = model::resolve_format(requested, sizes.vec());
  if (choice.fell_back()) TORCH_WARN(choice.warning);
  return choice.format;
}

}  // namespace

model::Format format_from_user_id(int64_t acl_format) {
  return model_call([&] { return model::format_from_id(acl_format); });
}

at::Tensor empty_with_format(at::IntArrayRef sizes, at::ScalarType dtype, c10::Device device, model::Format format) {
  const model::Format chosen = resolve_with_warning(format, sizes);
  const model::StorageDesc desc =
      model_call([&] { return model::describe_storage(sizes.vec(), to_model_dtype(dtype), chosen); });
  at::Tensor t;
  if (model::is_private_format(chosen)) {
    // The storage holds the padded physical layout; the tensor's sizes stay logical.
    const auto storage_elems = static_cast<int64_t>(desc.storage_nbytes() / c10::elementSize(dtype));
    t = ops::empty_npu({storage_elems}, dtype, device);
    t = t.as_strided(sizes, c10::contiguous_strides(sizes), 0);
  } else {
    t = ops::empty_npu(sizes, dtype, device);
  }
  set_storage_desc(t, desc);
  return t;
}

at::Tensor format_cast(const at::Tensor& t, model::Format format, std::optional<at::ScalarType> customize_dtype) {
  TORCH_CHECK(t.is_privateuseone(), "npu_format_cast expects an npu tensor, got a ", t.device().type(),
              " tensor of shape ", shape_text(t.sizes()), "; move it with .npu() first");
  model::Format target = resolve_with_warning(format, t.sizes());
  if (customize_dtype && model::base_format(target) == model::Format::ND && model::is_private_format(target)) {
    const auto c0 = model::format_c0(model::Format::FRACTAL_NZ, to_model_dtype(*customize_dtype));
    target = model_call([&] { return model::nz_format_for_c0(to_model_dtype(t.scalar_type()), c0); });
  }
  model_call([&] {
    model::check_format_fits(target, t.sizes().vec(), to_model_dtype(t.scalar_type()));
    return 0;
  });
  const model::StorageDesc src = storage_desc(t);
  if (src.npu_format == target) return t;
  c10::DeviceGuard guard(t.device());
  at::Tensor dst = empty_with_format(t.sizes(), t.scalar_type(), t.device(), target);
  if (!model::is_private_format(target) && !model::is_private_format(src.npu_format)) {
    // Base to base: the bytes are the same, only the label differs.
    NPU_RUN_RAW(aclnnInplaceCopy, dst, t);
  } else {
    NPU_RUN_RAW(aclnnNpuFormatCast, t, dst);
  }
  return dst;
}

void format_cast_(const at::Tensor& t, model::Format format) {
  const model::StorageDesc src = storage_desc(t);
  const model::Format target = resolve_with_warning(format, t.sizes());
  if (src.npu_format == target) return;
  if (!model::is_private_format(target) && !model::is_private_format(src.npu_format)) {
    model::StorageDesc relabeled = src;
    relabeled.npu_format = relabeled.origin_format = target;
    set_storage_desc(t, relabeled);
    return;
  }
  TORCH_CHECK(t.storage_offset() == 0 && t.is_contiguous() &&
                  static_cast<size_t>(t.numel()) * t.element_size() <= t.storage().nbytes(),
              "npu_format_cast_: an in-place cast needs a tensor that is its whole contiguous storage, got shape ",
              shape_text(t.sizes()), " with strides ", t.strides(), " and offset ", t.storage_offset());
  const at::Tensor converted = format_cast(t, target);
  c10::StorageImpl* from = converted.storage().unsafeGetStorageImpl();
  c10::StorageImpl* to = t.storage().unsafeGetStorageImpl();
  const size_t nbytes = from->nbytes();
  // The cast still reading the old bytes is queued on the current stream; the
  // old block is freed below, and without this its own stream could reuse it
  // before the cast ran.
  npu_allocator().recordStream(to->data_ptr(), current_stream(t.device().index()));
  // The same StorageImpl takes the new bytes, so every alias sees them.
  to->set_data_ptr_noswap(from->set_data_ptr(at::DataPtr(nullptr, converted.device())));
  to->set_nbytes(nbytes);
  set_storage_desc(t, storage_desc(converted));
}

at::Tensor to_base_format(const at::Tensor& t) {
  if (!has_private_format(t)) return t;
  return format_cast(t, storage_desc(t).origin_format);
}

void copy_with_formats(const at::Tensor& dst, const at::Tensor& src) {
  const at::Tensor base_src = to_base_format(src);
  if (!has_private_format(dst)) {
    NPU_RUN_RAW(aclnnInplaceCopy, dst, base_src);
    return;
  }
  // Into a private destination: the values in dst's dtype and shape, dense,
  // then laid out in dst's format directly into its storage.
  at::Tensor dense = ops::empty_npu(dst.sizes(), dst.scalar_type(), dst.device());
  NPU_RUN_RAW(aclnnInplaceCopy, dense, base_src);
  NPU_RUN_RAW(aclnnNpuFormatCast, dense, dst);
}

}  // namespace npu
