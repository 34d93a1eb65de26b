#include "device_model/storage_desc.h"

#include <algorithm>
#include <stdexcept>

namespace npu::model {

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t product(const Dims& dims) {
  int64_t n = 1;
  for (const int64_t d : dims) n *= d;
  return n;
}

Dims contiguous(const Dims& sizes) {
  Dims strides(sizes.size());
  int64_t s = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

bool is_nz_family(Format format) {
  switch (format) {
    case Format::FRACTAL_NZ:
    case Format::FRACTAL_NZ_C0_16:
    case Format::FRACTAL_NZ_C0_32:
    case Format::FRACTAL_NZ_C0_2:
    case Format::FRACTAL_NZ_C0_4:
    case Format::FRACTAL_NZ_C0_8:
      return true;
    default:
      return false;
  }
}

// The formats whose logical shape is NCHW and whose lower ranks are padded.
bool pads_to_4d(Format format) {
  return format == Format::NC1HWC0 || format == Format::FRACTAL_Z || format == Format::NC1HWC0_C04;
}

[[noreturn]] void reject(Format format, const Dims& sizes, DType dtype, const std::string& why) {
  throw std::invalid_argument("format " + format_label(format) + " cannot hold a " + dtype_name(dtype) +
                              " tensor of shape " + dims_str(sizes) + ": " + why);
}

std::string rank_range(const FormatInfo& info) {
  if (info.max_rank == kAnyRank) return std::to_string(info.min_rank) + " or more";
  if (info.min_rank == info.max_rank) return std::to_string(info.min_rank);
  return std::to_string(info.min_rank) + " to " + std::to_string(info.max_rank);
}

}  // namespace

int64_t StorageDesc::base_numel() const { return product(base_sizes); }

int64_t StorageDesc::storage_numel() const { return product(storage_sizes); }

std::size_t StorageDesc::storage_nbytes() const {
  return static_cast<std::size_t>(storage_numel()) * itemsize(dtype);
}

bool StorageDesc::operator==(const StorageDesc& other) const {
  return base_sizes == other.base_sizes && base_strides == other.base_strides &&
         storage_sizes == other.storage_sizes && origin_format == other.origin_format &&
         npu_format == other.npu_format && dtype == other.dtype;
}

FormatChoice resolve_format(Format requested, const Dims& base_sizes) {
  const auto rank = static_cast<int64_t>(base_sizes.size());
  FormatChoice choice{requested, requested, {}};
  if ((is_nz_family(requested) && rank < 2) || (requested == Format::NCHW && rank != 4)) {
    choice.format = Format::ND;
    choice.warning = "format " + format_label(requested) + " does not apply to shape " + dims_str(base_sizes) +
                     " (rank " + std::to_string(rank) + "); using " + format_label(Format::ND) + " instead";
  }
  return choice;
}

int64_t format_c0(Format format, DType dtype) {
  switch (format) {
    case Format::NC1HWC0:
    case Format::FRACTAL_Z:
    case Format::NDC1HWC0:
    case Format::FRACTAL_Z_3D:
      return 16;
    case Format::NC1HWC0_C04:
      return 4;
    case Format::FRACTAL_NZ:
      // torch_npu: one 32-byte block for 1-byte types, 16 elements otherwise
      // (CANN's aclnn would use 32 / itemsize; see FORMATS.md).
      return 32 / static_cast<int64_t>(std::min<std::size_t>(itemsize(dtype), 2));
    case Format::FRACTAL_NZ_C0_16: return 16;
    case Format::FRACTAL_NZ_C0_32: return 32;
    case Format::FRACTAL_NZ_C0_2: return 2;
    case Format::FRACTAL_NZ_C0_4: return 4;
    case Format::FRACTAL_NZ_C0_8: return 8;
    default:
      return 0;
  }
}

Format nz_format_for_c0(DType dtype, int64_t c0) {
  if (c0 == format_c0(Format::FRACTAL_NZ, dtype)) return Format::FRACTAL_NZ;
  for (const Format f : {Format::FRACTAL_NZ_C0_16, Format::FRACTAL_NZ_C0_32, Format::FRACTAL_NZ_C0_2,
                         Format::FRACTAL_NZ_C0_4, Format::FRACTAL_NZ_C0_8}) {
    if (format_c0(f, dtype) == c0) return f;
  }
  throw std::invalid_argument("no FRACTAL_NZ format has C0 = " + std::to_string(c0) +
                              " (supported: 2, 4, 8, 16, 32)");
}

Dims padded_base_sizes(Format format, const Dims& base_sizes) {
  if (!pads_to_4d(format)) return base_sizes;
  switch (base_sizes.size()) {
    case 0: return {1, 1, 1, 1};
    case 1: return {1, base_sizes[0], 1, 1};
    case 2: return {1, base_sizes[0], base_sizes[1], 1};
    case 3: return {1, base_sizes[0], base_sizes[1], base_sizes[2]};
    default: return base_sizes;
  }
}

void check_format_fits(Format format, const Dims& base_sizes, DType dtype) {
  if (!is_storable_format(format)) {
    reject(format, base_sizes, dtype, "npu-emu cannot store tensors in this format");
  }
  for (const int64_t d : base_sizes) {
    if (d < 0) reject(format, base_sizes, dtype, "sizes must be non-negative");
  }
  const FormatInfo& info = format_info(format);
  const auto rank = static_cast<int64_t>(base_sizes.size());
  if (rank < info.min_rank || rank > info.max_rank) {
    reject(format, base_sizes, dtype,
           "the format takes tensors of rank " + rank_range(info) + ", this one has rank " + std::to_string(rank));
  }
  const std::size_t size = itemsize(dtype);
  if (is_private_format(format) && size != 1 && size != 2 && size != 4 && size != 8) {
    reject(format, base_sizes, dtype,
           "private formats hold 1-, 2-, 4- or 8-byte elements, not " + std::to_string(size) + "-byte ones");
  }
}

Dims infer_storage_shape(Format format, const Dims& base_sizes, DType dtype) {
  check_format_fits(format, base_sizes, dtype);
  const Dims s = padded_base_sizes(format, base_sizes);
  const int64_t c0 = format_c0(format, dtype);
  constexpr int64_t k16 = kFractalEdge;
  switch (format) {
    case Format::NC1HWC0:
    case Format::NC1HWC0_C04:
      return {s[0], cdiv(s[1], c0), s[2], s[3], c0};
    case Format::FRACTAL_Z:
      return {cdiv(s[1], c0) * s[2] * s[3], cdiv(s[0], k16), k16, c0};
    case Format::NDHWC:
      return {s[0], s[2], s[3], s[4], s[1]};
    case Format::NDC1HWC0:
      return {s[0], s[2], cdiv(s[1], c0), s[3], s[4], c0};
    case Format::FRACTAL_Z_3D:
      return {s[2] * cdiv(s[1], c0) * s[3] * s[4], cdiv(s[0], k16), k16, c0};
    case Format::FRACTAL_NZ:
    case Format::FRACTAL_NZ_C0_16:
    case Format::FRACTAL_NZ_C0_32:
    case Format::FRACTAL_NZ_C0_2:
    case Format::FRACTAL_NZ_C0_4:
    case Format::FRACTAL_NZ_C0_8: {
      const std::size_t r = s.size();
      Dims out(s.begin(), s.end() - 2);
      const int64_t m = s[r - 2], k = s[r - 1];
      out.insert(out.end(), {cdiv(k, c0), cdiv(m, k16), k16, c0});
      return out;
    }
    default:
      // Base formats (and the rank labels NC, NCL): storage is the logical shape.
      return s;
  }
}

StorageDesc make_storage_desc(const Dims& base_sizes, DType dtype, Format requested) {
  return describe_storage(base_sizes, dtype, resolve_format(requested, base_sizes).format);
}

StorageDesc describe_storage(const Dims& base_sizes, DType dtype, Format format) {
  StorageDesc desc;
  desc.storage_sizes = infer_storage_shape(format, base_sizes, dtype);
  desc.base_sizes = base_sizes;
  desc.base_strides = contiguous(base_sizes);
  desc.origin_format =
      is_base_format(format) ? format : guess_base_format(static_cast<int64_t>(base_sizes.size()));
  desc.npu_format = format;
  desc.dtype = dtype;
  return desc;
}

std::optional<Dims> contiguous_order(const Dims& sizes, const Dims& strides) {
  if (sizes.size() != strides.size()) return std::nullopt;
  Dims order(sizes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (strides[a] != strides[b]) return strides[a] > strides[b];
    return sizes[a] != 1 && sizes[b] == 1;
  });
  int64_t expected = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (sizes[*it] != 1 && strides[*it] != expected) return std::nullopt;
    expected *= std::max<int64_t>(sizes[*it], 1);
  }
  return order;
}

Dims permuted(const Dims& dims, const Dims& order) {
  Dims out;
  out.reserve(order.size());
  for (const int64_t i : order) out.push_back(dims[i]);
  return out;
}

std::string dims_str(const Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

}  // namespace npu::model
