#include "dispatch/ops/acl_args.h"

#include <complex>
#include <memory>

#include "dispatch/driver/acl_driver.h"
#include "dispatch/format/format_cast.h"
#include "dispatch/format/storage_format.h"

namespace npu::ops {

void detail::unsupported_dtype(at::ScalarType type) {
  TORCH_CHECK(false, "npu does not support dtype ", type,
              "; supported: bool, uint8/16/32/64, int8/16/32/64, float16, bfloat16, float32, float64, "
              "complex64, complex128");
}

AclTensor::AclTensor(const at::Tensor& t) {
  if (!t.defined()) return;
  const StorageShapeRef storage(t);
  // A view of part of a private storage has no aclnn description; run_aclnn
  // hands ops base-format stand-ins for those (PrivateFormatArgs).
  TORCH_CHECK(storage.npu_format() == model::Format::ND || !model::is_private_format(storage.npu_format()) ||
                  is_whole_storage(t, storage_desc(t)),
              "internal error: a view (shape ", t.sizes(), ", strides ", t.strides(), ", offset ",
              t.storage_offset(), ") of an npu storage in the private format ",
              model::format_label(storage.npu_format()), " reached aclCreateTensor; only whole tensors can be "
              "described in a private format");
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  handle_ = NPU_ACL(aclCreateTensor)(sizes.data(), sizes.size(), to_acl_dtype(t.scalar_type()), strides.data(),
                                     t.storage_offset(), static_cast<aclFormat>(storage.npu_format()),
                                     storage.dims(), storage.ndim(), const_cast<void*>(storage_of(t).data()));
  TORCH_CHECK(handle_ != nullptr, "aclCreateTensor failed for a tensor of shape ", sizes);
}

AclTensor::AclTensor(const std::optional<at::Tensor>& t) : AclTensor(t.has_value() ? *t : at::Tensor()) {}

namespace {

aclScalar* create_scalar(const at::Scalar& s) {
  if (s.isComplex()) {
    auto v = s.toComplexDouble();
    return NPU_ACL(aclCreateScalar)(&v, ACL_COMPLEX128);
  }
  if (s.isFloatingPoint()) {
    double v = s.toDouble();
    return NPU_ACL(aclCreateScalar)(&v, ACL_DOUBLE);
  }
  if (s.isBoolean()) {
    bool v = s.toBool();
    return NPU_ACL(aclCreateScalar)(&v, ACL_BOOL);
  }
  int64_t v = s.toLong();
  return NPU_ACL(aclCreateScalar)(&v, ACL_INT64);
}

at::Scalar convert_scalar(const at::Scalar& s, at::ScalarType as) {
  if (at::isComplexType(as)) return s.toComplexDouble();
  if (at::isFloatingType(as)) return s.toDouble();
  if (as == at::kBool) return s.toBool();
  return s.toLong();
}

bool is_int_one(const at::Scalar& s) { return s.isIntegral(/*includeBool=*/false) && s.toLong() == 1; }

// add/sub's alpha is almost always the integer 1 (the schema's default). One
// description of it, made on first use and shared by every launch on every
// thread (an op only reads the scalars it is given), saves an
// aclCreateScalar/aclDestroyScalar pair per op: destroy_acl leaves it alone,
// and scalar lists (which destroy their scalars) get their own. Never
// destroyed: it lives as long as the driver library that made it, which is
// never unloaded.
aclScalar* shared_int_one() {
  static aclScalar* const one = create_scalar(at::Scalar(int64_t{1}));
  return one;
}

// A description of `s`: the shared one for the integer 1.
aclScalar* describe_scalar(const at::Scalar& s) { return is_int_one(s) ? shared_int_one() : create_scalar(s); }

}  // namespace

AclScalar::AclScalar(const at::Scalar& s) : AclOwner(describe_scalar(s)) {
  TORCH_CHECK(handle_ != nullptr, "aclCreateScalar failed");
}

AclScalar::AclScalar(const at::Scalar& s, at::ScalarType as) : AclScalar(convert_scalar(s, as)) {}

AclScalar::AclScalar(const std::optional<at::Scalar>& s) : AclOwner(s ? describe_scalar(*s) : nullptr) {
  TORCH_CHECK(!s || handle_ != nullptr, "aclCreateScalar failed");
}

AclIntArray::AclIntArray(at::IntArrayRef values)
    : AclOwner(NPU_ACL(aclCreateIntArray)(values.data(), values.size())) {
  TORCH_CHECK(handle_ != nullptr, "aclCreateIntArray failed");
}

AclBoolArray::AclBoolArray(at::ArrayRef<bool> values)
    : AclOwner(NPU_ACL(aclCreateBoolArray)(values.data(), values.size())) {
  TORCH_CHECK(handle_ != nullptr, "aclCreateBoolArray failed");
}

AclTensorList::AclTensorList(at::ITensorListRef tensors) {
  std::vector<AclTensor> owners;
  std::vector<const aclTensor*> raw;
  for (const at::Tensor& t : tensors) {
    owners.emplace_back(t);
    raw.push_back(owners.back().get());
  }
  handle_ = NPU_ACL(aclCreateTensorList)(raw.data(), raw.size());
  TORCH_CHECK(handle_ != nullptr, "aclCreateTensorList failed");
  for (auto& o : owners) o.release();  // the list owns them now
}

AclScalarList::AclScalarList(at::ArrayRef<at::Scalar> scalars) {
  // Descriptions of their own, never the shared integer 1: the list owns
  // (and destroys) its scalars.
  std::vector<std::unique_ptr<aclScalar, void (*)(aclScalar*)>> owners;
  std::vector<const aclScalar*> raw;
  for (const at::Scalar& s : scalars) {
    owners.emplace_back(create_scalar(s), [](aclScalar* h) { destroy_acl(h); });
    TORCH_CHECK(owners.back() != nullptr, "aclCreateScalar failed");
    raw.push_back(owners.back().get());
  }
  handle_ = NPU_ACL(aclCreateScalarList)(raw.data(), raw.size());
  TORCH_CHECK(handle_ != nullptr, "aclCreateScalarList failed");
  for (auto& o : owners) o.release();  // the list owns them now
}

void destroy_acl(aclTensor* handle) { driver::driver().aclDestroyTensor(handle); }
void destroy_acl(aclScalar* handle) {
  if (handle != shared_int_one()) driver::driver().aclDestroyScalar(handle);
}
void destroy_acl(aclIntArray* handle) { driver::driver().aclDestroyIntArray(handle); }
void destroy_acl(aclBoolArray* handle) { driver::driver().aclDestroyBoolArray(handle); }
void destroy_acl(aclTensorList* handle) { driver::driver().aclDestroyTensorList(handle); }
void destroy_acl(aclScalarList* handle) { driver::driver().aclDestroyScalarList(handle); }

}  // namespace npu::ops
