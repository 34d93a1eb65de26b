// aclnnNpuFormatCast: re-lays a tensor's storage in another format. The
// device model decides shapes and formats (at GetWorkspaceSize time, on the
// host); kernels/format/format_transform moves the data when the task runs on the
// stream. The op pair's entry is generated (ops/table/format_cast.yaml) and
// calls format_cast_task with both tensors in their own formats.
#include "emulator/ops/format_cast.h"

#include "acl/aclnn_format_cast.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "device_model/storage_desc.h"
#include "emulator/acl_error.h"
#include "emulator/op_launch.h"
#include "kernels/copy/copy.h"
#include "kernels/format/format_transform.h"

using npu::emu::fail;
using npu::kernels::TensorView;
using npu::model::Format;
using npu::model::StorageDesc;

namespace {

// The device model reports formats and shapes that do not fit as
// std::invalid_argument; at the aclnn boundary that is a parameter error.
template <class F>
auto as_param_error(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    fail(ACLNN_ERR_PARAM_INVALID, e.what());
  }
}

// The storage `t` describes: its view dims are the logical sizes and its
// format the storage layout. A private-format tensor is its whole storage,
// so it must be contiguous, and storage dims it gives must be its format's.
StorageDesc storage_of(const aclTensor* t, const char* name) {
  const StorageDesc desc = as_param_error([&] {
    return npu::model::describe_storage(t->view_dims.vec(), t->dtype, npu::model::format_from_id(t->format));
  });
  if (npu::model::is_private_format(desc.npu_format)) {
    if (!t->storage_dims.empty() && t->storage_dims != npu::kernels::Shape(desc.storage_sizes)) {
      fail(ACLNN_ERR_PARAM_INVALID,
           std::string(name) + " in format " + npu::model::format_label(desc.npu_format) + " with shape " +
               npu::kernels::shape_str(t->view_dims) + " has storage dims " + npu::kernels::shape_str(t->storage_dims) +
               ", expected " + npu::model::dims_str(desc.storage_sizes));
    }
    if (!t->unchecked_view().is_contiguous()) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " in private format " +
                                        npu::model::format_label(desc.npu_format) + " must be contiguous");
    }
  }
  return desc;
}

// A contiguous host buffer for a base-format tensor that is a strided view:
// transforms read and write contiguous buffers only.
class Staging {
 public:
  Staging(const TensorView& view, const StorageDesc& desc)
      : strided_(npu::model::is_base_format(desc.npu_format) && !view.is_contiguous()) {
    if (strided_) {
      const auto bytes = static_cast<std::size_t>(view.numel()) * view.itemsize();
      buffer_.reset(new unsigned char[std::max<std::size_t>(bytes, 1)]);
      contiguous_ = TensorView{buffer_.get(), view.dtype, view.sizes, npu::kernels::contiguous_strides(view.sizes)};
    } else {
      contiguous_ = view;
    }
  }
  bool strided() const { return strided_; }
  const TensorView& contiguous() const { return contiguous_; }

 private:
  bool strided_;
  std::unique_ptr<unsigned char[]> buffer_;
  TensorView contiguous_;
};

void run_format_cast(const TensorView& src, const StorageDesc& src_desc, const TensorView& dst,
                     const StorageDesc& dst_desc) {
  const Staging in(src, src_desc);
  if (in.strided()) npu::kernels::copy(in.contiguous(), src);
  const Staging out(dst, dst_desc);
  npu::kernels::convert_storage(src_desc, in.contiguous().data, dst_desc, out.contiguous().data);
  if (out.strided()) npu::kernels::copy(dst, out.contiguous());
}

}  // namespace

extern "C" {

aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(const aclTensor* srcTensor, const int dstFormat,
                                                     int additionalDtype, int64_t** dstShape,
                                                     uint64_t* dstShapeSize, int* actualFormat) {
  return npu::emu::guarded("aclnnNpuFormatCastCalculateSizeAndFormat", [&] {
    npu::emu::require_tensor(srcTensor, "srcTensor");
    if (dstShape == nullptr || dstShapeSize == nullptr || actualFormat == nullptr) {
      fail(ACLNN_ERR_PARAM_NULLPTR, "dstShape, dstShapeSize and actualFormat must not be null");
    }
    // A private source cast to its own format is refused, as CANN refuses
    // it, and torch_npu relies on that: npu_format_cast_(self, src) asks for
    // self's own format and, refused, writes src into self another way;
    // answered, it would cast self onto itself and drop src. (Other private
    // to private casts, which CANN refuses too, npu-emu performs.)
    const std::optional<Format> src_format = npu::model::format_from_acl(srcTensor->format);
    if (src_format && npu::model::is_private_format(*src_format) && dstFormat == static_cast<int>(*src_format)) {
      fail(ACLNN_ERR_RUNTIME_ERROR, "unsupported format transformation " + npu::model::format_label(*src_format) +
                                        " -> " + npu::model::format_label(*src_format) +
                                        ": the source is in that format already");
    }
    const auto c0_dtype = additionalDtype == -1 ? std::optional(srcTensor->dtype)
                                                : npu::model::dtype_from_acl(additionalDtype);
    if (!c0_dtype) fail(ACLNN_ERR_PARAM_INVALID, "unsupported additionalDtype " + std::to_string(additionalDtype));
    const Format format = as_param_error([&] {
      const Format f = npu::model::resolve_format(npu::model::format_from_id(dstFormat), srcTensor->view_dims.vec()).format;
      // torch_npu's C0 rule applied to additionalDtype; a C0 the data's own
      // dtype would not get is spelled out as FRACTAL_NZ_C0_*.
      return f == Format::FRACTAL_NZ
                 ? npu::model::nz_format_for_c0(srcTensor->dtype, npu::model::format_c0(f, *c0_dtype))
                 : f;
    });
    const npu::model::Dims shape =
        as_param_error([&] { return npu::model::infer_storage_shape(format, srcTensor->view_dims.vec(), srcTensor->dtype); });
    // Released by the caller with delete[], as CANN documents.
    auto out = std::make_unique<int64_t[]>(std::max<std::size_t>(shape.size(), 1));
    std::copy(shape.begin(), shape.end(), out.get());
    *dstShapeSize = shape.size();
    *actualFormat = static_cast<int>(format);
    *dstShape = out.release();
  });
}

}  // extern "C"

namespace npu::emu {

TaskBody format_cast_task(const aclTensor* srcTensor, aclTensor* dstTensor) {
  require_tensor(srcTensor, "srcTensor");
  require_tensor(dstTensor, "dstTensor");
  if (srcTensor->dtype != dstTensor->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("dstTensor has dtype ") + model::dtype_name(dstTensor->dtype) +
                                      ", srcTensor " + model::dtype_name(srcTensor->dtype) +
                                      ": a format cast keeps the dtype");
  }
  require_shape(dstTensor, srcTensor->view_dims, "dstTensor");
  const StorageDesc src_desc = storage_of(srcTensor, "srcTensor");
  const StorageDesc dst_desc = storage_of(dstTensor, "dstTensor");
  return [src = srcTensor->unchecked_view(), src_desc, dst = dstTensor->unchecked_view(), dst_desc] {
    run_format_cast(src, src_desc, dst, dst_desc);
  };
}

}  // namespace npu::emu
