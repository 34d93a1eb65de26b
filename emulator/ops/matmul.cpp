// The matrix-product family's task makers: arguments are checked on the
// host; every product runs on the GEMM engine (kernels/linalg/gemm.h) over
// the operands' own strides, so transposed and sliced operands are never
// copied here.
#include "emulator/ops/matmul.h"

#include <complex>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "emulator/acl_error.h"
#include "emulator/acl_objects.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "device_model/format.h"
#include "device_model/storage_desc.h"
#include "kernels/copy/copy.h"
#include "kernels/linalg/addr_pointwise.h"
#include "kernels/linalg/gemm.h"

namespace npu::emu {

namespace {

namespace kn = kernels;
using kn::Shape;
using kn::TensorView;
using kn::linalg::GemmArgs;
using kn::linalg::GemmMatrix;

void check_cube_math_type(int8_t value) {
  if (value < 0 || value > 3) {
    fail(ACLNN_ERR_PARAM_INVALID, "cubeMathType must be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                                  "2 (USE_FP16) or 3 (USE_HF32), got " + std::to_string(value));
  }
}

void require_rank(const TensorView& v, const char* name, int64_t rank) {
  if (v.dim() != rank) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " must be a " + std::to_string(rank) + "-D tensor, got shape " +
                                      kn::shape_str(v.sizes));
  }
}

using NamedView = std::pair<const TensorView*, const char*>;

// Every tensor of a product has one dtype.
void require_same_dtype(const std::vector<NamedView>& ts) {
  const auto& [first, first_name] = *ts.begin();
  for (const auto& [v, name] : ts) {
    if (v->dtype != first->dtype) {
      fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " has dtype " + model::dtype_name(v->dtype) + " but " +
                                        first_name + " has " + model::dtype_name(first->dtype) +
                                        ": every tensor of a matrix product has one dtype");
    }
  }
}

// ... and one the engine computes in.
void require_one_dtype(const std::vector<NamedView>& ts) {
  require_same_dtype(ts);
  const TensorView* first = ts.begin()->first;
  if (!kn::linalg::gemm_supports(first->dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("matrix products do not support dtype ") +
                                      model::dtype_name(first->dtype) +
                                      " (supported: float32, float64, float16, bfloat16, complex64, complex128, "
                                      "int64, int32, int16, int8, uint8)");
  }
}

void require_dims(const char* what, int64_t got, int64_t want) {
  if (got != want) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(what) + ": " + std::to_string(got) + " != " + std::to_string(want));
  }
}

// A strided matrix of a view: rows along dim `row`, columns along `col`,
// batches along `batch` (-1: absent, stride 0).
GemmMatrix matrix(const TensorView& v, int64_t row, int64_t col, int64_t batch = -1) {
  return {v.data, row >= 0 ? v.strides[row] : 0, col >= 0 ? v.strides[col] : 0, batch >= 0 ? v.strides[batch] : 0};
}

// An operand the engine reads in place: a base-format view, or a whole
// tensor in the FRACTAL_NZ family (possibly with permuted dims, like a
// transposed NZ weight), whose per-dim layout is given as strides and the
// engine's blocks.
struct Operand {
  TensorView view;  // sizes, dtype and address; `strides` only for base formats
  Shape stride, block, block_stride;  // per view dim
};

bool is_nz(model::Format f) {
  return f == model::Format::FRACTAL_NZ || f == model::Format::FRACTAL_NZ_C0_16 ||
         f == model::Format::FRACTAL_NZ_C0_32 || f == model::Format::FRACTAL_NZ_C0_2 ||
         f == model::Format::FRACTAL_NZ_C0_4 || f == model::Format::FRACTAL_NZ_C0_8;
}

// A FRACTAL_NZ tensor of logical (origin) shape [..., R, C] is stored as
// [..., C1, R1*16, C0]: element (r, c) at ((c / C0) * R1*16 + r) * C0 + c % C0.
Operand operand(const aclTensor* t, const char* name) {
  require_tensor(t, name);
  const std::optional<model::Format> format =
      t->format == ACL_FORMAT_ND ? std::optional(model::Format::ND) : model::format_from_acl(t->format);
  if (!format || !model::is_private_format(*format)) {
    const TensorView v = t->view();
    return {v, v.strides, Shape(v.sizes.size(), 0), Shape(v.sizes.size(), 0)};
  }
  const std::string label = model::format_label(*format);
  if (!is_nz(*format)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " is in " + label +
                                      "; matrix products take base formats or the FRACTAL_NZ family");
  }
  const TensorView v = t->unchecked_view();
  const std::optional<model::Dims> order = model::contiguous_order(t->view_dims.vec(), t->strides.vec());
  if (t->offset != 0 || !order || v.dim() < 2) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " in " + label +
                                      " must be a whole tensor of at least 2 dims (offset 0, contiguous or "
                                      "permuted dims); got shape " + kn::shape_str(v.sizes));
  }
  const model::Dims origin = model::permuted(t->view_dims.vec(), *order);
  model::StorageDesc desc;
  try {
    desc = model::describe_storage(origin, t->dtype, *format);
  } catch (const std::invalid_argument& e) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + ": " + e.what());
  }
  if (!t->storage_dims.empty() && t->storage_dims.vec() != desc.storage_sizes) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + " in " + label + " of logical shape " +
                                      model::dims_str(origin) + " must have storage dims " +
                                      model::dims_str(desc.storage_sizes) + "; got " +
                                      kn::shape_str(t->storage_dims));
  }
  const int64_t n = v.dim();
  const int64_t c0 = model::format_c0(*format, t->dtype);
  const int64_t rows_padded = (origin[n - 2] + model::kFractalEdge - 1) / model::kFractalEdge * model::kFractalEdge;
  Operand o{v, Shape(n, 0), Shape(n, 0), Shape(n, 0)};
  int64_t batch_stride = 1;  // of origin dim k < n-2: the storage dims after it
  for (const int64_t s : desc.storage_sizes) batch_stride *= s;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t d = (*order)[k];
    if (k < n - 2) {
      batch_stride /= desc.storage_sizes[k];
      o.stride[d] = batch_stride;
    } else if (k == n - 2) {
      o.stride[d] = c0;
    } else {
      o.stride[d] = 1;
      o.block[d] = c0;
      o.block_stride[d] = rows_padded * c0;
    }
  }
  return o;
}

GemmMatrix matrix(const Operand& o, int64_t row, int64_t col, int64_t batch = -1) {
  GemmMatrix m{o.view.data, o.stride[row], o.stride[col], batch >= 0 ? o.stride[batch] : 0};
  m.row_block = o.block[row];
  m.row_block_stride = o.block_stride[row];
  m.col_block = o.block[col];
  m.col_block_stride = o.block_stride[col];
  return m;
}

std::complex<double> scalar_or_one(const aclScalar* s) {
  return s != nullptr ? s->value().to<std::complex<double>>() : std::complex<double>(1.0, 0.0);
}

bool same_view(const TensorView& a, const TensorView& b) {
  return a.data == b.data && a.sizes == b.sizes && a.strides == b.strides;
}

// The task of the "beta * self + alpha * product" ops: self is broadcast
// into out first (unless out is self, or beta is 0 and self is never read),
// then the engine accumulates into out with beta.
std::function<void()> accumulate_task(GemmArgs g, const aclScalar* beta, const aclScalar* alpha,
                                      const TensorView& self, const TensorView& out) {
  g.alpha = scalar_or_one(alpha);
  g.beta = scalar_or_one(beta);
  const bool copy_self = g.beta != std::complex<double>(0.0, 0.0) && !same_view(self, out);
  if (copy_self) {
    // Validates the broadcast on the host.
    kn::broadcast_to(self, out.sizes);
  }
  return task([g, self, out, copy_self] {
    if (copy_self) kn::copy(out, kn::broadcast_to(self, out.sizes));
    kn::linalg::gemm(g);
  });
}

void require_broadcastable(const TensorView& self, const Shape& shape) {
  try {
    kn::broadcast_to(self, shape);
  } catch (const kn::KernelError&) {
    fail(ACLNN_ERR_PARAM_INVALID, "self of shape " + kn::shape_str(self.sizes) +
                                      " does not broadcast to the product's shape " + kn::shape_str(shape));
  }
}

// require_one_dtype over `rest`, with self listed first when the op has one
// (the "beta * self + alpha * product" forms).
void require_one_dtype(const TensorView* self, std::initializer_list<NamedView> rest) {
  std::vector<NamedView> ts;
  if (self != nullptr) ts.emplace_back(self, "self");
  ts.insert(ts.end(), rest);
  require_one_dtype(ts);
}

// The checks and engine arguments of every matrix-matrix product (2-D a and
// b, or 3-D per `batch`): ranks, one dtype (with self when the op has one),
// matching inner (and batch) dims and out's shape, then c = a @ b over the
// operands' strides. alpha and beta stay 1 and 0.
GemmArgs product_args(const Operand& a, const char* a_name, const Operand& b, const char* b_name,
                      const TensorView* self, const TensorView& c, const aclTensor* out, Batch batch) {
  const bool batched = batch != Batch::None;
  const int64_t first = batched ? 1 : 0;  // a's row dim; the batch dim precedes it
  require_rank(a.view, a_name, first + 2);
  require_rank(b.view, b_name, first + 2);
  require_one_dtype(self, {{&a.view, a_name}, {&b.view, b_name}, {&c, "out"}});
  // "<a>.size(da) must equal <b>.size(db)"
  const auto require_same_size = [&](int64_t da, int64_t db) {
    const std::string what = std::string(a_name) + ".size(" + std::to_string(da) + ") must equal " + b_name +
                             ".size(" + std::to_string(db) + ")";
    require_dims(what.c_str(), a.view.sizes[da], b.view.sizes[db]);
  };
  if (batched) require_same_size(0, 0);
  require_same_size(first + 1, first);
  Shape out_shape{a.view.sizes[first], b.view.sizes[first + 1]};
  if (batch == Batch::Each) out_shape.insert(out_shape.begin(), a.view.sizes[0]);
  require_shape(out, out_shape, "out");
  GemmArgs g;
  g.dtype = c.dtype;
  if (batched) g.batch = a.view.sizes[0];
  g.m = a.view.sizes[first];
  g.k = a.view.sizes[first + 1];
  g.n = b.view.sizes[first + 1];
  const int64_t batch_dim = batched ? 0 : -1;
  g.a = matrix(a, first, first + 1, batch_dim);
  g.b = matrix(b, first, first + 1, batch_dim);
  if (batch == Batch::Sum) {
    g.c = matrix(c, 0, 1);
    g.reduce_batch = true;
  } else {
    g.c = matrix(c, first, first + 1, batch_dim);
  }
  return g;
}

// The checks and engine arguments shared by mv and addmv: an m x k matrix
// times a k-vector into an m-vector, as a GEMM with n = 1.
GemmArgs matrix_vector_args(const TensorView& mat, const char* mat_name, const TensorView& vec,
                            const TensorView* self, const TensorView& c, const aclTensor* out) {
  require_rank(mat, mat_name, 2);
  require_rank(vec, "vec", 1);
  require_one_dtype(self, {{&mat, mat_name}, {&vec, "vec"}, {&c, "out"}});
  require_dims((std::string(mat_name) + ".size(1) must equal vec.size(0)").c_str(), mat.sizes[1], vec.sizes[0]);
  require_shape(out, Shape{mat.sizes[0]}, "out");
  GemmArgs g;
  g.dtype = c.dtype;
  g.m = mat.sizes[0];
  g.k = mat.sizes[1];
  g.n = 1;
  g.a = matrix(mat, 0, 1);
  g.b = matrix(vec, 0, -1);
  g.c = matrix(c, 0, -1);
  return g;
}

}  // namespace

std::function<void()> mm_task(const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cubeMathType,
                              Batch batch) {
  check_cube_math_type(cubeMathType);
  const Operand a = operand(self, "self"), b = operand(mat2, "mat2");
  const auto v = require_views<1>({{{out, "out"}}});
  const GemmArgs g = product_args(a, "self", b, "mat2", nullptr, v[0], out, batch);
  return task([g] { kn::linalg::gemm(g); });
}

std::function<void()> matmul_task(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                  int8_t cubeMathType) {
  check_cube_math_type(cubeMathType);
  const auto v = require_views<3>({{{self, "self"}, {mat2, "mat2"}, {out, "out"}}});
  if (v[0].dim() == 0 || v[1].dim() == 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "matmul needs operands of at least one dim, got shapes " +
                                      kn::shape_str(v[0].sizes) + " and " + kn::shape_str(v[1].sizes));
  }
  require_one_dtype({{&v[0], "self"}, {&v[1], "mat2"}, {&v[2], "out"}});
  // Both operands as batches of matrices: a 1-D self is one row, a 1-D
  // mat2 one column (their size-1 dims are not part of out's shape).
  const auto as_matrices = [](const TensorView& t, bool is_lhs) {
    TensorView m = t;
    if (t.dim() == 1) {
      m.sizes = is_lhs ? Shape{1, t.sizes[0]} : Shape{t.sizes[0], 1};
      m.strides = is_lhs ? Shape{0, t.strides[0]} : Shape{t.strides[0], 0};
    }
    return m;
  };
  const TensorView a = as_matrices(v[0], true);
  const TensorView b = as_matrices(v[1], false);
  const int64_t m = a.sizes[a.dim() - 2], k = a.sizes[a.dim() - 1], n = b.sizes[b.dim() - 1];
  require_dims("self's last dim must equal mat2's matrix rows", k, b.sizes[b.dim() - 2]);
  const Shape a_batch(a.sizes.begin(), a.sizes.end() - 2);
  const Shape b_batch(b.sizes.begin(), b.sizes.end() - 2);
  Shape batch;
  try {
    batch = kn::broadcast_shapes(a_batch, b_batch);
  } catch (const kn::KernelError&) {
    fail(ACLNN_ERR_PARAM_INVALID, "matmul batch dims " + kn::shape_str(a_batch) + " and " + kn::shape_str(b_batch) +
                                      " do not broadcast");
  }
  Shape out_shape = batch;
  if (v[0].dim() > 1) out_shape.push_back(m);
  if (v[1].dim() > 1) out_shape.push_back(n);
  require_shape(out, out_shape, "out");
  // out as [batch..., m, n] (a dropped dim has stride 0).
  TensorView o = v[2];
  o.sizes = batch;
  o.strides = Shape(v[2].strides.begin(), v[2].strides.begin() + static_cast<int64_t>(batch.size()));
  int64_t next = static_cast<int64_t>(batch.size());
  o.sizes.push_back(m);
  o.strides.push_back(v[0].dim() > 1 ? v[2].strides[next++] : 0);
  o.sizes.push_back(n);
  o.strides.push_back(v[1].dim() > 1 ? v[2].strides[next] : 0);
  Shape full_a = batch, full_b = batch;
  full_a.push_back(m);
  full_a.push_back(k);
  full_b.push_back(k);
  full_b.push_back(n);
  const TensorView ea = kn::broadcast_to(a, full_a);
  const TensorView eb = kn::broadcast_to(b, full_b);
  const int64_t nb = static_cast<int64_t>(batch.size());
  // The innermost batch dim is the engine's batch; the outer ones loop.
  return task([ea, eb, o, m, n, k, nb] {
    GemmArgs g;
    g.dtype = o.dtype;
    g.m = m;
    g.n = n;
    g.k = k;
    g.batch = nb > 0 ? o.sizes[nb - 1] : 1;
    const int64_t inner = nb > 0 ? nb - 1 : -1;
    int64_t outer = 1;
    for (int64_t d = 0; d + 1 < nb; ++d) outer *= o.sizes[d];
    const std::size_t item = model::itemsize(o.dtype);
    for (int64_t index = 0; index < outer; ++index) {
      int64_t rest = index, oa = 0, ob = 0, oo = 0;
      for (int64_t d = nb - 2; d >= 0; --d) {
        const int64_t i = rest % o.sizes[d];
        rest /= o.sizes[d];
        oa += i * ea.strides[d];
        ob += i * eb.strides[d];
        oo += i * o.strides[d];
      }
      const auto at = [item](void* p, int64_t off) { return static_cast<char*>(p) + off * static_cast<int64_t>(item); };
      g.a = matrix(TensorView{at(ea.data, oa), ea.dtype, ea.sizes, ea.strides}, nb, nb + 1, inner);
      g.b = matrix(TensorView{at(eb.data, ob), eb.dtype, eb.sizes, eb.strides}, nb, nb + 1, inner);
      g.c = matrix(TensorView{at(o.data, oo), o.dtype, o.sizes, o.strides}, nb, nb + 1, inner);
      kn::linalg::gemm(g);
    }
  });
}

std::function<void()> addmm_task(const aclTensor* self, const aclTensor* a, const aclTensor* b, const aclScalar* beta,
                                 const aclScalar* alpha, const aclTensor* out, int8_t cubeMathType, Batch batch) {
  check_cube_math_type(cubeMathType);
  const char* a_name = batch == Batch::None ? "mat1" : "batch1";
  const char* b_name = batch == Batch::None ? "mat2" : "batch2";
  const Operand oa = operand(a, a_name), ob = operand(b, b_name);
  const auto v = require_views<2>({{{self, "self"}, {out, "out"}}});
  const GemmArgs g = product_args(oa, a_name, ob, b_name, &v[0], v[1], out, batch);
  require_broadcastable(v[0], v[1].sizes);
  return accumulate_task(g, beta, alpha, v[0], v[1]);
}

std::function<void()> addmv_task(const aclTensor* self, const aclTensor* mat, const aclTensor* vec,
                                 const aclScalar* alpha, const aclScalar* beta, const aclTensor* out,
                                 int8_t cubeMathType) {
  check_cube_math_type(cubeMathType);
  const auto v = require_views<4>({{{self, "self"}, {mat, "mat"}, {vec, "vec"}, {out, "out"}}});
  const GemmArgs g = matrix_vector_args(v[1], "mat", v[2], &v[0], v[3], out);
  require_broadcastable(v[0], v[3].sizes);
  return accumulate_task(g, beta, alpha, v[0], v[3]);
}

std::function<void()> mv_task(const aclTensor* self, const aclTensor* vec, aclTensor* out, int8_t cubeMathType) {
  check_cube_math_type(cubeMathType);
  const auto v = require_views<3>({{{self, "self"}, {vec, "vec"}, {out, "out"}}});
  const GemmArgs g = matrix_vector_args(v[0], "self", v[1], nullptr, v[2], out);
  return task([g] { kn::linalg::gemm(g); });
}

std::function<void()> dot_task(const aclTensor* self, const aclTensor* tensor, aclTensor* out, bool conjugate) {
  const auto v = require_views<3>({{{self, "self"}, {tensor, "tensor"}, {out, "out"}}});
  require_rank(v[0], "self", 1);
  require_rank(v[1], "tensor", 1);
  require_one_dtype({{&v[0], "self"}, {&v[1], "tensor"}, {&v[2], "out"}});
  require_dims("self and tensor must have the same number of elements", v[0].sizes[0], v[1].sizes[0]);
  if (v[2].numel() != 1 || v[2].dim() > 1) {
    fail(ACLNN_ERR_PARAM_INVALID, "out must have shape [] or [1], got " + kn::shape_str(v[2].sizes));
  }
  // A 1 x k row times a k x 1 column.
  GemmArgs g;
  g.dtype = v[2].dtype;
  g.m = 1;
  g.n = 1;
  g.k = v[0].sizes[0];
  g.a = {v[0].data, 0, v[0].strides[0], 0};
  g.b = {v[1].data, v[1].strides[0], 0, 0};
  g.c = {v[2].data, 0, 0, 0};
  g.conj_a = conjugate;
  return task([g] { kn::linalg::gemm(g); });
}

std::function<void()> addr_task(const aclTensor* self, const aclTensor* vec1, const aclTensor* vec2,
                                const aclScalar* beta, const aclScalar* alpha, const aclTensor* out) {
  const auto v = require_views<4>({{{self, "self"}, {vec1, "vec1"}, {vec2, "vec2"}, {out, "out"}}});
  require_rank(v[1], "vec1", 1);
  require_rank(v[2], "vec2", 1);
  const std::vector<NamedView> all{{&v[0], "self"}, {&v[1], "vec1"}, {&v[2], "vec2"}, {&v[3], "out"}};
  if (kn::linalg::addr_is_pointwise(v[3].dtype)) {
    require_same_dtype(all);
  } else {
    require_one_dtype(all);
  }
  require_shape(out, Shape{v[1].sizes[0], v[2].sizes[0]}, "out");
  require_broadcastable(v[0], v[3].sizes);
  if (kn::linalg::addr_is_pointwise(v[3].dtype)) {
    // CPU rounds every step of a reduced-float addr; bool is logical (addr_pointwise.h).
    return task([v, b = scalar_or_one(beta), a = scalar_or_one(alpha)] {
      kn::linalg::addr_pointwise(v[3], v[0], v[1], v[2], b, a);
    });
  }
  // An m x 1 column times a 1 x n row.
  GemmArgs g;
  g.dtype = v[3].dtype;
  g.m = v[1].sizes[0];
  g.n = v[2].sizes[0];
  g.k = 1;
  g.a = {v[1].data, v[1].strides[0], 0, 0};
  g.b = {v[2].data, 0, v[2].strides[0], 0};
  g.c = matrix(v[3], 0, 1);
  return accumulate_task(g, beta, alpha, v[0], v[3]);
}

}  // namespace npu::emu
