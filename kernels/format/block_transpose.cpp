// Tile transposes in 16-byte vector registers, written once for every element
// size with the GCC/Clang vector extension (L = 16 / sizeof(U) lanes):
// - a square of L x L elements is transposed by log2(L) rounds of
//   interleaving row i with row i + L/2 (punpckl/punpckh on x86, zip on Arm);
// - R < L rows whose storage runs are dense (C0 = 4, say) take log2(R) such
//   rounds, after which the R vectors are exactly the storage bytes; the
//   reverse direction undoes the rounds with even/odd lane splits;
// - rows shorter than a tile (a FRACTAL_Z block of a 3x3 conv weight is 16
//   rows of 9) take the row length as a template argument, so that only the
//   interleaves and stores that real elements need are compiled in
//   (transpose_short_tile), and come in runs of blocks (pack_full_blocks) so
//   that per-block setup does not outweigh a block's few hundred bytes.
// A tile cut by a block edge is still read straight from the source: its
// missing rows read a shared zero row and short rows read past their end
// (lanes that are never stored). Staging such rows through a local buffer
// would stall every vector load on store-to-load forwarding.
#include "kernels/format/block_transpose.h"

#include <algorithm>
#include <utility>

namespace npu::kernels::format_detail {

namespace {

template <class U>
struct Simd {
  typedef U Vec __attribute__((vector_size(16)));
  static constexpr int64_t kLanes = 16 / sizeof(U);
};
template <class U>
using Vec = typename Simd<U>::Vec;

alignas(16) constexpr char kZeroRow[kTileEdge * 8] = {};  // a tile row of the widest element

// [a0, b0, a1, b1, ...] from the low halves of a and b, and from the high halves.
template <class V, int64_t L, std::size_t... I>
inline V interleave_low(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, ((I % 2) ? L + I / 2 : I / 2)...);
}
template <class V, int64_t L, std::size_t... I>
inline V interleave_high(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, ((I % 2) ? L + L / 2 + I / 2 : L / 2 + I / 2)...);
}
// The inverse: even lanes of a:b, and odd lanes.
template <class V, std::size_t... I>
inline V even_lanes(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (2 * I)...);
}
template <class V, std::size_t... I>
inline V odd_lanes(V a, V b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (2 * I + 1)...);
}

// Loads R rows (R a power of two, at most L) from column `col` and
// interleaves them: afterwards v[k] holds columns k*L/R .. (k+1)*L/R - 1, each
// as R consecutive row elements. For R = L that is the transposed square.
template <class U, int64_t R, class Row>
inline void interleave_rows(const Row& row, int64_t col, Vec<U> (&v)[R]) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto lanes = std::make_index_sequence<L>{};
  for (int64_t i = 0; i < R; ++i) std::memcpy(&v[i], row(i) + col * sizeof(U), sizeof(Vec<U>));
  for (int64_t round = 1; round < R; round *= 2) {
    Vec<U> t[R];
    for (int64_t i = 0; i < R / 2; ++i) {
      t[2 * i] = interleave_low<Vec<U>, L>(v[i], v[i + R / 2], lanes);
      t[2 * i + 1] = interleave_high<Vec<U>, L>(v[i], v[i + R / 2], lanes);
    }
    std::copy(t, t + R, v);
  }
}

// The inverse of interleave_rows on R vectors read from `in`.
template <class U, int64_t R>
inline void deinterleave_rows(const char* in, Vec<U> (&v)[R]) {
  constexpr auto half = std::make_index_sequence<Simd<U>::kLanes>{};
  std::memcpy(v, in, sizeof(v));
  for (int64_t round = 1; round < R; round *= 2) {
    Vec<U> t[R];
    for (int64_t i = 0; i < R / 2; ++i) {
      t[i] = even_lanes<Vec<U>>(v[2 * i], v[2 * i + 1], half);
      t[i + R / 2] = odd_lanes<Vec<U>>(v[2 * i], v[2 * i + 1], half);
    }
    std::copy(t, t + R, v);
  }
}

// v shifted down by K bytes, zeros shifted in: one psrldq on x86 (a rotate
// instead has no single SSE2 instruction and is compiled to byte moves).
template <int64_t K, std::size_t... I>
inline Vec<uint8_t> shift_down(Vec<uint8_t> v, std::index_sequence<I...>) {
  return __builtin_shufflevector(v, Vec<uint8_t>{}, (I + K)...);
}

// Stores the first n < 16 bytes of a vector as 8-, 4-, 2- and 1-byte pieces
// taken from the register. Spilling the vector and copying from the stack
// instead reads back at an offset into a wider store, which stalls store
// forwarding on every row of a short block.
inline void store_prefix(char* dst, Vec<uint8_t> v, int64_t n) {
  constexpr auto lanes = std::make_index_sequence<16>{};
  if (n & 8) {
    std::memcpy(dst, &v, 8);
    dst += 8;
    v = shift_down<8>(v, lanes);
  }
  if (n & 4) {
    std::memcpy(dst, &v, 4);
    dst += 4;
    v = shift_down<4>(v, lanes);
  }
  if (n & 2) {
    std::memcpy(dst, &v, 2);
    dst += 2;
    v = shift_down<2>(v, lanes);
  }
  if (n & 1) *dst = static_cast<char>(v[0]);
}

// Stores n bytes of a vector (all 16 in the common case).
template <class V>
inline void store(char* dst, const V& v, int64_t n) {
  if (n == static_cast<int64_t>(sizeof(V))) {
    std::memcpy(dst, &v, sizeof(V));
  } else if (n > 0) {
    store_prefix(dst, (Vec<uint8_t>)v, n);  // a bit cast between vector types
  }
}

// Transposes a tile: source rows 0 .. in_rows-1 (in_rows a multiple of L;
// row i read from row(i), kTileEdge elements) become output rows
// 0 .. out_rows-1 at out + j * out_stride, of which out_bytes are stored.
template <class U, class Row>
inline void transpose_tile(const Row& row, int64_t in_rows, char* out, int64_t out_stride, int64_t out_rows,
                           int64_t out_bytes) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  for (int64_t i = 0; i < in_rows; i += L) {
    const int64_t bytes = std::min<int64_t>(L * size, out_bytes - i * size);
    for (int64_t j = 0; j < out_rows; j += L) {
      Vec<U> v[L];
      interleave_rows<U, L>([&](int64_t k) { return row(i + k); }, j, v);
      // A fixed trip count (with an exit) keeps v in registers.
      for (int64_t k = 0; k < L && j + k < out_rows; ++k) store(out + (j + k) * out_stride + i * size, v[k], bytes);
    }
  }
}

// The common case, a whole tile: fixed trip counts throughout, so every
// square stays in registers and no bound is tested.
template <class U>
inline void transpose_whole_tile(const char* in, int64_t in_stride, char* out, int64_t out_stride) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  for (int64_t i = 0; i < kTileEdge; i += L) {
    for (int64_t j = 0; j < kTileEdge; j += L) {
      Vec<U> v[L];
      interleave_rows<U, L>([&](int64_t k) { return in + (i + k) * in_stride; }, j, v);
      for (int64_t k = 0; k < L; ++k) std::memcpy(out + (j + k) * out_stride + i * size, &v[k], sizeof(v[k]));
    }
  }
}

// Rows `first + i * stride`, i < count, read a whole tile wide.
struct StridedRows {
  const char* first;
  int64_t stride;
  const char* operator()(int64_t i) const { return first + i * stride; }
};

// A tile cut short along the rows (kLs < kTileEdge elements left in each;
// for a 3x3 conv kernel, as in FRACTAL_Z, that is the whole row) with every
// row real and readable a vector wide: the squares are read in place and only
// the kLs runs that exist are stored. Blocks this short are the whole job
// for conv weights, so the general cut-tile path (row tables, a bound test
// per store) would dominate. kLs is a template argument (the caller picks it
// once per run of blocks) so that the interleaves feeding only unstored runs
// are dropped at compile time: the last square of a 2-byte 3x3 block stores
// one run of its eight, which then costs 7 interleaves instead of 24.
template <class U, int64_t kLs>
inline void transpose_short_tile(const char* in, int64_t in_stride, char* out, int64_t out_stride) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  for (int64_t j = 0; j < kLs; j += L) {
    const int64_t runs = std::min(L, kLs - j);
    for (int64_t i = 0; i < kTileEdge; i += L) {
      Vec<U> v[L];
      interleave_rows<U, L>(StridedRows{in + i * in_stride, in_stride}, j, v);
      for (int64_t k = 0; k < runs; ++k) std::memcpy(out + (j + k) * out_stride + i * size, &v[k], sizeof(v[k]));
    }
  }
}

// Calls f(std::integral_constant<int64_t, n>{}) for 1 <= n <= sizeof...(I).
template <class F, std::size_t... I>
inline void with_constant(int64_t n, F&& f, std::index_sequence<I...>) {
  (void)((n == static_cast<int64_t>(I) + 1 ? (f(std::integral_constant<int64_t, I + 1>{}), true) : false) || ...);
}

// The inverse of transpose_short_tile: runs kJ .. kLs-1 (kLs < kTileEdge) of
// kTileEdge elements each (all real) become the elements kJ .. kLs-1 of
// kTileEdge rows. Runs go in power-of-two groups, widest first (9 = 8 + 1):
// interleaving R runs (interleave_rows) leaves each row's R elements
// adjacent in one vector, so every store is one fixed-size move of exactly
// R elements and no square is padded with runs that are not there. Runs are
// whole in storage, so every read is in bounds.
template <class U, int64_t kJ, int64_t kLs>
inline void untranspose_short_tile(const char* in, int64_t in_stride, char* out, int64_t out_stride) {
  if constexpr (kJ < kLs) {
    constexpr int64_t L = Simd<U>::kLanes;
    constexpr auto size = static_cast<int64_t>(sizeof(U));
    constexpr int64_t R = std::min<int64_t>(L, int64_t{1} << (63 - __builtin_clzll(kLs - kJ)));
    constexpr int64_t kRowsPerVec = L / R;
    for (int64_t i = 0; i < kTileEdge; i += L) {
      Vec<U> v[R];
      interleave_rows<U, R>([&](int64_t k) { return in + (kJ + k) * in_stride; }, i, v);
      // v[m] holds rows i + m * kRowsPerVec + q, q < kRowsPerVec, R elements each.
      for (int64_t m = 0; m < R; ++m) {
        for (int64_t q = 0; q < kRowsPerVec; ++q) {
          std::memcpy(out + (i + m * kRowsPerVec + q) * out_stride + kJ * size,
                      reinterpret_cast<const char*>(&v[m]) + q * R * size, R * size);
        }
      }
    }
    untranspose_short_tile<U, kJ + R, kLs>(in, in_stride, out, out_stride);
  }
}

// Calls f(std::integral_constant<int64_t, ls>{}) for 0 < ls < kTileEdge.
template <class F>
inline void with_short_length(int64_t ls, F&& f) {
  with_constant(ls, f, std::make_index_sequence<kTileEdge - 1>{});
}

// The rows of a cut tile: `count` source rows, the rest the zero row. Rows
// are read a whole tile wide, so a row too close to `end` (only at the very
// end of the source buffer) is copied out first.
template <class U>
struct CutRows {
  static constexpr int64_t kRowBytes = kTileEdge * sizeof(U);
  const char* ptr[kTileEdge];
  alignas(16) char spill[kTileEdge][kRowBytes];

  CutRows(const char* first, int64_t stride, int64_t count, int64_t row_bytes, const char* end) {
    const bool all_readable = count == 0 || end - (first + (count - 1) * stride) >= kRowBytes;
    for (int64_t i = 0; i < count; ++i) ptr[i] = first + i * stride;
    for (int64_t i = count; i < kTileEdge; ++i) ptr[i] = kZeroRow;
    if (all_readable) return;
    for (int64_t i = 0; i < count; ++i) {
      if (end - ptr[i] >= kRowBytes) continue;
      std::memset(spill[i], 0, kRowBytes);
      copy_short(spill[i], ptr[i], row_bytes);
      ptr[i] = spill[i];
    }
  }
  const char* operator()(int64_t i) const { return ptr[i]; }
};

// Transposes a cut tile: `count` rows of the source (from `first`, `stride`
// apart), the rest zero, into out_rows rows of out_bytes. When every row is
// real and readable, the rows are read in place.
template <class U>
inline void transpose_cut_tile(const char* first, int64_t stride, int64_t count, int64_t row_bytes,
                               const char* end, int64_t in_rows, char* out, int64_t out_stride, int64_t out_rows,
                               int64_t out_bytes) {
  constexpr int64_t kRowBytes = kTileEdge * sizeof(U);
  if (count >= in_rows && end - (first + (in_rows - 1) * stride) >= kRowBytes) {
    transpose_tile<U>(StridedRows{first, stride}, in_rows, out, out_stride, out_rows, out_bytes);
  } else {
    transpose_tile<U>(CutRows<U>(first, stride, count, row_bytes, end), in_rows, out, out_stride, out_rows,
                      out_bytes);
  }
}

template <class U>
constexpr int64_t round_to_lanes(int64_t n) {
  return (n + Simd<U>::kLanes - 1) / Simd<U>::kLanes * Simd<U>::kLanes;
}

// Calls f(std::integral_constant<int64_t, R>) when `width` is a power of two
// below the lane count and storage runs of that width are dense; returns
// false (and does nothing) otherwise.
template <class U, class F>
inline bool with_narrow_width(int64_t width, int64_t run_stride, F&& f) {
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  if (run_stride != width * size) return false;
  if constexpr (Simd<U>::kLanes > 2) {
    if (width == 2) return f(std::integral_constant<int64_t, 2>{}), true;
  }
  if constexpr (Simd<U>::kLanes > 4) {
    if (width == 4) return f(std::integral_constant<int64_t, 4>{}), true;
  }
  if constexpr (Simd<U>::kLanes > 8) {
    if (width == 8) return f(std::integral_constant<int64_t, 8>{}), true;
  }
  return false;
}

}  // namespace

template <class U>
void pack_block(const char* rows, int64_t row_stride, int64_t valid, int64_t width, int64_t len, char* out,
                int64_t out_stride, const char* in_end) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  const bool narrow = with_narrow_width<U>(width, out_stride, [&](auto r) {
    constexpr int64_t R = decltype(r)::value;
    for (int64_t s0 = 0; s0 < len; s0 += kTileEdge) {
      const int64_t ls = std::min(kTileEdge, len - s0);
      const CutRows<U> source(rows + s0 * size, row_stride, valid, ls * size, in_end);
      for (int64_t j = 0; j < ls; j += L) {
        Vec<U> v[R];
        interleave_rows<U, R>(source, j, v);
        const int64_t bytes = std::min(L, ls - j) * R * size;
        char* o = out + (s0 + j) * out_stride;
        if (bytes == static_cast<int64_t>(sizeof(v))) {
          std::memcpy(o, v, sizeof(v));
        } else {
          copy_short(o, reinterpret_cast<const char*>(v), bytes);
        }
      }
    }
  });
  if (narrow) return;
  for (int64_t s0 = 0; s0 < len; s0 += kTileEdge) {
    const int64_t ls = std::min(kTileEdge, len - s0);
    for (int64_t r0 = 0; r0 < width; r0 += kTileEdge) {
      const int64_t lr = std::min(kTileEdge, width - r0);
      const int64_t vr = std::clamp<int64_t>(valid - r0, 0, lr);
      const char* in = rows + r0 * row_stride + s0 * size;  // read only when vr > 0
      char* o = out + s0 * out_stride + r0 * size;
      if (ls == kTileEdge && vr == kTileEdge) {
        transpose_whole_tile<U>(in, row_stride, o, out_stride);
      } else if (lr == kTileEdge && vr == kTileEdge &&
                 in_end - (in + (kTileEdge - 1) * row_stride + (ls - 1) / L * L * size) >= 16) {
        with_short_length(ls, [&](auto n) {
          transpose_short_tile<U, decltype(n)::value>(in, row_stride, o, out_stride);
        });
      } else {
        // Rows past `valid` read the zero row: they are the padding.
        transpose_cut_tile<U>(in, row_stride, vr, ls * size, in_end, round_to_lanes<U>(lr), o, out_stride, ls,
                              lr * size);
      }
    }
  }
}

template <class U>
void unpack_block(const char* in, int64_t in_stride, int64_t valid, int64_t len, char* rows, int64_t row_stride,
                  const char* in_end) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  const bool narrow = with_narrow_width<U>(valid, in_stride, [&](auto r) {
    constexpr int64_t R = decltype(r)::value;
    for (int64_t j = 0; j < len; j += L) {
      const int64_t ls = std::min(L, len - j);
      const char* i = in + j * in_stride;
      alignas(16) char spill[R * 16];
      if (ls < L || in_end - i < static_cast<int64_t>(sizeof(spill))) {
        std::memset(spill, 0, sizeof(spill));
        copy_short(spill, i, ls * R * size);
        i = spill;
      }
      Vec<U> v[R];
      deinterleave_rows<U, R>(i, v);
      for (int64_t k = 0; k < R; ++k) store(rows + k * row_stride + j * size, v[k], ls * size);
    }
  });
  if (narrow) return;
  for (int64_t s0 = 0; s0 < len; s0 += kTileEdge) {
    const int64_t ls = std::min(kTileEdge, len - s0);
    for (int64_t r0 = 0; r0 < valid; r0 += kTileEdge) {
      const int64_t vr = std::min(kTileEdge, valid - r0);
      const char* i = in + s0 * in_stride + r0 * size;
      char* o = rows + r0 * row_stride + s0 * size;
      if (ls == kTileEdge && vr == kTileEdge) {
        transpose_whole_tile<U>(i, in_stride, o, row_stride);
      } else if (vr == kTileEdge) {
        with_short_length(ls, [&](auto n) {
          untranspose_short_tile<U, 0, decltype(n)::value>(i, in_stride, o, row_stride);
        });
      } else {
        transpose_cut_tile<U>(i, in_stride, ls, vr * size, in_end, round_to_lanes<U>(ls), o, row_stride, vr,
                              ls * size);
      }
    }
  }
}

template <class U>
void pack_full_blocks(const char* rows, int64_t row_stride, int64_t len, int64_t count, int64_t in_step, char* out,
                      int64_t out_stride, int64_t out_step, const char* in_end) {
  constexpr int64_t L = Simd<U>::kLanes;
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  const int64_t whole = len / kTileEdge * kTileEdge;  // elements of each row in whole tiles
  const int64_t tail = len - whole;
  // The furthest a block reads past its first row: the last row, a vector
  // wide from the start of its last square.
  const int64_t reach = (kTileEdge - 1) * row_stride + (tail > 0 ? whole + (tail - 1) / L * L : len - L) * size + 16;
  // The tail length picks the kernel once for the whole run of blocks.
  const auto blocks = [&](auto kTail) {
    for (int64_t b = 0; b < count; ++b) {
      const char* in = rows + b * in_step;
      char* o = out + b * out_step;
      if (in_end - in < reach) {  // only the last blocks of the buffer
        pack_block<U>(in, row_stride, kTileEdge, kTileEdge, len, o, out_stride, in_end);
        continue;
      }
      for (int64_t s0 = 0; s0 < whole; s0 += kTileEdge) {
        transpose_whole_tile<U>(in + s0 * size, row_stride, o + s0 * out_stride, out_stride);
      }
      if constexpr (decltype(kTail)::value > 0) {
        transpose_short_tile<U, decltype(kTail)::value>(in + whole * size, row_stride, o + whole * out_stride,
                                                         out_stride);
      }
    }
  };
  if (tail == 0) {
    blocks(std::integral_constant<int64_t, 0>{});
  } else {
    with_short_length(tail, blocks);
  }
}

template <class U>
void unpack_full_blocks(const char* in, int64_t in_stride, int64_t len, int64_t count, int64_t in_step, char* rows,
                        int64_t row_stride, int64_t out_step) {
  constexpr auto size = static_cast<int64_t>(sizeof(U));
  const int64_t whole = len / kTileEdge * kTileEdge;
  const int64_t tail = len - whole;
  const auto whole_tiles = [&](const char* i, char* o) {
    for (int64_t s0 = 0; s0 < whole; s0 += kTileEdge) {
      transpose_whole_tile<U>(i + s0 * in_stride, in_stride, o + s0 * size, row_stride);
    }
  };
  if (tail == 0) {
    for (int64_t b = 0; b < count; ++b) whole_tiles(in + b * in_step, rows + b * out_step);
    return;
  }
  // The tail length picks the kernel once for the whole run of blocks.
  with_short_length(tail, [&](auto n) {
    for (int64_t b = 0; b < count; ++b) {
      const char* i = in + b * in_step;
      char* o = rows + b * out_step;
      whole_tiles(i, o);
      untranspose_short_tile<U, 0, decltype(n)::value>(i + whole * in_stride, in_stride, o + whole * size,
                                                       row_stride);
    }
  });
}

#define NPU_EMU_INSTANTIATE_BLOCK_TRANSPOSE(U)                                                                  \
  template void pack_block<U>(const char*, int64_t, int64_t, int64_t, int64_t, char*, int64_t, const char*); \
  template void unpack_block<U>(const char*, int64_t, int64_t, int64_t, char*, int64_t, const char*);        \
  template void pack_full_blocks<U>(const char*, int64_t, int64_t, int64_t, int64_t, char*, int64_t, int64_t, \
                                    const char*);                                                          \
  template void unpack_full_blocks<U>(const char*, int64_t, int64_t, int64_t, int64_t, char*, int64_t, int64_t);
NPU_EMU_INSTANTIATE_BLOCK_TRANSPOSE(uint8_t)
NPU_EMU_INSTANTIATE_BLOCK_TRANSPOSE(uint16_t)
NPU_EMU_INSTANTIATE_BLOCK_TRANSPOSE(uint32_t)
NPU_EMU_INSTANTIATE_BLOCK_TRANSPOSE(uint64_t)
#undef NPU_EMU_INSTANTIATE_BLOCK_TRANSPOSE

}  // namespace npu::kernels::format_detail
