// A typed front door to the boxed CPU fallback (cpu_fallback.h): a kernel
// with a schema's C++ signature that decided not to run natively calls
//   return fallback_call<std::tuple<at::Tensor&, at::Tensor&>>("max.dim_max", self, dim, keepdim, max, max_values);
// The arguments go on a stack in schema order, the one boxed path runs aten
// `schema` on the CPU (counted, subject to NPU_EMU_FALLBACK), and the result
// comes back as the schema's C++ return type. A returned argument (self of an
// in-place op, the outs of an out= op) is the caller's own tensor object,
// which the fallback has written; everything else is read from the stack.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/stack.h>

#include "dispatch/fallback/cpu_fallback.h"

namespace npu {

namespace fallback_detail {

// One argument as the stack holds it. Tensor list references become lists.
template <class T>
c10::IValue to_ivalue(T&& value) {
  using Plain = std::remove_cv_t<std::remove_reference_t<T>>;
  if constexpr (std::is_same_v<Plain, at::ITensorListRef>) {
    return c10::IValue(std::vector<at::Tensor>(value.begin(), value.end()));
  } else {
    return c10::IValue(std::forward<T>(value));
  }
}

// The caller's tensor arguments that a result may alias: any tensor lvalue
// for a `const at::Tensor&` result, a non-const one for an `at::Tensor&`.
struct ArgRef {
  const at::Tensor* tensor = nullptr;
  at::Tensor* writable = nullptr;
};

template <class T>
ArgRef arg_ref(T&& value) {
  using Ref = std::remove_reference_t<T>;
  if constexpr (std::is_lvalue_reference_v<T&&> && std::is_same_v<std::remove_cv_t<Ref>, at::Tensor>) {
    if constexpr (std::is_const_v<Ref>) {
      return {&value, nullptr};
    } else {
      return {&value, &value};
    }
  } else {
    return {};
  }
}

// The stack after the fallback, the schema, and the caller's arguments.
struct Results {
  const c10::FunctionSchema& schema;
  torch::jit::Stack& stack;
  const ArgRef* args;
  std::size_t num_args;
};

// The argument the schema says result `index` is (its alias set: `Tensor(a!)`).
const ArgRef& aliased_argument(const Results& r, std::size_t index);
void check_result_count(const Results& r, std::size_t expected);

template <class T>
struct Take {
  static_assert(sizeof(T) == 0,
                "fallback_call: unsupported return type; add a Take<> for it in dispatch/fallback/fallback_call.h");
};
template <>
struct Take<at::Tensor> {
  static at::Tensor get(const Results& r, std::size_t i) { return r.stack[i].toTensor(); }
};
template <>
struct Take<at::Tensor&> {
  static at::Tensor& get(const Results& r, std::size_t i) {
    at::Tensor* t = aliased_argument(r, i).writable;
    TORCH_INTERNAL_ASSERT(t != nullptr, r.schema.name(), ": result ", i,
                          " is a mutated argument; pass that argument to fallback_call as a non-const at::Tensor&");
    return *t;
  }
};
template <>
struct Take<const at::Tensor&> {
  static const at::Tensor& get(const Results& r, std::size_t i) {
    const at::Tensor* t = aliased_argument(r, i).tensor;
    TORCH_INTERNAL_ASSERT(t != nullptr, r.schema.name(), ": result ", i,
                          " aliases an argument; pass that argument to fallback_call as an at::Tensor lvalue");
    return *t;
  }
};
template <>
struct Take<std::vector<at::Tensor>> {
  static std::vector<at::Tensor> get(const Results& r, std::size_t i) { return r.stack[i].toTensorVector(); }
};
template <>
struct Take<bool> {
  static bool get(const Results& r, std::size_t i) { return r.stack[i].toBool(); }
};
template <>
struct Take<double> {
  static double get(const Results& r, std::size_t i) { return r.stack[i].toDouble(); }
};
template <>
struct Take<int64_t> {
  static int64_t get(const Results& r, std::size_t i) { return r.stack[i].toInt(); }
};
template <>
struct Take<at::Scalar> {
  static at::Scalar get(const Results& r, std::size_t i) { return r.stack[i].toScalar(); }
};

// The whole return value: a tuple is one result per element, void is none.
template <class Ret>
struct Returns {
  static constexpr std::size_t count = 1;
  static Ret get(const Results& r) { return Take<Ret>::get(r, 0); }
};
template <class... T>
struct Returns<std::tuple<T...>> {
  static constexpr std::size_t count = sizeof...(T);
  static std::tuple<T...> get(const Results& r) { return get(r, std::index_sequence_for<T...>{}); }
  template <std::size_t... I>
  static std::tuple<T...> get(const Results& r, std::index_sequence<I...>) {
    return std::tuple<T...>(Take<T>::get(r, I)...);
  }
};
template <>
struct Returns<void> {
  static constexpr std::size_t count = 0;
  static void get(const Results&) {}
};

void check_argument_count(const c10::OperatorHandle& op, std::size_t given);

}  // namespace fallback_detail

// Runs aten `schema` ("max.dim", "atan2_", "sort.values_stable") on the CPU
// through the counted fallback with `args` (every schema argument, in order)
// and returns its result as `Ret`, the schema's C++ return type: at::Tensor,
// at::Tensor& / const at::Tensor& (a returned argument, the caller's own
// object), std::tuple of those, std::vector<at::Tensor>, bool, double,
// int64_t, at::Scalar, or void.
template <class Ret, class... Args>
Ret fallback_call(const char* schema, Args&&... args) {
  namespace fd = fallback_detail;
  const c10::OperatorHandle& op = aten_op(schema);
  fd::check_argument_count(op, sizeof...(Args));
  // Taken before the arguments are pushed: pushing may move from rvalues.
  const std::array<fd::ArgRef, sizeof...(Args)> refs{fd::arg_ref(std::forward<Args>(args))...};
  torch::jit::Stack stack;
  stack.reserve(sizeof...(Args));
  (stack.push_back(fd::to_ivalue(std::forward<Args>(args))), ...);
  npu_cpu_fallback(op, &stack);
  const fd::Results results{op.schema(), stack, refs.data(), refs.size()};
  fd::check_result_count(results, fd::Returns<Ret>::count);
  return fd::Returns<Ret>::get(results);
}

}  // namespace npu
