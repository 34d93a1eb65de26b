// The GEMM engine (gemm.h). Compiled in npu_cube_kernels with the machine's
// ISA flags (-march=native): Eigen picks its SIMD kernels at compile time.
//
// Plan of one call:
//  1. C is made row-major (unit column stride): a column-major C computes
//     C^T = op(B)^T op(A)^T instead; a C with neither unit stride is staged.
//  2. A and B must each be row- or column-major (any outer stride, 0
//     included); other strides and conjugated complex operands are copied
//     into contiguous scratch first (O(size) next to the O(m n k) product).
//  3. The work is cut into tasks (batch items x row or column blocks of C)
//     that oneTBB runs on all cores; each task is one Eigen GEMM on Maps.
// float16/bfloat16 convert A and B to float32, multiply in float32 into a
// float32 accumulator and round once: C = R(alpha * acc + beta * C).
// bfloat16 takes its float32 product from the AVX512-BF16 kernel instead
// when bf16_dot_chosen() (gemm_bf16_avx512.cpp), which also rounds into a
// row-major C itself.
#include "kernels/linalg/gemm.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "kernels/core/dtype_dispatch.h"
#include "kernels/linalg/gemm_bf16_dot.h"

namespace npu::kernels::linalg {

namespace {

using Eigen::Dynamic;
using Index = Eigen::Index;

// A strided matrix of T; rows/cols are carried by the caller. rb/cb > 0:
// rows/columns in blocks (GemmMatrix's blocked layouts).
template <class T>
struct Mat {
  T* p;
  int64_t rs;  // row stride
  int64_t cs;  // column stride
  int64_t bs;  // batch stride
  int64_t rb = 0, rbs = 0, cb = 0, cbs = 0;

  bool blocked() const { return rb > 0 || cb > 0; }
  int64_t row_offset(int64_t i) const { return rb > 0 ? (i / rb) * rbs + (i % rb) * rs : i * rs; }
  int64_t col_offset(int64_t j) const { return cb > 0 ? (j / cb) * cbs + (j % cb) * cs : j * cs; }
};

template <class T>
Mat<T> mat_of(const GemmMatrix& g) {
  return {static_cast<T*>(g.data), g.row_stride, g.col_stride, g.batch_stride,
          g.row_block, g.row_block_stride, g.col_block, g.col_block_stride};
}

template <class T>
Mat<T> transposed(const Mat<T>& x) {
  return {x.p, x.cs, x.rs, x.bs, x.cb, x.cbs, x.rb, x.rbs};
}

// Row-major usable: unit column stride (or at most one column).
bool row_major(int64_t cols, int64_t cs) { return cols <= 1 || cs == 1; }
bool col_major(int64_t rows, int64_t rs) { return rows <= 1 || rs == 1; }

template <class T, int Order>
using ConstMap = Eigen::Map<const Eigen::Matrix<T, Dynamic, Dynamic, Order>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using OutMap = Eigen::Map<Eigen::Matrix<T, Dynamic, Dynamic, Eigen::RowMajor>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <class T>
T scalar_as(const std::complex<double>& v) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else {
    return static_cast<T>(v.real());
  }
}

// An input operand after normalization: row-major (cs == 1) or column-major
// (rs == 1) with an outer stride.
template <class T>
struct Operand {
  Mat<const T> m;
  bool row_major;
};

template <class T>
Operand<T> as_operand(const Mat<const T>& x, int64_t rows, int64_t cols) {
  if (row_major(cols, x.cs)) return {{x.p, rows <= 1 ? std::max<int64_t>(cols, 1) : x.rs, 1, x.bs}, true};
  return {{x.p, 1, cols <= 1 ? std::max<int64_t>(rows, 1) : x.cs, x.bs}, false};
}

// c = beta * c + alpha * a b for one block; c row-major. beta == 0 ignores c.
template <class T>
void block_gemm(int64_t m, int64_t n, int64_t k, const Operand<T>& a, const T* ap, const Operand<T>& b,
                const T* bp, T* cp, int64_t c_rs, T alpha, T beta) {
  OutMap<T> c(cp, m, n, Eigen::OuterStride<>(m <= 1 ? std::max<int64_t>(n, 1) : c_rs));
  if (beta == T(0)) {
    c.setZero();
  } else if (beta != T(1)) {
    c *= beta;
  }
  if (k == 0 || alpha == T(0)) return;
  const auto run = [&](const auto& am) {
    if (b.row_major) {
      const ConstMap<T, Eigen::RowMajor> bm(bp, k, n, Eigen::OuterStride<>(b.m.rs));
      c.noalias() += alpha * am * bm;
    } else {
      const ConstMap<T, Eigen::ColMajor> bm(bp, k, n, Eigen::OuterStride<>(b.m.cs));
      c.noalias() += alpha * am * bm;
    }
  };
  if (a.row_major) {
    run(ConstMap<T, Eigen::RowMajor>(ap, m, k, Eigen::OuterStride<>(a.m.rs)));
  } else {
    run(ConstMap<T, Eigen::ColMajor>(ap, m, k, Eigen::OuterStride<>(a.m.cs)));
  }
}

// Contiguous [batches, rows, cols] copy of a strided operand, converted to
// To (and conjugated on request), in parallel over rows.
template <class To, class From>
std::unique_ptr<To[]> pack(const Mat<const From>& x, int64_t batches, int64_t rows, int64_t cols, bool conj) {
  // Uninitialized (every element is written below): no memset of a buffer
  // as large as the operand.
  std::unique_ptr<To[]> out(new To[static_cast<std::size_t>(std::max<int64_t>(batches * rows * cols, 1))]);
  To* const dst = out.get();
  const bool conjugate = is_complex_v<From> && conj;
  const auto body = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t bi = r / std::max<int64_t>(rows, 1);
      const int64_t i = r % std::max<int64_t>(rows, 1);
      const From* src = x.p + bi * x.bs + x.row_offset(i);
      To* d = dst + r * cols;
      if (x.cb > 0) {
        // A blocked row: unit-stride runs of cb elements, one per block.
        for (int64_t j = 0; j < cols; ++j) {
          From v = src[x.col_offset(j)];
          if constexpr (is_complex_v<From>) {
            if (conj) v = std::conj(v);
          }
          d[j] = convert<To>(v);
        }
        continue;
      }
      if (x.cs == 1 && !conjugate) {
        // The common case, unit stride: a loop the compiler vectorizes.
        for (int64_t j = 0; j < cols; ++j) d[j] = convert<To>(src[j]);
        continue;
      }
      for (int64_t j = 0; j < cols; ++j) {
        From v = src[j * x.cs];
        if constexpr (is_complex_v<From>) {
          if (conj) v = std::conj(v);
        }
        d[j] = convert<To>(v);
      }
    }
  };
  const int64_t total_rows = batches * rows;
  if (total_rows * cols < (1 << 16)) {
    body(0, total_rows);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, total_rows, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(cols, 1))),
                      [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
  }
  return out;
}

// Products below this many multiply-adds run on the calling thread: a task
// hand-off costs more than they take.
constexpr int64_t kSerialMacs = int64_t{1} << 20;
// A row or column block of C is never cut below this (Eigen's kernels need
// room to block for the caches).
constexpr int64_t kMinBlock = 64;

// The product of a typed, normalized problem: C row-major, A and B
// row- or column-major. Splits it into tasks for oneTBB.
template <class T>
void run_normalized(const GemmArgs& g, const Operand<T>& a, const Operand<T>& b, T* c, int64_t c_rs, int64_t c_bs,
                    T alpha, T beta) {
  const int64_t m = g.m, n = g.n, k = g.k, batch = g.batch;
  const int64_t workers = std::max(1, tbb::this_task_arena::max_concurrency());
  const double macs = static_cast<double>(batch) * m * n * std::max<int64_t>(k, 1);
  // Tasks per batch item: batch items themselves are tasks unless too few.
  const int64_t batch_tasks = g.reduce_batch ? 1 : batch;
  int64_t splits = 1;
  if (workers > 1 && macs >= kSerialMacs && batch_tasks < 2 * workers) {
    splits = (2 * workers + batch_tasks - 1) / batch_tasks;
    splits = std::max<int64_t>(1, std::min(splits, std::max(m, n) / kMinBlock));
  }
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  // Block edges on multiples of 16 keep Eigen's SIMD panels whole.
  const int64_t block = ((extent + splits - 1) / splits + 15) / 16 * 16;
  const int64_t blocks = std::max<int64_t>(1, (extent + std::max<int64_t>(block, 1) - 1) / std::max<int64_t>(block, 1));

  const auto task = [&](int64_t t) {
    const int64_t bi = t / blocks;
    const int64_t blk = t % blocks;
    const int64_t lo = blk * block;
    const int64_t hi = std::min(extent, lo + block);
    int64_t i0 = 0, rows = m, j0 = 0, cols = n;
    if (split_rows) {
      i0 = lo;
      rows = hi - lo;
    } else {
      j0 = lo;
      cols = hi - lo;
    }
    const auto one = [&](int64_t item, T* cb, T beta_here) {
      const T* ap = a.m.p + item * a.m.bs + i0 * a.m.rs;
      const T* bp = b.m.p + item * b.m.bs + j0 * b.m.cs;
      block_gemm<T>(rows, cols, k, a, ap, b, bp, cb + i0 * c_rs + j0, c_rs, alpha, beta_here);
    };
    if (g.reduce_batch) {
      // One C for the whole batch: the first product applies beta.
      if (batch == 0) {
        block_gemm<T>(rows, cols, 0, a, a.m.p, b, b.m.p, c + i0 * c_rs + j0, c_rs, alpha, beta);
      }
      for (int64_t item = 0; item < batch; ++item) one(item, c, item == 0 ? beta : T(1));
    } else {
      one(bi, c + bi * c_bs, beta);
    }
  };
  const int64_t tasks = batch_tasks * blocks;
  if (tasks <= 1 || macs < kSerialMacs || workers == 1) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, tasks, 1),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      for (int64_t t = r.begin(); t < r.end(); ++t) task(t);
                    },
                    tbb::simple_partitioner());
}

template <class T>
int64_t batches_of(const Mat<T>& x, int64_t batch) {
  return x.bs == 0 ? std::min<int64_t>(batch, 1) : batch;
}

// gemm() for an element type Eigen multiplies directly.
template <class T>
void run_typed(const GemmArgs& args) {
  GemmArgs g = args;
  Mat<const T> a = mat_of<const T>(g.a);
  Mat<const T> b = mat_of<const T>(g.b);
  Mat<T> c = mat_of<T>(g.c);
  if (g.reduce_batch) c.bs = 0;
  const T alpha = scalar_as<T>(g.alpha);
  const T beta = scalar_as<T>(g.beta);
  if (g.m == 0 || g.n == 0 || (g.batch == 0 && !g.reduce_batch)) return;

  // 1. C row-major: a column-major C is the transposed problem.
  if (!c.blocked() && !row_major(g.n, c.cs) && col_major(g.m, c.rs)) {
    std::swap(g.m, g.n);
    const Mat<const T> at = transposed(b);
    b = transposed(a);
    a = at;
    std::swap(g.conj_a, g.conj_b);
    c = transposed(c);
  }
  std::unique_ptr<T[]> c_stage;
  const int64_t c_batches = g.reduce_batch ? 1 : g.batch;
  Mat<T> cw = c;
  if (c.blocked() || !row_major(g.n, c.cs)) {
    // Neither unit stride (or blocked): compute into contiguous scratch
    // (with C's old values when beta reads them), then copy back.
    c_stage = pack<T, T>(Mat<const T>{c.p, c.rs, c.cs, c.bs, c.rb, c.rbs, c.cb, c.cbs}, c_batches, g.m, g.n, false);
    cw = {c_stage.get(), g.n, 1, g.m * g.n};
  }

  // 2. A and B row- or column-major, conjugation resolved.
  std::unique_ptr<T[]> a_pack, b_pack;
  const auto needs_pack = [](const Mat<const T>& x, int64_t rows, int64_t cols, bool conj) {
    return (is_complex_v<T> && conj) || x.blocked() || !(row_major(cols, x.cs) || col_major(rows, x.rs));
  };
  if (needs_pack(a, g.m, g.k, g.conj_a)) {
    const int64_t nb = batches_of(a, g.batch);
    a_pack = pack<T, T>(a, nb, g.m, g.k, g.conj_a);
    a = {a_pack.get(), g.k, 1, a.bs == 0 ? 0 : g.m * g.k};
  }
  if (needs_pack(b, g.k, g.n, g.conj_b)) {
    const int64_t nb = batches_of(b, g.batch);
    b_pack = pack<T, T>(b, nb, g.k, g.n, g.conj_b);
    b = {b_pack.get(), g.n, 1, b.bs == 0 ? 0 : g.k * g.n};
  }

  // 3. The product.
  run_normalized<T>(g, as_operand(a, g.m, g.k), as_operand(b, g.k, g.n), cw.p, cw.rs, cw.bs, alpha, beta);

  if (c_stage) {
    const T* src = c_stage.get();
    for (int64_t bi = 0; bi < c_batches; ++bi) {
      for (int64_t i = 0; i < g.m; ++i) {
        for (int64_t j = 0; j < g.n; ++j) c.p[bi * c.bs + c.row_offset(i) + c.col_offset(j)] = src[(bi * g.m + i) * g.n + j];
      }
    }
  }
}

// gemm() for float16/bfloat16: float32 operands and accumulator, one rounding.
template <class R>
void run_reduced(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0 || (g.batch == 0 && !g.reduce_batch)) return;
  if (g.reduce_batch && g.batch > 1) {
    // PyTorch CPU's addbmm accumulates the batch products into C one by one,
    // rounding C to the dtype after each: so does this, item by item.
    GemmArgs item = g;
    item.batch = 1;
    for (int64_t b = 0; b < g.batch; ++b) {
      item.a.data = static_cast<R*>(g.a.data) + b * g.a.batch_stride;
      item.b.data = static_cast<R*>(g.b.data) + b * g.b.batch_stride;
      item.beta = b == 0 ? g.beta : std::complex<double>(1.0, 0.0);
      run_reduced<R>(item);
    }
    return;
  }
  const Mat<const R> a = mat_of<const R>(g.a);
  const Mat<const R> b = mat_of<const R>(g.b);
  Mat<R> c = mat_of<R>(g.c);
  const int64_t c_batches = g.reduce_batch ? 1 : g.batch;
  if (g.reduce_batch) c.bs = 0;

  // The float32 product op(A) · op(B), element (b, i, j) at
  // acc.data[b * acc.batch_stride + i * acc.row_stride + j].
  ProductF32 acc;
  if constexpr (std::is_same_v<R, bfloat16>) {
    if (bf16_dot_writes_c(g)) {
      bf16_dot_gemm(g);  // rounds into C itself, tile by tile
      return;
    }
    if (bf16_dot_chosen(g)) acc = bf16_dot_product(g);
  }
  if (acc.data == nullptr) {
    const int64_t a_batches = batches_of(a, g.batch), b_batches = batches_of(b, g.batch);
    const auto a32 = pack<float, R>(a, a_batches, g.m, g.k, false);
    const auto b32 = pack<float, R>(b, b_batches, g.k, g.n, false);
    // Uninitialized: the product overwrites it (beta 0).
    acc.storage = ReusedBuffer(sizeof(float) * static_cast<std::size_t>(c_batches * g.m * g.n));
    acc.data = acc.storage.as<float>();
    acc.row_stride = g.n;
    acc.batch_stride = g.m * g.n;

    GemmArgs f = g;
    f.dtype = model::DType::Float32;
    f.a = {a32.get(), g.k, 1, a.bs == 0 ? 0 : g.m * g.k};
    f.b = {b32.get(), g.n, 1, b.bs == 0 ? 0 : g.k * g.n};
    f.c = {acc.data, g.n, 1, g.m * g.n};
    f.alpha = 1.0;
    f.beta = 0.0;
    run_typed<float>(f);
  }

  const float alpha = static_cast<float>(g.alpha.real());
  const float beta = static_cast<float>(g.beta.real());
  const auto body = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t bi = r / g.m, i = r % g.m;
      R* dst = c.p + bi * c.bs + c.row_offset(i);
      const float* src = acc.data + bi * acc.batch_stride + i * acc.row_stride;
      if (c.cb == 0 && c.cs == 1 && beta == 0.0f) {
        for (int64_t j = 0; j < g.n; ++j) dst[j] = R(alpha * src[j]);
        continue;
      }
      for (int64_t j = 0; j < g.n; ++j) {
        const float prod = alpha * src[j];
        R& d = dst[c.col_offset(j)];
        if constexpr (std::is_same_v<R, bfloat16>) {
          // The fma the compiler contracted this to, spelled out: the bf16
          // dot-product kernel rounds the same value into a row-major C.
          d = R(beta == 0.0f ? prod : std::fma(alpha, src[j], beta * static_cast<float>(d)));
        } else {
          d = R(beta == 0.0f ? prod : prod + beta * static_cast<float>(d));
        }
      }
    }
  };
  const int64_t rows = c_batches * g.m;
  if (rows * g.n < (1 << 16)) {
    body(0, rows);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows, std::max<int64_t>(1, (1 << 14) / g.n)),
                      [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
  }
}

}  // namespace

bool gemm_supports(model::DType dtype) {
  switch (dtype) {
    case model::DType::Float32:
    case model::DType::Float64:
    case model::DType::Float16:
    case model::DType::BFloat16:
    case model::DType::Complex64:
    case model::DType::Complex128:
    case model::DType::Int64:
    case model::DType::Int32:
    case model::DType::Int16:
    case model::DType::Int8:
    case model::DType::UInt8:
      return true;
    default:
      return false;
  }
}

void gemm(const GemmArgs& args) {
  if (args.batch < 0 || args.m < 0 || args.n < 0 || args.k < 0) {
    throw KernelError("gemm: negative size (batch " + std::to_string(args.batch) + ", m " + std::to_string(args.m) +
                      ", n " + std::to_string(args.n) + ", k " + std::to_string(args.k) + ")");
  }
  if (!gemm_supports(args.dtype)) {
    throw KernelError(std::string("gemm: unsupported dtype ") + model::dtype_name(args.dtype) +
                      " (supported: float32, float64, float16, bfloat16, complex64, complex128, int64, int32, "
                      "int16, int8, uint8)");
  }
  visit_dtype(args.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_reduced_float_v<T>) {
      run_reduced<T>(args);
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T> ||
                         std::is_same_v<T, int64_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, int16_t> ||
                         std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
      run_typed<T>(args);
    }
  });
}

}  // namespace npu::kernels::linalg
