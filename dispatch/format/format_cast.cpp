#include "dispatch/format/format_cast.h"

#include <c10/core/DeviceGuard.h>
#include <c10/util/strides.h>

#include "acl/acl_rt.h"
#include "device_model/storage_desc.h"
#include "dispatch/debug/format_trace.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/memory/npu_allocator.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/runtime/acl_check.h"
#include "dispatch/runtime/npu_stream.h"

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
  if (model::is_private_format(chosen)) {
    // Every private storage is made here: record the rule that chose it.
    set_storage_origin(t, current_format_reason());
    if (trace::formats_on()) trace::format_created(t);
  }
  return t;
}

at::Tensor format_cast(const at::Tensor& t, model::Format format, std::optional<at::ScalarType> customize_dtype) {
  TORCH_CHECK(t.is_privateuseone(), "npu_format_cast expects an npu tensor, got a ", t.device().type(),
              " tensor of shape ", shape_text(t.sizes()), "; move it with .npu() first");
  model::Format target = resolve_with_warning(format, t.sizes());
  if (customize_dtype && model::base_format(target) == model::Format::ND && model::is_private_format(target)) {
    // CANN's block for an explicit customize_dtype is 32 bytes of it (C0 = 8
    // for int32/float32), not torch_npu's default rule, which gives 4-byte
    // dtypes float16's C0 = 16 (FORMATS.md "C0 by dtype").
    const auto c0 = int64_t{32} / static_cast<int64_t>(c10::elementSize(*customize_dtype));
    target = model_call([&] { return model::nz_format_for_c0(to_model_dtype(t.scalar_type()), c0); });
  }
  model_call([&] {
    model::check_format_fits(target, t.sizes().vec(), to_model_dtype(t.scalar_type()));
    return 0;
  });
  const model::StorageDesc src_desc = storage_desc(t);
  if (t.numel() == 0) {
    // No element to move (a dim of 0, e.g. 0 channels): a new storage in the
    // target format is the whole result. The runtime's cast would refuse it
    // (an empty private storage never "covers" a tensor).
    if (src_desc.npu_format == target) return t;
    c10::DeviceGuard guard(t.device());
    return empty_with_format(t.sizes(), t.scalar_type(), t.device(), target);
  }
  // A view of a private storage is not laid out in that format by itself:
  // it is cast from its base-format values.
  const bool private_view = model::is_private_format(src_desc.npu_format) && !covers_storage(t, src_desc);
  const at::Tensor src = private_view ? to_base_format(t) : t;
  const model::Format src_format = private_view ? src_desc.origin_format : src_desc.npu_format;
  if (src_format == target && !private_view) return t;
  c10::DeviceGuard guard(t.device());
  at::Tensor dst = empty_with_format(t.sizes(), t.scalar_type(), t.device(), target);
  if (!model::is_private_format(target) && !model::is_private_format(src_format)) {
    // Base to base: the bytes are the same, only the label differs.
    NPU_RUN_RAW(aclnnInplaceCopy, dst, src);
  } else {
    NPU_RUN_RAW(aclnnNpuFormatCast, src, dst);
  }
  if (trace::formats_on()) {
    const bool relaid = model::is_private_format(target) || model::is_private_format(src_format);
    trace::format_change(relaid ? "cast" : "copy", src, src_format, target,
                         static_cast<int64_t>(src.storage().nbytes() + dst.storage().nbytes()));
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
    set_storage_origin(t, {"npu_format_cast_", "an in-place cast between base formats relabels the storage", {}});
    if (trace::formats_on()) trace::format_change("relabel", t, src.npu_format, target, 0);
    return;
  }
  const bool whole = model::is_private_format(src.npu_format)
                         ? covers_storage(t, src)
                         : t.storage_offset() == 0 && t.is_contiguous() &&
                               static_cast<size_t>(t.numel()) * t.element_size() <= t.storage().nbytes();
  TORCH_CHECK(whole,
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
  set_storage_origin(t, storage_origin(converted));
}

bool covers_storage(const at::Tensor& t, const model::StorageDesc& d) {
  return t.storage_offset() == 0 && t.sizes().equals(d.base_sizes) && t.is_contiguous();
}

bool is_whole_storage(const at::Tensor& t, const model::StorageDesc& d) {
  if (t.storage_offset() != 0 || static_cast<std::size_t>(t.element_size()) != model::itemsize(d.dtype)) return false;
  const model::Dims sizes = t.sizes().vec();
  // The identity order first: contiguous_order breaks ties between equal
  // strides (dims of size 0 and 1) by another rule, and would call an empty
  // or size-1-padded whole tensor a permuted view.
  if (sizes == d.base_sizes && t.is_contiguous()) return true;
  const auto order = model::contiguous_order(sizes, t.strides().vec());
  return order && model::permuted(sizes, *order) == d.base_sizes;
}

at::Tensor whole_storage(const at::Tensor& t) {
  const model::StorageDesc d = storage_desc(t);
  // A dtype view of the same element size (float32 as int32) has the same
  // layout: C0 depends on the element size only.
  TORCH_CHECK(static_cast<std::size_t>(t.element_size()) == model::itemsize(d.dtype), "a ", t.scalar_type(),
              " view of an npu storage of ", model::dtype_name(d.dtype), " elements in the private format ",
              model::format_label(d.npu_format),
              " cannot be read: its element size differs; cast the tensor to its base format first "
              "(torch_npu.npu_format_cast(t, ", static_cast<int>(d.origin_format), ")), then view it");
  auto whole = at::detail::make_tensor<c10::TensorImpl>(c10::Storage(t.storage()),
                                                        c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), t.dtype());
  whole.unsafeGetTensorImpl()->set_sizes_contiguous(d.base_sizes);
  return whole;
}

at::Tensor to_base_format(const at::Tensor& t) {
  if (!has_private_format(t)) return t;
  const FormatReason reason("base-format copy",
                            "an op that does not take this private format (or a part view of it) reads a "
                            "base-format copy");
  const model::StorageDesc d = storage_desc(t);
  if (covers_storage(t, d)) return format_cast(t, d.origin_format);
  // The view's sizes, strides and offset address the logical base layout of
  // the storage: take the same view of a base-format copy of all of it.
  const at::Tensor base = format_cast(whole_storage(t), d.origin_format);
  return base.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

namespace {

// A byte tensor that is exactly its storage's bytes (how PyTorch copies
// storages, e.g. for copy.deepcopy: storage.copy_ over uint8 tensors).
bool is_storage_bytes(const at::Tensor& t) {
  return t.scalar_type() == at::kByte && t.dim() == 1 && t.storage_offset() == 0 && t.stride(0) == 1 &&
         static_cast<size_t>(t.numel()) == t.storage().nbytes();
}

// A storage-to-storage copy from a private-format storage into one without
// a private format: the physical bytes move unchanged and the destination
// storage takes the source's descriptor, so it holds the same tensor.
bool is_storage_copy(const at::Tensor& dst, const at::Tensor& src) {
  return has_private_format(src) && !has_private_format(dst) && dst.device() == src.device() &&
         is_storage_bytes(src) && is_storage_bytes(dst) && dst.numel() == src.numel();
}

void copy_storage(const at::Tensor& dst, const at::Tensor& src) {
  c10::DeviceGuard guard(dst.device());
  const size_t bytes = src.storage().nbytes();
  if (bytes > 0) {
    NPU_CHECK(aclrtMemcpyAsync, dst.storage().mutable_data(), bytes, src.storage().data(), bytes,
              ACL_MEMCPY_DEVICE_TO_DEVICE, current_acl_stream());
  }
  set_storage_desc(dst, storage_desc(src));
  set_storage_origin(dst, storage_origin(src));
}

// A base-format tensor laid out in the private format `d` of `dst`.
void trace_lay_out(const at::Tensor& base, const at::Tensor& dst, const model::StorageDesc& d) {
  trace::format_change("cast", base, d.origin_format, d.npu_format,
                       static_cast<int64_t>(base.numel() * base.element_size() + dst.storage().nbytes()));
}

}  // namespace

void copy_with_formats(const at::Tensor& dst, const at::Tensor& src) {
  if (is_storage_copy(dst, src)) {
    copy_storage(dst, src);
    return;
  }
  const FormatReason reason("copy_", "copy_ into a private-format destination keeps the destination's format");
  const at::Tensor base_src = to_base_format(src);
  if (!has_private_format(dst)) {
    NPU_RUN_RAW(aclnnInplaceCopy, dst, base_src);
    return;
  }
  const model::StorageDesc d = storage_desc(dst);
  if (covers_storage(dst, d)) {
    // Into a private destination: the values in dst's dtype and shape,
    // dense (base_src itself when it is that already), then laid out in
    // dst's format directly into its storage.
    const bool dense_already = base_src.device() == dst.device() && base_src.scalar_type() == dst.scalar_type() &&
                               base_src.sizes().equals(dst.sizes()) && base_src.is_contiguous() &&
                               !base_src.is_conj() && !base_src.is_neg();
    if (dense_already) {
      NPU_RUN_RAW(aclnnNpuFormatCast, base_src, dst);
      if (trace::formats_on()) trace_lay_out(base_src, dst, d);
      return;
    }
    at::Tensor dense = ops::empty_npu(dst.sizes(), dst.scalar_type(), dst.device());
    NPU_RUN_RAW(aclnnInplaceCopy, dense, base_src);
    NPU_RUN_RAW(aclnnNpuFormatCast, dense, dst);
    if (trace::formats_on()) trace_lay_out(dense, dst, d);
    return;
  }
  // Into a view of a private storage: the whole storage in its base format,
  // the view written there, then all of it laid back in the storage's format.
  const at::Tensor whole = whole_storage(dst);
  const at::Tensor base = format_cast(whole, d.origin_format);
  NPU_RUN_RAW(aclnnInplaceCopy, base.as_strided(dst.sizes(), dst.strides(), dst.storage_offset()), base_src);
  NPU_RUN_RAW(aclnnNpuFormatCast, base, whole);
  if (trace::formats_on()) trace_lay_out(base, whole, d);
}

}  // namespace npu
