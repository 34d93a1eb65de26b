#include "dispatch/format/storage_format.h"

#include <typeinfo>

#include "dispatch/memory/npu_allocator.h"

namespace npu {

namespace {

NpuStorageImpl* npu_storage(const at::Tensor& t) {
  // NpuStorageImpl is final: an exact type check is the dynamic_cast, minus
  // the hierarchy walk (this runs for every tensor argument of every launch).
  c10::StorageImpl* impl = storage_of(t).unsafeGetStorageImpl();
  return impl != nullptr && typeid(*impl) == typeid(NpuStorageImpl) ? static_cast<NpuStorageImpl*>(impl) : nullptr;
}

c10::intrusive_ptr<c10::StorageImpl> create_storage(c10::StorageImpl::use_byte_size_t, c10::SymInt size_bytes,
                                                    c10::DataPtr data_ptr, c10::Allocator* allocator,
                                                    bool resizable) {
  if (data_ptr == nullptr) data_ptr = allocator->allocate(size_bytes.expect_int());
  return c10::make_intrusive<NpuStorageImpl>(c10::StorageImpl::use_byte_size_t(), size_bytes.expect_int(),
                                             std::move(data_ptr), allocator, resizable);
}

// Every npu storage is made as an NpuStorageImpl, whoever creates it.
const bool g_registered = [] {
  c10::SetStorageImplCreate(c10::DeviceType::PrivateUse1, &create_storage);
  return true;
}();

}  // namespace

model::DType to_model_dtype(at::ScalarType type) {
  switch (type) {
    case at::kBool: return model::DType::Bool;
    case at::kByte: return model::DType::UInt8;
    case at::kChar: return model::DType::Int8;
    case at::kShort: return model::DType::Int16;
    case at::kInt: return model::DType::Int32;
    case at::kLong: return model::DType::Int64;
    case at::kHalf: return model::DType::Float16;
    case at::kBFloat16: return model::DType::BFloat16;
    case at::kFloat: return model::DType::Float32;
    case at::kDouble: return model::DType::Float64;
    case at::kComplexFloat: return model::DType::Complex64;
    case at::kComplexDouble: return model::DType::Complex128;
    case at::kUInt16: return model::DType::UInt16;
    case at::kUInt32: return model::DType::UInt32;
    case at::kUInt64: return model::DType::UInt64;
    default: TORCH_CHECK(false, "npu does not support dtype ", type);
  }
}

void set_storage_origin(const at::Tensor& t, FormatOrigin origin) {
  if (NpuStorageImpl* s = npu_storage(t); s != nullptr) s->origin = std::move(origin);
}

FormatOrigin storage_origin(const at::Tensor& t) {
  const NpuStorageImpl* s = npu_storage(t);
  return s != nullptr ? s->origin : FormatOrigin{};
}

c10::intrusive_ptr<c10::StorageImpl> make_npu_storage(size_t size_bytes) {
  c10::Allocator* allocator = &npu_allocator();
  return create_storage(c10::StorageImpl::use_byte_size_t(), static_cast<int64_t>(size_bytes),
                        allocator->allocate(size_bytes), allocator, /*resizable=*/true);
}

namespace {

// The 1-D storage shape of a storage without a descriptor: all its elements.
int64_t flat_storage_numel(const at::Tensor& t) {
  const auto itemsize = static_cast<int64_t>(t.element_size());
  return itemsize > 0 ? static_cast<int64_t>(storage_of(t).nbytes()) / itemsize : 0;
}

}  // namespace

model::StorageDesc storage_desc(const at::Tensor& t) {
  if (const NpuStorageImpl* s = npu_storage(t); s != nullptr && s->has_desc) return s->desc;
  model::StorageDesc d;
  d.npu_format = d.origin_format = model::guess_base_format(t.dim());
  d.dtype = to_model_dtype(t.scalar_type());
  d.base_sizes = t.sizes().vec();
  d.base_strides = t.strides().vec();
  d.storage_sizes = {flat_storage_numel(t)};
  return d;
}

StorageShapeRef::StorageShapeRef(const at::Tensor& t) {
  if (const NpuStorageImpl* s = npu_storage(t); s != nullptr && s->has_desc) {
    desc_ = &s->desc;
    format_ = s->desc.npu_format;
    // A base format is only a label of the row-major data; a view of another
    // rank (a 2-D view of an NCHW storage) is labelled by its own rank, as a
    // fresh tensor would be, so that kernels checking the label accept it.
    if (!model::is_private_format(format_) && !model::rank_allowed(format_, t.dim())) {
      format_ = model::guess_base_format(t.dim());
    }
    return;
  }
  format_ = model::guess_base_format(t.dim());
  flat_ = flat_storage_numel(t);
}

std::atomic<bool> detail::g_private_formats_used{false};

bool detail::storage_has_private_format(const at::Tensor& t) {
  const NpuStorageImpl* s = npu_storage(t);
  return s != nullptr && s->has_desc && model::is_private_format(s->desc.npu_format);
}

void set_storage_desc(const at::Tensor& t, model::StorageDesc desc) {
  NpuStorageImpl* s = npu_storage(t);
  TORCH_CHECK(s != nullptr, "set_storage_desc: the tensor's storage is not an npu storage");
  // Before the descriptor: whoever is shown this tensor afterwards (through
  // whatever synchronization hands it over) sees the flag set too.
  if (model::is_private_format(desc.npu_format)) detail::g_private_formats_used.store(true, std::memory_order_relaxed);
  s->desc = std::move(desc);
  s->has_desc = true;
}

}  // namespace npu
