// The GEMM engine (kernels/linalg/gemm.h) against a plain triple loop in
// double (complex<double>): every dtype it supports, transposed / strided /
// broadcast (batch stride 0) operands, column-major and general-strided C,
// alpha/beta (beta 0 ignoring NaN in C), reduce_batch, zero sizes, and sizes
// large enough to be split across workers.
#include <catch2/catch.hpp>

#include <complex>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/linalg/gemm.h"

using namespace npu::kernels;
using npu::kernels::linalg::GemmArgs;
using npu::kernels::linalg::GemmMatrix;
using cd = std::complex<double>;

namespace {

template <class T>
npu::model::DType dtype_of() {
  using npu::model::DType;
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  if constexpr (std::is_same_v<T, double>) return DType::Float64;
  if constexpr (std::is_same_v<T, half>) return DType::Float16;
  if constexpr (std::is_same_v<T, bfloat16>) return DType::BFloat16;
  if constexpr (std::is_same_v<T, complex64>) return DType::Complex64;
  if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  return DType::Int32;
}

// A batch of matrices stored in a buffer with chosen strides.
struct Strided {
  std::vector<unsigned char> bytes;
  GemmMatrix g;
};

template <class T>
T from_cd(cd v) {
  if constexpr (is_complex_v<T>) {
    return T(static_cast<typename T::value_type>(v.real()), static_cast<typename T::value_type>(v.imag()));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::lround(v.real()));
  } else {
    return convert<T>(v.real());
  }
}

template <class T>
cd to_cd(T v) {
  if constexpr (is_complex_v<T>) {
    return cd(v.real(), v.imag());
  } else {
    return cd(convert<double>(v), 0.0);
  }
}

// Layouts an operand can have: row-major, column-major (transposed),
// padded rows (a slice of a wider matrix), or both strides > 1.
enum class Layout { Row, Col, Padded, General };

template <class T>
Strided make(int64_t batches, int64_t rows, int64_t cols, Layout layout, bool broadcast, std::mt19937& rng,
             std::vector<cd>& values) {
  int64_t rs = cols, cs = 1;
  int64_t span = rows * cols;
  switch (layout) {
    case Layout::Row: break;
    case Layout::Col: rs = 1; cs = rows; break;
    case Layout::Padded: rs = cols + 3; span = rows * rs; break;
    case Layout::General: rs = 2 * cols; cs = 2; span = rows * rs; break;
  }
  const int64_t stored = broadcast ? 1 : batches;
  Strided s;
  s.bytes.assign(static_cast<std::size_t>(std::max<int64_t>(stored * span, 1)) * sizeof(T), 0);
  s.g = {s.bytes.data(), rs, cs, broadcast ? 0 : span};
  values.assign(static_cast<std::size_t>(batches * rows * cols), cd());
  std::uniform_int_distribution<int> dist(-4, 4);
  T* p = reinterpret_cast<T*>(s.bytes.data());
  for (int64_t b = 0; b < stored; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const cd v = is_complex_v<T> ? cd(dist(rng), dist(rng)) : cd(dist(rng), 0);
        p[b * s.g.batch_stride + i * rs + j * cs] = from_cd<T>(v);
      }
    }
  }
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        values[(b * rows + i) * cols + j] = to_cd(p[(broadcast ? 0 : b) * s.g.batch_stride + i * rs + j * cs]);
      }
    }
  }
  return s;
}

struct Case {
  int64_t batch, m, n, k;
  Layout la, lb, lc;
  bool bcast_a = false, bcast_b = false, reduce = false, conj_a = false;
  cd alpha{1, 0}, beta{0, 0};
};

// Small integers make every product and sum exact in every dtype but the
// reduced floats' final rounding, so the comparison is exact up to that.
template <class T>
void check(const Case& c) {
  std::mt19937 rng(1234);
  std::vector<cd> av, bv, cv;
  Strided a = make<T>(c.batch, c.m, c.k, c.la, c.bcast_a, rng, av);
  Strided b = make<T>(c.batch, c.k, c.n, c.lb, c.bcast_b, rng, bv);
  const int64_t cb = c.reduce ? 1 : c.batch;
  Strided out = make<T>(cb, c.m, c.n, c.lc, false, rng, cv);
  GemmArgs g;
  g.dtype = dtype_of<T>();
  g.batch = c.batch;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.a = a.g;
  g.b = b.g;
  g.c = out.g;
  g.alpha = c.alpha;
  g.beta = c.beta;
  g.reduce_batch = c.reduce;
  g.conj_a = c.conj_a;
  linalg::gemm(g);
  const T* cp = reinterpret_cast<const T*>(out.bytes.data());
  for (int64_t bi = 0; bi < cb; ++bi) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        cd acc = 0;
        for (int64_t item = c.reduce ? 0 : bi; item < (c.reduce ? c.batch : bi + 1); ++item) {
          for (int64_t l = 0; l < c.k; ++l) {
            cd x = av[(item * c.m + i) * c.k + l];
            if (c.conj_a) x = std::conj(x);
            acc += x * bv[(item * c.k + l) * c.n + j];
          }
        }
        cd want = c.alpha * acc;
        if (c.beta != cd(0)) want += c.beta * cv[(bi * c.m + i) * c.n + j];
        const cd got = to_cd(cp[bi * out.g.batch_stride + i * out.g.row_stride + j * out.g.col_stride]);
        const double tol = is_reduced_float_v<T> ? std::abs(want) * 1e-2 + 1e-6 : 0.0;
        INFO("i " << i << " j " << j << " b " << bi << " want " << want << " got " << got);
        REQUIRE(std::abs(got - want) <= tol);
      }
    }
  }
}

template <class T>
void check_layouts(int64_t batch, int64_t m, int64_t n, int64_t k) {
  for (const Layout la : {Layout::Row, Layout::Col, Layout::Padded, Layout::General}) {
    for (const Layout lb : {Layout::Row, Layout::Col, Layout::General}) {
      for (const Layout lc : {Layout::Row, Layout::Col, Layout::General}) {
        Case c{batch, m, n, k, la, lb, lc};
        c.alpha = 2;
        c.beta = 3;
        check<T>(c);
      }
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("gemm matches a reference for every layout", "[gemm]", float, double, half, bfloat16, complex64,
                   int64_t, int32_t) {
  check_layouts<TestType>(2, 5, 7, 3);
  check_layouts<TestType>(1, 1, 1, 1);
}

TEST_CASE("gemm splits large products across workers", "[gemm]") {
  check<float>({1, 300, 290, 70, Layout::Row, Layout::Col, Layout::Row});
  check<float>({1, 70, 400, 50, Layout::Col, Layout::Row, Layout::Col});
  check<half>({3, 150, 140, 40, Layout::Row, Layout::Row, Layout::Row, true});
  check<double>({5, 100, 90, 80, Layout::Row, Layout::Row, Layout::Row, false, true, true});
}

TEST_CASE("gemm broadcasts batches, reduces batches and conjugates", "[gemm]") {
  check<float>({4, 6, 5, 3, Layout::Row, Layout::Col, Layout::Row, true, false});
  check<float>({4, 6, 5, 3, Layout::Col, Layout::Row, Layout::Row, false, true});
  Case reduce{4, 6, 5, 3, Layout::Row, Layout::Row, Layout::Row, false, false, true};
  reduce.alpha = 0.5;
  reduce.beta = -1;
  check<float>(reduce);
  check<bfloat16>(reduce);
  check<complex64>({2, 1, 1, 9, Layout::Row, Layout::Col, Layout::Row, false, false, false, true});
  check<complex64>({2, 3, 4, 5, Layout::Row, Layout::Row, Layout::Row, false, false, false, true, cd(1, 2), cd(0, 1)});
}

TEST_CASE("gemm with zero sizes and beta 0", "[gemm]") {
  check<float>({2, 0, 3, 4, Layout::Row, Layout::Row, Layout::Row});
  check<float>({2, 3, 0, 4, Layout::Row, Layout::Row, Layout::Row});
  check<float>({0, 3, 2, 4, Layout::Row, Layout::Row, Layout::Row});
  Case k0{2, 3, 2, 0, Layout::Row, Layout::Row, Layout::Row};
  k0.beta = 2;
  check<float>(k0);
  Case reduce0{0, 3, 2, 4, Layout::Row, Layout::Row, Layout::Row, false, false, true};
  reduce0.beta = 2;
  check<float>(reduce0);
  // beta == 0: C's old values are never read, NaN included.
  std::vector<float> a{1, 2}, b{3, 4}, c{std::numeric_limits<float>::quiet_NaN()};
  GemmArgs g;
  g.m = g.n = 1;
  g.k = 2;
  g.a = {a.data(), 2, 1, 0};
  g.b = {b.data(), 1, 1, 0};
  g.c = {c.data(), 1, 1, 0};
  linalg::gemm(g);
  REQUIRE(c[0] == 11.0f);
}

TEST_CASE("gemm rejects what it does not compute", "[gemm]") {
  GemmArgs g;
  g.dtype = npu::model::DType::Bool;
  REQUIRE_THROWS_WITH(linalg::gemm(g), Catch::Contains("unsupported dtype bool"));
  g.dtype = npu::model::DType::Float32;
  g.m = -1;
  REQUIRE_THROWS_WITH(linalg::gemm(g), Catch::Contains("negative size"));
}
