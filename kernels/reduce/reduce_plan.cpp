#include "kernels/reduce/reduce_plan.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace npu::kernels {

namespace {

struct DimInfo {
  int64_t size;
  int64_t in;
  std::array<int64_t, 2> out;
};

// Maps each input dim to the output dim holding it (-1: none), checking sizes.
std::vector<int64_t> output_dims(const TensorView& in, const DimMask& mask, const TensorView& out) {
  std::vector<int64_t> map(in.dim(), -1);
  const bool keepdim = out.dim() == in.dim();
  int64_t next = 0;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (keepdim) {
      map[d] = d;
    } else if (!mask[d]) {
      map[d] = next++;
    }
  }
  const Shape expected = reduced_shape(in.sizes, mask, keepdim);
  if (out.sizes != expected) {
    throw KernelError("reduction output has shape " + shape_str(out.sizes) + ", expected " + shape_str(expected));
  }
  return map;
}

}  // namespace

ReducePlan make_reduce_plan(const TensorView& in, const DimMask& mask, const std::array<const TensorView*, 2>& outs,
                            bool reorder) {
  std::array<std::vector<int64_t>, 2> maps;
  for (std::size_t k = 0; k < 2; ++k) {
    if (outs[k] != nullptr) maps[k] = output_dims(in, mask, *outs[k]);
  }
  std::vector<DimInfo> kept, red;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (in.sizes[d] == 1) continue;
    DimInfo info{in.sizes[d], in.strides[d], {0, 0}};
    for (std::size_t k = 0; k < 2; ++k) {
      if (outs[k] != nullptr && maps[k][d] >= 0) info.out[k] = outs[k]->strides[maps[k][d]];
    }
    (mask[d] ? red : kept).push_back(info);
  }
  if (reorder) {
    std::stable_sort(red.begin(), red.end(),
                     [](const DimInfo& a, const DimInfo& b) { return std::llabs(a.in) > std::llabs(b.in); });
  }
  // Folds dim `cur` into the previous one when stepping the previous once
  // equals stepping `cur` through its whole extent, for every operand.
  auto coalesce = [](std::vector<DimInfo>& dims) {
    std::vector<DimInfo> merged;
    for (const DimInfo& cur : dims) {
      if (!merged.empty()) {
        DimInfo& prev = merged.back();
        const bool ok = prev.in == cur.in * cur.size && prev.out[0] == cur.out[0] * cur.size &&
                        prev.out[1] == cur.out[1] * cur.size;
        if (ok && cur.size != 0 && prev.size != 0) {
          prev.size *= cur.size;
          prev.in = cur.in;
          prev.out = cur.out;
          continue;
        }
      }
      merged.push_back(cur);
    }
    dims = std::move(merged);
  };
  coalesce(kept);
  coalesce(red);
  ReducePlan plan;
  for (const DimInfo& k : kept) {
    plan.kept_sizes.push_back(k.size);
    plan.kept_in.push_back(k.in);
    plan.kept_out[0].push_back(k.out[0]);
    plan.kept_out[1].push_back(k.out[1]);
    plan.outputs *= k.size;
  }
  for (const DimInfo& r : red) {
    plan.red_sizes.push_back(r.size);
    plan.red_in.push_back(r.in);
    plan.reduce_size *= r.size;
  }
  return plan;
}

void require_nonempty_reduction(const char* op, const TensorView& in, const DimMask& mask) {
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (mask[d] && in.sizes[d] == 0) {
      throw KernelError(std::string(op) + "(): Expected reduction dim " + std::to_string(d) +
                        " to have non-zero size.");
    }
  }
}

}  // namespace npu::kernels
