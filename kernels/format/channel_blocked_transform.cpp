// The channel-blocked transforms: NC1HWC0, NC1HWC0_C04, NDC1HWC0, NDHWC,
// FRACTAL_Z and FRACTAL_Z_3D (see format_transform_kernels.h). One block of
// work is one (n, d, c1): C0 logical rows of S contiguous elements (one per
// channel) that become S storage runs of C0 contiguous elements (one per
// spatial position), i.e. a transpose (block_transpose.h).
#include "kernels/format/block_transpose.h"
#include "kernels/format/format_transform_kernels.h"

namespace npu::kernels::format_detail {

namespace {

template <class T>
struct BlockMover {
  static constexpr auto kSize = static_cast<int64_t>(sizeof(T));
  const ChannelBlockedLayout& L;
  Direction dir;
  const char* src;
  const char* src_end;
  char* dst;

  int64_t row_stride() const { return L.d * L.s * kSize; }   // between channels of the logical tensor
  int64_t run_stride() const { return L.s_stride * kSize; }  // between spatial positions in storage
  int64_t base_off(int64_t n, int64_t c1, int64_t d) const { return ((n * L.c + c1 * L.c0) * L.d + d) * L.s * kSize; }
  int64_t storage_off(int64_t n, int64_t c1, int64_t d) const {
    return (n * L.n_stride + c1 * L.c1_stride + d * L.d_stride) * kSize;
  }

  // Block (n, c1, d), any n and c1 (padding included).
  void operator()(int64_t n, int64_t c1, int64_t d) const {
    const int64_t valid = n < L.n ? std::min(L.c0, L.c - c1 * L.c0) : 0;  // channels that exist
    const int64_t base = valid > 0 ? base_off(n, c1, d) : 0;
    const int64_t storage = storage_off(n, c1, d);
    if (dir == Direction::ToStorage) {
      pack_block<T>(src + base, row_stride(), valid, L.c0, L.s, dst + storage, run_stride(), src_end);
    } else if (valid > 0) {
      unpack_block<T>(src + storage, run_stride(), valid, L.s, dst + base, row_stride(), src_end);
    }
  }

  // Blocks (n, c1, d) for c1 in [c1_begin, c1_end), all of whose channels
  // exist and C0 = kTileEdge: one call for the run (block_transpose.h).
  void full_blocks(int64_t n, int64_t c1_begin, int64_t c1_end, int64_t d) const {
    const int64_t base = base_off(n, c1_begin, d);
    const int64_t storage = storage_off(n, c1_begin, d);
    const int64_t base_step = L.c0 * row_stride();
    const int64_t storage_step = L.c1_stride * kSize;
    if (dir == Direction::ToStorage) {
      pack_full_blocks<T>(src + base, row_stride(), L.s, c1_end - c1_begin, base_step, dst + storage, run_stride(),
                          storage_step, src_end);
    } else {
      unpack_full_blocks<T>(src + storage, run_stride(), L.s, c1_end - c1_begin, storage_step, dst + base,
                            row_stride(), base_step);
    }
  }
};

}  // namespace

template <class T>
void transform_channel_blocked(const ChannelBlockedLayout& L, Direction dir, const T* in, int64_t in_numel,
                               T* out) {
  const char* src = reinterpret_cast<const char*>(in);
  const BlockMover<T> move{L, dir, src, src + in_numel * static_cast<int64_t>(sizeof(T)),
                           reinterpret_cast<char*>(out)};
  if (L.n_tile == 1) {
    // A task is one (n, d, c1), c1 fastest: consecutive tasks read
    // neighbouring channels of the same n, which the previous task brought
    // into cache, and write storage front to back (n, d, c1 are its outer dims).
    for_each_block(L.n * L.d * L.c1, L.c0 * L.s, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) move(t / (L.c1 * L.d), t % L.c1, (t / L.c1) % L.d);
    });
    return;
  }
  // FRACTAL_Z and kin store n just outside C0 (ChannelBlockedLayout::n_tile).
  // A task is a tile of n over a range of c1, visited n outermost: the base
  // side of one n is then read (or written) within a few KB at a time, in
  // order, which the hardware prefetcher streams; c1 outermost (one block per
  // n, then the next c1) touches a few lines of every n per block and runs
  // slower. The storage side is D*C1*S runs that each grow by C0 elements per
  // n and end up n_tile*C0 long, a cache line or more, so storage lines are
  // filled while still in cache. The c1 range is split only when there are
  // too few n tiles to keep the workers busy.
  constexpr int64_t kMinTasks = 64;
  const int64_t n_tiles = (L.n_padded + L.n_tile - 1) / L.n_tile;
  if (n_tiles == 0) return;  // N = 0: no storage either
  const int64_t c1_chunks = std::clamp<int64_t>((kMinTasks + n_tiles - 1) / n_tiles, 1, std::max<int64_t>(L.c1, 1));
  const int64_t c1_chunk = (L.c1 + c1_chunks - 1) / c1_chunks;
  const int64_t whole_c1 = L.c0 == kTileEdge ? L.c / L.c0 : 0;  // blocks pack_full_blocks can take
  for_each_block(n_tiles * c1_chunks, L.n_tile * c1_chunk * L.d * L.c0 * L.s, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n_begin = t / c1_chunks * L.n_tile;
      const int64_t n_end = std::min(L.n_padded, n_begin + L.n_tile);
      const int64_t c1_begin = t % c1_chunks * c1_chunk;
      const int64_t c1_end = std::min(L.c1, c1_begin + c1_chunk);
      for (int64_t n = n_begin; n < n_end; ++n) {
        // Blocks whose channels all exist go by runs of c1 (the common case
        // and the fast path); a last, partial c1 and padding n block by block.
        const int64_t full_end = n < L.n ? std::clamp(whole_c1, c1_begin, c1_end) : c1_begin;
        if (full_end > c1_begin) {
          for (int64_t d = 0; d < L.d; ++d) move.full_blocks(n, c1_begin, full_end, d);
        }
        for (int64_t c1 = full_end; c1 < c1_end; ++c1) {
          for (int64_t d = 0; d < L.d; ++d) move(n, c1, d);
        }
      }
    }
  });
}

template void transform_channel_blocked<uint8_t>(const ChannelBlockedLayout&, Direction, const uint8_t*, int64_t,
                                                  uint8_t*);
template void transform_channel_blocked<uint16_t>(const ChannelBlockedLayout&, Direction, const uint16_t*, int64_t,
                                                  uint16_t*);
template void transform_channel_blocked<uint32_t>(const ChannelBlockedLayout&, Direction, const uint32_t*, int64_t,
                                                  uint32_t*);
template void transform_channel_blocked<uint64_t>(const ChannelBlockedLayout&, Direction, const uint64_t*, int64_t,
                                                  uint64_t*);

}  // namespace npu::kernels::format_detail
