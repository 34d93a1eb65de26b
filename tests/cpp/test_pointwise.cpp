// The pointwise families (unary, binary, ternary, factories) against
// reference values computed here with the standard library, plus a few runs
// through the aclnn C API. Expected values encode PyTorch CPU's results.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_binary.h"
#include "acl/aclnn_copy.h"
#include "acl/aclnn_factory.h"
#include "acl/aclnn_ternary.h"
#include "acl/aclnn_unary.h"
#include "acl_test_support.h"
#include "kernels/copy/copy.h"
#include "kernels/factory/factories.h"
#include "kernels/pointwise/binary_ops.h"
#include "kernels/pointwise/fused_axpy.h"
#include "kernels/pointwise/reduced_cast.h"
#include "kernels/pointwise/ternary_ops.h"
#include "kernels/pointwise/type_promotion.h"
#include "kernels/pointwise/unary_ops.h"

using namespace npu::kernels;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T>
TensorView view_of(std::vector<T>& v, DType dt, Shape sizes, Shape strides = {}) {
  return TensorView{v.data(), dt, sizes, strides.empty() ? contiguous_strides(sizes) : strides};
}

template <class T>
std::vector<T> cast_all(const std::vector<double>& v) {
  std::vector<T> out;
  for (const double x : v) out.push_back(static_cast<T>(static_cast<float>(x)));
  return out;
}

// Equal as floating values, NaN equal to NaN, -0 distinct from +0.
bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool close(double got, double want, double rel) {
  if (std::isnan(want) || std::isinf(want)) return same_value(got, want);
  return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

const std::vector<double> kSample = {-3.75, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.5, 2.5, 3.0, 7.25};

}  // namespace

// ---------------------------------------------------------------- promotion

TEST_CASE("promote_types and can_cast follow PyTorch's table", "[pointwise]") {
  using npu::model::can_cast;
  using npu::model::promote_types;
  CHECK(promote_types(DType::UInt8, DType::Int8) == DType::Int16);
  CHECK(promote_types(DType::Bool, DType::UInt8) == DType::UInt8);
  CHECK(promote_types(DType::Int64, DType::Float16) == DType::Float16);
  CHECK(promote_types(DType::Float16, DType::BFloat16) == DType::Float32);
  CHECK(promote_types(DType::Float64, DType::Complex64) == DType::Complex128);
  CHECK(promote_types(DType::Int32, DType::Int16) == DType::Int32);
  CHECK(can_cast(DType::Int32, DType::Float16));
  CHECK_FALSE(can_cast(DType::Float32, DType::Int64));
  CHECK_FALSE(can_cast(DType::Int8, DType::Bool));
  CHECK_FALSE(can_cast(DType::Complex64, DType::Float64));
}

TEST_CASE("result_type ranks dim tensors over 0-dim tensors over host scalars", "[pointwise]") {
  std::vector<int8_t> a(3);
  std::vector<double> z(1);
  const Operand t = view_of(a, DType::Int8, {3});
  const Operand zero_dim = view_of(z, DType::Float64, {});
  const Operand zero_dim_int = TensorView{z.data(), DType::Int64, {}, {}};
  CHECK(result_type({&t, &zero_dim}, DType::Float32) == DType::Float64);  // higher category wins
  CHECK(result_type({&t, &zero_dim_int}, DType::Int8) == DType::Int8);    // same category: the tensor wins
  const Operand s = Scalar::from_double(2.5);
  CHECK(result_type({&t, &s}, DType::Float32) == DType::Float32);  // a Python float is the default dtype
  CHECK(result_type({&t, &s}, DType::Float64) == DType::Float64);  // ... which out reveals
  const Operand big = Scalar::from_int(300);
  CHECK(result_type({&t, &big}, DType::Int8) == DType::Int8);
}

// ---------------------------------------------------------------- unary

TEST_CASE("unary float ops match the standard library in float32 and float64", "[pointwise]") {
  struct Case {
    UnaryFn op;
    double (*ref)(double);
  };
  const std::vector<Case> cases = {
      {UnaryFn::Exp, [](double x) { return std::exp(x); }},
      {UnaryFn::Expm1, [](double x) { return std::expm1(x); }},
      {UnaryFn::Log, [](double x) { return std::log(x); }},
      {UnaryFn::Log1p, [](double x) { return std::log1p(x); }},
      {UnaryFn::Log2, [](double x) { return std::log2(x); }},
      {UnaryFn::Sqrt, [](double x) { return std::sqrt(x); }},
      {UnaryFn::Rsqrt, [](double x) { return 1.0 / std::sqrt(x); }},
      {UnaryFn::Sin, [](double x) { return std::sin(x); }},
      {UnaryFn::Cos, [](double x) { return std::cos(x); }},
      {UnaryFn::Tan, [](double x) { return std::tan(x); }},
      {UnaryFn::Tanh, [](double x) { return std::tanh(x); }},
      {UnaryFn::Sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {UnaryFn::Relu, [](double x) { return x > 0 ? x : 0.0; }},
      {UnaryFn::Gelu, [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }},
      {UnaryFn::GeluTanh,
       [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }},
      {UnaryFn::Silu, [](double x) { return x / (1.0 + std::exp(-x)); }},
      {UnaryFn::Erf, [](double x) { return std::erf(x); }},
      {UnaryFn::Floor, [](double x) { return std::floor(x); }},
      {UnaryFn::Ceil, [](double x) { return std::ceil(x); }},
      {UnaryFn::Trunc, [](double x) { return std::trunc(x); }},
      {UnaryFn::Neg, [](double x) { return -x; }},
      {UnaryFn::Abs, [](double x) { return std::fabs(x); }},
      {UnaryFn::Reciprocal, [](double x) { return 1.0 / x; }},
  };
  for (const Case& c : cases) {
    INFO(unary_op_name(c.op));
    std::vector<double> in64 = kSample, out64(kSample.size());
    unary(c.op, view_of(out64, DType::Float64, {12}), view_of(in64, DType::Float64, {12}));
    std::vector<float> in32 = cast_all<float>(kSample), out32(kSample.size());
    unary(c.op, view_of(out32, DType::Float32, {3, 4}), view_of(in32, DType::Float32, {3, 4}));
    for (std::size_t i = 0; i < kSample.size(); ++i) {
      INFO("x = " << kSample[i]);
      const double want = c.ref(kSample[i]);
      CHECK(close(out64[i], want, 1e-15));
      CHECK(close(out32[i], want, 1e-6));
    }
  }
}

TEST_CASE("half and bfloat16 compute in float and round once", "[pointwise]") {
  std::vector<half> h = cast_all<half>(kSample), ho(kSample.size());
  unary(UnaryFn::Exp, view_of(ho, DType::Float16, {12}), view_of(h, DType::Float16, {12}));
  std::vector<bfloat16> b = cast_all<bfloat16>(kSample), bo(kSample.size());
  unary(UnaryFn::Tanh, view_of(bo, DType::BFloat16, {12}), view_of(b, DType::BFloat16, {12}));
  for (std::size_t i = 0; i < kSample.size(); ++i) {
    CHECK(static_cast<float>(ho[i]) == static_cast<float>(half(std::exp(static_cast<float>(h[i])))));
    CHECK(static_cast<float>(bo[i]) == static_cast<float>(bfloat16(std::tanh(static_cast<float>(b[i])))));
  }
}

TEST_CASE("unary special values follow PyTorch CPU", "[pointwise]") {
  std::vector<double> x = {kNaN, 0.5, 1.5, 2.5, -0.5, -2.5, kInf, -kInf}, y(8);
  const TensorView in = view_of(x, DType::Float64, {8}), out = view_of(y, DType::Float64, {8});

  unary(UnaryFn::Round, out, in);  // half to even
  CHECK(std::isnan(y[0]));
  CHECK((y[1] == 0.0 && y[2] == 2.0 && y[3] == 2.0 && y[4] == 0.0 && std::signbit(y[4]) && y[5] == -2.0));

  unary(UnaryFn::Sign, out, in);  // sign(NaN) is 0 on CPU
  CHECK(y == std::vector<double>{0, 1, 1, 1, -1, -1, 1, -1});

  unary(UnaryFn::Relu, out, in);  // NaN passes through
  CHECK(std::isnan(y[0]));
  CHECK(y[4] == 0.0);

  unary(UnaryFn::NanToNum, out, in);
  CHECK((y[0] == 0.0 && y[6] == DBL_MAX && y[7] == -DBL_MAX && y[1] == 0.5));
  UnaryParams p;
  p.nan = 7;
  p.posinf = 100;
  unary(UnaryFn::NanToNum, out, in, p);
  CHECK((y[0] == 7 && y[6] == 100 && y[7] == -DBL_MAX));

  std::vector<half> h = {half(NAN), half(INFINITY), half(-INFINITY)}, ho(3);
  unary(UnaryFn::NanToNum, view_of(ho, DType::Float16, {3}), view_of(h, DType::Float16, {3}));
  CHECK((static_cast<float>(ho[1]) == 65504.0f && static_cast<float>(ho[2]) == -65504.0f));

  std::vector<uint8_t> f(8);
  unary(UnaryFn::IsNan, TensorView{f.data(), DType::Bool, {8}, {1}}, in);
  CHECK(f == std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0, 0});
  unary(UnaryFn::IsInf, TensorView{f.data(), DType::Bool, {8}, {1}}, in);
  CHECK(f == std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 1, 1});
}

TEST_CASE("abs of -0.0 is +0.0 in every floating dtype; relu keeps -0.0", "[pointwise]") {
  std::vector<double> d = {-0.0, 0.0, -2.5}, dout(3);
  unary(UnaryFn::Abs, TensorView{dout.data(), DType::Float64, {3}, {1}}, TensorView{d.data(), DType::Float64, {3}, {1}});
  for (const double v : dout) CHECK(!std::signbit(v));
  CHECK(dout[2] == 2.5);
  // relu is clamp_min(x, 0), as on PyTorch CPU: -0.0 is not below 0 and stays.
  unary(UnaryFn::Relu, TensorView{dout.data(), DType::Float64, {3}, {1}}, TensorView{d.data(), DType::Float64, {3}, {1}});
  CHECK((std::signbit(dout[0]) && !std::signbit(dout[1]) && dout[2] == 0.0 && !std::signbit(dout[2])));

  std::vector<float> f = {-0.0f, -1.0f}, fout(2);
  unary(UnaryFn::Abs, TensorView{fout.data(), DType::Float32, {2}, {1}}, TensorView{f.data(), DType::Float32, {2}, {1}});
  CHECK(!std::signbit(fout[0]));
  CHECK(fout[1] == 1.0f);

  std::vector<half> h = {half(-0.0f)}, hout(1);
  unary(UnaryFn::Abs, TensorView{hout.data(), DType::Float16, {1}, {1}}, TensorView{h.data(), DType::Float16, {1}, {1}});
  CHECK(!std::signbit(static_cast<float>(hout[0])));
  std::vector<bfloat16> b = {bfloat16(-0.0f)}, bout(1);
  unary(UnaryFn::Abs, TensorView{bout.data(), DType::BFloat16, {1}, {1}}, TensorView{b.data(), DType::BFloat16, {1}, {1}});
  CHECK(!std::signbit(static_cast<float>(bout[0])));
}

TEST_CASE("round with decimals scales by powers of ten", "[pointwise]") {
  std::vector<float> x = {1.2345f, 0.0025f, 125.0f, 1e30f}, y(4);
  UnaryParams p;
  p.decimals = 2;
  unary(UnaryFn::RoundDecimals, view_of(y, DType::Float32, {4}), view_of(x, DType::Float32, {4}), p);
  for (int i = 0; i < 4; ++i) CHECK(y[i] == std::nearbyint(x[i] * 100.0f) / 100.0f);
  std::vector<double> a = {1234.5, 125.0}, b(2);
  p.decimals = -1;
  unary(UnaryFn::RoundDecimals, view_of(b, DType::Float64, {2}), view_of(a, DType::Float64, {2}), p);
  CHECK(b == std::vector<double>{1230.0, 120.0});
}

TEST_CASE("unary integer and bool semantics", "[pointwise]") {
  std::vector<int8_t> x = {-128, -3, 0, 5, 127}, y(5);
  const TensorView in = view_of(x, DType::Int8, {5}), out = view_of(y, DType::Int8, {5});
  unary(UnaryFn::Abs, out, in);
  CHECK(y == std::vector<int8_t>{-128, 3, 0, 5, 127});  // wraps like two's complement
  unary(UnaryFn::Neg, out, in);
  CHECK(y == std::vector<int8_t>{-128, 3, 0, -5, -127});
  unary(UnaryFn::Sign, out, in);
  CHECK(y == std::vector<int8_t>{-1, -1, 0, 1, 1});
  unary(UnaryFn::BitwiseNot, out, in);
  CHECK(y == std::vector<int8_t>{127, 2, -1, -6, -128});
  unary(UnaryFn::Floor, out, in);
  CHECK(y == x);

  // Transcendental ops on integers compute in float32, CANN's rule, whatever
  // the output: a float64 out receives float32's result converted, as
  // PyTorch's exp(int, out=float64) under the default dtype does.
  CHECK(unary_result_dtype(UnaryFn::Exp, DType::Int32) == DType::Float32);
  CHECK(unary_result_dtype(UnaryFn::Sqrt, DType::Bool) == DType::Float32);
  std::vector<float> f(5);
  unary(UnaryFn::Exp, view_of(f, DType::Float32, {5}), in);
  for (int i = 0; i < 5; ++i) CHECK(f[i] == std::exp(static_cast<float>(x[i])));
  std::vector<double> f64(5);
  unary(UnaryFn::Exp, view_of(f64, DType::Float64, {5}), in);
  for (int i = 0; i < 5; ++i) CHECK(f64[i] == static_cast<double>(std::exp(static_cast<float>(x[i]))));

  std::vector<uint8_t> l(5);
  unary(UnaryFn::LogicalNot, TensorView{l.data(), DType::Bool, {5}, {1}}, in);
  CHECK(l == std::vector<uint8_t>{0, 0, 1, 0, 0});
  // And written into a float output, as logical_not(out=float) does.
  unary(UnaryFn::LogicalNot, view_of(f, DType::Float32, {5}), in);
  CHECK(f == std::vector<float>{0, 0, 1, 0, 0});
}

TEST_CASE("unary complex64: abs is real, exp/log/sqrt follow std::complex", "[pointwise]") {
  std::vector<complex64> z = {{3, 4}, {-1, 0.5f}, {0, -2}}, w(3);
  std::vector<float> r(3);
  CHECK(unary_result_dtype(UnaryFn::Abs, DType::Complex64) == DType::Float32);
  unary(UnaryFn::Abs, view_of(r, DType::Float32, {3}), view_of(z, DType::Complex64, {3}));
  CHECK(r[0] == 5.0f);
  unary(UnaryFn::Exp, view_of(w, DType::Complex64, {3}), view_of(z, DType::Complex64, {3}));
  for (int i = 0; i < 3; ++i) CHECK(w[i] == std::exp(z[i]));
  unary(UnaryFn::Sqrt, view_of(w, DType::Complex64, {3}), view_of(z, DType::Complex64, {3}));
  for (int i = 0; i < 3; ++i) CHECK(w[i] == std::sqrt(z[i]));
}

TEST_CASE("unary handles strided views, 0-size and multi-threaded sizes", "[pointwise]") {
  // A transposed 3x4 input written into every other element of the output.
  std::vector<float> x(12), y(24, -1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  unary(UnaryFn::Sqrt, view_of(y, DType::Float32, {4, 3}, {6, 2}), view_of(x, DType::Float32, {4, 3}, {1, 4}));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) CHECK(y[i * 6 + j * 2] == std::sqrt(x[j * 4 + i]));
  }
  CHECK(y[1] == -1.0f);

  std::vector<float> e;
  unary(UnaryFn::Exp, view_of(e, DType::Float32, {0, 3}), view_of(e, DType::Float32, {0, 3}));

  const int n = 300000;
  std::vector<double> big(n), out(n);
  for (int i = 0; i < n; ++i) big[i] = std::sin(i) * 10;
  unary(UnaryFn::Sigmoid, view_of(out, DType::Float64, {n}), view_of(big, DType::Float64, {n}));
  for (int i = 0; i < n; i += 997) CHECK(out[i] == 1.0 / (1.0 + std::exp(-big[i])));
}

TEST_CASE("unary rejects dtypes PyTorch CPU rejects, naming op and dtype", "[pointwise]") {
  std::vector<int32_t> x(2), y(2);
  std::vector<float> f(2);
  const std::string msg = message_of([&] {
    unary(UnaryFn::Gelu, view_of(y, DType::Int32, {2}), view_of(x, DType::Int32, {2}));
  });
  CHECK(msg.find("gelu") != std::string::npos);
  CHECK(msg.find("int32") != std::string::npos);
  CHECK_THROWS_AS(unary(UnaryFn::BitwiseNot, view_of(f, DType::Float32, {2}), view_of(f, DType::Float32, {2})),
                  KernelError);
  CHECK_THROWS_AS(unary_result_dtype(UnaryFn::Sin, DType::Complex64), KernelError);
  CHECK_THROWS_AS(unary_result_dtype(UnaryFn::Neg, DType::Bool), KernelError);
  CHECK_THROWS_AS(unary(UnaryFn::Neg, view_of(f, DType::Float32, {1}), view_of(f, DType::Float32, {2})),
                  KernelError);
}

// ---------------------------------------------------------------- binary

TEST_CASE("binary float arithmetic broadcasts against a reference loop", "[pointwise]") {
  // a: [2,1,3], b: [4,1] -> [2,4,3]
  std::vector<double> a = {1.5, -2, 3, 0.25, 5, -6}, b = {2, -0.5, 3, 0};
  struct Case {
    BinaryFn op;
    double (*ref)(double, double);
  };
  const std::vector<Case> cases = {
      {BinaryFn::Sub, [](double x, double y) { return x - 2 * y; }},  // alpha = 2
      {BinaryFn::Mul, [](double x, double y) { return x * y; }},
      {BinaryFn::Div, [](double x, double y) { return x / y; }},
      {BinaryFn::Atan2, [](double x, double y) { return std::atan2(x, y); }},
      {BinaryFn::Pow, [](double x, double y) { return std::pow(x, y); }},
      {BinaryFn::Fmod, [](double x, double y) { return std::fmod(x, y); }},
      {BinaryFn::Maximum, [](double x, double y) { return std::max(x, y); }},
  };
  for (const Case& c : cases) {
    INFO(binary_op_name(c.op));
    std::vector<double> out(24);
    binary(c.op, view_of(out, DType::Float64, {2, 4, 3}), view_of(a, DType::Float64, {2, 1, 3}),
           view_of(b, DType::Float64, {4, 1}), Scalar::from_int(2));
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 4; ++j) {
        for (int k = 0; k < 3; ++k) CHECK(same_value(out[(i * 4 + j) * 3 + k], c.ref(a[i * 3 + k], b[j])));
      }
    }
  }
}

TEST_CASE("integer division and modulo follow Python, dividing by zero throws", "[pointwise]") {
  std::vector<int32_t> a = {-7, 7, -7, 7, INT32_MIN, 0}, b = {2, -2, -2, 2, -1, 3}, out(6);
  const TensorView va = view_of(a, DType::Int32, {6}), vb = view_of(b, DType::Int32, {6}),
                   vo = view_of(out, DType::Int32, {6});
  auto py_floordiv = [](int64_t x, int64_t y) { return static_cast<int64_t>(std::floor(double(x) / double(y))); };
  binary(BinaryFn::DivFloor, vo, va, vb);
  for (int i = 0; i < 6; ++i) CHECK(out[i] == static_cast<int32_t>(py_floordiv(a[i], b[i])));
  binary(BinaryFn::DivTrunc, vo, va, vb);
  for (int i = 0; i < 6; ++i) CHECK(out[i] == static_cast<int32_t>(std::trunc(double(a[i]) / double(b[i]))));
  binary(BinaryFn::Remainder, vo, va, vb);
  for (int i = 0; i < 6; ++i) {
    CHECK(out[i] == static_cast<int32_t>(int64_t(a[i]) - int64_t(b[i]) * py_floordiv(a[i], b[i])));
  }
  binary(BinaryFn::Fmod, vo, va, vb);
  for (int i = 0; i < 6; ++i) CHECK(out[i] == static_cast<int32_t>(std::fmod(double(a[i]), double(b[i]))));

  b[5] = 0;
  for (BinaryFn op : {BinaryFn::DivFloor, BinaryFn::DivTrunc, BinaryFn::Remainder, BinaryFn::Fmod}) {
    CHECK(message_of([&] { binary(op, vo, va, vb); }) == "ZeroDivisionError");
  }
  // True division of integers is a float division: no error, IEEE results.
  std::vector<float> f(6);
  binary(BinaryFn::Div, view_of(f, DType::Float32, {6}), va, vb);
  CHECK(f[1] == -3.5f);
  CHECK(std::isnan(f[5]));
}

TEST_CASE("floating floor division and remainder match Python's float semantics", "[pointwise]") {
  std::vector<double> a = {5.0, -7.0, 7.0, 1.0, -1.0, -7.0, 7.0}, b = {0.1, 2.0, 0.0, kInf, kInf, 3.0, -kInf},
                      out(7);
  binary(BinaryFn::DivFloor, view_of(out, DType::Float64, {7}), view_of(a, DType::Float64, {7}),
         view_of(b, DType::Float64, {7}));
  CHECK(out[0] == 49.0);  // 0.1 is a little more than a tenth
  CHECK(out[1] == -4.0);
  CHECK(out[2] == kInf);
  CHECK((out[3] == 0.0 && out[4] == -1.0));
  binary(BinaryFn::Remainder, view_of(out, DType::Float64, {7}), view_of(a, DType::Float64, {7}),
         view_of(b, DType::Float64, {7}));
  CHECK(out[5] == 2.0);
  CHECK(out[4] == kInf);
  CHECK(out[6] == -kInf);
}

TEST_CASE("pow: integer powers, negative exponents and scalar shortcuts", "[pointwise]") {
  std::vector<int64_t> base = {2, 1, -1, 3, 2}, ex = {10, -1, -3, 0, -2}, out(5);
  binary(BinaryFn::Pow, view_of(out, DType::Int64, {5}), view_of(base, DType::Int64, {5}),
         view_of(ex, DType::Int64, {5}));
  CHECK(out == std::vector<int64_t>{1024, 1, -1, 1, 0});
  CHECK_THROWS_WITH(binary(BinaryFn::Pow, view_of(out, DType::Int64, {5}), view_of(base, DType::Int64, {5}),
                           Scalar::from_int(-1)),
                    Catch::Contains("negative integer powers"));

  std::vector<double> x = {0.0, -0.0, 4.0, -kInf, 1.7}, y(5);
  binary(BinaryFn::Pow, view_of(y, DType::Float64, {5}), view_of(x, DType::Float64, {5}), Scalar::from_double(0.5));
  CHECK((y[0] == 0.0 && std::signbit(y[1]) && y[2] == 2.0 && std::isnan(y[3])));  // sqrt, not pow
  binary(BinaryFn::Pow, view_of(y, DType::Float64, {5}), view_of(x, DType::Float64, {5}), Scalar::from_double(3.0));
  CHECK(y[4] == 1.7 * 1.7 * 1.7);
  // A scalar base with a tensor exponent promotes to float.
  std::vector<int32_t> e = {1, 2, 3};
  std::vector<float> r(3);
  binary(BinaryFn::Pow, view_of(r, DType::Float32, {3}), Scalar::from_double(2.5), view_of(e, DType::Int32, {3}));
  CHECK(r == std::vector<float>{2.5f, std::pow(2.5f, 2.0f), std::pow(2.5f, 3.0f)});
}

TEST_CASE("maximum/minimum propagate NaN; bool and integers work", "[pointwise]") {
  std::vector<float> a = {NAN, 1, 3}, b = {2, NAN, -1}, out(3);
  binary(BinaryFn::Maximum, view_of(out, DType::Float32, {3}), view_of(a, DType::Float32, {3}),
         view_of(b, DType::Float32, {3}));
  CHECK((std::isnan(out[0]) && std::isnan(out[1]) && out[2] == 3));
  binary(BinaryFn::Minimum, view_of(out, DType::Float32, {3}), view_of(a, DType::Float32, {3}),
         view_of(b, DType::Float32, {3}));
  CHECK(out[2] == -1);
  std::vector<uint8_t> p = {1, 0, 1}, q = {0, 0, 1}, r(3);
  binary(BinaryFn::Maximum, TensorView{r.data(), DType::Bool, {3}, {1}}, TensorView{p.data(), DType::Bool, {3}, {1}},
         TensorView{q.data(), DType::Bool, {3}, {1}});
  CHECK(r == std::vector<uint8_t>{1, 0, 1});
}

TEST_CASE("comparisons promote mixed operands and produce bool", "[pointwise]") {
  std::vector<int8_t> a = {1, 2, 3};
  std::vector<float> b = {1.5f, 2.0f, 2.5f};
  std::vector<uint8_t> out(3);
  const TensorView vo{out.data(), DType::Bool, {3}, {1}};
  CHECK(binary_result_dtype(BinaryFn::Lt, view_of(a, DType::Int8, {3}), view_of(b, DType::Float32, {3}),
                            DType::Bool) == DType::Bool);
  binary(BinaryFn::Lt, vo, view_of(a, DType::Int8, {3}), view_of(b, DType::Float32, {3}));
  CHECK(out == std::vector<uint8_t>{1, 0, 0});
  binary(BinaryFn::Eq, vo, view_of(a, DType::Int8, {3}), Scalar::from_double(2.0));
  CHECK(out == std::vector<uint8_t>{0, 1, 0});
  binary(BinaryFn::Ge, vo, view_of(b, DType::Float32, {3}), Scalar::from_int(2));
  CHECK(out == std::vector<uint8_t>{0, 1, 1});
  // A host scalar of the same category is converted to the tensor's dtype: 257 -> int8 1.
  binary(BinaryFn::Eq, vo, view_of(a, DType::Int8, {3}), Scalar::from_int(257));
  CHECK(out == std::vector<uint8_t>{1, 0, 0});
  std::vector<complex64> z = {{1, 2}, {3, 0}, {0, 0}};
  binary(BinaryFn::Ne, vo, view_of(z, DType::Complex64, {3}), Scalar::from_int(3));
  CHECK(out == std::vector<uint8_t>{1, 0, 1});
  CHECK_THROWS_AS(binary(BinaryFn::Lt, vo, view_of(z, DType::Complex64, {3}), Scalar::from_int(3)), KernelError);
}

TEST_CASE("host scalars promote like Python numbers", "[pointwise]") {
  std::vector<int8_t> a = {1, 2, 100}, out(3);
  binary(BinaryFn::Add, view_of(out, DType::Int8, {3}), view_of(a, DType::Int8, {3}), Scalar::from_int(300),
         Scalar::from_int(1));
  CHECK(out == std::vector<int8_t>{45, 46, static_cast<int8_t>(144)});  // 300 wraps to 44 in int8
  CHECK(binary_result_dtype(BinaryFn::Mul, view_of(a, DType::Int8, {3}), Scalar::from_double(2.5), DType::Float32) ==
        DType::Float32);
  std::vector<float> f(3);
  binary(BinaryFn::Mul, view_of(f, DType::Float32, {3}), view_of(a, DType::Int8, {3}), Scalar::from_double(2.5));
  CHECK(f == std::vector<float>{2.5f, 5.0f, 250.0f});

  // half * 0.1: PyTorch keeps the scalar in float; half + 0.1 rounds it to half first.
  std::vector<half> h = {half(0.7f), half(3.3f), half(-1.9f)}, ho(3);
  binary(BinaryFn::Mul, view_of(ho, DType::Float16, {3}), view_of(h, DType::Float16, {3}), Scalar::from_double(0.1));
  auto fl = [](half v) { return static_cast<float>(v); };
  for (int i = 0; i < 3; ++i) CHECK(fl(ho[i]) == fl(half(fl(h[i]) * 0.1f)));
  binary(BinaryFn::Add, view_of(ho, DType::Float16, {3}), view_of(h, DType::Float16, {3}), Scalar::from_double(0.1),
         Scalar::from_int(1));
  for (int i = 0; i < 3; ++i) {
    CHECK(fl(ho[i]) == fl(half(fl(h[i]) + fl(half(0.1f)))));
  }
}

TEST_CASE("the result is computed in the common dtype, then cast into out", "[pointwise]") {
  // float16 + float16 written to float32 is rounded to half first, as PyTorch does.
  std::vector<half> a = {half(1.0f)}, b = {half(0.0004f)};
  std::vector<float> out(1);
  binary(BinaryFn::Add, view_of(out, DType::Float32, {1}), view_of(a, DType::Float16, {1}),
         view_of(b, DType::Float16, {1}));
  CHECK(out[0] == static_cast<float>(half(1.0f + static_cast<float>(b[0]))));
  CHECK(out[0] == 1.0f);
}

TEST_CASE("bitwise, shift and logical ops", "[pointwise]") {
  std::vector<int8_t> a = {1, 2, -128, 64, -1, 1}, s = {7, 8, 7, 8, 100, -1}, out(6);
  const TensorView va = view_of(a, DType::Int8, {6}), vs = view_of(s, DType::Int8, {6}),
                   vo = view_of(out, DType::Int8, {6});
  binary(BinaryFn::LeftShift, vo, va, vs);
  CHECK(out == std::vector<int8_t>{-128, 0, 0, 0, 0, 0});
  binary(BinaryFn::RightShift, vo, va, vs);
  CHECK(out == std::vector<int8_t>{0, 0, -1, 0, -1, 0});
  binary(BinaryFn::BitwiseXor, vo, va, vs);
  for (int i = 0; i < 6; ++i) CHECK(out[i] == static_cast<int8_t>(a[i] ^ s[i]));
  CHECK_THROWS_AS(binary(BinaryFn::BitwiseAnd, vo, va, Scalar::from_double(1.5)), KernelError);

  std::vector<float> x = {0.3f, 0.0f, -2.0f, 0.0f};
  std::vector<int64_t> y = {2, 5, 0, 0};
  std::vector<uint8_t> r(4);
  const TensorView vr{r.data(), DType::Bool, {4}, {1}};
  binary(BinaryFn::LogicalAnd, vr, view_of(x, DType::Float32, {4}), view_of(y, DType::Int64, {4}));
  CHECK(r == std::vector<uint8_t>{1, 0, 0, 0});
  binary(BinaryFn::LogicalOr, vr, view_of(x, DType::Float32, {4}), view_of(y, DType::Int64, {4}));
  CHECK(r == std::vector<uint8_t>{1, 1, 1, 0});
  binary(BinaryFn::LogicalXor, vr, view_of(x, DType::Float32, {4}), view_of(y, DType::Int64, {4}));
  CHECK(r == std::vector<uint8_t>{0, 1, 1, 0});
}

TEST_CASE("binary over every supported dtype against a double reference", "[pointwise]") {
  const std::vector<double> av = {1, 2, 3, 4, 5, 6}, bv = {1, 3, 2, 5, 4, 6};
  auto run_as = [&](DType dt, BinaryFn op) {
    std::vector<unsigned char> a(48), b(48), o(48);
    std::vector<double> ad(av), bd(bv), od(6);
    copy(TensorView{a.data(), dt, {6}, {1}}, view_of(ad, DType::Float64, {6}));
    copy(TensorView{b.data(), dt, {6}, {1}}, view_of(bd, DType::Float64, {6}));
    binary(op, TensorView{o.data(), dt, {6}, {1}}, TensorView{a.data(), dt, {6}, {1}},
           TensorView{b.data(), dt, {6}, {1}});
    copy(view_of(od, DType::Float64, {6}), TensorView{o.data(), dt, {6}, {1}});
    return od;
  };
  for (DType dt : {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::Float16,
                   DType::BFloat16, DType::Float32, DType::Float64}) {
    INFO(npu::model::dtype_name(dt));
    const auto sum = run_as(dt, BinaryFn::Add), prod = run_as(dt, BinaryFn::Mul), mx = run_as(dt, BinaryFn::Maximum),
               rem = run_as(dt, BinaryFn::Remainder);
    for (int i = 0; i < 6; ++i) {
      CHECK(sum[i] == av[i] + bv[i]);
      CHECK(prod[i] == av[i] * bv[i]);
      CHECK(mx[i] == std::max(av[i], bv[i]));
      CHECK(rem[i] == std::fmod(av[i], bv[i]));
    }
  }
}

TEST_CASE("binary: same-shape contiguous operands, strided ones and mixed dtypes agree elementwise", "[pointwise]") {
  // Same-shape operands in the compute dtype take a shortcut (no conversion,
  // no broadcast view, one contiguous run); each variant here leaves it at a
  // different point and must give the same values.
  const int rows = 3, cols = 5;
  std::vector<float> a(rows * cols), b(rows * cols);
  for (int i = 0; i < rows * cols; ++i) {
    a[i] = static_cast<float>(i) * 0.75f - 4.0f;
    b[i] = static_cast<float>(i % 4) + 0.5f;
  }
  const auto a_at = [&](int i, int j) { return a[i * cols + j]; };
  const auto b_at = [&](int i, int j) { return b[i * cols + j]; };
  // b's values transposed in memory, read back as [rows, cols]: a strided view.
  std::vector<float> bt(rows * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) bt[j * rows + i] = b_at(i, j);
  }
  SECTION("contiguous float32, size-1 dims with arbitrary strides") {
    std::vector<float> out(rows * cols);
    binary(BinaryFn::Mul, view_of(out, DType::Float32, {rows, 1, cols}, {cols, 7, 1}),
           view_of(a, DType::Float32, {rows, 1, cols}, {cols, 99, 1}), view_of(b, DType::Float32, {rows, 1, cols}),
           Scalar::from_int(1));
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) CHECK(out[i * cols + j] == a_at(i, j) * b_at(i, j));
    }
  }
  SECTION("a strided operand of the same shape") {
    std::vector<float> out(rows * cols);
    binary(BinaryFn::Sub, view_of(out, DType::Float32, {rows, cols}), view_of(a, DType::Float32, {rows, cols}),
           view_of(bt, DType::Float32, {rows, cols}, {1, rows}), Scalar::from_int(2));
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) CHECK(out[i * cols + j] == a_at(i, j) - 2.0f * b_at(i, j));
    }
  }
  SECTION("an operand of another dtype, and an output of another dtype") {
    std::vector<double> bd(b.begin(), b.end()), out(rows * cols);
    binary(BinaryFn::Add, view_of(out, DType::Float64, {rows, cols}), view_of(a, DType::Float32, {rows, cols}),
           view_of(bd, DType::Float64, {rows, cols}), Scalar::from_int(1));
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) CHECK(out[i * cols + j] == static_cast<double>(a_at(i, j)) + bd[i * cols + j]);
    }
    std::vector<double> wide(rows * cols);
    binary(BinaryFn::Mul, view_of(wide, DType::Float64, {rows, cols}), view_of(a, DType::Float32, {rows, cols}),
           view_of(b, DType::Float32, {rows, cols}), Scalar::from_int(1));
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) CHECK(wide[i * cols + j] == static_cast<double>(a_at(i, j) * b_at(i, j)));
    }
  }
  SECTION("bool operands with bytes above one are read as true") {
    std::vector<uint8_t> x = {0, 2, 1, 7}, y = {3, 0, 1, 4}, out(4, 9);
    binary(BinaryFn::BitwiseXor, view_of(out, DType::Bool, {4}), view_of(x, DType::Bool, {4}),
           view_of(y, DType::Bool, {4}), Scalar::from_int(1));
    CHECK(out == std::vector<uint8_t>{1, 1, 0, 0});
  }
  SECTION("zero elements") {
    std::vector<float> out(1, 42.0f);
    binary(BinaryFn::Add, view_of(out, DType::Float32, {0, cols}), view_of(a, DType::Float32, {0, cols}),
           view_of(b, DType::Float32, {0, cols}), Scalar::from_int(1));
    CHECK(out[0] == 42.0f);
  }
}

TEST_CASE("binary large strided inputs split across threads", "[pointwise]") {
  const int rows = 512, cols = 300;
  std::vector<float> a(rows * cols), b(cols), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i) a[i] = static_cast<float>(i % 1000) * 0.5f;
  for (int j = 0; j < cols; ++j) b[j] = static_cast<float>(j) - 100.0f;
  // a read transposed ([cols, rows] viewed as [rows, cols]) plus a broadcast row.
  binary(BinaryFn::Sub, view_of(out, DType::Float32, {cols, rows}), view_of(a, DType::Float32, {cols, rows}, {1, cols}),
         view_of(b, DType::Float32, {cols, 1}), Scalar::from_int(1));
  for (int j = 0; j < cols; j += 7) {
    for (int i = 0; i < rows; i += 13) CHECK(out[j * rows + i] == a[i * cols + j] - b[j]);
  }
}

TEST_CASE("binary error cases", "[pointwise]") {
  std::vector<uint8_t> p(2), q(2), r(2);
  const TensorView vb{p.data(), DType::Bool, {2}, {1}};
  CHECK_THROWS_WITH(binary(BinaryFn::Sub, TensorView{r.data(), DType::Bool, {2}, {1}}, vb, vb),
                    Catch::Contains("sub") && Catch::Contains("bool"));
  std::vector<int32_t> i(2);
  CHECK_THROWS_WITH(binary(BinaryFn::Add, view_of(i, DType::Int32, {2}), view_of(i, DType::Int32, {2}),
                           view_of(i, DType::Int32, {2}), Scalar::from_double(0.5)),
                    Catch::Contains("alpha"));
  std::vector<float> f(3);
  CHECK_THROWS_AS(binary(BinaryFn::Mul, view_of(f, DType::Float32, {3}), view_of(f, DType::Float32, {3}),
                         view_of(f, DType::Float32, {2})),
                  KernelError);
  CHECK_THROWS_AS(binary(BinaryFn::Remainder, view_of(f, DType::Float32, {3}), view_of(f, DType::Float32, {3}),
                         Scalar::from_raw(&f[0], DType::Complex64)),
                  KernelError);
}

// ---------------------------------------------------------------- ternary

TEST_CASE("where selects with a broadcast condition and promotes the branches", "[pointwise]") {
  std::vector<uint8_t> cond = {1, 0, 1};
  std::vector<int8_t> a = {10, 20};  // [2,1]
  std::vector<float> out(6);
  ternary(TernaryFn::Where, view_of(out, DType::Float32, {2, 3}), TensorView{cond.data(), DType::UInt8, {3}, {1}},
          view_of(a, DType::Int8, {2, 1}), Scalar::from_double(2.5));
  CHECK(out == std::vector<float>{10, 2.5f, 10, 20, 2.5f, 20});
  std::vector<float> x(2);
  CHECK_THROWS_AS(ternary(TernaryFn::Where, view_of(x, DType::Float32, {2}), view_of(x, DType::Float32, {2}),
                          view_of(x, DType::Float32, {2}), view_of(x, DType::Float32, {2})),
                  KernelError);
}

TEST_CASE("lerp, addcmul and addcdiv against their formulas", "[pointwise]") {
  std::vector<float> s = {1, -2, 3, 0.5f}, e = {5, 2, -1, 0.5f}, w = {0.25f, 0.75f, 0.5f, 2.0f}, out(4);
  const TensorView vs = view_of(s, DType::Float32, {4}), ve = view_of(e, DType::Float32, {4}),
                   vw = view_of(w, DType::Float32, {4}), vo = view_of(out, DType::Float32, {4});
  auto lerp_ref = [](float a, float b, float t) { return t < 0.5f ? a + t * (b - a) : b - (b - a) * (1 - t); };
  ternary(TernaryFn::Lerp, vo, vs, ve, vw);
  for (int i = 0; i < 4; ++i) CHECK(out[i] == lerp_ref(s[i], e[i], w[i]));
  ternary(TernaryFn::Lerp, vo, vs, ve, Scalar::from_double(0.3));
  for (int i = 0; i < 4; ++i) CHECK(out[i] == lerp_ref(s[i], e[i], 0.3f));
  ternary(TernaryFn::Addcmul, vo, vs, ve, vw, Scalar::from_double(0.5));
  for (int i = 0; i < 4; ++i) CHECK(out[i] == s[i] + 0.5f * e[i] * w[i]);
  ternary(TernaryFn::Addcdiv, vo, vs, ve, vw, Scalar::from_double(-2));
  for (int i = 0; i < 4; ++i) CHECK(out[i] == s[i] + -2.0f * e[i] / w[i]);

  std::vector<int32_t> n = {1, 2, 3}, no(3);
  ternary(TernaryFn::Addcmul, view_of(no, DType::Int32, {3}), view_of(n, DType::Int32, {3}),
          view_of(n, DType::Int32, {3}), view_of(n, DType::Int32, {3}), Scalar::from_int(2));
  CHECK(no == std::vector<int32_t>{3, 10, 21});
  CHECK_THROWS_WITH(ternary(TernaryFn::Addcdiv, view_of(no, DType::Int32, {3}), view_of(n, DType::Int32, {3}),
                            view_of(n, DType::Int32, {3}), view_of(n, DType::Int32, {3})),
                    Catch::Contains("addcdiv") && Catch::Contains("int32"));
  CHECK_THROWS_AS(ternary(TernaryFn::Lerp, view_of(no, DType::Int32, {3}), view_of(n, DType::Int32, {3}),
                          view_of(n, DType::Int32, {3}), Scalar::from_double(0.5)),
                  KernelError);
}

TEST_CASE("clamp: scalar, tensor and one-sided bounds, NaN propagates", "[pointwise]") {
  std::vector<float> x = {-5, 0.5f, 5, NAN}, out(4);
  const TensorView vx = view_of(x, DType::Float32, {4}), vo = view_of(out, DType::Float32, {4});
  ternary(TernaryFn::Clamp, vo, vx, Scalar::from_int(0), Scalar::from_int(1));
  CHECK((out[0] == 0 && out[1] == 0.5f && out[2] == 1 && std::isnan(out[3])));
  ternary(TernaryFn::Clamp, vo, vx, Operand(), Scalar::from_double(2.0));
  CHECK((out[0] == -5 && out[2] == 2 && std::isnan(out[3])));
  ternary(TernaryFn::Clamp, vo, vx, Scalar::from_double(kNaN), Operand());
  for (float v : out) CHECK(std::isnan(v));
  ternary(TernaryFn::Clamp, vo, vx, Scalar::from_int(4), Scalar::from_int(2));  // min > max: max wins
  CHECK((out[0] == 2 && out[1] == 2 && out[2] == 2));
  std::vector<float> lo = {-1, 1}, hi = {0, 3};  // [2,1] bounds broadcast against [4]
  std::vector<float> out2(8);
  ternary(TernaryFn::Clamp, view_of(out2, DType::Float32, {2, 4}), vx, view_of(lo, DType::Float32, {2, 1}),
          view_of(hi, DType::Float32, {2, 1}));
  CHECK((out2[0] == -1 && out2[1] == 0 && out2[2] == 0 && out2[4] == 1 && out2[6] == 3));

  std::vector<int16_t> n = {-300, 7, 300}, no(3);
  ternary(TernaryFn::Clamp, view_of(no, DType::Int16, {3}), view_of(n, DType::Int16, {3}), Scalar::from_int(-10),
          Operand());
  CHECK(no == std::vector<int16_t>{-10, 7, 300});
  // An integer tensor with float bounds promotes to float, like torch.clamp.
  std::vector<float> nf(3);
  ternary(TernaryFn::Clamp, view_of(nf, DType::Float32, {3}), view_of(n, DType::Int16, {3}),
          Scalar::from_double(1.5), Scalar::from_double(3.5));
  CHECK(nf == std::vector<float>{1.5f, 3.5f, 3.5f});
  CHECK_THROWS_AS(ternary(TernaryFn::Clamp, vo, vx, Operand(), Operand()), KernelError);
}

// ---------------------------------------------------------------- factories

TEST_CASE("arange lengths and values", "[pointwise]") {
  CHECK(arange_length(Scalar::from_int(0), Scalar::from_double(1.0), Scalar::from_double(0.1), DType::Float32) == 10);
  CHECK(arange_length(Scalar::from_int(0), Scalar::from_double(5.5), Scalar::from_int(2), DType::Int32) == 3);
  CHECK(arange_length(Scalar::from_int(10), Scalar::from_int(0), Scalar::from_int(-3), DType::Int64) == 4);
  CHECK_THROWS_WITH(arange_length(Scalar::from_int(0), Scalar::from_int(5), Scalar::from_int(0), DType::Int64),
                    Catch::Contains("nonzero"));
  CHECK_THROWS_AS(arange_length(Scalar::from_int(5), Scalar::from_int(0), Scalar::from_int(1), DType::Int64),
                  KernelError);

  std::vector<float> f(10);
  arange(view_of(f, DType::Float32, {10}), Scalar::from_int(0), Scalar::from_double(0.1));
  for (int i = 0; i < 10; ++i) CHECK(f[i] == static_cast<float>(0.1 * i));  // accumulated in double
  std::vector<int32_t> n(4);
  arange(view_of(n, DType::Int32, {4}), Scalar::from_int(10), Scalar::from_int(-3));
  CHECK(n == std::vector<int32_t>{10, 7, 4, 1});
  std::vector<half> h(3);
  arange(view_of(h, DType::Float16, {3}), Scalar::from_double(1.0), Scalar::from_double(0.5));
  CHECK((static_cast<float>(h[0]) == 1.0f && static_cast<float>(h[2]) == 2.0f));
  // Large and written through a strided view.
  const int big = 100000;
  std::vector<int64_t> l(2 * big);
  arange(view_of(l, DType::Int64, {big}, {2}), Scalar::from_int(0), Scalar::from_int(3));
  for (int i = 0; i < big; i += 101) CHECK(l[2 * i] == 3 * i);
}

TEST_CASE("linspace counts from both ends; eye fills the diagonal", "[pointwise]") {
  std::vector<int32_t> n(7);
  linspace(view_of(n, DType::Int32, {7}), Scalar::from_int(0), Scalar::from_int(10));
  CHECK(n == std::vector<int32_t>{0, 1, 3, 5, 6, 8, 10});
  std::vector<float> f(11);
  linspace(view_of(f, DType::Float32, {11}), Scalar::from_int(0), Scalar::from_int(1));
  for (int i = 0; i < 5; ++i) CHECK(f[i] == 0.1f * static_cast<float>(i));
  for (int i = 5; i < 11; ++i) CHECK(f[i] == 1.0f - 0.1f * static_cast<float>(10 - i));
  std::vector<double> one(1), none;
  linspace(view_of(one, DType::Float64, {1}), Scalar::from_double(3), Scalar::from_double(9));
  CHECK(one[0] == 3.0);
  linspace(view_of(none, DType::Float64, {0}), Scalar::from_double(3), Scalar::from_double(9));

  std::vector<uint8_t> e(6, 7);
  eye(TensorView{e.data(), DType::Bool, {2, 3}, {3, 1}});
  CHECK(e == std::vector<uint8_t>{1, 0, 0, 0, 1, 0});
  std::vector<float> t(6, 7);
  eye(view_of(t, DType::Float32, {3, 2}, {1, 3}));  // column-major 3x2
  CHECK(t == std::vector<float>{1, 0, 0, 0, 1, 0});
}

// ---------------------------------------------------------------- aclnn C API

namespace {

// A contiguous device tensor with host-side staging; the aclTensor is freed
// with it.
class DevTensor {
 public:
  DevTensor(std::vector<int64_t> shape, aclDataType dtype, std::size_t itemsize) : shape_(std::move(shape)) {
    int64_t n = 1;
    for (const int64_t s : shape_) n *= s;
    bytes_ = std::max<std::size_t>(n * itemsize, 1);
    REQUIRE(aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    const Shape strides = contiguous_strides(shape_);
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape_.data(),
                              shape_.size(), data_);
    REQUIRE(tensor_ != nullptr);
  }
  ~DevTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  DevTensor(const DevTensor&) = delete;
  DevTensor& operator=(const DevTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  template <class T>
  void upload(const std::vector<T>& host) {
    REQUIRE(aclrtMemcpy(data_, bytes_, host.data(), host.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE) ==
            ACL_SUCCESS);
  }
  template <class T>
  std::vector<T> download(std::size_t n) const {
    std::vector<T> host(n);
    REQUIRE(aclrtMemcpy(host.data(), n * sizeof(T), data_, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST) ==
            ACL_SUCCESS);
    return host;
  }

 private:
  std::vector<int64_t> shape_;
  std::size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

template <class T>
aclScalar* make_scalar(T value, aclDataType dtype) {
  return aclCreateScalar(&value, dtype);
}

// The two-call pattern on the default stream; returns the first failure.
template <class Prepare>
aclnnStatus run_two_call(Prepare prepare, aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (const aclnnStatus st = prepare(&ws, &ex)) return st;
  if (const aclnnStatus st = launch(nullptr, ws, ex, nullptr)) return st;
  return aclrtSynchronizeStream(nullptr);
}

// Runs aclnn<op>(leading args...) through the two-call pattern on the default stream.
#define RUN_ACLNN(op, ...)                                                                                      \
  run_two_call([&](uint64_t* ws_, aclOpExecutor** ex_) { return op##GetWorkspaceSize(__VA_ARGS__, ws_, ex_); }, \
               op)

std::string recent_error() {
  const char* m = aclGetRecentErrMsg();
  return m ? m : "";
}

}  // namespace

TEST_CASE("aclnn unary, cast and fill-tensor entries through device memory", "[pointwise]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DevTensor x({2, 3}, ACL_INT32, 4), y({2, 3}, ACL_FLOAT, 4);
  x.upload(std::vector<int32_t>{0, 1, 2, 3, 4, 5});
  REQUIRE(RUN_ACLNN(aclnnExp, x.get(), y.get()) == ACL_SUCCESS);
  const auto got = y.download<float>(6);
  for (int i = 0; i < 6; ++i) CHECK(got[i] == std::exp(static_cast<float>(i)));

  // Prepare-time validation: gelu of integers is rejected before anything runs.
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  DevTensor yi({2, 3}, ACL_INT32, 4);
  CHECK(aclnnGeluGetWorkspaceSize(x.get(), yi.get(), &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
  CHECK(recent_error().find("gelu") != std::string::npos);
  // A float result cannot be written into an int output.
  CHECK(aclnnSqrtGetWorkspaceSize(x.get(), yi.get(), &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
  CHECK(recent_error().find("can't be cast") != std::string::npos);

  DevTensor h({2, 3}, ACL_FLOAT16, 2);
  REQUIRE(RUN_ACLNN(aclnnCast, y.get(), ACL_FLOAT16, h.get()) == ACL_SUCCESS);
  const auto hv = h.download<half>(6);
  CHECK(static_cast<float>(hv[1]) == static_cast<float>(half(std::exp(1.0f))));
  CHECK(aclnnCastGetWorkspaceSize(y.get(), ACL_INT8, h.get(), &ws, &ex) == ACLNN_ERR_PARAM_INVALID);

  DevTensor v({}, ACL_DOUBLE, 8);
  v.upload(std::vector<double>{-2.75});
  REQUIRE(RUN_ACLNN(aclnnInplaceFillTensor, x.get(), v.get()) == ACL_SUCCESS);
  CHECK(x.download<int32_t>(6) == std::vector<int32_t>(6, -2));
}

TEST_CASE("aclnn binary entries: DivMod modes, scalar compare, run-time ZeroDivisionError", "[pointwise]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DevTensor a({4}, ACL_INT64, 8), b({2, 1}, ACL_INT64, 8), out({2, 4}, ACL_INT64, 8);
  a.upload(std::vector<int64_t>{-7, 7, 8, -9});
  b.upload(std::vector<int64_t>{2, -3});
  REQUIRE(RUN_ACLNN(aclnnDivMod, a.get(), b.get(), 2, out.get()) == ACL_SUCCESS);
  CHECK(out.download<int64_t>(8) == std::vector<int64_t>{-4, 3, 4, -5, 2, -3, -3, 3});

  aclScalar* three = make_scalar<int64_t>(7, ACL_INT64);
  DevTensor mask({4}, ACL_BOOL, 1);
  REQUIRE(RUN_ACLNN(aclnnGeScalar, a.get(), three, mask.get()) == ACL_SUCCESS);
  CHECK(mask.download<uint8_t>(4) == std::vector<uint8_t>{0, 1, 1, 0});

  aclScalar* alpha = make_scalar<int64_t>(2, ACL_INT64);
  DevTensor d({4}, ACL_INT64, 8);
  REQUIRE(RUN_ACLNN(aclnnSubs, a.get(), three, alpha, d.get()) == ACL_SUCCESS);
  CHECK(d.download<int64_t>(4) == std::vector<int64_t>{-21, -7, -6, -23});

  b.upload(std::vector<int64_t>{2, 0});
  CHECK(RUN_ACLNN(aclnnRemainderTensorTensor, a.get(), b.get(), out.get()) != ACL_SUCCESS);
  CHECK(recent_error().find("ZeroDivisionError") != std::string::npos);

  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  CHECK(aclnnDivModGetWorkspaceSize(a.get(), b.get(), 5, out.get(), &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
  CHECK(aclnnSubsGetWorkspaceSize(a.get(), three, nullptr, d.get(), &ws, &ex) == ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyScalar(three);
  aclDestroyScalar(alpha);
}

TEST_CASE("aclnn ternary and factory entries", "[pointwise]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DevTensor cond({3}, ACL_BOOL, 1), x({3}, ACL_FLOAT, 4), y({3}, ACL_FLOAT, 4), out({3}, ACL_FLOAT, 4);
  cond.upload(std::vector<uint8_t>{1, 0, 1});
  x.upload(std::vector<float>{1, 2, 3});
  y.upload(std::vector<float>{-1, -2, -3});
  REQUIRE(RUN_ACLNN(aclnnSWhere, cond.get(), x.get(), y.get(), out.get()) == ACL_SUCCESS);
  CHECK(out.download<float>(3) == std::vector<float>{1, -2, 3});

  aclScalar* hi = make_scalar<double>(2.5, ACL_DOUBLE);
  REQUIRE(RUN_ACLNN(aclnnClamp, x.get(), nullptr, hi, out.get()) == ACL_SUCCESS);
  CHECK(out.download<float>(3) == std::vector<float>{1, 2, 2.5f});
  REQUIRE(RUN_ACLNN(aclnnLerps, x.get(), y.get(), hi, out.get()) == ACL_SUCCESS);
  CHECK(out.download<float>(3)[0] == -1 - (-1 - 1) * (1 - 2.5f));

  aclScalar* start = make_scalar<int64_t>(1, ACL_INT64);
  aclScalar* end = make_scalar<double>(2.0, ACL_DOUBLE);
  aclScalar* step = make_scalar<double>(0.25, ACL_DOUBLE);
  DevTensor r({4}, ACL_FLOAT, 4), wrong({5}, ACL_FLOAT, 4);
  REQUIRE(RUN_ACLNN(aclnnArange, start, end, step, r.get()) == ACL_SUCCESS);
  CHECK(r.download<float>(4) == std::vector<float>{1, 1.25f, 1.5f, 1.75f});
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  CHECK(aclnnArangeGetWorkspaceSize(start, end, step, wrong.get(), &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
  REQUIRE(RUN_ACLNN(aclnnLinspace, start, end, 5, wrong.get()) == ACL_SUCCESS);
  CHECK(wrong.download<float>(5) == std::vector<float>{1, 1.25f, 1.5f, 1.75f, 2});

  DevTensor e({2, 3}, ACL_INT8, 1);
  REQUIRE(RUN_ACLNN(aclnnEye, 2, 3, e.get()) == ACL_SUCCESS);
  CHECK(e.download<int8_t>(6) == std::vector<int8_t>{1, 0, 0, 0, 1, 0});
  CHECK(aclnnEyeGetWorkspaceSize(3, 3, e.get(), &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
  for (aclScalar* s : {hi, start, end, step}) aclDestroyScalar(s);
}

// An output dtype the range kernels do not fill is an argument error: it must
// fail ...GetWorkspaceSize (so the call that passed it raises), not the task
// on the stream (which would fail a later, unrelated synchronize).
TEST_CASE("range entries refuse unsupported output dtypes before launching", "[pointwise][validation]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  aclScalar* start = make_scalar<int64_t>(0, ACL_INT64);
  aclScalar* end = make_scalar<int64_t>(4, ACL_INT64);
  aclScalar* step = make_scalar<int64_t>(1, ACL_INT64);
  DevTensor c({4}, ACL_COMPLEX64, 8), b({4}, ACL_BOOL, 1), ok({4}, ACL_INT32, 4);
  uint64_t ws = 0;
  for (const auto& [out, name] : {std::pair{c.get(), "complex64"}, std::pair{b.get(), "bool"}}) {
    aclOpExecutor* ex = nullptr;
    CHECK(aclnnArangeGetWorkspaceSize(start, end, step, out, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(ex == nullptr);
    CHECK(recent_error().find(std::string("arange: unsupported dtype ") + name) != std::string::npos);
    CHECK(aclnnLinspaceGetWorkspaceSize(start, end, 4, out, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(ex == nullptr);
    CHECK(recent_error().find(std::string("linspace: unsupported dtype ") + name) != std::string::npos);
  }
  // Nothing was queued: the stream runs the next op and synchronizes cleanly.
  REQUIRE(RUN_ACLNN(aclnnArange, start, end, step, ok.get()) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeDevice() == ACL_SUCCESS);
  CHECK(ok.download<int32_t>(4) == std::vector<int32_t>{0, 1, 2, 3});
  for (aclScalar* s : {start, end, step}) aclDestroyScalar(s);
}

// The FMA3 kernel behind add/sub with alpha must round exactly as one
// std::fma in float followed by the tensor dtype's cast, including its vector
// tails (odd lengths), in place, and on inf/nan and values near the rounding
// midpoints of the reduced floats.
TEMPLATE_TEST_CASE("fused_axpy is one fma rounded to the dtype", "[pointwise][fused_axpy]", float, bfloat16, half) {
  using T = TestType;
  const std::vector<float> specials = {0.0f, -0.0f, 1.0f, -1.0f, 3.0f, 1e-3f, -7.5e3f, 1e-40f, float(kInf), -float(kInf), float(kNaN)};
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{37}, int64_t{1000}}) {
    std::vector<T> x(n), y(n), out(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<T>(specials[i % specials.size()] + 0.0137f * static_cast<float>(i));
      y[i] = static_cast<T>(specials[(i * 7 + 3) % specials.size()] - 0.25f * static_cast<float>(i));
    }
    for (const float alpha : {0.3f, -0.01f, 2.0f, -3.125f}) {
      fused_axpy<T>(out.data(), x.data(), y.data(), alpha, n);
      std::vector<T> in_place = x;
      fused_axpy<T>(in_place.data(), in_place.data(), y.data(), alpha, n);
      for (int64_t i = 0; i < n; ++i) {
        const float want = std::fma(alpha, static_cast<float>(y[i]), static_cast<float>(x[i]));
        for (const T got : {out[i], in_place[i]}) {
          if (std::isnan(want)) {
            CHECK(std::isnan(static_cast<float>(got)));
          } else {
            CHECK(static_cast<float>(got) == static_cast<float>(static_cast<T>(want)));
            CHECK(std::signbit(static_cast<float>(got)) == std::signbit(want));
          }
        }
      }
    }
  }
}

// The pointwise loops' branch-free reduced-float conversions agree with
// Eigen's scalar ones on every non-NaN value, and keep NaN a NaN.
TEMPLATE_TEST_CASE("widen/narrow match Eigen's reduced-float casts", "[pointwise][reduced_cast]", bfloat16, half) {
  using T = TestType;
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const T v = Eigen::numext::bit_cast<T>(static_cast<uint16_t>(bits));
    const float f = widen(v);
    if (std::isnan(static_cast<float>(v))) {
      CHECK(std::isnan(f));
      CHECK(std::isnan(static_cast<float>(narrow<T>(f))));
      continue;
    }
    REQUIRE(Eigen::numext::bit_cast<uint32_t>(f) == Eigen::numext::bit_cast<uint32_t>(static_cast<float>(v)));
    // Round trips, and values between neighbours (ties included) round like Eigen.
    for (const float probe : {f, std::nextafter(f, 0.0f), f * 1.00048828125f, f * 1.0009765625f, f * 0.99951171875f}) {
      REQUIRE(Eigen::numext::bit_cast<uint16_t>(narrow<T>(probe)) ==
              Eigen::numext::bit_cast<uint16_t>(static_cast<T>(probe)));
    }
  }
}

TEST_CASE("binary entries refuse a null, misshapen or narrower out naming it, with same-shape and broadcast operands",
          "[pointwise][launch]") {
  // The out check runs on every pointwise launch (inline on the common
  // path); each refusal still names what is wrong, for operands of one shape
  // (no broadcast shape built) and for broadcasting ones alike.
  using acl_test::make_tensor;
  using acl_test::require_refused;
  acl_test::use_device0();
  float x[6] = {}, y[6] = {}, o[6] = {};
  int32_t oi[6] = {};
  const auto a = make_tensor(x, {2, 3});
  const auto b_same = make_tensor(y, {2, 3});
  const auto b_row = make_tensor(y, {3});
  const auto out_ok = make_tensor(o, {2, 3});
  const auto out_flat = make_tensor(o, {6});
  const auto out_int = make_tensor(oi, {2, 3}, ACL_INT32);
  double one = 1.0;
  aclScalar* alpha = aclCreateScalar(&one, ACL_DOUBLE);
  for (const aclTensor* b : {b_same.get(), b_row.get()}) {
    using Prepare = std::function<aclnnStatus(aclTensor*, uint64_t*, aclOpExecutor**)>;
    using Run = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
    struct Op {
      const char* name;
      Prepare launch;
      Run run;
    };
    const Op ops[] = {
        {"add",
         [&](aclTensor* out, uint64_t* ws, aclOpExecutor** ex) {
           return aclnnAddGetWorkspaceSize(a.get(), b, alpha, out, ws, ex);
         },
         aclnnAdd},
        {"sub",
         [&](aclTensor* out, uint64_t* ws, aclOpExecutor** ex) {
           return aclnnSubGetWorkspaceSize(a.get(), b, alpha, out, ws, ex);
         },
         aclnnSub},
        {"mul", [&](aclTensor* out, uint64_t* ws, aclOpExecutor** ex) { return aclnnMulGetWorkspaceSize(a.get(), b, out, ws, ex); },
         aclnnMul},
    };
    for (const auto& [name, launch, run] : ops) {
      INFO(name << (b == b_same.get() ? " same shape" : " broadcast"));
      uint64_t ws = 0;
      aclOpExecutor* ex = nullptr;
      REQUIRE(launch(out_ok.get(), &ws, &ex) == ACL_SUCCESS);
      REQUIRE(run(nullptr, ws, ex, nullptr) == ACL_SUCCESS);
      REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
      require_refused([&](uint64_t* w, aclOpExecutor** e) { return launch(nullptr, w, e); }, "out is a null aclTensor");
      require_refused([&](uint64_t* w, aclOpExecutor** e) { return launch(out_flat.get(), w, e); },
                      "out has shape [6], expected [2, 3]");
      require_refused([&](uint64_t* w, aclOpExecutor** e) { return launch(out_int.get(), w, e); },
                      "can't be cast to the desired output type");
    }
  }
  REQUIRE(aclDestroyScalar(alpha) == ACLNN_SUCCESS);
}
