// Typed elementwise kernels on top of the strided loop: the building blocks
// every pointwise op family uses. Operands must already share one shape
// (broadcast_to) and, where stated, one dtype.
#pragma once

#include "kernels/core/dtype_dispatch.h"
#include "kernels/core/strided_loop.h"

namespace npu::kernels {

// out[i] = op()
template <class Out, class Op>
void nullary_kernel(const TensorView& out, Op op) {
  const auto ops = make_operands<1>({&out});
  strided_loop<1>(ops, [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Out*>(p[0] + i * s[0]) = op();
  });
}

// out[i] = op(in[i])
template <class Out, class In, class Op>
void unary_kernel(const TensorView& out, const TensorView& in, Op op) {
  const auto ops = make_operands<2>({&out, &in});
  strided_loop<2>(ops, [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      // Contiguous run: plain pointers so the compiler can vectorize.
      Out* o = reinterpret_cast<Out*>(p[0]);
      const In* a = reinterpret_cast<const In*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = op(*reinterpret_cast<const In*>(p[1] + i * s[1]));
      }
    }
  });
}

// out[i] = op(a[i], b[i])
template <class Out, class A, class B, class Op>
void binary_kernel(const TensorView& out, const TensorView& a, const TensorView& b, Op op) {
  const auto ops = make_operands<3>({&out, &a, &b});
  strided_loop<3>(ops, [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t n) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const A* x = reinterpret_cast<const A*>(p[1]);
    const B* y = reinterpret_cast<const B*>(p[2]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == 0) {
      const B yv = *y;  // tensor-scalar: the scalar stays in a register
      for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], yv);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            op(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]));
      }
    }
  });
}

// out[i] = op(a[i], b[i], c[i])
template <class Out, class A, class B, class C, class Op>
void ternary_kernel(const TensorView& out, const TensorView& a, const TensorView& b, const TensorView& c, Op op) {
  const auto ops = make_operands<4>({&out, &a, &b, &c});
  strided_loop<4>(ops, [&](const std::array<char*, 4>& p, const std::array<int64_t, 4>& s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Out*>(p[0] + i * s[0]) =
          op(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]),
             *reinterpret_cast<const C*>(p[3] + i * s[3]));
    }
  });
}

}  // namespace npu::kernels
