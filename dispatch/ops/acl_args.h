// PyTorch values as ACL op arguments: RAII owners of aclTensor / aclScalar /
// aclIntArray descriptions made through the driver table, and the dtype map.
#pragma once

#include <optional>
#include <vector>
#include <utility>
#include <vector>

#include <ATen/Tensor.h>

#include "acl/acl_base.h"

namespace npu::ops {

aclDataType to_acl_dtype(at::ScalarType type);

// Owns one aclTensor describing `t` (its view, its storage and format).
class AclTensor {
 public:
  explicit AclTensor(const at::Tensor& t);
  explicit AclTensor(const std::optional<at::Tensor>& t);  // null for nullopt/undefined
  ~AclTensor();
  AclTensor(AclTensor&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  AclTensor(const AclTensor&) = delete;
  AclTensor& operator=(const AclTensor&) = delete;
  AclTensor& operator=(AclTensor&&) = delete;
  aclTensor* get() const { return handle_; }
  // Gives up ownership (to an aclTensorList, which destroys its tensors).
  aclTensor* release() { return std::exchange(handle_, nullptr); }

 private:
  aclTensor* handle_ = nullptr;
};

// Owns one aclScalar holding `s` in its own type (double, int64, bool, complex).
class AclScalar {
 public:
  explicit AclScalar(const at::Scalar& s);
  AclScalar(const at::Scalar& s, at::ScalarType as);  // converted to `as` first
  explicit AclScalar(const std::optional<at::Scalar>& s);  // null for nullopt (an absent clamp bound)
  ~AclScalar();
  AclScalar(AclScalar&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  AclScalar(const AclScalar&) = delete;
  AclScalar& operator=(const AclScalar&) = delete;
  AclScalar& operator=(AclScalar&&) = delete;
  aclScalar* get() const { return handle_; }

 private:
  aclScalar* handle_ = nullptr;
};

class AclIntArray {
 public:
  explicit AclIntArray(at::IntArrayRef values);
  ~AclIntArray();
  AclIntArray(AclIntArray&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  AclIntArray(const AclIntArray&) = delete;
  AclIntArray& operator=(const AclIntArray&) = delete;
  AclIntArray& operator=(AclIntArray&&) = delete;
  aclIntArray* get() const { return handle_; }

 private:
  aclIntArray* handle_ = nullptr;
};

// Owns an aclTensorList (which owns its tensors).
class AclTensorList {
 public:
  explicit AclTensorList(at::ITensorListRef tensors);
  ~AclTensorList();
  AclTensorList(AclTensorList&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  AclTensorList(const AclTensorList&) = delete;
  AclTensorList& operator=(const AclTensorList&) = delete;
  AclTensorList& operator=(AclTensorList&&) = delete;
  aclTensorList* get() const { return handle_; }

 private:
  aclTensorList* handle_ = nullptr;
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
template <>
struct AclArg<at::ITensorListRef> : AclTensorList {
  using AclTensorList::AclTensorList;
};
// A list made for the call (e.g. index tensors moved to the device).
template <>
struct AclArg<std::vector<at::Tensor>> : AclTensorList {
  explicit AclArg(const std::vector<at::Tensor>& tensors) : AclTensorList(at::ITensorListRef(tensors)) {}
};

}  // namespace npu::ops
