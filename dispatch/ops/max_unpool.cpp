// max_unpool2d / max_unpool3d (ops/table/pool.yaml, `impl:`): PyTorch gives
// them no meta function; the checks and output layouts here are CPU's.
#include <optional>
#include <string>
#include <vector>

#include <ATen/Context.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/ops/pooling.h"
#include "dispatch/table/structured_call.h"

namespace npu::ops {

namespace caps = npu::table::caps;

namespace {

// The unpooled shape: self's leading dims, then output_size.
std::vector<int64_t> unpooled_shape(const char* name, const at::Tensor& self, const at::Tensor& indices,
                                    at::IntArrayRef output_size, int64_t rank) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": indices must be int64, got ", indices.scalar_type());
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == rank, name, ": output_size must have ", rank,
              " elements, got ", output_size.size());
  const int64_t nd = self.dim();
  TORCH_CHECK(nd == rank + 1 || nd == rank + 2, name, ": self must be ", rank + 1, "-d or ", rank + 2,
              "-d, got ", nd, " dims");
  TORCH_CHECK(self.sizes() == indices.sizes(), name, ": indices must have self's shape ", self.sizes(), ", got ",
              indices.sizes());
  for (int64_t i = 1; i < nd; ++i) {
    TORCH_CHECK(self.size(i) > 0, name, ": self must have non-empty non-batch dims, got ", self.sizes());
  }
  for (const int64_t s : output_size) TORCH_CHECK(s > 0, name, ": output_size must be positive, got ", output_size);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - rank);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  return shape;
}

void check_3d_args(at::IntArrayRef stride, at::IntArrayRef padding) {
  TORCH_CHECK(stride.size() == 3, "max_unpool3d: stride must have 3 elements, got ", stride.size());
  TORCH_CHECK(padding.size() == 3, "max_unpool3d: padding must have 3 elements, got ", padding.size());
  for (const int64_t s : stride) TORCH_CHECK(s > 0, "max_unpool3d: stride must be positive, got ", stride);
}

at::MemoryFormat layout_of(const at::Tensor& self, int64_t rank) {
  return rank == 2 && self.dim() == 4 ? self.suggest_memory_format() : at::MemoryFormat::Contiguous;
}

// CPU's kernels scatter through the indices, so duplicate indices make the
// result depend on the order of the writes; under
// torch.use_deterministic_algorithms(True) CPU raises (or warns) with this op
// name before anything else, and so does npu.
void alert_nondeterministic(int64_t rank) {
  at::globalContext().alertNotDeterministic(rank == 2 ? "max_unpooling2d_forward_out"
                                                      : "max_unpooling3d_forward_out");
}

const char* unpool_name(int64_t rank) { return rank == 2 ? "max_unpool2d" : "max_unpool3d"; }

// Checks max_unpool{rank}d's arguments as CPU does; the output shape, or none
// when it cannot run natively (the caller then falls back for `schema`).
std::optional<std::vector<int64_t>> unpool_native(int64_t rank, const char* schema, const at::Tensor& self,
                                                  const at::Tensor& indices, at::IntArrayRef size,
                                                  at::IntArrayRef stride, at::IntArrayRef padding) {
  alert_nondeterministic(rank);
  if (rank == 3) check_3d_args(stride, padding);
  auto shape = unpooled_shape(unpool_name(rank), self, indices, size, rank);
  if (!npu::run_native(rank == 2 ? caps::aclnnMaxUnpool2d : caps::aclnnMaxUnpool3d, schema,
                       npu::table::operand_dtypes(self.scalar_type(), self))) {
    return std::nullopt;
  }
  return shape;
}

// The fallback with the schema's own arguments (the 2-d schemas take no
// stride and padding).
template <class R, class... Out>
R unpool_fallback(int64_t rank, const char* schema, const at::Tensor& self, const at::Tensor& indices,
                  c10::SymIntArrayRef output_size, at::IntArrayRef stride, at::IntArrayRef padding, Out&... out) {
  if (rank == 2) return npu::fallback_call<R>(schema, self, indices, output_size, out...);
  return npu::fallback_call<R>(schema, self, indices, output_size, stride, padding, out...);
}

// `out` (new, or given to out=) laid out as CPU lays it, then unpooled.
at::Tensor& unpool_into(int64_t rank, const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef size,
                        at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef shape, at::Tensor& out) {
  out.resize_(shape, layout_of(self, rank));
  if (out.numel() == 0) return out;
  if (rank == 2) {
    NPU_RUN(aclnnMaxUnpool2d, self, indices, size, out);
  } else {
    NPU_RUN(aclnnMaxUnpool3d, self, indices, size, stride, padding, out);
  }
  return out;
}

}  // namespace

at::Tensor max_unpool(int64_t rank, const char* schema, const at::Tensor& self, const at::Tensor& indices,
                      c10::SymIntArrayRef output_size, at::IntArrayRef stride, at::IntArrayRef padding) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(output_size);
  const auto shape = unpool_native(rank, schema, self, indices, size, stride, padding);
  if (!shape) return unpool_fallback<at::Tensor>(rank, schema, self, indices, output_size, stride, padding);
  at::Tensor out = at::empty({0}, self.options());
  return unpool_into(rank, self, indices, size, stride, padding, *shape, out);
}

at::Tensor& max_unpool_out(int64_t rank, const char* schema, const at::Tensor& self, const at::Tensor& indices,
                           c10::SymIntArrayRef output_size, at::IntArrayRef stride, at::IntArrayRef padding,
                           at::Tensor& out) {
  const at::IntArrayRef size = C10_AS_INTARRAYREF_SLOW(output_size);
  const auto shape = unpool_native(rank, schema, self, indices, size, stride, padding);
  if (!shape) return unpool_fallback<at::Tensor&>(rank, schema, self, indices, output_size, stride, padding, out);
  TORCH_CHECK(out.dtype() == self.dtype(), unpool_name(rank), ": out must have self's dtype ", self.dtype());
  return unpool_into(rank, self, indices, size, stride, padding, *shape, out);
}

}  // namespace npu::ops
