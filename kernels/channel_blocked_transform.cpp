// The channel-blocked transforms: NC1HWC0, NC1HWC0_C04, NDC1HWC0, NDHWC,
// FRACTAL_Z and FRACTAL_Z_3D (see format_transform_kernels.h). One block of
// work is one (n, d, c1): C0 logical rows of S contiguous elements (one per
// channel) that become S storage runs of C0 contiguous elements (one per
// spatial position), i.e. a transpose (block_transpose.h).
#include "kernels/block_transpose.h"
#include "kernels/format_transform_kernels.h"

namespace npu::kernels::format_detail {

template <class T>
void transform_channel_blocked(const ChannelBlockedLayout& L, Direction dir, const T* in, int64_t in_numel,
                               T* out) {
  constexpr auto size = static_cast<int64_t>(sizeof(T));
  // A task is one (n tile, d, c1), c1 fastest: consecutive tasks read
  // neighbouring channels of the same n, which the previous task brought into
  // cache. Inside a task n runs fastest (see ChannelBlockedLayout::n_tile).
  const int64_t n_tiles = (L.n_padded + L.n_tile - 1) / L.n_tile;
  const int64_t row_stride = L.d * L.s * size;  // between channels of the logical tensor
  const int64_t run_stride = L.s_stride * size;  // between spatial positions in storage
  const char* src = reinterpret_cast<const char*>(in);
  const char* src_end = src + in_numel * size;
  char* dst = reinterpret_cast<char*>(out);
  for_each_block(n_tiles * L.d * L.c1, L.n_tile * L.c0 * L.s, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      // Decoding the task index once per task keeps divisions off the
      // per-element path.
      const int64_t c1 = t % L.c1;
      const int64_t d = (t / L.c1) % L.d;
      const int64_t n_begin = t / (L.c1 * L.d) * L.n_tile;
      const int64_t n_end = std::min(L.n_padded, n_begin + L.n_tile);
      for (int64_t n = n_begin; n < n_end; ++n) {
        const int64_t valid = n < L.n ? std::min(L.c0, L.c - c1 * L.c0) : 0;  // channels that exist
        const int64_t base_off = valid > 0 ? ((n * L.c + c1 * L.c0) * L.d + d) * L.s * size : 0;
        const int64_t storage_off = (n * L.n_stride + c1 * L.c1_stride + d * L.d_stride) * size;
        if (dir == Direction::ToStorage) {
          pack_block<T>(src + base_off, row_stride, valid, L.c0, L.s, dst + storage_off, run_stride, src_end);
        } else if (valid > 0) {
          unpack_block<T>(src + storage_off, run_stride, valid, L.s, dst + base_off, row_stride, src_end);
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
