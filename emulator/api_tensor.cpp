// aclCreateTensor and the other aclnn object constructors.
#include <array>
#include <cstring>
#include <string>
#include <memory>
#include <type_traits>

#include "acl/aclnn_base.h"
#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/c_enum.h"

using npu::emu::fail;
using npu::emu::guarded;

namespace {

// Turns a freshly built object into the raw handle the C API hands out; the
// matching aclDestroy* takes ownership back.
template <class T>
T* release_handle(std::unique_ptr<T> p) {
  return p.release();
}

// A reused tensor is left as its last user had it: aclCreateTensor assigns
// every field (the dim vectors keep their buffers), so clearing it first
// would write each field twice, per tensor argument of every launch.
void clear(aclTensor&) {}
// A scalar back at its defaults: aclCreateScalar writes only the value's bytes.
void clear(aclScalar& s) { s = aclScalar{}; }

// aclCreateTensor/aclDestroyTensor (and aclCreateScalar/aclDestroyScalar)
// run for every argument of every launch; reusing destroyed descriptions, a
// tensor's dim vectors keeping their capacity, saves their heap allocations.
// Per thread (no locking), bounded. The cache is trivially destructible, so
// reaching it is one thread-local lookup (a thread_local with a destructor
// costs a second one, for its guard, on every access); HandleCacheCleanup,
// set up by the first handle given back, frees the cached handles at thread
// exit and closes the cache: destructions that run later just delete.
template <class T>
struct HandleCache {
  std::array<T*, 32> items{};
  std::size_t count = 0;
  bool cleanup_registered = false;
  bool closed = false;
};
template <class T>
thread_local HandleCache<T> t_handle_cache;

template <class T>
struct HandleCacheCleanup {
  HandleCacheCleanup() = default;
  HandleCacheCleanup(const HandleCacheCleanup&) = delete;
  HandleCacheCleanup& operator=(const HandleCacheCleanup&) = delete;
  ~HandleCacheCleanup() {
    HandleCache<T>& cache = t_handle_cache<T>;
    for (std::size_t i = 0; i < cache.count; ++i) delete cache.items[i];
    cache.count = 0;
    cache.closed = true;
  }
};

// A cleared object, reused or new.
template <class T>
std::unique_ptr<T> new_handle() {
  HandleCache<T>& cache = t_handle_cache<T>;
  if (cache.count == 0) return std::make_unique<T>();
  std::unique_ptr<T> t(cache.items[--cache.count]);
  clear(*t);
  return t;
}

// Out of line and after the handle is stored: the cache's address, in a
// register the call clobbers, would otherwise be looked up again (a second
// __tls_get_addr) on the common path where this is not called.
template <class T>
[[gnu::noinline]] void register_handle_cleanup() {
  thread_local HandleCacheCleanup<T> cleanup;
  t_handle_cache<T>.cleanup_registered = true;
}

template <class T>
void destroy_handle(const T* t) {
  if (t == nullptr) return;
  HandleCache<T>& cache = t_handle_cache<T>;
  if (cache.closed || cache.count == cache.items.size()) {
    delete t;
    return;
  }
  cache.items[cache.count++] = const_cast<T*>(t);
  if (!cache.cleanup_registered) register_handle_cleanup<T>();
}

// Far more than any tensor has (PyTorch allows 64 dims), far less than a
// garbage count that would make the copies below read past the caller's array.
constexpr uint64_t kMaxRank = 64;

[[noreturn, gnu::cold, gnu::noinline]] void negative_size(const char* what, uint64_t i, int64_t value) {
  fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + "[" + std::to_string(i) + "] is " + std::to_string(value) +
                                    "; sizes must be non-negative");
}
[[noreturn, gnu::cold, gnu::noinline]] void numel_overflow(const char* what) {
  fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + ": the element count overflows 64 bits");
}

// Copies `count` values from `src` into `dst`, `check(i, value)` on each as
// it goes: one pass over each of a tensor's dim arrays instead of a check
// loop and then a copy (this runs for every tensor argument of every launch).
template <class Check>
inline void assign_checked(npu::kernels::Shape& dst, const int64_t* src, uint64_t count, Check check) {
  dst.resize(count);
  int64_t* out = dst.data();
  for (uint64_t i = 0; i < count; ++i) {
    check(i, src[i]);
    out[i] = src[i];
  }
}

// Sizes (view or storage dims) of a tensor: each non-negative, and the
// element count representable: a multiply with an overflow check instead
// of a division per dim, the messages built out of line.
inline void assign_sizes(npu::kernels::Shape& dst, const char* what, const int64_t* dims, uint64_t count) {
  int64_t numel = 1;
  assign_checked(dst, dims, count, [&](uint64_t i, int64_t d) {
    if (d < 0) negative_size(what, i, d);
    if (__builtin_mul_overflow(numel, d, &numel)) numel_overflow(what);
  });
}

[[noreturn, gnu::cold, gnu::noinline]] void negative_stride(uint64_t i, int64_t value) {
  fail(ACLNN_ERR_PARAM_INVALID,
       "stride[" + std::to_string(i) + "] is " + std::to_string(value) + "; strides must be non-negative");
}

// By reference: any int can arrive as the enum (emulator/c_enum.h).
npu::model::DType require_dtype(const aclDataType& dt) {
  const int value = npu::emu::c_enum_value(dt);
  const auto d = npu::model::dtype_from_acl(value);
  if (!d) fail(ACLNN_ERR_PARAM_INVALID, "unsupported aclDataType " + std::to_string(value));
  return *d;
}

// Copies one of a tensor's dim vectors into a new[] array the caller
// delete[]s (the CANN contract of aclGetStorageShape / aclGetViewShape).
aclnnStatus hand_out_dims(const char* api, const aclTensor* tensor, npu::kernels::Shape aclTensor::*dims,
                          int64_t** out, uint64_t* count) {
  return guarded(api, [&] {
    npu::emu::require_tensor(tensor, "tensor");
    if (out == nullptr || count == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "output is null");
    const npu::kernels::Shape& src = tensor->*dims;
    *count = src.size();
    *out = new int64_t[std::max<std::size_t>(src.size(), 1)];
    std::copy(src.begin(), src.end(), *out);
  });
}

// The array and list constructors: a new `Object` whose `entries` hold the
// `size` values at `value` (a list takes ownership of the handles it is
// given). `null_entry_type`, when set, names the handle type a list must not
// hold a null of; every entry is checked before the list owns any.
template <class Object, class Entries, class T>
Object* create_sequence(const char* api, const T* value, uint64_t size, Entries Object::*entries,
                        const char* null_entry_type = nullptr) {
  Object* out = nullptr;
  guarded(api, [&] {
    if (size > 0 && value == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "value is null");
    if constexpr (std::is_pointer_v<T>) {
      for (uint64_t i = 0; null_entry_type != nullptr && i < size; ++i) {
        if (value[i] == nullptr) {
          fail(ACLNN_ERR_PARAM_NULLPTR, "entry " + std::to_string(i) + " is a null " + null_entry_type);
        }
      }
    }
    auto object = std::make_unique<Object>();
    Entries& held = object.get()->*entries;
    held.reserve(size);
    for (uint64_t i = 0; i < size; ++i) held.emplace_back(value[i]);
    out = release_handle(std::move(object));
  });
  return out;
}

// The matching aclDestroy*: the object (and what it owns) is deleted.
template <class Object>
aclnnStatus destroy_owned(const Object* object) {
  std::unique_ptr<const Object> owned(object);
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData) {
  aclTensor* out = nullptr;
  guarded("aclCreateTensor", [&] {
    if (viewDimsNum > 0 && viewDims == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "viewDims is null");
    if (storageDimsNum > 0 && storageDims == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "storageDims is null");
    if (offset < 0) fail(ACLNN_ERR_PARAM_INVALID, "offset must be non-negative");
    // Kernels index with these values unchecked: a negative size or stride,
    // or a size whose element count overflows, would send them outside any
    // storage. (PyTorch never makes such tensors.)
    if (viewDimsNum > kMaxRank) {
      fail(ACLNN_ERR_PARAM_INVALID, "viewDimsNum " + std::to_string(viewDimsNum) + " exceeds " + std::to_string(kMaxRank));
    }
    if (storageDimsNum > kMaxRank) {
      fail(ACLNN_ERR_PARAM_INVALID,
           "storageDimsNum " + std::to_string(storageDimsNum) + " exceeds " + std::to_string(kMaxRank));
    }
    // Copied into the description and checked in the same pass, in this
    // order (a failure deletes the half-filled description).
    std::unique_ptr<aclTensor> t = new_handle<aclTensor>();
    assign_sizes(t->view_dims, "viewDims", viewDims, viewDimsNum);
    assign_sizes(t->storage_dims, "storageDims", storageDims, storageDimsNum);
    if (stride != nullptr) {
      assign_checked(t->strides, stride, viewDimsNum, [](uint64_t i, int64_t s) {
        if (s < 0) negative_stride(i, s);
      });
    } else {
      t->strides = npu::kernels::contiguous_strides(t->view_dims);
    }
    t->offset = offset;
    t->dtype = require_dtype(dataType);
    t->format = format;
    t->data = tensorData;
    out = release_handle(std::move(t));
  });
  return out;
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  destroy_handle(tensor);
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  return hand_out_dims("aclGetStorageShape", tensor, &aclTensor::storage_dims, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return hand_out_dims("aclGetViewShape", tensor, &aclTensor::view_dims, viewDims, viewDimsNum);
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  aclScalar* out = nullptr;
  guarded("aclCreateScalar", [&] {
    if (value == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, "value is null");
    std::unique_ptr<aclScalar> s = new_handle<aclScalar>();
    s->dtype = require_dtype(dataType);
    std::memcpy(s->bytes.data(), value, npu::model::itemsize(s->dtype));
    out = release_handle(std::move(s));
  });
  return out;
}

aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  destroy_handle(scalar);
  return ACLNN_SUCCESS;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return create_sequence("aclCreateIntArray", value, size, &aclIntArray::values);
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) { return destroy_owned(array); }

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return create_sequence("aclCreateBoolArray", value, size, &aclBoolArray::values);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) { return destroy_owned(array); }

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  // Null entries are allowed: aclnnIndex / aclnnIndexPutImpl read them as ':'.
  return create_sequence("aclCreateTensorList", value, size, &aclTensorList::tensors);
}

aclnnStatus aclDestroyTensorList(const aclTensorList* array) { return destroy_owned(array); }

aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  return create_sequence("aclCreateScalarList", value, size, &aclScalarList::scalars, "aclScalar");
}

aclnnStatus aclDestroyScalarList(const aclScalarList* array) { return destroy_owned(array); }

}  // extern "C"
