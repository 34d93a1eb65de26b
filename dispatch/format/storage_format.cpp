#include "dispatch/format/storage_format.h"

#include "dispatch/memory/npu_allocator.h"

namespace npu {

namespace {

NpuStorageImpl* npu_storage(const at::Tensor& t) {
  return dynamic_cast<NpuStorageImpl*>(t.storage().unsafeGetStorageImpl());
}

int32_t base_format_for_rank(int64_t rank) {
  if (rank == 4) return 0;   // NCHW
  if (rank == 5) return 30;  // NCDHW
  return 2;                  // ND
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

c10::intrusive_ptr<c10::StorageImpl> make_npu_storage(size_t size_bytes) {
  c10::Allocator* allocator = &npu_allocator();
  return create_storage(c10::StorageImpl::use_byte_size_t(), static_cast<int64_t>(size_bytes),
                        allocator->allocate(size_bytes), allocator, /*resizable=*/true);
}

bool has_private_format(const at::Tensor& t) {
  const NpuStorageImpl* s = npu_storage(t);
  if (s == nullptr || !s->has_format) return false;
  const int32_t f = s->format.npu_format;
  return f != 0 && f != 1 && f != 2 && f != 30;  // NCHW, NHWC, ND, NCDHW are the base formats
}

StorageFormat storage_format(const at::Tensor& t) {
  if (const NpuStorageImpl* s = npu_storage(t); s != nullptr && s->has_format) return s->format;
  StorageFormat f;
  f.npu_format = f.origin_format = base_format_for_rank(t.dim());
  f.base_sizes = t.sizes().vec();
  const auto itemsize = static_cast<int64_t>(t.element_size());
  f.storage_sizes = {itemsize > 0 ? static_cast<int64_t>(t.storage().nbytes()) / itemsize : 0};
  return f;
}

void set_storage_format(const at::Tensor& t, StorageFormat format) {
  NpuStorageImpl* s = npu_storage(t);
  TORCH_CHECK(s != nullptr, "set_storage_format: the tensor's storage is not an npu storage");
  s->format = std::move(format);
  s->has_format = true;
}

}  // namespace npu
