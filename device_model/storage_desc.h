// The storage descriptor every NPU storage carries, and how its physical
// (storage) shape follows from the logical sizes, the format and the dtype.
// FORMATS.md, "C0 by dtype" and "Storage shapes", is the spec; where sources
// disagree this follows torch_npu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device_model/dtype.h"
#include "device_model/format.h"

namespace npu::model {

using Dims = std::vector<int64_t>;

// M0 and N0, the edge of a cube fractal: 16 on every SoC npu-emu models.
inline constexpr int64_t kFractalEdge = 16;

// What torch_npu's NPUStorageDesc holds. It describes the storage, so every
// view of one storage shares it.
struct StorageDesc {
  Dims base_sizes;    // the logical sizes (tensor.size())
  Dims base_strides;  // contiguous strides of base_sizes
  Dims storage_sizes;  // the physical shape in npu_format
  // The base format the data is viewed in once converted back: the format
  // itself for base formats, else the format guessed from the rank.
  Format origin_format = Format::ND;
  Format npu_format = Format::ND;
  DType dtype = DType::Float32;

  int64_t base_numel() const;
  int64_t storage_numel() const;
  std::size_t storage_nbytes() const;  // what the storage must allocate

  bool operator==(const StorageDesc& other) const;
  bool operator!=(const StorageDesc& other) const { return !(*this == other); }
};

// The outcome of asking for `requested` on a tensor of some rank: FRACTAL_NZ
// (and its C0 variants) below rank 2, and NCHW on a rank other than 4, fall
// back to ND. The caller warns with `warning` when fell_back().
struct FormatChoice {
  Format requested = Format::ND;
  Format format = Format::ND;  // what the tensor gets
  std::string warning;          // empty unless fell_back()

  bool fell_back() const { return format != requested; }
};

// Applies the rank fallbacks only; does not check that the result fits.
FormatChoice resolve_format(Format requested, const Dims& base_sizes);

// C0, the channel (or K) block of a blocked format: 16 for NC1HWC0,
// FRACTAL_Z, NDC1HWC0 and FRACTAL_Z_3D; 4 for NC1HWC0_C04; for FRACTAL_NZ
// 32 / min(itemsize, 2) (16, or 32 for 1-byte dtypes); the explicit value for
// FRACTAL_NZ_C0_*. 0 for formats that do not block.
int64_t format_c0(Format format, DType dtype);

// The NZ-family format that stores `dtype` with this C0: FRACTAL_NZ when c0 is
// the dtype's own FRACTAL_NZ C0, else the matching FRACTAL_NZ_C0_*. Throws
// std::invalid_argument when no NZ format has that C0.
Format nz_format_for_c0(DType dtype, int64_t c0);

// The logical sizes the storage shape is computed from: ranks below 4 padded
// for the 4-D blocked formats ([] -> [1,1,1,1], [a] -> [1,a,1,1],
// [a,b] -> [1,a,b,1], [a,b,c] -> [1,a,b,c]); other formats unchanged.
Dims padded_base_sizes(Format format, const Dims& base_sizes);

// Throws std::invalid_argument, naming the format (name and id), the shape
// and the dtype, unless a tensor of these sizes and dtype can be stored in
// `format` as given (no fallback applied): the format is storable, sizes are
// non-negative, the rank is allowed, and a private format's elements are 1,
// 2, 4 or 8 bytes.
void check_format_fits(Format format, const Dims& base_sizes, DType dtype);

// The storage shape of a tensor of these logical sizes in `format` (no
// fallback applied). Throws as check_format_fits.
Dims infer_storage_shape(Format format, const Dims& base_sizes, DType dtype);

// The descriptor of a storage that holds a tensor of these sizes in `format`
// as given (no fallback applied). Throws as check_format_fits.
StorageDesc describe_storage(const Dims& base_sizes, DType dtype, Format format);

// The descriptor of a new storage for a tensor of these sizes in `requested`,
// after resolve_format's fallbacks (desc.npu_format is the format used).
// Throws as check_format_fits.
StorageDesc make_storage_desc(const Dims& base_sizes, DType dtype, Format requested);

// The order in which `sizes`/`strides` are the dims of a contiguous tensor:
// p such that sizes[p[0]], sizes[p[1]], ... with strides[p[...]] is
// contiguous (strides of size-1 dims are not looked at), or nullopt when no
// order is. This is how a private-format tensor passed with permuted dims (a
// transposed NZ weight) is told from a view of part of its storage: its
// logical (origin) shape is sizes in this order. Dims are ordered by stride,
// largest first; between equal strides a dim of size other than 1 comes first,
// as in a contiguous tensor. Both sides of the aclnn seam use this one rule.
std::optional<Dims> contiguous_order(const Dims& sizes, const Dims& strides);

// `dims` taken in `order`: dims[order[0]], dims[order[1]], ...
Dims permuted(const Dims& dims, const Dims& order);

std::string dims_str(const Dims& dims);  // "[2, 3]"

}  // namespace npu::model
