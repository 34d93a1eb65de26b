// The elementwise loops of the pointwise families. The parallel strided
// driver (strided_loop, oneTBB) is instantiated once per arity in
// pointwise_loop.cpp and reaches each op's inner loop through a plain
// function pointer; only the inner loop is instantiated per op and dtype.
// That keeps hundreds of op x dtype kernels affordable to compile, at the
// cost of one indirect call per contiguous run (not per element).
#pragma once

#include <array>
#include <cstdint>

#include "kernels/core/strided_loop.h"
#include "kernels/core/tensor_view.h"

namespace npu::kernels {

template <std::size_t N>
using RunFn = void (*)(const void* ctx, const std::array<char*, N>& ptrs, const std::array<int64_t, N>& strides,
                       int64_t n);

// strided_loop over `views` (same sizes; operand 0 is the output) calling
// run(ctx, ...) for every 1-D run. Defined for N = 1 .. 4.
template <std::size_t N>
void run_pointwise(const std::array<const TensorView*, N>& views, RunFn<N> run, const void* ctx);

// out[i] = f(in[i]); contiguous runs use plain pointers so they vectorize.
template <class Out, class In, class F>
void map_unary(const TensorView& out, const TensorView& in, const F& f) {
  run_pointwise<2>(
      {&out, &in},
      [](const void* ctx, const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
        const F& fn = *static_cast<const F*>(ctx);
        Out* o = reinterpret_cast<Out*>(p[0]);
        const In* a = reinterpret_cast<const In*>(p[1]);
        if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
          for (int64_t i = 0; i < n; ++i) o[i] = fn(a[i]);
        } else if (s[0] == sizeof(Out) && s[1] == 0) {
          const Out v = fn(*a);  // a broadcast input: one evaluation
          for (int64_t i = 0; i < n; ++i) o[i] = v;
        } else {
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<Out*>(p[0] + i * s[0]) = fn(*reinterpret_cast<const In*>(p[1] + i * s[1]));
          }
        }
      },
      &f);
}

// True when the CPU has AVX2 (checked once). Loops built for it with
// target("avx2") alone cannot contract a * b + c into an fma (that needs the
// separate "fma" target), so their results are those of the baseline build.
bool cpu_has_avx2();

// The contiguous body of map_binary, built for AVX2: twice the vector width
// of the baseline SSE2 build (and wider float16/bfloat16 conversions).
template <class Out, class A, class B, class F>
__attribute__((target("avx2"))) void binary_run_avx2(const F& fn, Out* o, const A* x, const B* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i], y[i]);
}

// Tensor (op) scalar: the scalar stays in a register.
template <class Out, class A, class B, class F>
__attribute__((target("avx2"))) void binary_scalar_run_avx2(const F& fn, Out* o, const A* x, const B yv, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i], yv);
}

// out[i] = f(a[i], b[i])
template <class Out, class A, class B, class F>
void map_binary(const TensorView& out, const TensorView& a, const TensorView& b, const F& f) {
  run_pointwise<3>(
      {&out, &a, &b},
      [](const void* ctx, const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t n) {
        const F& fn = *static_cast<const F*>(ctx);
        Out* o = reinterpret_cast<Out*>(p[0]);
        const A* x = reinterpret_cast<const A*>(p[1]);
        const B* y = reinterpret_cast<const B*>(p[2]);
        if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
          if (cpu_has_avx2()) return binary_run_avx2(fn, o, x, y, n);
          for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i], y[i]);
        } else if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == 0) {
          const B yv = *y;  // tensor (op) scalar: the scalar stays in a register
          if (cpu_has_avx2()) return binary_scalar_run_avx2(fn, o, x, yv, n);
          for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i], yv);
        } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(B)) {
          const A xv = *x;
          for (int64_t i = 0; i < n; ++i) o[i] = fn(xv, y[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                fn(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]));
          }
        }
      },
      &f);
}

// out[i] = f(a[i], b[i], c[i])
template <class Out, class A, class B, class C, class F>
void map_ternary(const TensorView& out, const TensorView& a, const TensorView& b, const TensorView& c, const F& f) {
  run_pointwise<4>(
      {&out, &a, &b, &c},
      [](const void* ctx, const std::array<char*, 4>& p, const std::array<int64_t, 4>& s, int64_t n) {
        const F& fn = *static_cast<const F*>(ctx);
        if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(C)) {
          Out* o = reinterpret_cast<Out*>(p[0]);
          const A* x = reinterpret_cast<const A*>(p[1]);
          const B* y = reinterpret_cast<const B*>(p[2]);
          const C* z = reinterpret_cast<const C*>(p[3]);
          for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i], y[i], z[i]);
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<Out*>(p[0] + i * s[0]) =
              fn(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]),
                 *reinterpret_cast<const C*>(p[3] + i * s[3]));
        }
      },
      &f);
}

}  // namespace npu::kernels
