// aten::_copy_from: every copy that involves an npu tensor (H2D, D2H, D2D).
// Contiguous same-dtype data moves with one aclrtMemcpyAsync; anything else
// (strides, dtype conversion, broadcasting) is done on the device by
// aclnnInplaceCopy, so the host only ever moves dense bytes. Registered by
// ops/table/copy.yaml.
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>

#include "acl/acl_rt.h"
#include "dispatch/aclnn_capabilities.h"
#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"
#include "dispatch/memory/npu_allocator.h"
#include "dispatch/memory/pinned_allocator.h"
#include "dispatch/ops/factory.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/runtime/npu_device.h"

namespace npu::ops {

namespace {

// Dense and in base format: its bytes are exactly the logical elements in order.
bool is_plain_dense(const at::Tensor& t) { return t.is_contiguous() && !has_private_format(t); }

void* data_address(const at::Tensor& t) { return const_cast<void*>(t.const_data_ptr()); }

void memcpy_async(void* dst, const void* src, size_t bytes, aclrtMemcpyKind kind) {
  if (bytes == 0) return;
  NPU_CHECK(aclrtMemcpyAsync, dst, bytes, src, bytes, kind, current_acl_stream());
}

void sync_current_stream() { synchronize_stream(current_stream(current_device())); }

// `t` (an npu tensor) is read by work queued on `consumer`, a stream its block
// was not allocated for: its memory must not be reused before that work ran,
// even when `t` dies first (what record_stream does for a user).
void keep_alive_for(const at::Tensor& t, c10::Stream consumer) {
  npu_allocator().recordStream(t.storage().data_ptr(), consumer);
}

// dst (npu) <- src (npu, same device): conversion and layout on the device.
// There is no CPU fallback for a copy between devices (it would itself copy
// through _copy_from): without the op (a CANN lacking it), this fails before
// launching, naming it (run_native's error under NPU_EMU_FALLBACK=error).
void copy_complex_half(const at::Tensor& dst, const at::Tensor& src);

void copy_on_device(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.scalar_type() == at::kComplexHalf || src.scalar_type() == at::kComplexHalf) {
    copy_complex_half(dst, src);
    return;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(
      run_native(table::caps::aclnnInplaceCopy, "_copy_from", {dst.scalar_type(), src.scalar_type()}),
      "copy_: converting or re-laying out npu data needs aclnnInplaceCopy, which the loaded ACL library lacks; "
      "copies between npu tensors of the same dtype and contiguous layout use aclrtMemcpyAsync only");
  if (has_private_format(dst) || has_private_format(src)) {
    copy_with_formats(dst, src);  // H2D keeps dst's format; reads see the base layout
    return;
  }
  NPU_RUN(aclnnInplaceCopy, dst, src);
}

// ACL's data types, and so aclnnInplaceCopy, have no complex32: a copy
// involving one works on its float16 (real, imag) pairs, which is exactly
// PyTorch's complex conversion part by part. A real side goes through
// complex64 (real <-> complex is then aclnnInplaceCopy's own conversion:
// the real part, or an imaginary part of zero). Sources reach here with
// their conjugate bit resolved (PyTorch's Conjugate fallback of _copy_from).
void copy_complex_half(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.is_complex() && src.is_complex()) {
    copy_on_device(at::view_as_real(dst), at::view_as_real(src));
    return;
  }
  const at::Tensor wide = empty_npu(src.sizes(), at::kComplexFloat, dst.device());
  copy_on_device(wide, src);
  copy_on_device(dst, wide);
}

void copy_h2d(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  c10::DeviceGuard guard(dst.device());
  // The host side first becomes dense bytes of the destination's dtype and shape.
  at::Tensor host = src.to(dst.scalar_type()).expand(dst.sizes()).contiguous();
  const bool staged = host.const_data_ptr() != src.const_data_ptr();
  const size_t bytes = host.nbytes();
  if (is_plain_dense(dst)) {
    memcpy_async(data_address(dst), host.const_data_ptr(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  } else {
    at::Tensor dense = empty_like_npu(dst, dst.scalar_type());
    memcpy_async(data_address(dense), host.const_data_ptr(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    copy_on_device(dst, dense);
  }
  // Only a copy from user-owned pinned memory may stay in flight; the pinned
  // block then outlives its tensor until the copy ran.
  if (non_blocking && !staged && is_pinned(host.const_data_ptr())) {
    record_pinned_use(host.const_data_ptr(), current_acl_stream());
  } else {
    sync_current_stream();
  }
}

void copy_d2h(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  c10::DeviceGuard guard(src.device());
  at::Tensor dense = src;
  if (!is_plain_dense(src) || src.scalar_type() != dst.scalar_type()) {
    dense = empty_like_npu(src, dst.scalar_type());
    copy_on_device(dense, src);
  }
  const bool direct = dst.is_contiguous() && dst.sizes() == dense.sizes();
  at::Tensor host = direct ? dst : at::empty(dense.sizes(), dst.options());
  memcpy_async(data_address(host), dense.const_data_ptr(), dense.nbytes(), ACL_MEMCPY_DEVICE_TO_HOST);
  if (direct && non_blocking && is_pinned(host.const_data_ptr())) {
    record_pinned_use(host.const_data_ptr(), current_acl_stream());
    return;
  }
  sync_current_stream();
  if (!direct) dst.copy_(host);
}

void copy_d2d(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.device() == src.device()) {
    c10::DeviceGuard guard(dst.device());
    copy_on_device(dst, src);
    return;
  }
  // Across devices: the source's dense bytes, after its stream is done, then
  // a device-side copy on the destination.
  at::Tensor dense;
  {
    c10::DeviceGuard guard(src.device());
    dense = empty_like_npu(src, dst.scalar_type());
    copy_on_device(dense, src);
    sync_current_stream();
  }
  c10::DeviceGuard guard(dst.device());
  at::Tensor staged = empty_npu(dense.sizes(), dst.scalar_type(), dst.device());
  memcpy_async(data_address(staged), dense.const_data_ptr(), dense.nbytes(), ACL_MEMCPY_DEVICE_TO_DEVICE);
  // The memcpy reading `dense` waits on the destination's stream, possibly
  // behind other work; `dense` dies on return, and its block would otherwise
  // be reusable at once on the source device's stream.
  keep_alive_for(dense, current_stream(dst.device().index()));
  copy_on_device(dst, staged);
}

}  // namespace

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  TORCH_CHECK(self.defined() && dst.defined(), "copy_: both tensors must be defined");
  if (dst.numel() == 0) return dst;
  const bool src_npu = self.is_privateuseone();
  const bool dst_npu = dst.is_privateuseone();
  TORCH_CHECK(src_npu || self.is_cpu(), "copy_: cannot copy from ", self.device(), " to ", dst.device());
  TORCH_CHECK(dst_npu || dst.is_cpu(), "copy_: cannot copy from ", self.device(), " to ", dst.device());
  // CPU's copy_ refuses these through TensorIterator, which the npu path of
  // copy_ never reaches: an expanded destination, or one that partly
  // overlaps the source (which order the elements are copied in would decide).
  at::assert_no_internal_overlap(dst);
  if (src_npu && dst_npu) at::assert_no_partial_overlap(dst, self);
  if (src_npu && dst_npu) {
    copy_d2d(dst, self);
  } else if (dst_npu) {
    copy_h2d(dst, self, non_blocking);
  } else {
    copy_d2h(dst, self, non_blocking);
  }
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  // An out= the CPU fallback had to resize takes the layout CPU's kernel gave
  // the result (linalg's LU factors come back column-major), as a CPU out=
  // would; a dense layout of the same sizes fits the storage just resized.
  if (at::native::resize_output(dst, self.sizes()) && self.is_non_overlapping_and_dense() && !has_private_format(dst)) {
    dst.unsafeGetTensorImpl()->set_sizes_and_strides(self.sizes(), self.strides());
  }
  return copy_from(self, dst, false);
}

}  // namespace npu::ops
