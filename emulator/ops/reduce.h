// Task makers of the reduction and scan family (ops/table/reduce.yaml): each
// checks one call's arguments on the host and returns the kernel task.
// Conventions: dim lists may be negative and empty (= every dim); repeated or
// out-of-range dims fail; `out` has the reduced shape (size-1 dims kept with
// keepdim) and any strides.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

namespace npu::emu {

// The reductions over a dim list that differ only in their kernel and rules.
enum class ReduceFn { Sum, Mean, Amax, Amin, All, Any, LogSumExp };

// out = fn(self over dim); `dtype` (sum, mean) is the compute dtype and must be out's.
std::function<void()> reduce_task(ReduceFn fn, const aclTensor* self, const aclIntArray* dim, bool keepdim,
                                  std::optional<aclDataType> dtype, aclTensor* out);
// out = prod(self) over every element; out has shape [] or [1].
std::function<void()> prod_all_task(const aclTensor* self, aclDataType dtype, aclTensor* out);
// out = prod(self, dim).
std::function<void()> prod_dim_task(const aclTensor* self, int64_t dim, bool keepdim, aclDataType dtype,
                                    aclTensor* out);
// max / min along dim: values (null for argmax/argmin) and int64 indices.
std::function<void()> arg_task(bool is_max, const aclTensor* self, int64_t dim, bool keepdim, aclTensor* values,
                               aclTensor* indices);
// var (or std when take_sqrt) with `correction` (1 = unbiased).
std::function<void()> var_task(const aclTensor* self, const aclIntArray* dim, double correction, bool keepdim,
                               bool take_sqrt, aclTensor* out);
// linalg.vector_norm with order p (null: 2).
std::function<void()> norm_task(const aclTensor* self, const aclScalar* p, const aclIntArray* dim, bool keepdim,
                                aclTensor* out);
// cumsum (prod false) / cumprod along dim; dim is an integer aclScalar in CANN's aclnnCumprod.
std::function<void()> scan_task(bool prod, const aclTensor* self, int64_t dim, aclDataType dtype, aclTensor* out);
std::function<void()> scan_task(bool prod, const aclTensor* self, const aclScalar* dim, aclDataType dtype,
                                aclTensor* out);
// log(cumsum(exp(self))) along dim; out has self's shape and dtype (floating).
std::function<void()> logcumsumexp_task(const aclTensor* self, int64_t dim, aclTensor* out);
// Running max (is_max) / min along dim and its int64 index; outputs of self's shape.
std::function<void()> cum_extreme_task(bool is_max, const aclTensor* self, int64_t dim, aclTensor* valuesOut,
                                       aclTensor* indicesOut);

}  // namespace npu::emu
