// PyTorch values as ACL op arguments: RAII owners of aclTensor / aclScalar /
// aclIntArray descriptions made through the driver table, and the dtype map.
#pragma once

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include <ATen/Tensor.h>

#include "acl/acl_base.h"

namespace npu::ops {

// The aclDataType of a dtype npu has, else ACL_DT_UNDEFINED.
constexpr aclDataType acl_dtype_or_undefined(at::ScalarType type) {
  switch (type) {
    case at::kBool: return ACL_BOOL;
    case at::kByte: return ACL_UINT8;
    case at::kChar: return ACL_INT8;
    case at::kShort: return ACL_INT16;
    case at::kInt: return ACL_INT32;
    case at::kLong: return ACL_INT64;
    case at::kHalf: return ACL_FLOAT16;
    case at::kBFloat16: return ACL_BF16;
    case at::kFloat: return ACL_FLOAT;
    case at::kDouble: return ACL_DOUBLE;
    case at::kComplexFloat: return ACL_COMPLEX64;
    case at::kComplexDouble: return ACL_COMPLEX128;
    case at::kUInt16: return ACL_UINT16;
    case at::kUInt32: return ACL_UINT32;
    case at::kUInt64: return ACL_UINT64;
    default: return ACL_DT_UNDEFINED;
  }
}

namespace detail {
// acl_dtype_or_undefined of every ScalarType, by value: what every tensor
// argument of every launch looks up (an inline load instead of a call).
inline constexpr auto kAclDtypes = [] {
  std::array<aclDataType, static_cast<std::size_t>(at::ScalarType::NumOptions)> table{};
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = acl_dtype_or_undefined(static_cast<at::ScalarType>(i));
  return table;
}();
[[noreturn]] void unsupported_dtype(at::ScalarType type);
}  // namespace detail

// The aclDataType of `type`; throws naming the dtypes npu supports for any other.
inline aclDataType to_acl_dtype(at::ScalarType type) {
  const auto i = static_cast<std::size_t>(type);
  if (i < detail::kAclDtypes.size() && detail::kAclDtypes[i] != ACL_DT_UNDEFINED) return detail::kAclDtypes[i];
  detail::unsupported_dtype(type);
}

// Destroys a description through the driver table.
void destroy_acl(aclTensor* handle);
void destroy_acl(aclScalar* handle);
void destroy_acl(aclIntArray* handle);
void destroy_acl(aclBoolArray* handle);
void destroy_acl(aclTensorList* handle);
void destroy_acl(aclScalarList* handle);

// What every description owner shares: move-only ownership of one handle.
template <class Handle>
class AclOwner {
 public:
  AclOwner(AclOwner&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  AclOwner(const AclOwner&) = delete;
  AclOwner& operator=(const AclOwner&) = delete;
  AclOwner& operator=(AclOwner&&) = delete;
  ~AclOwner() {
    if (handle_ != nullptr) destroy_acl(handle_);
  }
  Handle* get() const { return handle_; }
  // Gives up ownership (an aclTensorList destroys the tensors it holds).
  Handle* release() { return std::exchange(handle_, nullptr); }

 protected:
  explicit AclOwner(Handle* handle = nullptr) : handle_(handle) {}
  Handle* handle_ = nullptr;
};

// Owns one aclTensor describing `t` (its view, its storage and format).
class AclTensor : public AclOwner<aclTensor> {
 public:
  explicit AclTensor(const at::Tensor& t);
  explicit AclTensor(const std::optional<at::Tensor>& t);  // null for nullopt/undefined
};

// Owns one aclScalar holding `s` in its own type (double, int64, bool, complex).
class AclScalar : public AclOwner<aclScalar> {
 public:
  explicit AclScalar(const at::Scalar& s);
  AclScalar(const at::Scalar& s, at::ScalarType as);        // converted to `as` first
  explicit AclScalar(const std::optional<at::Scalar>& s);  // null for nullopt (an absent clamp bound)
};

class AclIntArray : public AclOwner<aclIntArray> {
 public:
  explicit AclIntArray(at::IntArrayRef values);
};

// Owns an aclBoolArray (convolution's outputMask).
class AclBoolArray : public AclOwner<aclBoolArray> {
 public:
  explicit AclBoolArray(at::ArrayRef<bool> values);
};

// Owns an aclTensorList (which owns its tensors).
class AclTensorList : public AclOwner<aclTensorList> {
 public:
  explicit AclTensorList(at::ITensorListRef tensors);
};

// Owns an aclScalarList (which owns its scalars): the foreach ops' ScalarList forms.
class AclScalarList : public AclOwner<aclScalarList> {
 public:
  explicit AclScalarList(at::ArrayRef<at::Scalar> scalars);
};

// How each C++ argument of run_aclnn becomes an ACL argument: tensors,
// scalars and int lists get an owner; plain values pass through.
template <class T>
struct AclArg {
  explicit AclArg(T v) : value(v) {}
  T get() const { return value; }
  T value;
};
template <>
struct AclArg<at::Tensor> : AclTensor {
  using AclTensor::AclTensor;
};
template <>
struct AclArg<std::optional<at::Tensor>> : AclTensor {
  using AclTensor::AclTensor;
};
template <>
struct AclArg<at::Scalar> : AclScalar {
  using AclScalar::AclScalar;
};
template <>
struct AclArg<std::optional<at::Scalar>> : AclScalar {
  using AclScalar::AclScalar;
};
template <>
struct AclArg<at::IntArrayRef> : AclIntArray {
  using AclIntArray::AclIntArray;
};
template <>
struct AclArg<std::vector<int64_t>> : AclIntArray {
  using AclIntArray::AclIntArray;
};
template <std::size_t N>
struct AclArg<std::array<bool, N>> : AclBoolArray {
  explicit AclArg(const std::array<bool, N>& values) : AclBoolArray(at::ArrayRef<bool>(values.data(), N)) {}
};
template <>
struct AclArg<at::ITensorListRef> : AclTensorList {
  using AclTensorList::AclTensorList;
};
// A list made for the call (e.g. index tensors moved to the device).
template <>
struct AclArg<std::vector<at::Tensor>> : AclTensorList {
  explicit AclArg(const std::vector<at::Tensor>& tensors) : AclTensorList(at::ITensorListRef(tensors)) {}
};

template <>
struct AclArg<at::ArrayRef<at::Scalar>> : AclScalarList {
  using AclScalarList::AclScalarList;
};

}  // namespace npu::ops
