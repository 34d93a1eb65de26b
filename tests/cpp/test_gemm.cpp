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

#include "acl/aclnn_matmul.h"
#include "acl_test_support.h"
#include "gemm_test_support.h"
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
  GemmArgs g = gemm_test::product(dtype_of<T>(), c.m, c.n, c.k, a.g, b.g, out.g, c.batch);
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
  linalg::gemm(gemm_test::product(npu::model::DType::Float32, 1, 1, 2, {a.data(), 2, 1, 0}, {b.data(), 1, 1, 0},
                                  {c.data(), 1, 1, 0}));
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

// cubeMathType through the C API: 0..3 (KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION,
// USE_FP16, USE_HF32) compute, exactly here (small integers); anything else
// fails GetWorkspaceSize naming the parameter and the allowed values.
TEST_CASE("aclnnMm validates cubeMathType", "[gemm]") {
  acl_test::use_device0();
  acl_test::DeviceBuffer a(16), b(16), c(16);
  acl_test::StreamHandle stream;
  const std::vector<float> av{1, 2, 3, 4}, bv{5, 6, 7, 8};
  REQUIRE(aclrtMemcpy(a.get(), 16, av.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(b.get(), 16, bv.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const int64_t dims[2] = {2, 2}, strides[2] = {2, 1}, transposed[2] = {1, 2};
  aclTensor* ta = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, a.get());
  aclTensor* tb = aclCreateTensor(dims, 2, ACL_FLOAT, transposed, 0, ACL_FORMAT_ND, dims, 2, b.get());
  aclTensor* tc = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, c.get());
  for (const int8_t mode : {int8_t{0}, int8_t{1}, int8_t{2}, int8_t{3}}) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    REQUIRE(aclnnMmGetWorkspaceSize(ta, tb, tc, mode, &ws, &ex) == ACL_SUCCESS);
    REQUIRE(aclnnMm(nullptr, ws, ex, stream.get()) == ACL_SUCCESS);
    REQUIRE(aclrtSynchronizeStream(stream.get()) == ACL_SUCCESS);
    std::vector<float> cv(4);
    REQUIRE(aclrtMemcpy(cv.data(), 16, c.get(), 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    // b is read transposed: [[5, 7], [6, 8]].
    CHECK(cv == std::vector<float>{17, 23, 39, 53});
  }
  for (const int8_t bad : {int8_t{-1}, int8_t{4}}) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    CHECK(aclnnMmGetWorkspaceSize(ta, tb, tc, bad, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(ex == nullptr);
    const std::string message = acl_test::recent_error();
    CHECK(message.find("cubeMathType must be 0 (KEEP_DTYPE)") != std::string::npos);
    CHECK(message.find(std::to_string(bad)) != std::string::npos);
  }
  aclDestroyTensor(ta);
  aclDestroyTensor(tb);
  aclDestroyTensor(tc);
}

// Blocked operands (FRACTAL_NZ: logical [R, C] stored as [C1, R1*16, C0]):
// read in place through row/column blocks, as A, as a transposed B, and as C.
TEST_CASE("gemm reads and writes blocked (FRACTAL_NZ) operands", "[gemm]") {
  constexpr int64_t c0 = 16;
  const auto nz_offset = [](int64_t rows, int64_t r, int64_t c) {
    const int64_t rows_padded = (rows + 15) / 16 * 16;
    return ((c / c0) * rows_padded + r) * c0 + c % c0;
  };
  const int64_t m = 21, k = 35, n = 18;
  std::vector<float> a_nz(3 * 32 * 16, -7.0f), b_nz(3 * 32 * 16, -7.0f), c_nz(2 * 32 * 16, -7.0f);
  std::vector<float> a(m * k), b(k * n);  // logical, row-major
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) a_nz[nz_offset(m, i, j)] = a[i * k + j] = static_cast<float>((i * 7 + j * 3) % 11 - 5);
  }
  // B stored as its transpose [n, k] in NZ: b(l, j) = bt(j, l).
  for (int64_t l = 0; l < k; ++l) {
    for (int64_t j = 0; j < n; ++j) b_nz[nz_offset(n, j, l)] = b[l * n + j] = static_cast<float>((l * 5 + j) % 7 - 3);
  }
  GemmArgs g = gemm_test::product(npu::model::DType::Float32, m, n, k,
                                  {a_nz.data(), c0, 1, 0, 0, 0, c0, 32 * c0},  // rows stride C0, columns in C0 blocks
                                  {b_nz.data(), 1, c0, 0, c0, 32 * c0, 0, 0},  // transposed: rows (k) in blocks
                                  {c_nz.data(), c0, 1, 0, 0, 0, c0, 32 * c0});  // [m, n] written as NZ
  g.alpha = 2;
  linalg::gemm(g);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float want = 0;
      for (int64_t l = 0; l < k; ++l) want += a[i * k + l] * b[l * n + j];
      INFO("i " << i << " j " << j);
      REQUIRE(c_nz[nz_offset(m, i, j)] == 2 * want);
    }
  }
  // Padding of C (rows >= m inside a block) is never written.
  CHECK(c_nz[nz_offset(m, 30, 0)] == -7.0f);
}

// aclnnMatmul (the C API's torch.matmul; aten's matmul decomposes into the
// other entries): batch dims broadcast, a 1-D self is one row.
TEST_CASE("aclnnMatmul broadcasts batch dims and takes vectors", "[gemm]") {
  acl_test::use_device0();
  acl_test::StreamHandle stream;
  const auto run = [&](const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                       const std::vector<int64_t>& os, const std::vector<float>& av, const std::vector<float>& bv) {
    const auto strides = [](const std::vector<int64_t>& s) {
      std::vector<int64_t> st(s.size(), 1);
      for (int64_t d = static_cast<int64_t>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
      return st;
    };
    std::size_t on = 1;
    for (const int64_t s : os) on *= static_cast<std::size_t>(s);
    acl_test::DeviceBuffer a(av.size() * 4), b(bv.size() * 4), o(on * 4);
    REQUIRE(aclrtMemcpy(a.get(), av.size() * 4, av.data(), av.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    REQUIRE(aclrtMemcpy(b.get(), bv.size() * 4, bv.data(), bv.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    const auto sa = strides(as), sb = strides(bs), so = strides(os);
    aclTensor* ta = aclCreateTensor(as.data(), as.size(), ACL_FLOAT, sa.data(), 0, ACL_FORMAT_ND, as.data(), as.size(), a.get());
    aclTensor* tb = aclCreateTensor(bs.data(), bs.size(), ACL_FLOAT, sb.data(), 0, ACL_FORMAT_ND, bs.data(), bs.size(), b.get());
    aclTensor* to = aclCreateTensor(os.data(), os.size(), ACL_FLOAT, so.data(), 0, ACL_FORMAT_ND, os.data(), os.size(), o.get());
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    REQUIRE(aclnnMatmulGetWorkspaceSize(ta, tb, to, 0, &ws, &ex) == ACL_SUCCESS);
    REQUIRE(aclnnMatmul(nullptr, ws, ex, stream.get()) == ACL_SUCCESS);
    REQUIRE(aclrtSynchronizeStream(stream.get()) == ACL_SUCCESS);
    std::vector<float> out(on);
    REQUIRE(aclrtMemcpy(out.data(), on * 4, o.get(), on * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    return out;
  };
  // [2, 1, 2, 3] @ [3, 3, 1] -> [2, 3, 2, 1]: batch dims (2, 1) and (3) broadcast to (2, 3).
  std::vector<float> av(12), bv(9);
  for (std::size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>(i);
  for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i % 4) - 1.0f;
  const std::vector<float> got = run({2, 1, 2, 3}, {3, 3, 1}, {2, 3, 2, 1}, av, bv);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t r = 0; r < 2; ++r) {
        float want = 0;
        for (int64_t l = 0; l < 3; ++l) want += av[(i * 2 + r) * 3 + l] * bv[j * 3 + l];
        REQUIRE(got[(i * 3 + j) * 2 + r] == want);
      }
    }
  }
  // [3] @ [2, 3, 2] -> [2, 2]: the vector is one row of each product.
  const std::vector<float> v{1, 2, 3}, m{1, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4};
  CHECK(run({3}, {2, 3, 2}, {2, 2}, v, m) == std::vector<float>{4, 5, 20, 20});
}
