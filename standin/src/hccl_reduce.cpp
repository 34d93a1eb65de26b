#include "hccl_reduce.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "hccl_error.h"

namespace npu::standin::hccl {
namespace {

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename F>
decltype(auto) visit_type(HcclDataType type, F&& f) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: return f(TypeTag<int8_t>{});
    case HCCL_DATA_TYPE_INT16: return f(TypeTag<int16_t>{});
    case HCCL_DATA_TYPE_INT32: return f(TypeTag<int32_t>{});
    case HCCL_DATA_TYPE_INT64: return f(TypeTag<int64_t>{});
    case HCCL_DATA_TYPE_UINT8: return f(TypeTag<uint8_t>{});
    case HCCL_DATA_TYPE_UINT16: return f(TypeTag<uint16_t>{});
    case HCCL_DATA_TYPE_UINT32: return f(TypeTag<uint32_t>{});
    case HCCL_DATA_TYPE_UINT64: return f(TypeTag<uint64_t>{});
    case HCCL_DATA_TYPE_FP16: return f(TypeTag<Eigen::half>{});
    case HCCL_DATA_TYPE_BFP16: return f(TypeTag<Eigen::bfloat16>{});
    case HCCL_DATA_TYPE_FP32: return f(TypeTag<float>{});
    case HCCL_DATA_TYPE_FP64: return f(TypeTag<double>{});
  }
  throw HcclError(HCCL_E_PARA, "dataType " + std::to_string(static_cast<int>(type)) +
                                   " is not supported by npu-emu's HCCL (int8/16/32/64, uint8/16/32/64, fp16, bf16, "
                                   "fp32, fp64 are)");
}

// The type arithmetic happens in: float for the 16-bit floats (as PyTorch's
// CPU reductions accumulate them), the unsigned twin for signed integers (so
// overflow wraps as on hardware instead of being undefined).
template <typename T, typename Enable = void>
struct AccumulatorOf {
  using type = T;
};
template <typename T>
struct AccumulatorOf<T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T>>> {
  using type = std::make_unsigned_t<T>;
};
template <>
struct AccumulatorOf<Eigen::half> {
  using type = float;
};
template <>
struct AccumulatorOf<Eigen::bfloat16> {
  using type = float;
};
template <typename T>
using Accumulator = typename AccumulatorOf<T>::type;

template <typename A>
A combine(HcclReduceOp op, A a, A b) {
  switch (op) {
    case HCCL_REDUCE_SUM: return static_cast<A>(a + b);
    case HCCL_REDUCE_PROD: return static_cast<A>(a * b);
    default: break;
  }
  throw HcclError(HCCL_E_INTERNAL, "combine: unexpected operation");
}

template <typename T>
void reduce_typed(HcclReduceOp op, const std::vector<const std::byte*>& inputs, std::byte* out, uint64_t count) {
  using A = Accumulator<T>;
  for (uint64_t i = 0; i < count; ++i) {
    T first;
    std::memcpy(&first, inputs[0] + i * sizeof(T), sizeof(T));
    T result = first;
    A accumulated = static_cast<A>(first);
    for (size_t r = 1; r < inputs.size(); ++r) {
      T value;
      std::memcpy(&value, inputs[r] + i * sizeof(T), sizeof(T));
      if (op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN) {
        // Compared in T itself (signed order for signed integers); a NaN wins,
        // as in torch.maximum / torch.minimum.
        if (value != value) {
          result = value;
        } else if (result == result) {
          result = op == HCCL_REDUCE_MAX ? std::max(result, value) : std::min(result, value);
        }
      } else {
        accumulated = combine<A>(op, accumulated, static_cast<A>(value));
      }
    }
    if (op == HCCL_REDUCE_SUM || op == HCCL_REDUCE_PROD) result = static_cast<T>(accumulated);
    std::memcpy(out + i * sizeof(T), &result, sizeof(T));
  }
}

}  // namespace

size_t element_size(HcclDataType type) {
  return visit_type(type, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

void reduce(HcclDataType type, HcclReduceOp op, const std::vector<const std::byte*>& inputs, std::byte* out,
            uint64_t count) {
  if (op != HCCL_REDUCE_SUM && op != HCCL_REDUCE_PROD && op != HCCL_REDUCE_MAX && op != HCCL_REDUCE_MIN) {
    throw HcclError(HCCL_E_PARA, "op " + std::to_string(static_cast<int>(op)) +
                                     " is not an HcclReduceOp (SUM 0, PROD 1, MAX 2, MIN 3)");
  }
  visit_type(type, [&](auto tag) { reduce_typed<typename decltype(tag)::type>(op, inputs, out, count); });
}

}  // namespace npu::standin::hccl
