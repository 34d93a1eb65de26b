// See foreach_route.h.
#include "dispatch/ops/foreach_route.h"

#include <algorithm>
#include <cstdint>

#include <ATen/MemoryOverlap.h>

#include "dispatch/ops/op_runner.h"
#include "dispatch/runtime/npu_device.h"

namespace npu::ops {

bool is_list_kernel_dtype(at::ScalarType type) {
  return type == at::kFloat || type == at::kHalf || type == at::kBFloat16 || type == at::kDouble;
}

namespace {

// The bytes a tensor's elements span (empty for an empty tensor).
struct Span {
  uintptr_t begin, end;
  std::size_t position;
};

}  // namespace

bool overlap_across_positions(std::initializer_list<at::TensorList> lists) {
  std::vector<Span> spans;
  for (const at::TensorList& list : lists) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const at::Tensor& t = list[i];
      if (!t.defined() || t.numel() == 0) continue;
      int64_t extent = 1;
      for (int64_t d = 0; d < t.dim(); ++d) extent += (t.size(d) - 1) * t.stride(d);
      const auto begin = reinterpret_cast<uintptr_t>(t.const_data_ptr());
      spans.push_back({begin, begin + static_cast<uintptr_t>(extent) * t.element_size(), i});
    }
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  // Sweep in address order; `active` holds the spans still open at the
  // current start. Entries of one position may overlap (self and other of
  // _foreach_mul_(a, a)); any other overlap is a conflict.
  std::vector<Span> active;
  for (const Span& s : spans) {
    active.erase(std::remove_if(active.begin(), active.end(), [&](const Span& a) { return a.end <= s.begin; }),
                 active.end());
    for (const Span& a : active) {
      if (a.position != s.position) return true;
    }
    active.push_back(s);
  }
  return false;
}

bool foreach_fast_route(std::initializer_list<at::TensorList> lists, bool in_place) {
  const at::TensorList self = *lists.begin();
  if (self.empty() || !self[0].defined() || !self[0].is_privateuseone()) return false;
  const c10::Device device = self[0].device();
  for (const at::TensorList& list : lists) {
    if (list.size() != self.size()) return false;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const at::Tensor& t = list[i];
      if (!t.defined() || t.device() != device || t.scalar_type() != self[i].scalar_type() ||
          t.sizes() != self[i].sizes() || !is_list_kernel_dtype(t.scalar_type()) || any_private_format(t)) {
        return false;
      }
    }
  }
  if (!in_place) return true;
  for (std::size_t i = 0; i < self.size(); ++i) {
    if (at::has_internal_overlap(self[i]) != at::MemOverlap::No) return false;
    for (const at::TensorList& list : lists) {
      const at::MemOverlapStatus status = at::get_overlap_status(self[i], list[i]);
      if (status == at::MemOverlapStatus::Partial) return false;
    }
  }
  // The list kernel updates the positions concurrently, where PyTorch's loop
  // goes one after the other: positions sharing memory keep the loop.
  return !overlap_across_positions(lists);
}

std::vector<at::ScalarType> foreach_dtypes(at::TensorList list) {
  std::vector<at::ScalarType> types;
  for (const at::Tensor& t : list) {
    if (std::find(types.begin(), types.end(), t.scalar_type()) == types.end()) types.push_back(t.scalar_type());
  }
  return types;
}

ListDeviceGuard::ListDeviceGuard(at::TensorList list) {
  if (!list.empty() && list[0].device().index() != current_device()) guard_.emplace(list[0].device());
}

}  // namespace npu::ops
