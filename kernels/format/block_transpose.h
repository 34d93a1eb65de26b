// Internal to the format transforms: the transpose every blocked layout is
// made of. A block is `width` source rows of `len` elements; in storage the
// same data is `len` runs of `width` contiguous elements. Strides are in
// bytes so that an "element" can be a whole C0 run (the NZ transform moves
// runs of 2 to 8 bytes as single elements).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace npu::kernels::format_detail {

// Blocks are moved in square tiles of this many elements a side, which keeps
// the source rows and the storage runs of one tile in L1.
inline constexpr int64_t kTileEdge = 16;

// For r < width and s < len: element (r, s), at rows + r * row_stride +
// s * sizeof(U), is written to out + s * out_stride + r * sizeof(U). Rows
// r >= valid are written as zeros. Reads may run past an element that is
// needed, up to a whole tile, but never at or past `in_end`, the end of the
// source buffer.
template <class U>
void pack_block(const char* rows, int64_t row_stride, int64_t valid, int64_t width, int64_t len, char* out,
                int64_t out_stride, const char* in_end);

// The inverse for r < valid: the element at in + s * in_stride + r * sizeof(U)
// is written to rows + r * row_stride + s * sizeof(U). Reads as pack_block.
template <class U>
void unpack_block(const char* in, int64_t in_stride, int64_t valid, int64_t len, char* rows, int64_t row_stride,
                  const char* in_end);

// pack_block for `count` blocks of kTileEdge rows, all real (valid = width =
// kTileEdge): block b reads from rows + b * in_step and writes to
// out + b * out_step. One call per run of blocks keeps the setup (and the
// edge cases pack_block handles) off the per-block path, which matters when
// blocks are small: a FRACTAL_Z block of a 3x3 conv weight is 16 x 9
// elements.
template <class U>
void pack_full_blocks(const char* rows, int64_t row_stride, int64_t len, int64_t count, int64_t in_step, char* out,
                      int64_t out_stride, int64_t out_step, const char* in_end);

// The inverse: unpack_block with valid = kTileEdge for `count` blocks at
// in + b * in_step, written to rows + b * out_step. Reads stay inside the
// runs, so no end is needed.
template <class U>
void unpack_full_blocks(const char* in, int64_t in_stride, int64_t len, int64_t count, int64_t in_step, char* rows,
                        int64_t row_stride, int64_t out_step);

// memcpy for the short runs of the blocked formats: a library call per run
// would cost more than the run, so up to 16 bytes are two overlapping fixed
// moves and longer runs 16-byte moves with an overlapping last one.
inline void copy_short(char* dst, const char* src, std::size_t n) {
  if (n >= 16) {
    for (std::size_t i = 0; i + 16 < n; i += 16) std::memcpy(dst + i, src + i, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n >= 2) {
    std::memcpy(dst, src, 2);
    std::memcpy(dst + n - 2, src + n - 2, 2);
  } else if (n == 1) {
    *dst = *src;
  }
}

}  // namespace npu::kernels::format_detail
