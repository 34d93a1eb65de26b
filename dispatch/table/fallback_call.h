// The boxed CPU fallback called with typed arguments, returning the schema's
// C++ return type: the generated wrappers' way out when an op cannot run
// natively. Mutated arguments (self of an in-place op, the outs of out=)
// are returned as the caller's own tensors, with the fallback's writes in them.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include <ATen/core/ivalue.h>

#include "dispatch/fallback/cpu_fallback.h"

namespace npu::table {

namespace detail {

template <class T>
struct IsTuple : std::false_type {};
template <class... T>
struct IsTuple<std::tuple<T...>> : std::true_type {};

// The i-th mutated tensor argument among `args` (in order).
template <class... Args>
at::Tensor& mutated_arg(size_t i, Args&... args) {
  at::Tensor* found = nullptr;
  size_t seen = 0;
  auto visit = [&](auto& a) {
    if constexpr (std::is_same_v<std::remove_const_t<std::remove_reference_t<decltype(a)>>, at::Tensor> &&
                  !std::is_const_v<std::remove_reference_t<decltype(a)>>) {
      if (seen++ == i) found = &a;
    }
  };
  (visit(args), ...);
  TORCH_INTERNAL_ASSERT(found != nullptr, "fallback: mutated argument ", i, " not found");
  return *found;
}

template <class T>
T from_ivalue(c10::IValue v) {
  return std::move(v).to<T>();
}

template <class Ret, size_t... I, class... Args>
Ret tuple_result(torch::jit::Stack& stack, std::index_sequence<I...>, Args&... args) {
  using Tuple = Ret;
  if constexpr ((std::is_reference_v<std::tuple_element_t<I, Tuple>> && ...)) {
    return Tuple(mutated_arg(I, args...)...);
  } else {
    const size_t base = stack.size() - sizeof...(I);
    return Tuple(from_ivalue<std::tuple_element_t<I, Tuple>>(std::move(stack[base + I]))...);
  }
}

}  // namespace detail

template <class Ret, class... Args>
Ret fallback(const char* schema, Args&&... args) {
  torch::jit::Stack stack = run_fallback(schema, args...);
  if constexpr (std::is_void_v<Ret>) {
    return;
  } else if constexpr (std::is_same_v<Ret, at::Tensor&>) {
    return detail::mutated_arg(0, args...);
  } else if constexpr (detail::IsTuple<Ret>::value) {
    return detail::tuple_result<Ret>(stack, std::make_index_sequence<std::tuple_size_v<Ret>>{}, args...);
  } else {
    return detail::from_ivalue<Ret>(std::move(stack.back()));
  }
}

}  // namespace npu::table
