// Times every private-format transform, both directions and every element
// size, on tensors of at least 16 MB (32 MB by default), against a plain
// single-threaded std::memcpy of the same bytes in the same run (a oneTBB
// parallel memcpy is shown for reference). ratio = memcpy time / transform
// time, so 1.0 means "as fast as memcpy"; the goal is >= 0.5. Times are the
// best of --reps runs after a warm-up run, the least disturbed by other load.
//
//   bench_format_transform [--mb N] [--reps N] [--threads N] [--format NAME] [--json]
//
// --threads caps the oneTBB workers (default: all cores); --threads 1 gives
// per-core efficiency, which a machine shared with other work measures more
// steadily.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "device_model/storage_desc.h"
#include "kernels/format/format_transform.h"

namespace {

using npu::model::Dims;
using npu::model::DType;
using npu::model::Format;

struct Options {
  int64_t megabytes = 32;
  int reps = 7;
  int threads = 0;  // 0: oneTBB's default
  std::string only;  // format name filter
  bool json = false;
};

struct Timing {
  double wall_ms;
  double cpu_ms;  // process CPU time: with one thread, immune to other load
};

struct Result {
  std::string format;
  std::size_t itemsize;
  Dims shape;
  double mb;
  Timing memcpy, parallel_memcpy, to_storage, to_base;
};

DType dtype_of_size(std::size_t size) {
  switch (size) {
    case 1: return DType::UInt8;
    case 2: return DType::Float16;
    case 4: return DType::Float32;
    default: return DType::Float64;
  }
}

int64_t round_up(int64_t v, int64_t m) { return std::max<int64_t>(m, (v + m - 1) / m * m); }

// A typical shape for the format with about `elems` elements, with the
// blocked dims multiples of 16 so padding does not skew the comparison.
Dims shape_for(Format f, int64_t elems) {
  switch (f) {
    case Format::NC1HWC0:
    case Format::NC1HWC0_C04:
      return {std::max<int64_t>(1, elems / (64 * 56 * 56)), 64, 56, 56};  // conv activation
    case Format::FRACTAL_Z:
      return {round_up(elems / (256 * 9), 16), 256, 3, 3};  // conv weight
    case Format::NDC1HWC0:
    case Format::NDHWC:
      return {std::max<int64_t>(1, elems / (32 * 8 * 28 * 28)), 32, 8, 28, 28};
    case Format::FRACTAL_Z_3D:
      return {round_up(elems / (64 * 27), 16), 64, 3, 3, 3};
    default:  // NZ family: a batch of 1024 x 1024 matrices
      return {std::max<int64_t>(1, elems / (1024 * 1024)), 1024, 1024};
  }
}

double cpu_now_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// The best of `reps` runs after a warm-up run (which faults pages in and
// spins up workers).
template <class F>
Timing best_of(int reps, F&& f) {
  f();
  Timing best{1e300, 1e300};
  for (int i = 0; i < reps; ++i) {
    const double cpu0 = cpu_now_ms();
    const auto start = std::chrono::steady_clock::now();
    f();
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    best.wall_ms = std::min(best.wall_ms, wall);
    best.cpu_ms = std::min(best.cpu_ms, cpu_now_ms() - cpu0);
  }
  return best;
}

Result run_case(Format f, std::size_t size, const Options& opt) {
  const DType dtype = dtype_of_size(size);
  const int64_t elems = opt.megabytes * (int64_t{1} << 20) / static_cast<int64_t>(size);
  const auto desc = npu::model::make_storage_desc(shape_for(f, elems), dtype, f);
  const std::size_t base_bytes = static_cast<std::size_t>(desc.base_numel()) * size;
  std::unique_ptr<unsigned char[]> base(new unsigned char[base_bytes]);
  std::unique_ptr<unsigned char[]> back(new unsigned char[base_bytes]);
  std::unique_ptr<unsigned char[]> storage(new unsigned char[desc.storage_nbytes()]);
  for (std::size_t i = 0; i < base_bytes; ++i) base[i] = static_cast<unsigned char>(i * 131 + 7);

  Result r{npu::model::format_name(f), size, desc.base_sizes, base_bytes / 1048576.0, {}, {}, {}, {}};
  r.memcpy = best_of(opt.reps, [&] { std::memcpy(back.get(), base.get(), base_bytes); });
  r.parallel_memcpy = best_of(opt.reps, [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, base_bytes, 1 << 20), [&](const auto& range) {
      std::memcpy(back.get() + range.begin(), base.get() + range.begin(), range.size());
    });
  });
  r.to_storage = best_of(opt.reps, [&] { npu::kernels::base_to_storage(desc, base.get(), storage.get()); });
  r.to_base = best_of(opt.reps, [&] { npu::kernels::storage_to_base(desc, storage.get(), back.get()); });
  if (std::memcmp(base.get(), back.get(), base_bytes) != 0) {
    std::fprintf(stderr, "round trip of %s (%zu-byte elements) is not exact\n", r.format.c_str(), size);
    std::exit(1);
  }
  return r;
}

std::string shape_json(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      opt.json = true;
    } else if (a == "--mb" && i + 1 < argc) {
      opt.megabytes = std::max<int64_t>(16, std::atoll(argv[++i]));
    } else if (a == "--reps" && i + 1 < argc) {
      opt.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--threads" && i + 1 < argc) {
      opt.threads = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--format" && i + 1 < argc) {
      opt.only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--mb N (>= 16)] [--reps N] [--threads N] [--format NAME] [--json]\n", argv[0]);
      return 2;
    }
  }
  std::unique_ptr<tbb::global_control> limit;
  if (opt.threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, opt.threads);
  }
  const Format formats[] = {Format::NC1HWC0,      Format::NC1HWC0_C04,      Format::FRACTAL_Z,
                            Format::NDHWC,        Format::NDC1HWC0,         Format::FRACTAL_Z_3D,
                            Format::FRACTAL_NZ,   Format::FRACTAL_NZ_C0_16, Format::FRACTAL_NZ_C0_32,
                            Format::FRACTAL_NZ_C0_2, Format::FRACTAL_NZ_C0_4, Format::FRACTAL_NZ_C0_8};
  std::vector<Result> results;
  for (const Format f : formats) {
    if (!opt.only.empty() && opt.only != npu::model::format_name(f)) continue;
    for (const std::size_t size : {1, 2, 4, 8}) results.push_back(run_case(f, size, opt));
  }

  // With one thread, process CPU time is the transform's own work, so the
  // CPU-time ratio holds even when other processes share the cores.
  const bool cpu_ratios = opt.threads == 1;
  if (opt.json) {
    std::printf("[\n");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      std::printf(
          "  {\"format\": \"%s\", \"itemsize\": %zu, \"shape\": %s, \"mb\": %.1f, \"threads\": %d, "
          "\"memcpy_ms\": %.3f, \"parallel_memcpy_ms\": %.3f, \"to_storage_ms\": %.3f, \"to_base_ms\": %.3f, "
          "\"ratio_to_storage\": %.3f, \"ratio_to_base\": %.3f",
          r.format.c_str(), r.itemsize, shape_json(r.shape).c_str(), r.mb, opt.threads, r.memcpy.wall_ms,
          r.parallel_memcpy.wall_ms, r.to_storage.wall_ms, r.to_base.wall_ms,
          r.memcpy.wall_ms / r.to_storage.wall_ms, r.memcpy.wall_ms / r.to_base.wall_ms);
      if (cpu_ratios) {
        std::printf(", \"cpu_ratio_to_storage\": %.3f, \"cpu_ratio_to_base\": %.3f",
                    r.memcpy.cpu_ms / r.to_storage.cpu_ms, r.memcpy.cpu_ms / r.to_base.cpu_ms);
      }
      std::printf("}%s\n", i + 1 < results.size() ? "," : "");
    }
    std::printf("]\n");
    return 0;
  }
  std::printf("%-17s %4s %-20s %6s %8s %8s %8s %8s %8s %8s%s\n", "format", "size", "shape", "MB", "memcpy",
              "par.mcpy", "to_stor", "to_base", "ratio->", "ratio<-", cpu_ratios ? "    cpu->    cpu<-" : "");
  for (const Result& r : results) {
    std::printf("%-17s %4zu %-20s %6.1f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f", r.format.c_str(), r.itemsize,
                shape_json(r.shape).c_str(), r.mb, r.memcpy.wall_ms, r.parallel_memcpy.wall_ms, r.to_storage.wall_ms,
                r.to_base.wall_ms, r.memcpy.wall_ms / r.to_storage.wall_ms, r.memcpy.wall_ms / r.to_base.wall_ms);
    if (cpu_ratios) {
      std::printf(" %8.2f %8.2f", r.memcpy.cpu_ms / r.to_storage.cpu_ms, r.memcpy.cpu_ms / r.to_base.cpu_ms);
    }
    std::printf("\n");
  }
  std::printf("wall-clock ms, best of %d; ratio = plain memcpy time / transform time (>= 0.5 is the goal)%s\n",
              opt.reps, cpu_ratios ? "; cpu = the same ratio in process CPU time" : "");
  return 0;
}
