// Reductions along one dim on npu: prod (also over everything), max/min with
// indices, argmax/argmin, and the scans cumsum/cumprod.
#include <ATen/MemoryOverlap.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "dispatch/ops/acl_args.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/reduce_op.h"

namespace npu::ops {

namespace {

using Dtype = std::optional<at::ScalarType>;

aclDataType acl_dtype_of(const at::Tensor& t) { return to_acl_dtype(t.scalar_type()); }

// ---- prod --------------------------------------------------------------------

at::ScalarType prod_dtype(const at::Tensor& self, Dtype dtype, Dtype out) {
  if (dtype) return *dtype;
  if (out) return *out;
  return at::native::get_dtype_from_self(self, std::nullopt, true);
}

at::Tensor prod_all(const at::Tensor& self, Dtype dtype) {
  check_npu("prod", "self", self);
  return new_result(self, {}, prod_dtype(self, dtype, std::nullopt),
                    [&](const at::Tensor& out) { NPU_RUN(aclnnProd, self, acl_dtype_of(out), out); });
}

at::Tensor& prod_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, Dtype dtype, at::Tensor& out) {
  check_npu("prod", "self", self);
  const ReduceInput in = reduce_input(self, dim, keepdim);
  write_out(out, in.shape, prod_dtype(self, dtype, out.scalar_type()), [&](const at::Tensor& o) {
    NPU_RUN(aclnnProdDim, in.self, in.dims[0], in.keepdim, acl_dtype_of(o), o);
  });
  return out;
}

at::Tensor prod_dim(const at::Tensor& self, int64_t dim, bool keepdim, Dtype dtype) {
  check_npu("prod", "self", self);
  const ReduceInput in = reduce_input(self, dim, keepdim);
  return new_result(self, in.shape, prod_dtype(self, dtype, std::nullopt), [&](const at::Tensor& o) {
    NPU_RUN(aclnnProdDim, in.self, in.dims[0], in.keepdim, acl_dtype_of(o), o);
  });
}

// ---- max/min with indices, argmax/argmin --------------------------------------

// Both aclnnMaxDim-style launches: values may be undefined (argmax/argmin).
using ArgLaunch = void (*)(const at::Tensor& self, int64_t dim, bool keepdim, const at::Tensor& values,
                           const at::Tensor& indices);

void max_launch(const at::Tensor& self, int64_t dim, bool keepdim, const at::Tensor& values, const at::Tensor& indices) {
  if (values.defined()) {
    NPU_RUN(aclnnMaxDim, self, dim, keepdim, values, indices);
  } else {
    NPU_RUN(aclnnArgMax, self, dim, keepdim, indices);
  }
}
void min_launch(const at::Tensor& self, int64_t dim, bool keepdim, const at::Tensor& values, const at::Tensor& indices) {
  if (values.defined()) {
    NPU_RUN(aclnnMinDim, self, dim, keepdim, values, indices);
  } else {
    NPU_RUN(aclnnArgMin, self, dim, keepdim, indices);
  }
}

ReduceInput extreme_input(const char* name, const at::Tensor& self, int64_t dim, bool keepdim) {
  check_npu(name, "self", self);
  TORCH_CHECK(!self.is_complex(), name, ": does not support complex input");
  if (self.numel() == 0) at::native::zero_numel_check_dims(self, dim, name);
  return reduce_input(self, dim, keepdim);
}

std::tuple<at::Tensor&, at::Tensor&> extreme_dim_out(const char* name, ArgLaunch launch, const at::Tensor& self,
                                                     int64_t dim, bool keepdim, at::Tensor& values,
                                                     at::Tensor& indices) {
  const ReduceInput in = extreme_input(name, self, dim, keepdim);
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), name, ": Expected out tensor to have dtype ",
              self.scalar_type(), ", but got ", values.scalar_type(), " instead");
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": Expected out tensor to have dtype Long, but got ",
              indices.scalar_type(), " instead");
  write_out(indices, in.shape, at::kLong, [](const at::Tensor&) {});
  at::native::resize_output(values, in.shape);
  // Outputs whose elements share memory cannot take results (CPU refuses).
  at::assert_no_internal_overlap(values);
  at::assert_no_internal_overlap(indices);
  write_out(values, in.shape, self.scalar_type(), [&](const at::Tensor& v) {
    launch(in.self, in.dims[0], in.keepdim, v, indices);
  });
  return {values, indices};
}

std::tuple<at::Tensor, at::Tensor> extreme_dim(const char* name, ArgLaunch launch, const at::Tensor& self, int64_t dim,
                                               bool keepdim) {
  const ReduceInput in = extreme_input(name, self, dim, keepdim);
  at::Tensor indices = new_result(self, in.shape, at::kLong, [](const at::Tensor&) {});
  at::Tensor values = new_result(self, in.shape, self.scalar_type(), [&](const at::Tensor& v) {
    launch(in.self, in.dims[0], in.keepdim, v, indices);
  });
  return {values, indices};
}

std::tuple<at::Tensor, at::Tensor> max_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim("max()", max_launch, self, dim, keepdim);
}
std::tuple<at::Tensor&, at::Tensor&> max_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& values,
                                                 at::Tensor& indices) {
  return extreme_dim_out("max()", max_launch, self, dim, keepdim, values, indices);
}
std::tuple<at::Tensor, at::Tensor> min_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim("min()", min_launch, self, dim, keepdim);
}
std::tuple<at::Tensor&, at::Tensor&> min_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& values,
                                                 at::Tensor& indices) {
  return extreme_dim_out("min()", min_launch, self, dim, keepdim, values, indices);
}

// argmax/argmin: dim=None looks at the flattened tensor (keepdim keeps every dim as 1).
at::Tensor& arg_out(const char* name, ArgLaunch launch, const at::Tensor& self, std::optional<int64_t> dim,
                    bool keepdim, at::Tensor& out) {
  check_npu(name, "self", self);
  TORCH_CHECK(!self.is_complex(), name, ": does not support complex input");
  TORCH_CHECK(self.scalar_type() != at::kBool, name, ": does not support bool input");
  if (self.numel() == 0) {
    TORCH_CHECK_INDEX(dim.has_value(), name, ": Expected reduction dim to be specified for input.numel() == 0.");
    at::native::zero_numel_check_dims(self, *dim, name);
  }
  std::vector<int64_t> shape;
  at::Tensor input = self;
  int64_t d = 0;
  bool keep = keepdim;
  if (dim) {
    const ReduceInput in = reduce_input(self, *dim, keepdim);
    shape = in.shape;
    input = in.self;
    d = in.dims[0];
    keep = in.keepdim;
  } else {
    if (keepdim) shape.assign(self.dim(), 1);
    input = self.reshape({-1});
    keep = false;
  }
  TORCH_CHECK(out.scalar_type() == at::kLong, name, ": Expected out tensor to have dtype Long, but got ",
              out.scalar_type(), " instead");
  write_out(out, shape, at::kLong, [&](const at::Tensor& o) {
    // keepdim with dim=None: the flat result lands in out's all-ones shape.
    launch(input, d, keep, at::Tensor(), dim ? o : o.view(at::IntArrayRef{}));
  });
  return out;
}

at::Tensor arg(const char* name, ArgLaunch launch, const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  at::Tensor out = at::empty({0}, self.options().dtype(at::kLong));
  return arg_out(name, launch, self, dim, keepdim, out);
}

at::Tensor argmax(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg("argmax()", max_launch, self, dim, keepdim);
}
at::Tensor& argmax_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim, at::Tensor& out) {
  return arg_out("argmax()", max_launch, self, dim, keepdim, out);
}
at::Tensor argmin(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg("argmin()", min_launch, self, dim, keepdim);
}
at::Tensor& argmin_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim, at::Tensor& out) {
  return arg_out("argmin()", min_launch, self, dim, keepdim, out);
}

// ---- cumsum, cumprod ------------------------------------------------------------

enum class Scan { Sum, Prod };

at::Tensor& scan_out(Scan scan, const at::Tensor& self, int64_t dim, Dtype dtype, at::Tensor& out) {
  check_npu(scan == Scan::Sum ? "cumsum" : "cumprod", "self", self);
  const ReduceInput in = reduce_input(self, dim, true);
  // An in-place scan reads what it writes: compute aside when out is self.
  const bool aliased = out.defined() && out.is_alias_of(self);
  auto launch = [&](const at::Tensor& o) {
    const at::Tensor o1 = o.dim() == 0 ? o.view({1}) : o;
    if (scan == Scan::Sum) {
      NPU_RUN(aclnnCumsum, in.self, in.dims[0], acl_dtype_of(o), o1);
    } else {
      NPU_RUN(aclnnCumprod, in.self, at::Scalar(in.dims[0]), acl_dtype_of(o), o1);
    }
  };
  if (aliased) {
    const at::Tensor tmp = new_result(self, self.sizes(), dtype.value_or(out.scalar_type()), launch);
    out.copy_(tmp);
    return out;
  }
  check_npu(scan == Scan::Sum ? "cumsum" : "cumprod", "out", out);
  at::native::resize_output(out, self.sizes());
  at::assert_no_internal_overlap(out);  // CPU refuses an out whose elements share memory
  write_out(out, self.sizes(), dtype.value_or(out.scalar_type()), launch);
  return out;
}

at::Tensor scan(Scan s, const at::Tensor& self, int64_t dim, Dtype dtype) {
  at::Tensor out = at::empty({0}, self.options().dtype(dtype ? *dtype : at::native::get_dtype_from_self(self, std::nullopt, true)));
  return scan_out(s, self, dim, dtype, out);
}

at::Tensor cumsum(const at::Tensor& self, int64_t dim, Dtype dtype) { return scan(Scan::Sum, self, dim, dtype); }
at::Tensor& cumsum_out(const at::Tensor& self, int64_t dim, Dtype dtype, at::Tensor& out) {
  return scan_out(Scan::Sum, self, dim, dtype, out);
}
at::Tensor& cumsum_(at::Tensor& self, int64_t dim, Dtype dtype) {
  return scan_out(Scan::Sum, self, dim, dtype.value_or(self.scalar_type()), self);
}
at::Tensor cumprod(const at::Tensor& self, int64_t dim, Dtype dtype) { return scan(Scan::Prod, self, dim, dtype); }
at::Tensor& cumprod_out(const at::Tensor& self, int64_t dim, Dtype dtype, at::Tensor& out) {
  return scan_out(Scan::Prod, self, dim, dtype, out);
}
at::Tensor& cumprod_(at::Tensor& self, int64_t dim, Dtype dtype) {
  return scan_out(Scan::Prod, self, dim, dtype.value_or(self.scalar_type()), self);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("prod", TORCH_FN(prod_all));
  m.impl("prod.dim_int", TORCH_FN(prod_dim));
  m.impl("prod.int_out", TORCH_FN(prod_dim_out));
  m.impl("max.dim", TORCH_FN(max_dim));
  m.impl("max.dim_max", TORCH_FN(max_dim_out));
  m.impl("min.dim", TORCH_FN(min_dim));
  m.impl("min.dim_min", TORCH_FN(min_dim_out));
  m.impl("argmax", TORCH_FN(argmax));
  m.impl("argmax.out", TORCH_FN(argmax_out));
  m.impl("argmin", TORCH_FN(argmin));
  m.impl("argmin.out", TORCH_FN(argmin_out));
  m.impl("cumsum", TORCH_FN(cumsum));
  m.impl("cumsum.out", TORCH_FN(cumsum_out));
  m.impl("cumsum_", TORCH_FN(cumsum_));
  m.impl("cumprod", TORCH_FN(cumprod));
  m.impl("cumprod.out", TORCH_FN(cumprod_out));
  m.impl("cumprod_", TORCH_FN(cumprod_));
}

}  // namespace npu::ops
