// Routes each format to its layout family (format_transform_kernels.h) and
// the element size to an unsigned word type: layouts are FORMATS.md's index
// maps written as strides, so this file is where the spec's formulas live.
#include "kernels/format/format_transform.h"

#include <cstring>
#include <memory>

#include "kernels/format/format_transform_kernels.h"

namespace npu::kernels {

namespace {

using format_detail::ChannelBlockedLayout;
using format_detail::Direction;
using format_detail::NzLayout;
using model::Format;
using model::StorageDesc;

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

template <class T>
struct Word {
  using type = T;
};

// Calls f(Word<T>{}) with T the unsigned integer of `size` bytes.
template <class F>
void visit_word(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f(Word<uint8_t>{});
    case 2: return f(Word<uint16_t>{});
    case 4: return f(Word<uint32_t>{});
    case 8: return f(Word<uint64_t>{});
    default:
      throw KernelError("format transforms move 1-, 2-, 4- or 8-byte elements, not " + std::to_string(size) +
                        "-byte ones");
  }
}

// A descriptor built by hand may disagree with the spec; moving data by it
// would write out of bounds, so it is checked against a fresh inference.
void require_consistent(const StorageDesc& desc) {
  const model::Dims expected = model::infer_storage_shape(desc.npu_format, desc.base_sizes, desc.dtype);
  if (expected != desc.storage_sizes) {
    throw KernelError("storage descriptor of format " + model::format_label(desc.npu_format) + " for shape " +
                      shape_str(desc.base_sizes) + " (" + model::dtype_name(desc.dtype) + ") has storage shape " +
                      shape_str(desc.storage_sizes) + ", expected " + shape_str(expected));
  }
}

bool is_nz(Format format) { return model::base_format(format) == Format::ND && !model::is_base_format(format); }

NzLayout nz_layout(const StorageDesc& desc) {
  const model::Dims& s = desc.base_sizes;  // rank >= 2, checked by inference
  NzLayout L;
  L.batch = 1;
  for (std::size_t i = 0; i + 2 < s.size(); ++i) L.batch *= s[i];
  L.m = s[s.size() - 2];
  L.k = s[s.size() - 1];
  L.c0 = model::format_c0(desc.npu_format, desc.dtype);
  L.k1 = cdiv(L.k, L.c0);
  L.m_padded = cdiv(L.m, model::kFractalEdge) * model::kFractalEdge;
  return L;
}

// The storage strides below are FORMATS.md's index maps, factored as
// n*n_stride + (c/C0)*c1_stride + d*d_stride + s*s_stride + c%C0.
ChannelBlockedLayout channel_blocked_layout(const StorageDesc& desc) {
  const model::Dims p = model::padded_base_sizes(desc.npu_format, desc.base_sizes);
  const bool is_3d = p.size() == 5;
  ChannelBlockedLayout L;
  L.n = p[0];
  L.c = p[1];
  L.d = is_3d ? p[2] : 1;
  L.s = is_3d ? p[3] * p[4] : p[2] * p[3];
  L.c0 = model::format_c0(desc.npu_format, desc.dtype);
  L.n_padded = L.n;
  switch (desc.npu_format) {
    case Format::NDHWC:
      // [N, D*H*W, C]: one block holding every channel.
      L.s *= L.d;
      L.d = 1;
      L.c0 = L.c;
      L.c1 = L.c > 0 ? 1 : 0;
      L.n_stride = L.s * L.c;
      L.s_stride = L.c;
      return L;
    case Format::FRACTAL_Z:
    case Format::FRACTAL_Z_3D:
      // [D, C1, H*W, N1*16, C0]
      L.c1 = cdiv(L.c, L.c0);
      L.n_padded = cdiv(L.n, model::kFractalEdge) * model::kFractalEdge;
      L.n_stride = L.c0;
      L.s_stride = L.n_padded * L.c0;
      L.c1_stride = L.s * L.s_stride;
      L.d_stride = L.c1 * L.c1_stride;
      L.n_tile = 64;  // 64 * C0 elements of storage per (d, c1, h, w): whole lines for every element size
      return L;
    default:
      // NC1HWC0, NC1HWC0_C04 (D = 1) and NDC1HWC0: [N, D, C1, H*W, C0]
      L.c1 = cdiv(L.c, L.c0);
      L.s_stride = L.c0;
      L.c1_stride = L.s * L.c0;
      L.d_stride = L.c1 * L.c1_stride;
      L.n_stride = L.d * L.d_stride;
      return L;
  }
}

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  if (dst == src) return;  // a relabel in place
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  format_detail::for_each_block(static_cast<int64_t>(cdiv(bytes, kChunk)), kChunk, [&](int64_t begin, int64_t end) {
    const std::size_t from = begin * kChunk;
    const std::size_t to = std::min(bytes, end * kChunk);
    std::memcpy(d + from, s + from, to - from);
  });
}

void transform(const StorageDesc& desc, Direction dir, const void* in, void* out) {
  require_consistent(desc);
  if (model::is_base_format(desc.npu_format)) {
    parallel_copy(out, in, desc.storage_nbytes());
    return;
  }
  visit_word(model::itemsize(desc.dtype), [&](auto word) {
    using T = typename decltype(word)::type;
    const T* src = static_cast<const T*>(in);
    const int64_t src_numel = dir == Direction::ToStorage ? desc.base_numel() : desc.storage_numel();
    T* dst = static_cast<T*>(out);
    if (is_nz(desc.npu_format)) {
      format_detail::transform_nz<T>(nz_layout(desc), dir, src, src_numel, dst);
    } else {
      format_detail::transform_channel_blocked<T>(channel_blocked_layout(desc), dir, src, src_numel, dst);
    }
  });
}

}  // namespace

void base_to_storage(const StorageDesc& desc, const void* base, void* storage) {
  transform(desc, Direction::ToStorage, base, storage);
}

void storage_to_base(const StorageDesc& desc, const void* storage, void* base) {
  transform(desc, Direction::ToBase, storage, base);
}

void convert_storage(const StorageDesc& src_desc, const void* src, const StorageDesc& dst_desc, void* dst) {
  if (src_desc.base_sizes != dst_desc.base_sizes ||
      model::itemsize(src_desc.dtype) != model::itemsize(dst_desc.dtype)) {
    throw KernelError("cannot convert a " + std::string(model::dtype_name(src_desc.dtype)) + " storage of shape " +
                      shape_str(src_desc.base_sizes) + " into a " + model::dtype_name(dst_desc.dtype) +
                      " storage of shape " + shape_str(dst_desc.base_sizes) +
                      ": a format cast keeps the shape and the element size");
  }
  require_consistent(src_desc);
  if (model::is_base_format(src_desc.npu_format)) {
    base_to_storage(dst_desc, src, dst);  // a plain copy when dst is a base format too
  } else if (model::is_base_format(dst_desc.npu_format)) {
    storage_to_base(src_desc, src, dst);
  } else if (src_desc.npu_format == dst_desc.npu_format && src_desc.storage_sizes == dst_desc.storage_sizes) {
    parallel_copy(dst, src, src_desc.storage_nbytes());
  } else {
    // Private to private goes through the base layout: two passes, but every
    // pair of formats is covered by the two directions of each format.
    const std::size_t bytes = static_cast<std::size_t>(src_desc.base_numel()) * model::itemsize(src_desc.dtype);
    const std::unique_ptr<unsigned char[]> base(new unsigned char[std::max<std::size_t>(bytes, 1)]);
    storage_to_base(src_desc, src, base.get());
    base_to_storage(dst_desc, base.get(), dst);
  }
}

}  // namespace npu::kernels
