// Reductions, scans, indexing, shape ops and sort: kernels checked against
// references computed here with plain loops in double, across dtypes,
// keepdim, negative / multiple dims, empty and strided inputs, inputs large
// enough to run on several workers, and error cases; a few checks go
// through the aclnn C API (two-call pattern, stream sync, view-shape query).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_index.h"
#include "acl/aclnn_reduce.h"
#include "acl/aclnn_shape.h"
#include "acl/aclnn_sort.h"
#include "kernels/core/dims.h"
#include "kernels/core/dtype_dispatch.h"
#include "kernels/index/advanced_index.h"
#include "kernels/index/index_ops.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/scan.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/sort/sort.h"

using namespace npu::kernels;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

int64_t numel(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>()); }

// A host tensor: logical values `logical` (row-major), stored in `storage`
// with dims laid out in memory in the order `perm` (outermost first), so a
// non-identity perm gives a non-contiguous view of the same values.
template <class T>
struct Host {
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // vector<bool> has no data()
  Shape sizes;
  std::vector<Stored> storage;
  Shape strides;
  DType dtype;

  Host(const Shape& shape, const std::vector<double>& logical, DType dt, std::vector<int64_t> perm = {})
      : sizes(shape), storage(logical.size()), strides(shape.size()), dtype(dt) {
    if (perm.empty()) {
      perm.resize(shape.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
    int64_t s = 1;
    for (int64_t k = static_cast<int64_t>(perm.size()) - 1; k >= 0; --k) {
      strides[perm[k]] = s;
      s *= std::max<int64_t>(shape[perm[k]], 1);
    }
    for (int64_t i = 0; i < static_cast<int64_t>(logical.size()); ++i) {
      storage[offset_of(i, sizes, strides)] = static_cast<Stored>(convert<T>(logical[i]));
    }
    view_ = TensorView{storage.data(), dtype, sizes, strides};
  }
  Host(const Shape& shape, DType dt) : Host(shape, std::vector<double>(numel(shape), 0.0), dt) {}

  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  const TensorView& view() const { return view_; }
  // Logical values, row-major, as doubles.
  std::vector<double> values() const {
    std::vector<double> out(numel(sizes));
    for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
      out[i] = convert<double>(static_cast<T>(storage[offset_of(i, sizes, strides)]));
    }
    return out;
  }

 private:
  TensorView view_;
};

std::vector<double> randoms(int64_t n, uint32_t seed, double lo = -2.0, double hi = 2.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

std::vector<double> small_ints(int64_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

// For each output of a reduction (row-major over kept dims), the row-major
// linear indices of the input elements it folds, in order.
std::vector<std::vector<int64_t>> groups_of(const Shape& shape, const DimMask& mask) {
  Shape kept;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!mask[d]) kept.push_back(shape[d]);
  }
  std::vector<std::vector<int64_t>> groups(numel(kept));
  for (int64_t i = 0; i < numel(shape); ++i) {
    int64_t rem = i, out = 0, scale = 1;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      const int64_t c = rem % shape[d];
      rem /= shape[d];
      if (!mask[d]) {
        out += c * scale;
        scale *= shape[d];
      }
    }
    groups[out].push_back(i);
  }
  return groups;
}

template <class F>
std::vector<double> ref_reduce(const std::vector<double>& x, const Shape& shape, const DimMask& mask, F f) {
  std::vector<double> out;
  for (const auto& g : groups_of(shape, mask)) {
    std::vector<double> vals;
    for (const int64_t i : g) vals.push_back(x[i]);
    out.push_back(f(vals));
  }
  return out;
}

double ref_sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }
double ref_var(const std::vector<double>& v, double correction) {
  const double mean = ref_sum(v) / static_cast<double>(v.size());
  double m2 = 0;
  for (const double x : v) m2 += (x - mean) * (x - mean);
  return m2 / std::max(0.0, static_cast<double>(v.size()) - correction);
}

bool same(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::abs(b);
}

void require_close(const std::vector<double>& got, const std::vector<double>& want, double rtol = 1e-5,
                   double atol = 1e-6) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!same(got[i], want[i], rtol, atol)) {
      INFO("element " << i << ": got " << got[i] << ", expected " << want[i]);
      REQUIRE(false);
    }
  }
}

template <class F>
std::string kernel_error(F&& f) {
  try {
    f();
  } catch (const KernelError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<int64_t> as_int(const std::vector<double>& v) { return {v.begin(), v.end()}; }

}  // namespace

// ---------------------------------------------------------------- reductions

TEST_CASE("sum over any dims with keepdim matches a loop reference, contiguous or not", "[reduce]") {
  const Shape shape{3, 4, 5};
  const auto x = randoms(60, 1);
  const std::vector<std::vector<int64_t>> dim_lists{{}, {0}, {1}, {-1}, {0, 2}, {-1, -3}, {0, 1, 2}};
  for (const auto& perm : std::vector<std::vector<int64_t>>{{}, {2, 0, 1}, {1, 2, 0}}) {
    Host<float> in(shape, x, DType::Float32, perm);
    for (const auto& dims : dim_lists) {
      for (const bool keepdim : {false, true}) {
        const DimMask mask = dim_mask(dims, 3);
        Host<float> out(reduced_shape(shape, mask, keepdim), DType::Float32);
        reduce_sum(out.view(), in.view(), mask);
        require_close(out.values(), ref_reduce(x, shape, mask, ref_sum));
      }
    }
  }
}

TEST_CASE("int64 sums, products and their scans wrap around on overflow as PyTorch's", "[reduce]") {
  // Two's complement wrap-around, the expected values computed in uint64.
  // UBSan found the kernels overflowing int64 (undefined in C++) on the
  // pytest suite's integer products.
  constexpr int64_t n = 20;
  Host<int64_t> thousands({n}, std::vector<double>(n, 1000.0), DType::Int64);
  uint64_t product = 1;
  std::vector<int64_t> want_cumprod;
  for (int64_t i = 0; i < n; ++i) {
    product *= 1000u;
    want_cumprod.push_back(static_cast<int64_t>(product));
  }
  Host<int64_t> prod({}, DType::Int64);
  reduce_prod(prod.view(), thousands.view(), dim_mask({}, 1));
  REQUIRE(prod.storage[0] == want_cumprod.back());
  Host<int64_t> cum({n}, DType::Int64);
  cumprod(cum.view(), thousands.view(), 0);
  REQUIRE(cum.storage == want_cumprod);

  const double big = 0x1p62;
  const auto three_bigs = static_cast<int64_t>(3 * (uint64_t{1} << 62));
  Host<int64_t> bigs({3}, {big, big, big}, DType::Int64);
  Host<int64_t> sum({}, DType::Int64);
  reduce_sum(sum.view(), bigs.view(), dim_mask({}, 1));
  REQUIRE(sum.storage[0] == three_bigs);
  Host<int64_t> cumulative({3}, DType::Int64);
  cumsum(cumulative.view(), bigs.view(), 0);
  REQUIRE(cumulative.storage[2] == three_bigs);
}

TEST_CASE("integer and bool sums accumulate into int64 when asked", "[reduce]") {
  const Shape shape{2, 3};
  Host<int32_t> in(shape, {2147483647, 1, 2, -5, 7, 9}, DType::Int32);
  Host<int64_t> out({2}, DType::Int64);
  reduce_sum(out.view(), in.view(), dim_mask({1}, 2));
  REQUIRE(out.values() == std::vector<double>{2147483650.0, 11.0});

  Host<bool> flags({5}, {1, 0, 1, 1, 0}, DType::Bool);
  Host<int64_t> count({}, DType::Int64);
  reduce_sum(count.view(), flags.view(), dim_mask({}, 1));
  REQUIRE(count.storage[0] == 3);

  Host<int8_t> bytes({3}, {100, 100, 100}, DType::Int8);  // int8 result wraps like PyTorch
  Host<int8_t> wrapped({}, DType::Int8);
  reduce_sum(wrapped.view(), bytes.view(), dim_mask({}, 1));
  REQUIRE(wrapped.storage[0] == static_cast<int8_t>(300));
}

TEST_CASE("mean of half computes in float and rounds once; empty mean is NaN", "[reduce]") {
  const auto x = randoms(1000, 2, 0, 4);
  Host<half> in({1000}, x, DType::Float16);
  const auto stored = in.values();  // the half-rounded inputs
  Host<half> out({}, DType::Float16);
  reduce_mean(out.view(), in.view(), dim_mask({}, 1));
  REQUIRE(out.values()[0] == static_cast<float>(half(static_cast<float>(ref_sum(stored) / 1000.0))));
  Host<float> as_float({}, DType::Float32);
  reduce_mean(as_float.view(), in.view(), dim_mask({}, 1));
  REQUIRE(as_float.values()[0] == Approx(ref_sum(stored) / 1000.0).epsilon(1e-6));

  Host<float> empty({0, 3}, DType::Float32);
  Host<float> nan_out({3}, DType::Float32);
  reduce_mean(nan_out.view(), empty.view(), dim_mask({0}, 2));
  REQUIRE(std::isnan(nan_out.values()[1]));
  Host<int64_t> int_out({3}, DType::Int64);
  REQUIRE_THROWS_AS(reduce_mean(int_out.view(), empty.view(), dim_mask({0}, 2)), KernelError);
}

TEST_CASE("empty reductions give the identity; ops without one refuse", "[reduce]") {
  Host<float> empty({0, 4}, DType::Float32);
  const DimMask over_rows = dim_mask({0}, 2);
  Host<float> out({4}, DType::Float32);
  reduce_sum(out.view(), empty.view(), over_rows);
  REQUIRE(out.values() == std::vector<double>(4, 0.0));
  reduce_prod(out.view(), empty.view(), over_rows);
  REQUIRE(out.values() == std::vector<double>(4, 1.0));
  reduce_logsumexp(out.view(), empty.view(), over_rows);
  REQUIRE(out.values() == std::vector<double>(4, -kInf));
  reduce_var(out.view(), empty.view(), over_rows, 1.0, false);
  REQUIRE(std::isnan(out.values()[0]));
  Host<bool> flags({4}, DType::Bool);
  reduce_all(flags.view(), empty.view(), over_rows);
  REQUIRE(flags.values() == std::vector<double>(4, 1.0));
  reduce_any(flags.view(), empty.view(), over_rows);
  REQUIRE(flags.values() == std::vector<double>(4, 0.0));

  const std::string msg = kernel_error([&] { reduce_amax(out.view(), empty.view(), over_rows); });
  REQUIRE(msg.find("amax(): Expected reduction dim 0 to have non-zero size") != std::string::npos);
  Host<int64_t> idx({4}, DType::Int64);
  REQUIRE_THROWS_AS(reduce_arg(true, nullptr, &idx.view(), empty.view(), 0), KernelError);
  REQUIRE_THROWS_AS(reduce_norm(out.view(), empty.view(), over_rows, kInf), KernelError);
  // Reducing the non-empty dim of an empty tensor is fine: nothing to write.
  Host<float> none({0}, DType::Float32);
  reduce_amax(none.view(), empty.view(), dim_mask({1}, 2));
}

TEST_CASE("prod over dims, integers widen to int64", "[reduce]") {
  const Shape shape{3, 4};
  const auto x = small_ints(12, 3, -3, 3);
  Host<int32_t> in(shape, x, DType::Int32);
  Host<int64_t> out({1, 4}, DType::Int64);
  const DimMask mask = dim_mask({0}, 2);
  reduce_prod(out.view(), in.view(), mask);
  require_close(out.values(), ref_reduce(x, shape, mask, [](const std::vector<double>& v) {
                  return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<>());
                }));
  Host<double> fin(shape, randoms(12, 4), DType::Float64, {1, 0});
  Host<double> fout({3}, DType::Float64);
  reduce_prod(fout.view(), fin.view(), dim_mask({-1}, 2));
  require_close(fout.values(), ref_reduce(fin.values(), shape, dim_mask({1}, 2), [](const std::vector<double>& v) {
                  return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<>());
                }), 1e-12, 1e-14);
}

TEST_CASE("amax / amin propagate NaN and work for every ordered dtype", "[reduce]") {
  const Shape shape{2, 5};
  std::vector<double> x = randoms(10, 5);
  x[3] = kNaN;
  Host<float> in(shape, x, DType::Float32);
  Host<float> out({2}, DType::Float32);
  reduce_amax(out.view(), in.view(), dim_mask({1}, 2));
  REQUIRE(std::isnan(out.values()[0]));
  REQUIRE(out.values()[1] == Approx(*std::max_element(x.begin() + 5, x.end())));
  reduce_amin(out.view(), in.view(), dim_mask({1}, 2));
  REQUIRE(std::isnan(out.values()[0]));
  REQUIRE(out.values()[1] == Approx(*std::min_element(x.begin() + 5, x.end())));

  const auto xi = small_ints(10, 6, -100, 100);
  Host<int16_t> ii(shape, xi, DType::Int16);
  Host<int16_t> io({5}, DType::Int16);
  reduce_amax(io.view(), ii.view(), dim_mask({0}, 2));
  REQUIRE(io.values() == ref_reduce(xi, shape, dim_mask({0}, 2), [](const std::vector<double>& v) {
            return *std::max_element(v.begin(), v.end());
          }));
  Host<bool> b({3}, {0, 1, 0}, DType::Bool);
  Host<bool> bo({}, DType::Bool);
  reduce_amax(bo.view(), b.view(), dim_mask({}, 1));
  REQUIRE(bo.storage[0]);
  Host<complex64> c({2}, DType::Complex64);
  Host<complex64> co({}, DType::Complex64);
  REQUIRE_THROWS_AS(reduce_amax(co.view(), c.view(), dim_mask({}, 1)), KernelError);
}

TEST_CASE("max / min along a dim return the first occurrence; NaN wins", "[reduce]") {
  const Shape shape{3, 6};
  const std::vector<double> x{1, 5, 5, 2, 5, 0,   //
                              kNaN, 3, kNaN, 9, 9, -1,  //
                              -4, -4, -4, -4, -4, -4};
  Host<float> in(shape, x, DType::Float32, {1, 0});
  Host<float> values({3}, DType::Float32);
  Host<int64_t> indices({3}, DType::Int64);
  reduce_arg(true, &values.view(), &indices.view(), in.view(), 1);
  REQUIRE(indices.values() == std::vector<double>{1, 0, 0});
  REQUIRE(std::isnan(values.values()[1]));
  reduce_arg(false, nullptr, &indices.view(), in.view(), -1);
  REQUIRE(indices.values() == std::vector<double>{5, 0, 0});
  Host<int64_t> keep({1, 6}, DType::Int64);
  reduce_arg(true, nullptr, &keep.view(), in.view(), 0);
  REQUIRE(keep.values() == std::vector<double>{1, 0, 1, 1, 1, 0});
}

TEST_CASE("large reductions split across workers agree with the reference", "[reduce]") {
  // Few long rows (split strategy), many rows (row strategy), columns
  // (reduce the outer dim of a row-major matrix) and a strided full reduce.
  const auto x = randoms(3 * 400000, 7);
  for (const auto& [shape, dims] : std::vector<std::pair<Shape, std::vector<int64_t>>>{
           {{3, 400000}, {1}}, {{3000, 400}, {1}}, {{400000, 3}, {0}}, {{600, 2000}, {0}}, {{1200000}, {}}}) {
    Host<float> in(shape, x, DType::Float32);
    const DimMask mask = dim_mask(dims, static_cast<int64_t>(shape.size()));
    Host<float> out(reduced_shape(shape, mask, false), DType::Float32);
    reduce_sum(out.view(), in.view(), mask);
    const auto stored = in.values();
    require_close(out.values(), ref_reduce(stored, shape, mask, ref_sum), 1e-5, 1e-3);
    Host<int64_t> arg(reduced_shape(shape, mask, false), DType::Int64);
    if (dims.size() == 1) {
      reduce_arg(true, nullptr, &arg.view(), in.view(), dims[0]);
      const auto want = ref_reduce(stored, shape, mask, [](const std::vector<double>& v) {
        return static_cast<double>(std::max_element(v.begin(), v.end()) - v.begin());
      });
      REQUIRE(arg.values() == want);
    }
    reduce_var(out.view(), in.view(), mask, 1.0, false);
    require_close(out.values(), ref_reduce(stored, shape, mask, [](const std::vector<double>& v) { return ref_var(v, 1); }),
                  1e-5, 1e-6);
  }
  // Int64 sum of a large int32 tensor: exact.
  Host<int32_t> ints({1000000}, small_ints(1000000, 8, -1000, 1000), DType::Int32);
  Host<int64_t> total({}, DType::Int64);
  reduce_sum(total.view(), ints.view(), dim_mask({}, 1));
  REQUIRE(total.values()[0] == ref_sum(ints.values()));
}

TEST_CASE("var and std with corrections match two-pass references", "[reduce]") {
  const Shape shape{4, 7, 3};
  const auto x = randoms(84, 9, 10, 20);
  Host<double> in(shape, x, DType::Float64, {2, 1, 0});
  for (const double correction : {0.0, 1.0, 2.0}) {
    for (const auto& dims : std::vector<std::vector<int64_t>>{{1}, {0, 2}, {}}) {
      const DimMask mask = dim_mask(dims, 3);
      Host<double> out(reduced_shape(shape, mask, true), DType::Float64);
      reduce_var(out.view(), in.view(), mask, correction, false);
      const auto var = ref_reduce(x, shape, mask, [&](const std::vector<double>& v) { return ref_var(v, correction); });
      require_close(out.values(), var, 1e-10, 1e-12);
      reduce_var(out.view(), in.view(), mask, correction, true);
      std::vector<double> sd(var.size());
      std::transform(var.begin(), var.end(), sd.begin(), [](double v) { return std::sqrt(v); });
      require_close(out.values(), sd, 1e-10, 1e-12);
    }
  }
  Host<float> one({1}, {3.0}, DType::Float32);
  Host<float> nan_out({}, DType::Float32);
  reduce_var(nan_out.view(), one.view(), dim_mask({}, 1), 1.0, false);
  REQUIRE(std::isnan(nan_out.values()[0]));
}

TEST_CASE("vector norms for p = 0, 1, 2, +-inf and other p", "[reduce]") {
  const Shape shape{5, 8};
  auto x = randoms(40, 10);
  x[3] = 0.0;
  Host<float> in(shape, x, DType::Float32);
  const DimMask mask = dim_mask({1}, 2);
  for (const double p : {0.0, 1.0, 2.0, kInf, -kInf, 3.0, 0.5, -1.5}) {
    Host<float> out({5}, DType::Float32);
    reduce_norm(out.view(), in.view(), mask, p);
    const auto want = ref_reduce(in.values(), shape, mask, [p](const std::vector<double>& v) {
      if (p == 0) return static_cast<double>(std::count_if(v.begin(), v.end(), [](double a) { return a != 0; }));
      if (std::isinf(p)) {
        std::vector<double> a(v.size());
        std::transform(v.begin(), v.end(), a.begin(), [](double e) { return std::abs(e); });
        return p > 0 ? *std::max_element(a.begin(), a.end()) : *std::min_element(a.begin(), a.end());
      }
      double s = 0;
      for (const double e : v) s += std::pow(std::abs(e), p);
      return std::pow(s, 1.0 / p);
    });
    INFO("p = " << p);
    require_close(out.values(), want, 1e-5, 1e-6);
  }
}

TEST_CASE("all / any treat NaN as true and write uint8 when asked", "[reduce]") {
  Host<float> in({2, 3}, {1, kNaN, 2, 0, 0, 3}, DType::Float32);
  Host<bool> all({2}, DType::Bool);
  reduce_all(all.view(), in.view(), dim_mask({1}, 2));
  REQUIRE(all.values() == std::vector<double>{1, 0});
  Host<uint8_t> any({1, 3}, DType::UInt8);
  reduce_any(any.view(), in.view(), dim_mask({0}, 2));
  REQUIRE(any.values() == std::vector<double>{1, 1, 1});
}

TEST_CASE("logsumexp is stable for large and infinite inputs", "[reduce]") {
  Host<double> in({4, 3}, {1000, 1000, 1000, -kInf, -kInf, -kInf, kInf, 1, -kInf, 1, kNaN, 2}, DType::Float64);
  Host<double> out({4}, DType::Float64);
  reduce_logsumexp(out.view(), in.view(), dim_mask({1}, 2));
  const auto v = out.values();
  REQUIRE(v[0] == Approx(1000 + std::log(3.0)));
  REQUIRE(v[1] == -kInf);
  REQUIRE(v[2] == kInf);
  REQUIRE(std::isnan(v[3]));
  const auto x = randoms(30, 11);
  Host<float> f({5, 6}, x, DType::Float32, {1, 0});
  Host<float> fo({6}, DType::Float32);
  reduce_logsumexp(fo.view(), f.view(), dim_mask({0}, 2));
  require_close(fo.values(), ref_reduce(f.values(), {5, 6}, dim_mask({0}, 2), [](const std::vector<double>& e) {
                  double s = 0;
                  for (const double a : e) s += std::exp(a);
                  return std::log(s);
                }));
}

TEST_CASE("bad dim arguments are KernelErrors with PyTorch's wording", "[reduce]") {
  REQUIRE(kernel_error([] { dim_mask({2}, 2); }) ==
          "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  REQUIRE(kernel_error([] { dim_mask({0, -2}, 2); }) == "dim 0 appears multiple times in the list of dims");
  Host<float> in({2, 3}, DType::Float32);
  Host<float> wrong({3}, DType::Float32);
  REQUIRE_THROWS_AS(reduce_sum(wrong.view(), in.view(), dim_mask({1}, 2)), KernelError);
  // 0-dim tensors reduce over dim 0 / -1.
  Host<float> scalar({}, {4.5}, DType::Float32);
  Host<float> s_out({}, DType::Float32);
  reduce_sum(s_out.view(), scalar.view(), dim_mask({-1}, 0));
  REQUIRE(s_out.values()[0] == 4.5);
}

// ---------------------------------------------------------------- scans

TEST_CASE("cumsum / cumprod along any dim, with output dtypes", "[reduce]") {
  const Shape shape{3, 4, 5};
  const auto x = small_ints(60, 12, -3, 3);
  Host<int32_t> in(shape, x, DType::Int32, {2, 0, 1});
  for (const int64_t dim : {0, 1, 2, -1}) {
    Host<int64_t> out(shape, DType::Int64);
    cumsum(out.view(), in.view(), dim);
    Host<double> prod(shape, DType::Float64);
    cumprod(prod.view(), in.view(), dim);
    const int64_t d = dim < 0 ? dim + 3 : dim;
    std::vector<double> want_sum(x.size()), want_prod(x.size());
    Shape strides = contiguous_strides(shape);
    for (int64_t i = 0; i < 60; ++i) {
      const int64_t pos = (i / strides[d]) % shape[d];
      want_sum[i] = x[i] + (pos > 0 ? want_sum[i - strides[d]] : 0.0);
      want_prod[i] = x[i] * (pos > 0 ? want_prod[i - strides[d]] : 1.0);
    }
    REQUIRE(out.values() == want_sum);
    REQUIRE(prod.values() == want_prod);
  }
  Host<bool> flags({4}, {1, 0, 1, 1}, DType::Bool);
  Host<int64_t> counts({4}, DType::Int64);
  cumsum(counts.view(), flags.view(), 0);
  REQUIRE(counts.values() == std::vector<double>{1, 1, 2, 3});
}

TEST_CASE("long scans run in parallel chunks and stay accurate", "[reduce]") {
  const auto x = randoms(1000000, 13, 0, 1);
  Host<float> in({1000000}, x, DType::Float32);
  Host<float> out({1000000}, DType::Float32);
  cumsum(out.view(), in.view(), 0);
  const auto stored = in.values();
  std::vector<double> want(stored.size());
  std::partial_sum(stored.begin(), stored.end(), want.begin());
  require_close(out.values(), want, 1e-6, 1e-4);
  // The scanned dim outer to contiguous lines (column strategy).
  Host<float> cols({2000, 300}, std::vector<double>(x.begin(), x.begin() + 600000), DType::Float32);
  Host<double> cout({2000, 300}, DType::Float64);
  cumsum(cout.view(), cols.view(), 0);
  const auto cv = cols.values();
  REQUIRE(cout.values()[1999 * 300 + 7] == Approx([&] {
            double s = 0;
            for (int r = 0; r < 2000; ++r) s += cv[r * 300 + 7];
            return s;
          }()));
}

// ---------------------------------------------------------------- indexing

TEST_CASE("index_select along any dim, int32 or int64 indices", "[index]") {
  const Shape shape{4, 5, 3};
  const auto x = randoms(60, 14);
  Host<double> in(shape, x, DType::Float64, {1, 2, 0});
  for (const int64_t dim : {0, 1, 2}) {
    Host<int32_t> idx({4}, {2, 0, 2, 1}, DType::Int32);
    Shape out_shape = shape;
    out_shape[dim] = 4;
    Host<double> out(out_shape, DType::Float64);
    index_select(out.view(), in.view(), dim, idx.view());
    const auto got = out.values();
    const Shape os = contiguous_strides(out_shape), is = contiguous_strides(shape);
    for (int64_t i = 0; i < numel(out_shape); ++i) {
      int64_t src = 0;
      for (int64_t d = 0; d < 3; ++d) {
        int64_t c = (i / os[d]) % out_shape[d];
        if (d == dim) c = static_cast<int64_t>(idx.storage[c]);
        src += c * is[d];
      }
      REQUIRE(got[i] == x[src]);
    }
  }
  Host<int64_t> bad({2}, {1, 5}, DType::Int64);
  Host<double> out({2, 5, 3}, DType::Float64);
  const std::string msg = kernel_error([&] { index_select(out.view(), in.view(), 0, bad.view()); });
  REQUIRE(msg.find("index 5 is out of bounds for dimension 0 with size 4") != std::string::npos);
}

TEST_CASE("index_select of large tensors: parallel rows, memcpy'd blocks, strided index", "[index]") {
  // 1-D, many entries: the element path, split across workers.
  const int64_t n = 300000;
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<double>(i) * 0.5;
  Host<float> in({n}, x, DType::Float32);
  std::vector<double> picks(n / 2);
  for (int64_t i = 0; i < n / 2; ++i) picks[i] = static_cast<double>((i * 7919) % n);
  Host<int64_t> idx({n / 2}, picks, DType::Int64);
  Host<float> out({n / 2}, DType::Float32);
  index_select(out.view(), in.view(), 0, idx.view());
  const auto got = out.values();
  for (int64_t i = 0; i < n / 2; ++i) REQUIRE(got[i] == static_cast<float>(x[static_cast<int64_t>(picks[i])]));

  // 2-D along dim 0: whole rows, one memcpy each; int32 index read through a stride of 2.
  const int64_t rows = 5000, cols = 37;
  std::vector<double> m(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) m[i] = static_cast<double>(i);
  Host<double> mat({rows, cols}, m, DType::Float64);
  std::vector<int32_t> spaced(2 * 4000, -1);
  for (int64_t i = 0; i < 4000; ++i) spaced[2 * i] = static_cast<int32_t>((i * 31) % rows);
  const TensorView strided_idx{spaced.data(), DType::Int32, {4000}, {2}};
  Host<double> rows_out({4000, cols}, DType::Float64);
  index_select(rows_out.view(), mat.view(), 0, strided_idx);
  const auto rv = rows_out.values();
  for (int64_t i = 0; i < 4000; ++i) {
    for (int64_t c = 0; c < cols; ++c) REQUIRE(rv[i * cols + c] == m[spaced[2 * i] * cols + c]);
  }
  // Along dim 1 (many outer positions, one element per row).
  Host<double> cols_out({rows, 3}, DType::Float64);
  Host<int64_t> cidx({3}, {36, 0, 36}, DType::Int64);
  index_select(cols_out.view(), mat.view(), 1, cidx.view());
  const auto cv = cols_out.values();
  for (int64_t r = 0; r < rows; ++r) {
    REQUIRE(cv[r * 3 + 0] == m[r * cols + 36]);
    REQUIRE(cv[r * 3 + 1] == m[r * cols + 0]);
    REQUIRE(cv[r * 3 + 2] == m[r * cols + 36]);
  }

  // Out of range, deep inside a parallel run, or negative: an error naming the first bad index.
  picks[123456] = static_cast<double>(n);
  picks[140000] = -1;
  Host<int64_t> bad({n / 2}, picks, DType::Int64);
  REQUIRE(kernel_error([&] { index_select(out.view(), in.view(), 0, bad.view()); })
              .find("index 300000 is out of bounds for dimension 0 with size 300000") != std::string::npos);
  Host<int64_t> negative({1}, {-1}, DType::Int64);
  Host<float> one({1}, DType::Float32);
  REQUIRE(kernel_error([&] { index_select(one.view(), in.view(), 0, negative.view()); })
              .find("index -1 is out of bounds") != std::string::npos);
  // Nothing to move (an empty dim after `dim`), yet a bad index is still an error.
  Host<float> empty({4, 0}, DType::Float32);
  Host<float> empty_out({1, 0}, DType::Float32);
  Host<int64_t> past({1}, {4}, DType::Int64);
  REQUIRE(kernel_error([&] { index_select(empty_out.view(), empty.view(), 0, past.view()); })
              .find("index 4 is out of bounds") != std::string::npos);
}

TEST_CASE("gather and scatter along a dim follow PyTorch's definitions", "[index]") {
  const Shape self_shape{3, 4};
  const auto x = randoms(12, 15);
  Host<float> self(self_shape, x, DType::Float32);
  Host<int64_t> index({2, 4}, {0, 2, 1, 0, 2, 2, 0, 1}, DType::Int64);
  Host<float> g({2, 4}, DType::Float32);
  gather(g.view(), self.view(), 0, index.view());
  const auto gi = as_int(index.values());
  for (int64_t i = 0; i < 8; ++i) REQUIRE(g.values()[i] == static_cast<float>(x[gi[i] * 4 + i % 4]));

  // scatter with duplicates along dim 1: applied in order, so the last wins.
  Host<int64_t> col_index({3, 2}, {1, 1, 0, 3, 2, 2}, DType::Int64);
  Host<float> src({3, 2}, {10, 20, 30, 40, 50, 60}, DType::Float32);
  Host<float> out(self_shape, DType::Float32);
  scatter(out.view(), self.view(), 1, col_index.view(), src.view(), ScatterReduce::None, true);
  auto want = self.values();
  want[0 * 4 + 1] = 20;
  want[1 * 4 + 0] = 30;
  want[1 * 4 + 3] = 40;
  want[2 * 4 + 2] = 60;
  REQUIRE(out.values() == want);

  // scatter_add: duplicates accumulate.
  scatter(out.view(), self.view(), 1, col_index.view(), src.view(), ScatterReduce::Sum, true);
  want = self.values();
  want[1] += 30.0;
  want[4] += 30.0;
  want[7] += 40.0;
  want[10] += 110.0;
  require_close(out.values(), want);

  const std::string msg = kernel_error([&] {
    Host<int64_t> bad({1, 1}, {4}, DType::Int64);
    scatter(out.view(), self.view(), 1, bad.view(), src.view(), ScatterReduce::None, true);
  });
  REQUIRE(msg.find("index 4 is out of bounds for dimension 1 with size 4") != std::string::npos);
  REQUIRE_THROWS_AS(gather(g.view(), self.view(), 0, Host<int64_t>({2, 4}, std::vector<double>(8, -1), DType::Int64).view()),
                    KernelError);
}

TEST_CASE("scatter_reduce: sum, prod, mean, amax, amin with and without self", "[index]") {
  const std::vector<double> base{1, 2, 3, 4, 5};
  const std::vector<double> idx{0, 0, 2, 0, 4, 4};
  const std::vector<double> vals{5, -3, 7, 2, 9, 8};
  for (const bool include_self : {true, false}) {
    for (const ScatterReduce r :
         {ScatterReduce::Sum, ScatterReduce::Prod, ScatterReduce::Mean, ScatterReduce::Amax, ScatterReduce::Amin}) {
      // Reference: fold the contributions per target in order.
      std::vector<double> want = base;
      std::vector<int> count(5, 0);
      for (std::size_t i = 0; i < idx.size(); ++i) {
        const auto t = static_cast<int64_t>(idx[i]);
        double& w = want[t];
        const bool first = !include_self && count[t] == 0;
        ++count[t];
        if (first) {
          w = vals[i];
        } else if (r == ScatterReduce::Sum || r == ScatterReduce::Mean) {
          w += vals[i];
        } else if (r == ScatterReduce::Prod) {
          w *= vals[i];
        } else {
          w = r == ScatterReduce::Amax ? std::max(w, vals[i]) : std::min(w, vals[i]);
        }
      }
      for (int t = 0; t < 5 && r == ScatterReduce::Mean; ++t) {
        if (count[t] > 0) want[t] = std::floor(want[t] / (count[t] + (include_self ? 1 : 0)));
      }
      Host<int64_t> self({5}, base, DType::Int64);
      Host<int64_t> index({6}, idx, DType::Int64);
      Host<int64_t> src({6}, vals, DType::Int64);
      scatter(self.view(), self.view(), 0, index.view(), src.view(), r, include_self);  // in place
      INFO("reduce " << static_cast<int>(r) << " include_self " << include_self);
      REQUIRE(self.values() == want);
    }
  }
  // Mean rounds toward -inf for integers, like torch.
  Host<int64_t> self({2}, {0, 0}, DType::Int64);
  Host<int64_t> index({2}, {1, 1}, DType::Int64);
  Host<int64_t> src({2}, {3, -8}, DType::Int64);
  scatter(self.view(), self.view(), 0, index.view(), src.view(), ScatterReduce::Mean, true);
  REQUIRE(self.values() == std::vector<double>{0, -2});
}

TEST_CASE("scatter with a scalar value and large parallel scatter_add", "[index]") {
  Host<float> self({2, 3}, DType::Float32);
  Host<int64_t> index({2, 1}, {2, 0}, DType::Int64);
  float v = 7.5f;
  scatter(self.view(), self.view(), 1, index.view(), TensorView{&v, DType::Float32, {}, {}}, ScatterReduce::None, true);
  REQUIRE(self.values() == std::vector<double>{0, 0, 7.5, 7.5, 0, 0});

  const int64_t rows = 2000, cols = 300;
  const auto targets = small_ints(rows * cols, 16, 0, 9);
  Host<int64_t> big_index({rows, cols}, targets, DType::Int64);
  Host<double> ones({rows, cols}, std::vector<double>(rows * cols, 1.0), DType::Float64);
  Host<double> hist({rows, 10}, DType::Float64);
  scatter(hist.view(), hist.view(), 1, big_index.view(), ones.view(), ScatterReduce::Sum, true);
  std::vector<double> want(rows * 10, 0.0);
  for (int64_t i = 0; i < rows * cols; ++i) want[(i / cols) * 10 + static_cast<int64_t>(targets[i])] += 1;
  REQUIRE(hist.values() == want);
}

TEST_CASE("advanced indexing: adjacent, separated, broadcast, masks, ':' entries", "[index]") {
  const Shape shape{2, 3, 4};
  std::vector<double> x(24);
  std::iota(x.begin(), x.end(), 0.0);
  Host<int32_t> self(shape, x, DType::Int32, {2, 0, 1});
  auto at = [&](int64_t a, int64_t b, int64_t c) { return x[a * 12 + b * 4 + c]; };

  // self[:, [0, 2]] -> [2, 2, 4]
  Host<int64_t> i1({2}, {0, -1}, DType::Int64);
  IndexList list{std::nullopt, i1.view()};
  REQUIRE(index_result_shape(shape, list) == Shape{2, 2, 4});
  Host<int32_t> out({2, 2, 4}, DType::Int32);
  index(out.view(), self.view(), list);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 4; ++c) REQUIRE(out.values()[a * 8 + b * 4 + c] == at(a, b == 0 ? 0 : 2, c));

  // self[[0, 1], :, [[1], [3]]] -> separated: broadcast dims lead: [2, 2, 3]
  Host<int64_t> ia({2}, {0, 1}, DType::Int64);
  Host<int64_t> ic({2, 1}, {1, 3}, DType::Int64);
  IndexList sep{ia.view(), std::nullopt, ic.view()};
  REQUIRE(index_result_shape(shape, sep) == Shape{2, 2, 3});
  Host<int32_t> out2({2, 2, 3}, DType::Int32);
  index(out2.view(), self.view(), sep);
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 2; ++q)
      for (int64_t b = 0; b < 3; ++b) {
        REQUIRE(out2.values()[p * 6 + q * 3 + b] == at(q, b, p == 0 ? 1 : 3));
      }

  // A bool mask over the first two dims: self[mask] -> [count, 4]
  Host<bool> mask({2, 3}, {1, 0, 0, 0, 1, 1}, DType::Bool);
  IndexList masked{mask.view()};
  REQUIRE(!index_result_shape(shape, masked).has_value());
  Host<int32_t> out3({3, 4}, DType::Int32);
  index(out3.view(), self.view(), masked);
  for (int64_t c = 0; c < 4; ++c) {
    REQUIRE(out3.values()[c] == at(0, 0, c));
    REQUIRE(out3.values()[4 + c] == at(1, 1, c));
    REQUIRE(out3.values()[8 + c] == at(1, 2, c));
  }
  Host<int32_t> wrong({2, 4}, DType::Int32);
  REQUIRE_THROWS_AS(index(wrong.view(), self.view(), masked), KernelError);

  Host<int64_t> bad({1}, {3}, DType::Int64);
  const std::string msg = kernel_error([&] { index(out.view(), self.view(), {std::nullopt, bad.view()}); });
  REQUIRE(msg.find("index 3 is out of bounds for dimension 1 with size 3") != std::string::npos);
  Host<bool> bad_mask({3}, DType::Bool);
  REQUIRE_THROWS_AS(index_result_shape(shape, {bad_mask.view()}), KernelError);
  Host<float> float_index({1}, DType::Float32);
  REQUIRE_THROWS_AS(index_result_shape(shape, {float_index.view()}), KernelError);
  REQUIRE_THROWS_AS(index_result_shape(shape, {i1.view(), i1.view(), i1.view(), i1.view()}), KernelError);
}

TEST_CASE("index_put replaces or accumulates, repeated indices all add", "[index]") {
  Host<float> self({4, 3}, DType::Float32);
  Host<int64_t> rows({5}, {1, 3, 1, 1, -4}, DType::Int64);
  Host<float> values({3}, {1, 2, 3}, DType::Float32);  // broadcast over the 5 picked rows
  index_put(self.view(), {rows.view()}, values.view(), true);
  REQUIRE(self.values() == std::vector<double>{1, 2, 3, 3, 6, 9, 0, 0, 0, 1, 2, 3});
  Host<float> v2({5, 3}, randoms(15, 17), DType::Float32);
  Host<int64_t> uniq({5}, {0, 1, 2, 3, -1}, DType::Int64);
  index_put(self.view(), {uniq.view()}, v2.view(), false);
  const auto got = self.values(), v = v2.values();
  for (int64_t c = 0; c < 3; ++c) {
    REQUIRE(got[c] == v[c]);
    REQUIRE(got[9 + c] == v[12 + c]);  // -1 and 3 hit the same row; the later write wins here
  }
  // Large accumulate: a histogram through self[idx] += 1.
  const auto targets = small_ints(200000, 18, 0, 99);
  Host<int64_t> idx({200000}, targets, DType::Int64);
  Host<int64_t> hist({100}, DType::Int64);
  int64_t one = 1;
  index_put(hist.view(), {idx.view()}, TensorView{&one, DType::Int64, {}, {}}, true);
  std::vector<double> want(100, 0.0);
  for (const double t : targets) want[static_cast<int64_t>(t)] += 1;
  REQUIRE(hist.values() == want);
}

TEST_CASE("masked_fill, masked_select, nonzero and take", "[index]") {
  Host<double> self({2, 3}, {1, 0, 3, -0.0, kNaN, 6}, DType::Float64);
  Host<bool> row_mask({3}, {1, 0, 1}, DType::Bool);  // broadcast over rows
  Host<double> filled({2, 3}, self.values(), DType::Float64);
  masked_fill(filled.view(), row_mask.view(), Scalar::from_double(9));
  const auto f = filled.values();
  REQUIRE(f[0] == 9);
  REQUIRE(f[1] == 0);
  REQUIRE(f[5] == 9);
  REQUIRE(std::isnan(f[4]));

  Host<double> selected({6}, DType::Float64);
  REQUIRE(masked_select(selected.view(), self.view(), row_mask.view()) == 4);
  const auto s = selected.values();
  REQUIRE(s[0] == 1);
  REQUIRE(s[1] == 3);
  REQUIRE(s[3] == 6);

  Host<int64_t> coords({6, 2}, DType::Int64);
  REQUIRE(nonzero(coords.view(), self.view()) == 4);  // NaN counts, -0.0 does not
  const auto cv = coords.values();
  REQUIRE(std::vector<double>(cv.begin(), cv.begin() + 8) == std::vector<double>{0, 0, 0, 2, 1, 1, 1, 2});

  const auto big = small_ints(300000, 19, 0, 3);
  Host<uint8_t> b({300, 1000}, big, DType::UInt8, {1, 0});
  Host<int64_t> bc({300000, 2}, DType::Int64);
  const int64_t count = nonzero(bc.view(), b.view());
  REQUIRE(count == std::count_if(big.begin(), big.end(), [](double v) { return v != 0; }));
  const auto bcv = bc.values();
  int64_t k = 0;
  for (int64_t i = 0; i < 300000; ++i) {
    if (big[i] == 0) continue;
    REQUIRE(bcv[2 * k] == i / 1000);
    REQUIRE(bcv[2 * k + 1] == i % 1000);
    ++k;
  }

  Host<double> t({2, 2}, DType::Float64);
  Host<int64_t> ti({2, 2}, {5, -1, 0, 2}, DType::Int64);
  take(t.view(), self.view(), ti.view());
  REQUIRE(t.values()[0] == 6);
  REQUIRE(t.values()[1] == 6);
  REQUIRE(t.values()[3] == 3);
  Host<int64_t> far({1}, {6}, DType::Int64);
  Host<double> t1({1}, DType::Float64);
  const std::string msg = kernel_error([&] { take(t1.view(), self.view(), far.view()); });
  REQUIRE(msg.find("index 6 is out of bounds for dimension 0 with size 6") != std::string::npos);
}

// ---------------------------------------------------------------- shape ops

TEST_CASE("cat and stack, with dtype conversion and legacy empty inputs", "[shape]") {
  Host<float> a({2, 3}, randoms(6, 20), DType::Float32);
  Host<int32_t> b({2, 1}, {7, 8}, DType::Int32);
  Host<float> empty({0}, DType::Float32);
  REQUIRE(cat_shape({a.sizes, b.sizes, empty.sizes}, -1) == Shape{2, 4});
  Host<double> out({2, 4}, DType::Float64);
  cat(out.view(), {a.view(), empty.view(), b.view()}, 1);
  const auto av = a.values(), o = out.values();
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 3; ++c) REQUIRE(o[r * 4 + c] == av[r * 3 + c]);
    REQUIRE(o[r * 4 + 3] == 7 + r);
  }
  REQUIRE_THROWS_AS(cat_shape({a.sizes, b.sizes}, 0), KernelError);

  Host<float> c({2, 3}, randoms(6, 21), DType::Float32, {1, 0});
  Host<float> st({2, 3, 2}, DType::Float32);
  stack(st.view(), {a.view(), c.view()}, -1);
  const auto cv = c.values(), sv = st.values();
  for (int64_t i = 0; i < 6; ++i) {
    REQUIRE(sv[2 * i] == av[i]);
    REQUIRE(sv[2 * i + 1] == cv[i]);
  }
  REQUIRE_THROWS_AS(stack_shape({a.sizes, b.sizes}, 0), KernelError);
}

TEST_CASE("flip, roll and repeat", "[shape]") {
  std::vector<double> x(6);
  std::iota(x.begin(), x.end(), 0.0);
  Host<int16_t> m({2, 3}, x, DType::Int16);
  Host<int16_t> out({2, 3}, DType::Int16);
  flip(out.view(), m.view(), {-1});
  REQUIRE(out.values() == std::vector<double>{2, 1, 0, 5, 4, 3});
  flip(out.view(), m.view(), {0, 1});
  REQUIRE(out.values() == std::vector<double>{5, 4, 3, 2, 1, 0});
  REQUIRE_THROWS_AS(flip(out.view(), m.view(), {1, 1}), KernelError);

  roll(out.view(), m.view(), {1}, {});  // flattened
  REQUIRE(out.values() == std::vector<double>{5, 0, 1, 2, 3, 4});
  roll(out.view(), m.view(), {1, -1}, {0, 1});
  REQUIRE(out.values() == std::vector<double>{4, 5, 3, 1, 2, 0});
  Host<int16_t> strided_out({2, 3}, x, DType::Int16, {1, 0});
  roll(strided_out.view(), m.view(), {7}, {});
  REQUIRE(strided_out.values() == std::vector<double>{5, 0, 1, 2, 3, 4});

  REQUIRE(repeat_shape({2, 3}, {2, 1, 2}) == Shape{2, 2, 6});
  Host<int16_t> rep({2, 2, 6}, DType::Int16);
  repeat(rep.view(), m.view(), {2, 1, 2});
  const auto r = rep.values();
  for (int64_t i = 0; i < 24; ++i) {
    const int64_t row = (i / 6) % 2, col = (i % 6) % 3;
    REQUIRE(r[i] == x[row * 3 + col]);
  }
  REQUIRE_THROWS_AS(repeat_shape({2, 3}, {2}), KernelError);
}

TEST_CASE("tril and triu with diagonals, batched and in place", "[shape]") {
  const Shape shape{2, 3, 4};
  const auto x = randoms(24, 22);
  Host<float> in(shape, x, DType::Float32, {0, 2, 1});
  for (const int64_t diagonal : {-4, -1, 0, 1, 3}) {
    Host<float> lo(shape, DType::Float32), up(shape, DType::Float32);
    tril(lo.view(), in.view(), diagonal);
    triu(up.view(), in.view(), diagonal);
    const auto v = in.values(), l = lo.values(), u = up.values();
    for (int64_t i = 0; i < 24; ++i) {
      const int64_t row = (i / 4) % 3, col = i % 4;
      REQUIRE(l[i] == (col - row <= diagonal ? v[i] : 0.0));
      REQUIRE(u[i] == (col - row >= diagonal ? v[i] : 0.0));
    }
  }
  tril(in.view(), in.view(), 0);
  REQUIRE(in.values()[1] == 0.0);
  REQUIRE(in.values()[4] == static_cast<float>(x[4]));
  Host<float> vec({4}, DType::Float32);
  REQUIRE_THROWS_AS(tril(vec.view(), vec.view(), 0), KernelError);
}

// ---------------------------------------------------------------- sort

TEST_CASE("sort is stable, NaN sorts largest, both directions", "[sort]") {
  const std::vector<double> x{3, 1, kNaN, 3, 1, 2, kNaN, 3};
  Host<float> in({8}, x, DType::Float32);
  Host<float> values({8}, DType::Float32);
  Host<int64_t> indices({8}, DType::Int64);
  sort(&values.view(), &indices.view(), in.view(), 0, false, false);
  REQUIRE(indices.values() == std::vector<double>{1, 4, 5, 0, 3, 7, 2, 6});
  REQUIRE(std::isnan(values.values()[7]));
  sort(&values.view(), &indices.view(), in.view(), 0, true, true);
  REQUIRE(indices.values() == std::vector<double>{2, 6, 0, 3, 7, 5, 1, 4});
  REQUIRE(values.values()[2] == 3);
}

TEST_CASE("sort and topk along inner and outer dims of strided tensors", "[sort]") {
  const Shape shape{5, 6, 7};
  const auto x = small_ints(210, 23, -5, 5);  // many ties
  Host<int32_t> in(shape, x, DType::Int32, {2, 1, 0});
  for (const int64_t dim : {0, 1, 2}) {
    for (const bool desc : {false, true}) {
      Host<int64_t> idx(shape, DType::Int64);
      sort(nullptr, &idx.view(), in.view(), dim, desc, true);
      const auto got = idx.values();
      const Shape st = contiguous_strides(shape);
      for (int64_t i = 0; i < 210; ++i) {
        if ((i / st[dim]) % shape[dim] != 0) continue;  // visit each line once
        std::vector<int64_t> order(shape[dim]);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return desc ? x[i + a * st[dim]] > x[i + b * st[dim]] : x[i + a * st[dim]] < x[i + b * st[dim]];
        });
        for (int64_t k = 0; k < shape[dim]; ++k) REQUIRE(got[i + k * st[dim]] == order[k]);
      }
    }
  }
  Shape kshape = shape;
  kshape[1] = 3;
  Host<int32_t> tv(kshape, DType::Int32);
  Host<int64_t> ti(kshape, DType::Int64);
  topk(tv.view(), ti.view(), in.view(), 3, 1, true, true);
  const auto tvs = tv.values(), tis = ti.values();
  for (int64_t a = 0; a < 5; ++a) {
    for (int64_t c = 0; c < 7; ++c) {
      std::vector<double> line;
      for (int64_t b = 0; b < 6; ++b) line.push_back(x[a * 42 + b * 7 + c]);
      std::vector<double> sorted = line;
      std::sort(sorted.rbegin(), sorted.rend());
      for (int64_t k = 0; k < 3; ++k) {
        const int64_t pos = a * 21 + k * 7 + c;
        REQUIRE(tvs[pos] == sorted[k]);
        REQUIRE(line[static_cast<int64_t>(tis[pos])] == sorted[k]);
      }
    }
  }
  topk(tv.view(), ti.view(), in.view(), 3, 1, false, true);
  double smallest = kInf;
  for (int64_t b = 0; b < 6; ++b) smallest = std::min(smallest, x[b * 7]);  // line a = 0, c = 0
  REQUIRE(tv.values()[0] == smallest);
  REQUIRE_THROWS_AS(topk(tv.view(), ti.view(), in.view(), 7, 1, true, true), KernelError);
}

TEST_CASE("a long single line is sorted in parallel with the same result", "[sort]") {
  const auto x = small_ints(300000, 24, 0, 1000);
  Host<half> in({300000}, x, DType::Float16);
  Host<half> values({300000}, DType::Float16);
  Host<int64_t> indices({300000}, DType::Int64);
  sort(&values.view(), &indices.view(), in.view(), 0, true, true);
  std::vector<int64_t> order(300000);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[a] > x[b]; });
  REQUIRE(as_int(indices.values()) == order);
  Host<half> tv({5}, DType::Float16);
  Host<int64_t> ti({5}, DType::Int64);
  topk(tv.view(), ti.view(), in.view(), 5, 0, true, true);
  REQUIRE(as_int(ti.values()) == std::vector<int64_t>(order.begin(), order.begin() + 5));
}

// ---------------------------------------------------------------- aclnn C API

namespace {

class DeviceTensor {
 public:
  DeviceTensor(const Shape& shape, aclDataType dtype, std::size_t itemsize) : shape_(shape) {
    bytes_ = std::max<std::size_t>(numel(shape) * itemsize, 1);
    REQUIRE(aclrtMalloc(&ptr_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    tensor_ = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, shape.data(), shape.size(),
                              ptr_);
    REQUIRE(tensor_ != nullptr);
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(ptr_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  template <class T>
  void upload(const std::vector<T>& v) {
    REQUIRE(aclrtMemcpy(ptr_, bytes_, v.data(), v.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  }
  template <class T>
  std::vector<T> download() const {
    std::vector<T> v(numel(shape_));
    REQUIRE(aclrtMemcpy(v.data(), v.size() * sizeof(T), ptr_, v.size() * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST) ==
            ACL_SUCCESS);
    return v;
  }
  aclTensor* get() const { return tensor_; }

 private:
  Shape shape_;
  std::size_t bytes_;
  void* ptr_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// The two-call pattern on the default stream; returns the first failure.
template <class Prepare>
aclnnStatus launch(Prepare prepare, aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = prepare(&workspace, &executor);
  if (status != ACLNN_SUCCESS) return status;
  return run(nullptr, workspace, executor, nullptr);
}

std::string recent_error() {
  const char* msg = aclGetRecentErrMsg();
  return msg != nullptr ? msg : "";
}

}  // namespace

TEST_CASE("aclnnReduceSum and aclnnMaxDim through the C API", "[reduce]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DeviceTensor self({2, 3}, ACL_INT32, 4);
  self.upload(std::vector<int32_t>{1, 9, 3, 4, 5, 6});
  DeviceTensor sum({2}, ACL_INT64, 8);
  const int64_t dims[] = {-1};
  aclIntArray* dim = aclCreateIntArray(dims, 1);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) {
            return aclnnReduceSumGetWorkspaceSize(self.get(), dim, false, ACL_INT64, sum.get(), w, e);
          }, aclnnReduceSum) == ACLNN_SUCCESS);
  DeviceTensor values({2, 1}, ACL_INT32, 4);
  DeviceTensor indices({2, 1}, ACL_INT64, 8);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) {
            return aclnnMaxDimGetWorkspaceSize(self.get(), 1, true, values.get(), indices.get(), w, e);
          }, aclnnMaxDim) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  REQUIRE(sum.download<int64_t>() == std::vector<int64_t>{13, 15});
  REQUIRE(values.download<int32_t>() == std::vector<int32_t>{9, 6});
  REQUIRE(indices.download<int64_t>() == std::vector<int64_t>{1, 2});

  // Validation happens at GetWorkspaceSize time, with the aclnn error code.
  const int64_t bad_dims[] = {2};
  aclIntArray* bad = aclCreateIntArray(bad_dims, 1);
  uint64_t w = 0;
  aclOpExecutor* e = nullptr;
  REQUIRE(aclnnReduceSumGetWorkspaceSize(self.get(), bad, false, ACL_INT64, sum.get(), &w, &e) ==
          ACLNN_ERR_PARAM_INVALID);
  REQUIRE(recent_error().find("Dimension out of range") != std::string::npos);
  REQUIRE(aclnnReduceSumGetWorkspaceSize(self.get(), dim, false, ACL_FLOAT, sum.get(), &w, &e) ==
          ACLNN_ERR_PARAM_INVALID);
  aclDestroyIntArray(bad);
  aclDestroyIntArray(dim);
}

TEST_CASE("aclnnNonzero and aclnnMaskedSelect narrow out's view shape", "[index]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DeviceTensor self({2, 3}, ACL_FLOAT, 4);
  self.upload(std::vector<float>{0, 2, 0, 4, 5, 0});
  DeviceTensor coords({6, 2}, ACL_INT64, 8);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) { return aclnnNonzeroGetWorkspaceSize(self.get(), coords.get(), w, e); },
                 aclnnNonzero) == ACLNN_SUCCESS);
  DeviceTensor mask({3}, ACL_BOOL, 1);
  mask.upload(std::vector<uint8_t>{1, 1, 0});
  DeviceTensor selected({6}, ACL_FLOAT, 4);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) {
            return aclnnMaskedSelectGetWorkspaceSize(self.get(), mask.get(), selected.get(), w, e);
          }, aclnnMaskedSelect) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  int64_t* dims = nullptr;
  uint64_t n = 0;
  REQUIRE(aclGetViewShape(coords.get(), &dims, &n) == ACLNN_SUCCESS);
  REQUIRE(std::vector<int64_t>(dims, dims + n) == std::vector<int64_t>{3, 2});
  delete[] dims;
  const auto rows = coords.download<int64_t>();
  REQUIRE(std::vector<int64_t>(rows.begin(), rows.begin() + 6) == std::vector<int64_t>{0, 1, 1, 0, 1, 1});
  REQUIRE(aclGetViewShape(selected.get(), &dims, &n) == ACLNN_SUCCESS);
  REQUIRE(std::vector<int64_t>(dims, dims + n) == std::vector<int64_t>{4});
  delete[] dims;
  const auto sel = selected.download<float>();
  REQUIRE(std::vector<float>(sel.begin(), sel.begin() + 4) == std::vector<float>{0, 2, 4, 5});
}

TEST_CASE("aclnnIndex with a ':' entry, and an out-of-range aclnnGather reported at sync", "[index]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DeviceTensor self({2, 3}, ACL_FLOAT, 4);
  self.upload(std::vector<float>{0, 1, 2, 3, 4, 5});
  // The list owns its tensors: it gets handles of its own.
  const int64_t idx_dims[] = {2};
  void* idx_data = nullptr;
  REQUIRE(aclrtMalloc(&idx_data, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(idx_data, 16, std::vector<int64_t>{2, 0}.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const aclTensor* entries[] = {nullptr,
                                aclCreateTensor(idx_dims, 1, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, idx_dims, 1, idx_data)};
  aclTensorList* list = aclCreateTensorList(entries, 2);
  REQUIRE(list != nullptr);
  DeviceTensor out({2, 2}, ACL_FLOAT, 4);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) { return aclnnIndexGetWorkspaceSize(self.get(), list, out.get(), w, e); },
                 aclnnIndex) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  REQUIRE(out.download<float>() == std::vector<float>{2, 0, 5, 3});
  aclDestroyTensorList(list);
  aclrtFree(idx_data);

  DeviceTensor bad({1, 1}, ACL_INT64, 8);
  bad.upload(std::vector<int64_t>{7});
  DeviceTensor gathered({1, 1}, ACL_FLOAT, 4);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) {
            return aclnnGatherGetWorkspaceSize(self.get(), 1, bad.get(), gathered.get(), w, e);
          }, aclnnGather) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) != ACL_SUCCESS);
  REQUIRE(recent_error().find("index 7 is out of bounds for dimension 1 with size 3") != std::string::npos);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);  // the stream keeps working
}

TEST_CASE("aclnnCat and aclnnSort through the C API", "[shape][sort]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const int64_t a_dims[] = {1, 2}, b_dims[] = {2, 2};
  void *a_data = nullptr, *b_data = nullptr;
  REQUIRE(aclrtMalloc(&a_data, 8, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMalloc(&b_data, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(a_data, 8, std::vector<float>{1, 2}.data(), 8, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(b_data, 16, std::vector<float>{3, 4, 5, 6}.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const aclTensor* parts[] = {aclCreateTensor(a_dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, a_dims, 2, a_data),
                              aclCreateTensor(b_dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, b_dims, 2, b_data)};
  aclTensorList* list = aclCreateTensorList(parts, 2);
  DeviceTensor out({3, 2}, ACL_FLOAT, 4);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) { return aclnnCatGetWorkspaceSize(list, 0, out.get(), w, e); },
                 aclnnCat) == ACLNN_SUCCESS);
  DeviceTensor values({3, 2}, ACL_FLOAT, 4);
  DeviceTensor indices({3, 2}, ACL_INT64, 8);
  REQUIRE(launch([&](uint64_t* w, aclOpExecutor** e) {
            return aclnnSortGetWorkspaceSize(out.get(), false, 0, true, values.get(), indices.get(), w, e);
          }, aclnnSort) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  REQUIRE(out.download<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  REQUIRE(values.download<float>() == std::vector<float>{5, 6, 3, 4, 1, 2});
  REQUIRE(indices.download<int64_t>() == std::vector<int64_t>{2, 2, 1, 1, 0, 0});
  // A wrong output shape is refused at GetWorkspaceSize time.
  DeviceTensor wrong({2, 2}, ACL_FLOAT, 4);
  uint64_t w = 0;
  aclOpExecutor* e = nullptr;
  REQUIRE(aclnnCatGetWorkspaceSize(list, 0, wrong.get(), &w, &e) == ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensorList(list);
  aclrtFree(a_data);
  aclrtFree(b_data);
}
