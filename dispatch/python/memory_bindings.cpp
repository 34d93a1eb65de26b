// npu_emu._C's memory functions: the caching allocator's statistics,
// snapshot, limits and raw allocations, for torch.npu.memory. Thin: the logic
// lives in memory/. Errors go through torch's translation, so an OOM is
// torch.OutOfMemoryError in Python.
#include <utility>

#include <ATen/core/CachingHostAllocator.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

#include "dispatch/memory/alloc_config.h"
#include "dispatch/memory/npu_allocator.h"
#include "dispatch/runtime/npu_device.h"

namespace py = pybind11;

namespace npu {
namespace {

using c10::CachingDeviceAllocator::DeviceStats;
using c10::CachingDeviceAllocator::Stat;
using c10::CachingDeviceAllocator::StatArray;

py::dict stat_dict(const Stat& s) {
  py::dict d;
  d["current"] = s.current;
  d["peak"] = s.peak;
  d["allocated"] = s.allocated;
  d["freed"] = s.freed;
  return d;
}

py::dict stat_array_dict(const StatArray& a) {
  py::dict d;
  d["all"] = stat_dict(a[0]);
  d["small_pool"] = stat_dict(a[1]);
  d["large_pool"] = stat_dict(a[2]);
  return d;
}

// Nested like torch.cuda's _cuda_memoryStats (its keys are the fields' names);
// Python flattens it with dots.
py::dict memory_stats(int device) {
  const DeviceStats s = memory::device_allocator(static_cast<c10::DeviceIndex>(device)).stats();
  py::dict d;
  static constexpr std::pair<const char*, StatArray DeviceStats::*> kStatArrays[] = {
      {"allocation", &DeviceStats::allocation},         {"segment", &DeviceStats::segment},
      {"active", &DeviceStats::active},                 {"inactive_split", &DeviceStats::inactive_split},
      {"allocated_bytes", &DeviceStats::allocated_bytes}, {"reserved_bytes", &DeviceStats::reserved_bytes},
      {"active_bytes", &DeviceStats::active_bytes},     {"inactive_split_bytes", &DeviceStats::inactive_split_bytes},
      {"requested_bytes", &DeviceStats::requested_bytes}};
  for (const auto& [key, field] : kStatArrays) d[key] = stat_array_dict(s.*field);
  d["num_alloc_retries"] = s.num_alloc_retries;
  d["num_ooms"] = s.num_ooms;
  d["oversize_allocations"] = stat_dict(s.oversize_allocations);
  d["oversize_segments"] = stat_dict(s.oversize_segments);
  d["num_sync_all_streams"] = s.num_sync_all_streams;
  d["num_device_alloc"] = s.num_device_alloc;
  d["num_device_free"] = s.num_device_free;
  d["max_split_size"] = s.max_split_size;
  return d;
}

py::list memory_snapshot() {
  py::list segments;
  for (const auto& seg : memory::snapshot_all_devices()) {
    py::dict d;
    d["device"] = static_cast<int>(seg.device);
    d["address"] = seg.address;
    d["total_size"] = seg.total_size;
    d["allocated_size"] = seg.allocated_size;
    d["active_size"] = seg.active_size;
    d["requested_size"] = seg.requested_size;
    d["stream"] = seg.stream;
    d["segment_type"] = seg.is_large ? "large" : "small";
    py::list blocks;
    for (const auto& b : seg.blocks) {
      py::dict bd;
      bd["address"] = b.address;
      bd["size"] = b.size;
      bd["requested_size"] = b.requested_size;
      bd["state"] = b.state;
      blocks.append(bd);
    }
    d["blocks"] = blocks;
    segments.append(d);
  }
  return segments;
}

py::dict config_dict(const memory::AllocatorConfig& c) {
  py::dict d;
  d["max_split_size"] = c.max_split_size == std::numeric_limits<std::size_t>::max()
                            ? py::object(py::none())
                            : py::object(py::int_(c.max_split_size));
  d["garbage_collection_threshold"] = c.garbage_collection_threshold;
  d["roundup_power2_divisions"] =
      std::vector<std::size_t>(c.roundup_power2_divisions.begin(), c.roundup_power2_divisions.end());
  d["expandable_segments"] = c.expandable_segments;
  d["base_addr_aligned_kb"] = c.base_addr_aligned_kb;
  d["caching_enabled"] = c.caching_enabled;
  d["per_process_memory_fraction"] = c.per_process_memory_fraction
                                         ? py::object(py::float_(*c.per_process_memory_fraction))
                                         : py::object(py::none());
  return d;
}

py::dict duration_dict(const c10::CachingAllocator::DurationStat& s) {
  py::dict d;
  d["total"] = s.total;
  d["max"] = s.max;
  d["min"] = s.min;
  d["count"] = s.count;
  d["avg"] = s.count == 0 ? 0 : s.total / s.count;
  return d;
}

// The pinned host allocator's statistics (pinned_allocator.cpp), nested like
// torch.cuda's _cuda_hostMemoryStats.
py::dict host_memory_stats() {
  const at::HostStats s = at::getHostAllocator(c10::DeviceType::PrivateUse1)->get_stats();
  py::dict d;
  static constexpr std::pair<const char*, at::Stat at::HostStats::*> kStats[] = {
      {"active_requests", &at::HostStats::active_requests},
      {"active_bytes", &at::HostStats::active_bytes},
      {"allocations", &at::HostStats::allocations},
      {"allocated_bytes", &at::HostStats::allocated_bytes}};
  for (const auto& [key, field] : kStats) d[key] = stat_dict(s.*field);
  d["host_alloc_time"] = duration_dict(s.host_alloc_time);
  d["host_free_time"] = duration_dict(s.host_free_time);
  d["num_host_alloc"] = s.num_host_alloc;
  d["num_host_free"] = s.num_host_free;
  return d;
}

}  // namespace

void bind_memory(py::module& m) {
  m.def("_npu_host_memory_stats", torch::wrap_pybind_function(&host_memory_stats));
  m.def("_npu_reset_accumulated_host_memory_stats", torch::wrap_pybind_function([] {
          at::getHostAllocator(c10::DeviceType::PrivateUse1)->reset_accumulated_stats();
        }));
  m.def("_npu_reset_peak_host_memory_stats", torch::wrap_pybind_function([] {
          at::getHostAllocator(c10::DeviceType::PrivateUse1)->reset_peak_stats();
        }));
  m.def("_npu_host_empty_cache", torch::wrap_pybind_function([] {
          at::getHostAllocator(c10::DeviceType::PrivateUse1)->empty_cache();
        }));
  m.def("_npu_memory_stats", torch::wrap_pybind_function(&memory_stats));
  m.def("_npu_memory_snapshot", torch::wrap_pybind_function(&memory_snapshot));
  m.def("_npu_reset_peak_memory_stats", torch::wrap_pybind_function([](int device) {
          memory::device_allocator(static_cast<c10::DeviceIndex>(device)).reset_peak_stats();
        }));
  m.def("_npu_reset_accumulated_memory_stats", torch::wrap_pybind_function([](int device) {
          memory::device_allocator(static_cast<c10::DeviceIndex>(device)).reset_accumulated_stats();
        }));
  m.def("_npu_empty_cache", torch::wrap_pybind_function([] { npu_allocator().emptyCache({0, 0}); }));
  m.def("_npu_set_memory_fraction", torch::wrap_pybind_function([](double fraction, int device) {
          memory::device_allocator(static_cast<c10::DeviceIndex>(device)).set_memory_fraction(fraction);
        }));
  m.def("_npu_caching_allocator_alloc", torch::wrap_pybind_function([](size_t size, int device, uintptr_t stream) {
          return reinterpret_cast<uintptr_t>(
              memory::raw_alloc(size, static_cast<c10::DeviceIndex>(device), reinterpret_cast<aclrtStream>(stream)));
        }));
  m.def("_npu_caching_allocator_delete", torch::wrap_pybind_function([](uintptr_t ptr) {
          memory::raw_delete(reinterpret_cast<void*>(ptr));
        }));
  // The configuration in effect (parsed from the environment on first use),
  // and a parser for a given string, both as dicts.
  m.def("_npu_allocator_config", torch::wrap_pybind_function([] { return config_dict(memory::allocator_config()); }));
  m.def("_npu_parse_allocator_config", torch::wrap_pybind_function([](const std::string& text) -> py::dict {
          try {
            return config_dict(memory::parse_allocator_config(text));
          } catch (const std::invalid_argument& e) {
            TORCH_CHECK(false, e.what());
          }
        }));
}

}  // namespace npu
