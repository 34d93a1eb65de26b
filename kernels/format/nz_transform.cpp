// The FRACTAL_NZ family (FRACTAL_NZ and FRACTAL_NZ_C0_*): logical [B, M, K]
// to storage [B, K1, M1*16, C0]. Each logical row is cut into runs of C0
// contiguous elements and each run lands contiguous in storage, in the
// fractal of its k1. Runs of 2 to 8 bytes are moved as single elements of a
// tile transpose (16 rows x n runs -> n fractals x 16 runs); longer runs are
// copied one by one.
#include <cstring>

#include "device_model/storage_desc.h"
#include "kernels/format/block_transpose.h"
#include "kernels/format/format_transform_kernels.h"

namespace npu::kernels::format_detail {

namespace {

// The byte geometry of `runs` consecutive C0 runs of one 16-row block.
struct NzBlock {
  int64_t rows;       // logical rows in the block; the rest of the 16 are padding
  int64_t row_bytes;  // between logical rows
  int64_t run_bytes;  // C0 elements
  int64_t runs;       // runs per row to move
  int64_t k1_stride;  // between consecutive runs' fractals in storage
};

// Whole runs, base to storage or back: as a tile transpose when a run fits a
// machine word, else run by run. `in` and `out` point at the first run.
void move_runs(const NzBlock& b, Direction dir, const char* in, char* out, const char* in_end) {
  const bool to_storage = dir == Direction::ToStorage;
  switch (b.run_bytes) {
#define NPU_EMU_NZ_WORD_CASE(U)                                                                      \
  case sizeof(U):                                                                                    \
    if (to_storage) {                                                                                \
      pack_block<U>(in, b.row_bytes, b.rows, model::kFractalEdge, b.runs, out, b.k1_stride, in_end); \
    } else {                                                                                         \
      unpack_block<U>(in, b.k1_stride, b.rows, b.runs, out, b.row_bytes, in_end);                    \
    }                                                                                                \
    return;
    NPU_EMU_NZ_WORD_CASE(uint16_t)
    NPU_EMU_NZ_WORD_CASE(uint32_t)
    NPU_EMU_NZ_WORD_CASE(uint64_t)
#undef NPU_EMU_NZ_WORD_CASE
    default:
      break;
  }
  for (int64_t k1 = 0; k1 < b.runs; ++k1) {
    const int64_t fractal = k1 * b.k1_stride;
    const int64_t column = k1 * b.run_bytes;
    for (int64_t r = 0; r < b.rows; ++r) {
      if (to_storage) {
        copy_short(out + fractal + r * b.run_bytes, in + r * b.row_bytes + column, b.run_bytes);
      } else {
        copy_short(out + r * b.row_bytes + column, in + fractal + r * b.run_bytes, b.run_bytes);
      }
    }
    if (to_storage) {
      std::memset(out + fractal + b.rows * b.run_bytes, 0, (model::kFractalEdge - b.rows) * b.run_bytes);
    }
  }
}

// The short last run of each row when C0 does not divide K (`tail_bytes`
// long), zero-padded to a whole run in storage.
void move_tail(const NzBlock& b, int64_t tail_bytes, Direction dir, const char* in, char* out) {
  for (int64_t r = 0; r < b.rows; ++r) {
    if (dir == Direction::ToStorage) {
      char* run = out + r * b.run_bytes;
      std::memset(run, 0, b.run_bytes);
      copy_short(run, in + r * b.row_bytes, tail_bytes);
    } else {
      copy_short(out + r * b.row_bytes, in + r * b.run_bytes, tail_bytes);
    }
  }
  if (dir == Direction::ToStorage) {
    std::memset(out + b.rows * b.run_bytes, 0, (model::kFractalEdge - b.rows) * b.run_bytes);
  }
}

}  // namespace

template <class T>
void transform_nz(const NzLayout& L, Direction dir, const T* in, int64_t in_numel, T* out) {
  constexpr int64_t kRows = model::kFractalEdge;
  constexpr auto size = static_cast<int64_t>(sizeof(T));
  const int64_t run_bytes = L.c0 * size;
  const int64_t full_runs = L.k / L.c0;
  const int64_t tail_bytes = (L.k - full_runs * L.c0) * size;
  // A task is `span` fractals of one batch, over all M: block after block it
  // fills its fractals front to back, so every storage line is written whole
  // at once, and it reads at least a cache line of each row. The short last
  // run of each row, if any, is a task of its own.
  const int64_t span = std::max<int64_t>(kTileEdge, 64 / run_bytes);
  const int64_t spans = (full_runs + span - 1) / span + (tail_bytes > 0 ? 1 : 0);  // per batch
  const char* src = reinterpret_cast<const char*>(in);
  const char* src_end = src + in_numel * size;
  char* dst = reinterpret_cast<char*>(out);
  const bool to_storage = dir == Direction::ToStorage;
  for_each_block(L.batch * spans, L.m_padded * span * L.c0, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / spans;
      const bool tail = (t % spans) * span >= full_runs;
      const int64_t k1 = tail ? full_runs : (t % spans) * span;
      const int64_t runs = tail ? 1 : std::min(span, full_runs - k1);
      for (int64_t m_begin = 0; m_begin < L.m_padded; m_begin += kRows) {
        const NzBlock block{std::clamp<int64_t>(L.m - m_begin, 0, kRows), L.k * size, run_bytes, runs,
                            L.m_padded * run_bytes};
        // Rows past M exist only in storage, so the base offset is unused for them.
        const int64_t base_off = block.rows > 0 ? ((b * L.m + m_begin) * L.k + k1 * L.c0) * size : 0;
        const int64_t storage_off = ((b * L.k1 + k1) * L.m_padded + m_begin) * run_bytes;
        const char* i = src + (to_storage ? base_off : storage_off);
        char* o = dst + (to_storage ? storage_off : base_off);
        if (tail) {
          move_tail(block, tail_bytes, dir, i, o);
        } else {
          move_runs(block, dir, i, o, src_end);
        }
      }
    }
  });
}

template void transform_nz<uint8_t>(const NzLayout&, Direction, const uint8_t*, int64_t, uint8_t*);
template void transform_nz<uint16_t>(const NzLayout&, Direction, const uint16_t*, int64_t, uint16_t*);
template void transform_nz<uint32_t>(const NzLayout&, Direction, const uint32_t*, int64_t, uint32_t*);
template void transform_nz<uint64_t>(const NzLayout&, Direction, const uint64_t*, int64_t, uint64_t*);

}  // namespace npu::kernels::format_detail
