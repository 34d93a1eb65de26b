// Private storage formats: the format table, storage-shape inference and its
// rules, the transforms in both directions against a reference written
// straight from FORMATS.md's index maps (not from the transform code), and
// the aclnnNpuFormatCast C API.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "acl/aclnn_base.h"
#include "acl/aclnn_format_cast.h"
#include "device_model/format.h"
#include "device_model/storage_desc.h"
#include "kernels/core/tensor_view.h"
#include "kernels/format/format_transform.h"

using npu::model::Dims;
using npu::model::DType;
using npu::model::Format;
using npu::model::StorageDesc;

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (const int64_t v : d) n *= v;
  return n;
}

DType dtype_of_size(std::size_t size) {
  switch (size) {
    case 1: return DType::Int8;
    case 2: return DType::BFloat16;
    case 4: return DType::Int32;
    default: return DType::Float64;
  }
}

// ---- The reference, from FORMATS.md ---------------------------------------

// "Inputs of rank < 4 to the 4-D formats are first padded".
Dims pad4(const Dims& s) {
  switch (s.size()) {
    case 0: return {1, 1, 1, 1};
    case 1: return {1, s[0], 1, 1};
    case 2: return {1, s[0], s[1], 1};
    case 3: return {1, s[0], s[1], s[2]};
    default: return s;
  }
}

// "C0 by dtype": FRACTAL_NZ uses 32 / min(itemsize, 2); the C0 variants say theirs.
int64_t nz_c0(Format f, std::size_t itemsize) {
  switch (f) {
    case Format::FRACTAL_NZ: return 32 / static_cast<int64_t>(std::min<std::size_t>(itemsize, 2));
    case Format::FRACTAL_NZ_C0_16: return 16;
    case Format::FRACTAL_NZ_C0_32: return 32;
    case Format::FRACTAL_NZ_C0_2: return 2;
    case Format::FRACTAL_NZ_C0_4: return 4;
    default: return 8;  // FRACTAL_NZ_C0_8
  }
}

// The storage shape and, for every logical element in row-major order, its
// storage element offset.
struct Reference {
  Dims storage;
  std::vector<int64_t> offset;
};

Reference reference(Format f, const Dims& sizes, std::size_t itemsize) {
  Reference ref;
  auto& off = ref.offset;
  switch (f) {
    case Format::NC1HWC0:
    case Format::NC1HWC0_C04: {
      const int64_t C0 = f == Format::NC1HWC0 ? 16 : 4;  // NC1HWC0_C04: "C0 = 4"
      const Dims p = pad4(sizes);
      const int64_t N = p[0], C = p[1], H = p[2], W = p[3], C1 = cdiv(C, C0);
      ref.storage = {N, C1, H, W, C0};
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w) off.push_back((((n * C1 + c / C0) * H + h) * W + w) * C0 + c % C0);
      return ref;
    }
    case Format::FRACTAL_Z: {
      const Dims p = pad4(sizes);
      const int64_t N = p[0], C = p[1], H = p[2], W = p[3], C1 = cdiv(C, 16), N1 = cdiv(N, 16);
      ref.storage = {C1 * H * W, N1, 16, 16};
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w)
              off.push_back((((c / 16) * H + h) * W + w) * (N1 * 16 * 16) + n * 16 + c % 16);
      return ref;
    }
    case Format::NDHWC:
    case Format::NDC1HWC0:
    case Format::FRACTAL_Z_3D: {
      const int64_t N = sizes[0], C = sizes[1], D = sizes[2], H = sizes[3], W = sizes[4];
      const int64_t C1 = cdiv(C, 16), N1 = cdiv(N, 16);
      if (f == Format::NDHWC) ref.storage = {N, D, H, W, C};
      if (f == Format::NDC1HWC0) ref.storage = {N, D, C1, H, W, 16};
      if (f == Format::FRACTAL_Z_3D) ref.storage = {D * C1 * H * W, N1, 16, 16};
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t d = 0; d < D; ++d)
            for (int64_t h = 0; h < H; ++h)
              for (int64_t w = 0; w < W; ++w) {
                if (f == Format::NDHWC) off.push_back((((n * D + d) * H + h) * W + w) * C + c);
                if (f == Format::NDC1HWC0) off.push_back(((((n * D + d) * C1 + c / 16) * H + h) * W + w) * 16 + c % 16);
                if (f == Format::FRACTAL_Z_3D)
                  off.push_back(((((d * C1 + c / 16) * H + h) * W + w) * N1 * 16 + n) * 16 + c % 16);
              }
      return ref;
    }
    default: {  // the FRACTAL_NZ family
      const int64_t C0 = nz_c0(f, itemsize);
      const std::size_t r = sizes.size();
      const int64_t M = sizes[r - 2], K = sizes[r - 1], K1 = cdiv(K, C0), M1 = cdiv(M, 16);
      const int64_t B = numel(Dims(sizes.begin(), sizes.end() - 2));
      ref.storage = Dims(sizes.begin(), sizes.end() - 2);
      ref.storage.insert(ref.storage.end(), {K1, M1, 16, C0});
      for (int64_t b = 0; b < B; ++b)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t k = 0; k < K; ++k)
            off.push_back(b * (K1 * M1 * 16 * C0) + (k / C0) * (M1 * 16 * C0) + m * C0 + k % C0);
      return ref;
    }
  }
}

// ---- Buffers ------------------------------------------------------------------

// Memory that ends right before an inaccessible page, so that a transform
// reading or writing past the end of its buffer crashes the test.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t bytes) : bytes_(bytes) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    mapped_ = (bytes + page - 1) / page * page + page;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<unsigned char*>(p);
    mprotect(base_ + mapped_ - page, page, PROT_NONE);
    data_ = base_ + (mapped_ - page - bytes);
  }
  ~GuardedBuffer() { munmap(base_, mapped_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  unsigned char* data() { return data_; }
  std::size_t size() const { return bytes_; }
  std::vector<unsigned char> bytes() const { return {data_, data_ + bytes_}; }
  void fill(unsigned char v) { std::memset(data_, v, bytes_); }

 private:
  std::size_t bytes_;
  std::size_t mapped_ = 0;
  unsigned char* base_ = nullptr;
  unsigned char* data_ = nullptr;
};

// Element i never is all zero bytes (byte 0 is 1..255), and elements differ
// within 255 of each other for 1-byte types, everywhere for wider ones.
void write_pattern(unsigned char* dst, int64_t count, std::size_t itemsize) {
  for (int64_t i = 0; i < count; ++i) {
    unsigned char* e = dst + i * itemsize;
    e[0] = static_cast<unsigned char>(i % 255 + 1);
    for (std::size_t j = 1; j < itemsize; ++j) {
      e[j] = static_cast<unsigned char>(((i / 255) >> (8 * (j - 1))) ^ (j * 0x3C));
    }
  }
}

// Index of the first differing byte, or -1.
int64_t first_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

// The storage bytes the reference says `base` becomes.
std::vector<unsigned char> expected_storage(const Reference& ref, const unsigned char* base, std::size_t itemsize) {
  std::vector<unsigned char> out(static_cast<std::size_t>(numel(ref.storage)) * itemsize, 0);
  for (std::size_t i = 0; i < ref.offset.size(); ++i) {
    std::memcpy(out.data() + ref.offset[i] * itemsize, base + i * itemsize, itemsize);
  }
  return out;
}

void check_round_trip(Format f, std::size_t itemsize, const Dims& shape) {
  INFO(npu::model::format_label(f) << ", " << itemsize << "-byte elements, shape " << npu::model::dims_str(shape));
  const Reference ref = reference(f, shape, itemsize);
  const StorageDesc desc = npu::model::make_storage_desc(shape, dtype_of_size(itemsize), f);
  REQUIRE(desc.npu_format == f);
  REQUIRE(desc.storage_sizes == ref.storage);
  REQUIRE(desc.storage_nbytes() == static_cast<std::size_t>(numel(ref.storage)) * itemsize);

  // The reference must map logical elements one to one onto storage slots.
  std::vector<bool> used(static_cast<std::size_t>(numel(ref.storage)), false);
  int64_t out_of_range = 0, collisions = 0;
  for (const int64_t o : ref.offset) {
    if (o < 0 || o >= numel(ref.storage)) {
      ++out_of_range;
      continue;
    }
    collisions += used[o];
    used[o] = true;
  }
  REQUIRE(out_of_range == 0);
  REQUIRE(collisions == 0);

  GuardedBuffer base(static_cast<std::size_t>(numel(shape)) * itemsize);
  write_pattern(base.data(), numel(shape), itemsize);
  const std::vector<unsigned char> expected = expected_storage(ref, base.data(), itemsize);

  GuardedBuffer storage(desc.storage_nbytes());
  storage.fill(0xCD);  // whatever the storage held must not survive
  npu::kernels::base_to_storage(desc, base.data(), storage.data());
  const std::vector<unsigned char> got = storage.bytes();
  int64_t nonzero_padding = 0;
  for (std::size_t slot = 0; slot < used.size(); ++slot) {
    if (used[slot]) continue;
    for (std::size_t j = 0; j < itemsize; ++j) nonzero_padding += got[slot * itemsize + j] != 0;
  }
  CHECK(nonzero_padding == 0);
  CHECK(first_difference(got, expected) == -1);

  GuardedBuffer back(base.size());
  back.fill(0xCD);
  npu::kernels::storage_to_base(desc, storage.data(), back.data());
  CHECK(first_difference(back.bytes(), base.bytes()) == -1);
}

const std::vector<Dims> kShapes4d = {
    {},          {5},          {3, 7},        {2, 17, 5},    {1, 1, 1, 1},  {1, 3, 8, 8},
    {31, 17, 4, 4}, {1, 17, 4, 4}, {2, 16, 3, 3}, {17, 32, 1, 7}, {3, 33, 2, 5}, {16, 1, 1, 16},
    {2, 0, 3, 3}, {4, 37, 9, 13}, {3, 40, 33, 31},  // the last is large enough to run on workers
    // FRACTAL_Z moves tiles of 64 n over runs of whole C0 blocks: N past one
    // tile and not a multiple of 16, C with and without a partial last block,
    // spatial sizes below, at and past the 16-element tile (5x5 = one tile
    // and a tail), and few n with many channel blocks (split across tasks).
    {70, 48, 3, 3}, {130, 20, 5, 5}, {65, 16, 4, 4}, {5, 300, 3, 3}, {1, 64, 1, 1},
};
const std::vector<Dims> kShapes5d = {
    {1, 1, 1, 1, 1}, {2, 17, 3, 4, 5},  {16, 32, 2, 3, 3},  {17, 1, 2, 1, 3},
    {1, 33, 1, 16, 2}, {0, 2, 2, 2, 2}, {3, 19, 5, 11, 13}, {33, 18, 3, 5, 7},
    {70, 40, 3, 3, 3}, {20, 33, 2, 4, 5},  // as the last 4-D shapes, for FRACTAL_Z_3D
};
const std::vector<Dims> kShapesNz = {
    {1, 1},     {100, 30},  {8, 100, 30}, {2, 3, 33, 17}, {16, 32},       {32, 64},      {1, 17},
    {5, 1, 1, 1}, {2, 16, 16}, {3, 31, 65}, {0, 5},         {3, 130, 97}, {2, 67, 300},
};
const std::size_t kItemSizes[] = {1, 2, 4, 8};

}  // namespace

// ---- The format table ----------------------------------------------------------

TEST_CASE("format table: ids, names and base formats follow FORMATS.md", "[formats]") {
  struct Row {
    int id;
    const char* name;
    Format base;
  };
  const Row rows[] = {
      {0, "NCHW", Format::NCHW},           {1, "NHWC", Format::NHWC},
      {2, "ND", Format::ND},               {3, "NC1HWC0", Format::NCHW},
      {4, "FRACTAL_Z", Format::NCHW},      {12, "NC1HWC0_C04", Format::NCHW},
      {27, "NDHWC", Format::NCDHW},        {29, "FRACTAL_NZ", Format::ND},
      {30, "NCDHW", Format::NCDHW},        {32, "NDC1HWC0", Format::NCDHW},
      {33, "FRACTAL_Z_3D", Format::NCDHW}, {50, "FRACTAL_NZ_C0_16", Format::ND},
      {51, "FRACTAL_NZ_C0_32", Format::ND}, {52, "FRACTAL_NZ_C0_2", Format::ND},
      {53, "FRACTAL_NZ_C0_4", Format::ND}, {54, "FRACTAL_NZ_C0_8", Format::ND},
  };
  for (const Row& r : rows) {
    INFO(r.name);
    const Format f = npu::model::format_from_id(r.id);
    CHECK(static_cast<int>(f) == r.id);
    CHECK(std::string(npu::model::format_name(f)) == r.name);
    CHECK(npu::model::base_format(f) == r.base);
    CHECK(npu::model::is_base_format(f) == (r.base == f));
    CHECK(npu::model::is_private_format(f) == (r.base != f));
  }
  CHECK(npu::model::format_label(Format::FRACTAL_NZ) == "FRACTAL_NZ (29)");
  // Known ids npu-emu cannot store, and the rank labels.
  CHECK(npu::model::format_from_acl(-1) == Format::Undefined);
  CHECK(npu::model::format_from_acl(16) == Format::HWCN);
  CHECK_FALSE(npu::model::is_storable_format(Format::Undefined));
  CHECK_FALSE(npu::model::is_storable_format(Format::HWCN));
  CHECK(npu::model::is_base_format(Format::NC));
  CHECK(npu::model::is_base_format(Format::NCL));
  CHECK_FALSE(npu::model::format_from_acl(7).has_value());
  CHECK(npu::model::format_table().size() == 20);
}

TEST_CASE("format table: a new tensor's format is guessed from its rank", "[formats]") {
  CHECK(npu::model::guess_base_format(4) == Format::NCHW);
  CHECK(npu::model::guess_base_format(5) == Format::NCDHW);
  for (const int64_t r : {0, 1, 2, 3, 6}) CHECK(npu::model::guess_base_format(r) == Format::ND);
}

TEST_CASE("format table: an unknown id is an error listing the allowed ids", "[formats]") {
  try {
    npu::model::format_from_id(7);
    FAIL("format_from_id(7) did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("unknown format id 7"));
    CHECK_THAT(msg, Catch::Contains("allowed ids"));
    CHECK_THAT(msg, Catch::Contains("FRACTAL_NZ (29)"));
    CHECK_THAT(msg, Catch::Contains("NDC1HWC0 (32)"));
  }
}

// ---- Storage shapes -------------------------------------------------------------

TEST_CASE("storage shapes: the published examples", "[formats]") {
  using npu::model::infer_storage_shape;
  CHECK(infer_storage_shape(Format::FRACTAL_Z, {1, 3, 8, 8}, DType::Float16) == Dims{64, 1, 16, 16});
  CHECK(infer_storage_shape(Format::FRACTAL_Z, {31, 17, 4, 4}, DType::Float16) == Dims{32, 2, 16, 16});
  CHECK(infer_storage_shape(Format::NC1HWC0, {1, 17, 4, 4}, DType::Float16) == Dims{1, 2, 4, 4, 16});
  CHECK(infer_storage_shape(Format::FRACTAL_NZ, {8, 100, 30}, DType::Float16) == Dims{8, 2, 7, 16, 16});
}

TEST_CASE("storage shapes: C0 by dtype (torch_npu convention)", "[formats]") {
  using npu::model::format_c0;
  for (const DType dt : {DType::Float32, DType::Float16, DType::BFloat16, DType::Int32}) {
    CHECK(format_c0(Format::FRACTAL_NZ, dt) == 16);
  }
  CHECK(format_c0(Format::FRACTAL_NZ, DType::Int8) == 32);
  CHECK(format_c0(Format::FRACTAL_NZ, DType::UInt8) == 32);
  for (const Format f : {Format::NC1HWC0, Format::FRACTAL_Z, Format::NDC1HWC0, Format::FRACTAL_Z_3D}) {
    CHECK(format_c0(f, DType::Float32) == 16);
    CHECK(format_c0(f, DType::Int8) == 16);
  }
  CHECK(format_c0(Format::NC1HWC0_C04, DType::Float16) == 4);
  CHECK(format_c0(Format::FRACTAL_NZ_C0_8, DType::Float16) == 8);
  CHECK(format_c0(Format::ND, DType::Float16) == 0);
  CHECK(npu::model::infer_storage_shape(Format::FRACTAL_NZ, {100, 30}, DType::Float32) == Dims{2, 7, 16, 16});
  CHECK(npu::model::infer_storage_shape(Format::FRACTAL_NZ, {100, 30}, DType::Int8) == Dims{1, 7, 16, 32});
  // An NZ C0 that differs from the dtype's own is spelled out.
  CHECK(npu::model::nz_format_for_c0(DType::Float16, 16) == Format::FRACTAL_NZ);
  CHECK(npu::model::nz_format_for_c0(DType::Float32, 32) == Format::FRACTAL_NZ_C0_32);
  CHECK(npu::model::nz_format_for_c0(DType::Int8, 16) == Format::FRACTAL_NZ_C0_16);
  CHECK_THROWS_AS(npu::model::nz_format_for_c0(DType::Float16, 64), std::invalid_argument);
}

TEST_CASE("storage shapes: ranks below 4 are padded for the 4-D formats", "[formats]") {
  using npu::model::infer_storage_shape;
  CHECK(npu::model::padded_base_sizes(Format::NC1HWC0, {}) == Dims{1, 1, 1, 1});
  CHECK(npu::model::padded_base_sizes(Format::FRACTAL_Z, {5}) == Dims{1, 5, 1, 1});
  CHECK(npu::model::padded_base_sizes(Format::NC1HWC0_C04, {3, 7}) == Dims{1, 3, 7, 1});
  CHECK(npu::model::padded_base_sizes(Format::NC1HWC0, {2, 3, 7}) == Dims{1, 2, 3, 7});
  CHECK(npu::model::padded_base_sizes(Format::FRACTAL_NZ, {3, 7}) == Dims{3, 7});
  CHECK(infer_storage_shape(Format::NC1HWC0, {5}, DType::Float16) == Dims{1, 1, 1, 1, 16});
  CHECK(infer_storage_shape(Format::FRACTAL_Z, {20, 3}, DType::Float32) == Dims{6, 1, 16, 16});
}

TEST_CASE("storage shapes: base formats store the logical shape and only relabel", "[formats]") {
  const Dims shape{2, 3, 4, 5};
  for (const Format f : {Format::NCHW, Format::NHWC, Format::ND}) {
    const StorageDesc desc = npu::model::make_storage_desc(shape, DType::Float32, f);
    CHECK(desc.storage_sizes == shape);
    CHECK(desc.origin_format == f);
    CHECK(desc.base_strides == Dims{60, 20, 5, 1});
  }
  std::vector<float> a(120), b(120, -1.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  npu::kernels::convert_storage(npu::model::make_storage_desc(shape, DType::Float32, Format::NCHW), a.data(),
                                npu::model::make_storage_desc(shape, DType::Float32, Format::NHWC), b.data());
  CHECK(a == b);
}

TEST_CASE("storage shapes: NZ below rank 2 and NCHW off rank 4 fall back to ND", "[formats]") {
  using npu::model::resolve_format;
  const auto nz = resolve_format(Format::FRACTAL_NZ, {5});
  CHECK(nz.fell_back());
  CHECK(nz.format == Format::ND);
  CHECK_THAT(nz.warning, Catch::Contains("FRACTAL_NZ (29)") && Catch::Contains("[5]"));
  CHECK(resolve_format(Format::FRACTAL_NZ, {}).format == Format::ND);
  CHECK(resolve_format(Format::FRACTAL_NZ_C0_16, {7}).format == Format::ND);
  CHECK_FALSE(resolve_format(Format::FRACTAL_NZ, {2, 3}).fell_back());
  CHECK(resolve_format(Format::NCHW, {2, 3}).format == Format::ND);
  CHECK(resolve_format(Format::NCHW, {1, 2, 3, 4, 5}).format == Format::ND);
  CHECK_FALSE(resolve_format(Format::NCHW, {1, 2, 3, 4}).fell_back());
  CHECK(resolve_format(Format::NC1HWC0, {5}).warning.empty());

  const StorageDesc desc = npu::model::make_storage_desc({5}, DType::Float16, Format::FRACTAL_NZ);
  CHECK(desc.npu_format == Format::ND);
  CHECK(desc.storage_sizes == Dims{5});
  // A private format keeps the rank-guessed base format as its origin.
  CHECK(npu::model::make_storage_desc({2, 3, 4, 5}, DType::Float16, Format::FRACTAL_NZ).origin_format ==
        Format::NCHW);
  CHECK(npu::model::make_storage_desc({2, 3}, DType::Float16, Format::NC1HWC0).origin_format == Format::ND);
}

TEST_CASE("storage shapes: a format that does not fit is a clear error", "[formats]") {
  using npu::model::infer_storage_shape;
  const auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  const std::string rank5 = message([] { infer_storage_shape(Format::NDC1HWC0, {1, 2, 3, 4}, DType::Float16); });
  CHECK_THAT(rank5, Catch::Contains("NDC1HWC0 (32)") && Catch::Contains("[1, 2, 3, 4]") && Catch::Contains("rank 5"));
  const std::string rank4 = message([] { infer_storage_shape(Format::NC1HWC0, {1, 2, 3, 4, 5}, DType::Float32); });
  CHECK_THAT(rank4, Catch::Contains("NC1HWC0 (3)") && Catch::Contains("[1, 2, 3, 4, 5]"));
  const std::string nhwc = message([] { infer_storage_shape(Format::NHWC, {3, 4}, DType::Float32); });
  CHECK_THAT(nhwc, Catch::Contains("NHWC (1)"));
  const std::string wide = message([] { infer_storage_shape(Format::FRACTAL_NZ, {4, 4}, DType::Complex128); });
  CHECK_THAT(wide, Catch::Contains("FRACTAL_NZ (29)") && Catch::Contains("complex128"));
  const std::string negative = message([] { infer_storage_shape(Format::ND, {2, -1}, DType::Float32); });
  CHECK_THAT(negative, Catch::Contains("[2, -1]") && Catch::Contains("non-negative"));
  CHECK_THAT(message([] { infer_storage_shape(Format::HWCN, {1, 2, 3, 4}, DType::Float32); }),
             Catch::Contains("HWCN (16)"));
  CHECK_THAT(message([] { infer_storage_shape(Format::Undefined, {1}, DType::Float32); }),
             Catch::Contains("UNDEFINED (-1)"));
  // Base formats hold any element size.
  CHECK(infer_storage_shape(Format::ND, {4, 4}, DType::Complex128) == Dims{4, 4});
}

// ---- Transforms against the reference ---------------------------------------------

TEST_CASE("transforms: 4-D formats, every element size, both directions", "[formats]") {
  for (const Format f : {Format::NC1HWC0, Format::NC1HWC0_C04, Format::FRACTAL_Z}) {
    for (const std::size_t size : kItemSizes) {
      for (const Dims& shape : kShapes4d) check_round_trip(f, size, shape);
    }
  }
}

TEST_CASE("transforms: 5-D formats, every element size, both directions", "[formats]") {
  for (const Format f : {Format::NDHWC, Format::NDC1HWC0, Format::FRACTAL_Z_3D}) {
    for (const std::size_t size : kItemSizes) {
      for (const Dims& shape : kShapes5d) check_round_trip(f, size, shape);
    }
  }
}

TEST_CASE("transforms: the FRACTAL_NZ family, every element size, both directions", "[formats]") {
  for (const Format f : {Format::FRACTAL_NZ, Format::FRACTAL_NZ_C0_16, Format::FRACTAL_NZ_C0_32,
                         Format::FRACTAL_NZ_C0_2, Format::FRACTAL_NZ_C0_4, Format::FRACTAL_NZ_C0_8}) {
    for (const std::size_t size : kItemSizes) {
      for (const Dims& shape : kShapesNz) check_round_trip(f, size, shape);
    }
  }
}

TEST_CASE("transforms: private to private goes through the base layout", "[formats]") {
  const Dims shape{17, 20, 3, 3};
  const std::size_t size = 4;
  GuardedBuffer base(static_cast<std::size_t>(numel(shape)) * size);
  write_pattern(base.data(), numel(shape), size);
  const StorageDesc five_hd = npu::model::make_storage_desc(shape, DType::Float32, Format::NC1HWC0);
  const StorageDesc frac_z = npu::model::make_storage_desc(shape, DType::Float32, Format::FRACTAL_Z);
  const StorageDesc nz = npu::model::make_storage_desc(shape, DType::Float32, Format::FRACTAL_NZ_C0_8);
  GuardedBuffer a(five_hd.storage_nbytes()), b(frac_z.storage_nbytes()), c(nz.storage_nbytes());
  npu::kernels::base_to_storage(five_hd, base.data(), a.data());
  b.fill(0xCD);
  npu::kernels::convert_storage(five_hd, a.data(), frac_z, b.data());
  CHECK(first_difference(b.bytes(), expected_storage(reference(Format::FRACTAL_Z, shape, size), base.data(), size)) ==
        -1);
  c.fill(0xCD);
  npu::kernels::convert_storage(frac_z, b.data(), nz, c.data());
  CHECK(first_difference(c.bytes(),
                         expected_storage(reference(Format::FRACTAL_NZ_C0_8, shape, size), base.data(), size)) == -1);
}

TEST_CASE("transforms: a descriptor that disagrees with the spec is refused", "[formats]") {
  StorageDesc desc = npu::model::make_storage_desc({4, 20}, DType::Float16, Format::FRACTAL_NZ);
  desc.storage_sizes = {1, 1, 16, 16};  // too small for [4, 20]
  std::vector<uint16_t> base(80), storage(1024);
  try {
    npu::kernels::base_to_storage(desc, base.data(), storage.data());
    FAIL("no exception");
  } catch (const npu::kernels::KernelError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("FRACTAL_NZ (29)") && Catch::Contains("[4, 20]") &&
                                          Catch::Contains("expected [2, 1, 16, 16]"));
  }
  const StorageDesc other = npu::model::make_storage_desc({4, 21}, DType::Float16, Format::ND);
  CHECK_THROWS_AS(npu::kernels::convert_storage(npu::model::make_storage_desc({4, 20}, DType::Float16, Format::ND),
                                                base.data(), other, storage.data()),
                  npu::kernels::KernelError);
}

// ---- The C API --------------------------------------------------------------------

namespace {

Dims contiguous_strides(const Dims& d) { return npu::kernels::contiguous_strides(d).vec(); }

// Device memory holding `bytes`, freed on scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t bytes;
  explicit DeviceBuffer(std::size_t n) : bytes(n) { REQUIRE(aclrtMalloc(&ptr, n, ACL_MEM_MALLOC_HUGE_FIRST) == 0); }
  ~DeviceBuffer() { aclrtFree(ptr); }
  void upload(const void* host) { REQUIRE(aclrtMemcpy(ptr, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0); }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> host(bytes);
    REQUIRE(aclrtMemcpy(host.data(), bytes, ptr, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    return host;
  }
};

struct TensorHandle {
  aclTensor* t;
  TensorHandle(const Dims& dims, aclDataType dt, const Dims& strides, aclFormat format, const Dims& storage,
               void* data)
      : t(aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, format, storage.data(), storage.size(),
                          data)) {
    REQUIRE(t != nullptr);
  }
  ~TensorHandle() { aclDestroyTensor(t); }
};

struct CastResult {
  aclnnStatus status;
  Dims shape;
  int format;
};

CastResult calculate(const aclTensor* src, int dst_format, int additional_dtype = -1) {
  int64_t* shape = nullptr;
  uint64_t rank = 0;
  int actual = -100;
  const aclnnStatus status =
      aclnnNpuFormatCastCalculateSizeAndFormat(src, dst_format, additional_dtype, &shape, &rank, &actual);
  CastResult r{status, {}, actual};
  if (status == ACLNN_SUCCESS) {
    r.shape.assign(shape, shape + rank);
    delete[] shape;  // the caller's job, as with CANN
  }
  return r;
}

std::string recent_error() {
  const char* msg = aclGetRecentErrMsg();
  return msg != nullptr ? msg : "";
}

void cast(const aclTensor* src, aclTensor* dst) {
  uint64_t workspace = 1;
  aclOpExecutor* executor = nullptr;
  REQUIRE(aclnnNpuFormatCastGetWorkspaceSize(src, dst, &workspace, &executor) == ACLNN_SUCCESS);
  CHECK(workspace == 0);
  REQUIRE(aclnnNpuFormatCast(nullptr, workspace, executor, nullptr) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
}

}  // namespace

TEST_CASE("aclnnNpuFormatCast: ND to FRACTAL_NZ and back through the C API", "[formats]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const Dims dims{2, 33, 20};
  const std::size_t bytes = numel(dims) * 2;
  std::vector<unsigned char> host(bytes);
  write_pattern(host.data(), numel(dims), 2);
  DeviceBuffer src_mem(bytes);
  src_mem.upload(host.data());
  const TensorHandle src(dims, ACL_FLOAT16, contiguous_strides(dims), ACL_FORMAT_ND, dims, src_mem.ptr);

  const CastResult size = calculate(src.t, ACL_FORMAT_FRACTAL_NZ);
  REQUIRE(size.status == ACLNN_SUCCESS);
  CHECK(size.format == ACL_FORMAT_FRACTAL_NZ);
  REQUIRE(size.shape == Dims{2, 2, 3, 16, 16});

  DeviceBuffer nz_mem(numel(size.shape) * 2);
  const TensorHandle nz(dims, ACL_FLOAT16, contiguous_strides(dims), static_cast<aclFormat>(size.format), size.shape,
                        nz_mem.ptr);
  cast(src.t, nz.t);
  CHECK(first_difference(nz_mem.download(),
                         expected_storage(reference(Format::FRACTAL_NZ, dims, 2), host.data(), 2)) == -1);

  DeviceBuffer back_mem(bytes);
  const TensorHandle back(dims, ACL_FLOAT16, contiguous_strides(dims), ACL_FORMAT_ND, dims, back_mem.ptr);
  cast(nz.t, back.t);
  CHECK(first_difference(back_mem.download(), host) == -1);
}

TEST_CASE("aclnnNpuFormatCast: data moves when the launch runs, not at GetWorkspaceSize", "[formats]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const Dims dims{3, 20, 4, 4};
  const std::size_t bytes = numel(dims) * 4;
  std::vector<unsigned char> before(bytes, 1), after(bytes);
  write_pattern(after.data(), numel(dims), 4);
  DeviceBuffer src_mem(bytes);
  src_mem.upload(before.data());
  const TensorHandle src(dims, ACL_FLOAT, contiguous_strides(dims), ACL_FORMAT_NCHW, dims, src_mem.ptr);
  const CastResult size = calculate(src.t, ACL_FORMAT_NC1HWC0);
  REQUIRE(size.status == ACLNN_SUCCESS);
  CHECK(size.shape == Dims{3, 2, 4, 4, 16});
  DeviceBuffer dst_mem(numel(size.shape) * 4);
  const TensorHandle dst(dims, ACL_FLOAT, contiguous_strides(dims), ACL_FORMAT_NC1HWC0, size.shape, dst_mem.ptr);

  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  REQUIRE(aclnnNpuFormatCastGetWorkspaceSize(src.t, dst.t, &workspace, &executor) == ACLNN_SUCCESS);
  src_mem.upload(after.data());  // after preparing, before launching
  REQUIRE(aclnnNpuFormatCast(nullptr, workspace, executor, nullptr) == ACLNN_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
  CHECK(first_difference(dst_mem.download(),
                         expected_storage(reference(Format::NC1HWC0, dims, 4), after.data(), 4)) == -1);
}

TEST_CASE("aclnnNpuFormatCast: private to private, and a strided base-format source", "[formats]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  const Dims dims{17, 20, 3, 3};
  const std::size_t bytes = numel(dims) * 4;
  std::vector<unsigned char> host(bytes);
  write_pattern(host.data(), numel(dims), 4);
  DeviceBuffer src_mem(bytes);
  src_mem.upload(host.data());
  const TensorHandle src(dims, ACL_FLOAT, contiguous_strides(dims), ACL_FORMAT_NCHW, dims, src_mem.ptr);
  const CastResult five_hd_size = calculate(src.t, ACL_FORMAT_NC1HWC0);
  DeviceBuffer five_hd_mem(numel(five_hd_size.shape) * 4);
  const TensorHandle five_hd(dims, ACL_FLOAT, contiguous_strides(dims), ACL_FORMAT_NC1HWC0, five_hd_size.shape,
                             five_hd_mem.ptr);
  cast(src.t, five_hd.t);
  const CastResult z_size = calculate(five_hd.t, ACL_FORMAT_FRACTAL_Z);
  REQUIRE(z_size.status == ACLNN_SUCCESS);
  CHECK(z_size.shape == Dims{18, 2, 16, 16});
  DeviceBuffer z_mem(numel(z_size.shape) * 4);
  const TensorHandle z(dims, ACL_FLOAT, contiguous_strides(dims), ACL_FORMAT_FRACTAL_Z, z_size.shape, z_mem.ptr);
  cast(five_hd.t, z.t);
  CHECK(first_difference(z_mem.download(), expected_storage(reference(Format::FRACTAL_Z, dims, 4), host.data(), 4)) ==
        -1);

  // A transposed view [20, 17] of the contiguous [17, 20] data, cast to NZ.
  const Dims base{17, 20}, view{20, 17};
  const std::size_t view_bytes = numel(view) * 4;
  const TensorHandle transposed(view, ACL_FLOAT, Dims{1, 20}, ACL_FORMAT_ND, base, src_mem.ptr);
  const CastResult nz_size = calculate(transposed.t, ACL_FORMAT_FRACTAL_NZ);
  DeviceBuffer nz_mem(numel(nz_size.shape) * 4);
  const TensorHandle nz(view, ACL_FLOAT, contiguous_strides(view), ACL_FORMAT_FRACTAL_NZ, nz_size.shape, nz_mem.ptr);
  cast(transposed.t, nz.t);
  std::vector<unsigned char> logical(view_bytes);
  for (int64_t i = 0; i < 20; ++i) {
    for (int64_t j = 0; j < 17; ++j) std::memcpy(&logical[(i * 17 + j) * 4], &host[(j * 20 + i) * 4], 4);
  }
  CHECK(first_difference(nz_mem.download(),
                         expected_storage(reference(Format::FRACTAL_NZ, view, 4), logical.data(), 4)) == -1);
}

TEST_CASE("aclnnNpuFormatCastCalculateSizeAndFormat: fallbacks and additionalDtype", "[formats]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DeviceBuffer mem(4096);
  const Dims vec{100};
  const TensorHandle v(vec, ACL_FLOAT16, Dims{1}, ACL_FORMAT_ND, vec, mem.ptr);
  const CastResult fallback = calculate(v.t, ACL_FORMAT_FRACTAL_NZ);
  REQUIRE(fallback.status == ACLNN_SUCCESS);
  CHECK(fallback.format == ACL_FORMAT_ND);
  CHECK(fallback.shape == vec);
  CHECK(calculate(v.t, ACL_FORMAT_NCHW).format == ACL_FORMAT_ND);

  const Dims mat{100, 30};
  const TensorHandle f32(mat, ACL_FLOAT, Dims{30, 1}, ACL_FORMAT_ND, mat, mem.ptr);
  const CastResult own = calculate(f32.t, ACL_FORMAT_FRACTAL_NZ);
  CHECK(own.format == ACL_FORMAT_FRACTAL_NZ);
  CHECK(own.shape == Dims{2, 7, 16, 16});
  const CastResult int8_c0 = calculate(f32.t, ACL_FORMAT_FRACTAL_NZ, ACL_INT8);
  CHECK(int8_c0.format == ACL_FORMAT_FRACTAL_NZ_C0_32);
  CHECK(int8_c0.shape == Dims{1, 7, 16, 32});
  const TensorHandle f16(mat, ACL_FLOAT16, Dims{30, 1}, ACL_FORMAT_ND, mat, mem.ptr);
  CHECK(calculate(f16.t, ACL_FORMAT_FRACTAL_NZ, ACL_FLOAT).format == ACL_FORMAT_FRACTAL_NZ);
  CHECK(calculate(f16.t, ACL_FORMAT_ND).shape == mat);
}

TEST_CASE("aclnnNpuFormatCastCalculateSizeAndFormat: a private source cast to its own format is refused, as CANN's",
          "[formats]") {
  // torch_npu's npu_format_cast_(self, src) asks for self's own private
  // format and, refused, writes src into self another way.
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DeviceBuffer mem(1 << 16);
  const Dims mat{33, 47};
  const TensorHandle nz(mat, ACL_FLOAT, Dims{47, 1}, ACL_FORMAT_FRACTAL_NZ, Dims{3, 3, 16, 16}, mem.ptr);
  recent_error();
  CHECK(calculate(nz.t, ACL_FORMAT_FRACTAL_NZ).status == ACLNN_ERR_RUNTIME_ERROR);
  CHECK_THAT(recent_error(), Catch::Contains("FRACTAL_NZ (29) -> FRACTAL_NZ (29)"));
  CHECK(calculate(nz.t, ACL_FORMAT_ND).status == ACLNN_SUCCESS);
  const Dims four{2, 20, 5, 6};
  const TensorHandle fivehd(four, ACL_FLOAT, contiguous_strides(four), ACL_FORMAT_NC1HWC0, Dims{2, 2, 5, 6, 16},
                            mem.ptr);
  CHECK(calculate(fivehd.t, ACL_FORMAT_NC1HWC0).status == ACLNN_ERR_RUNTIME_ERROR);
  CHECK_THAT(recent_error(), Catch::Contains("NC1HWC0 (3) -> NC1HWC0 (3)"));
  const CastResult to_base = calculate(fivehd.t, ACL_FORMAT_NCHW);
  CHECK(to_base.status == ACLNN_SUCCESS);
  CHECK(to_base.shape == four);
}

TEST_CASE("aclnnNpuFormatCast: bad input is an error with a useful message, never a crash", "[formats]") {
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  DeviceBuffer mem(1 << 16);
  const Dims dims{2, 33, 20};
  const TensorHandle src(dims, ACL_FLOAT16, contiguous_strides(dims), ACL_FORMAT_ND, dims, mem.ptr);
  recent_error();  // start clean

  CHECK(calculate(src.t, 7).status == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("unknown format id 7") && Catch::Contains("FRACTAL_NZ (29)"));
  CHECK(calculate(src.t, ACL_FORMAT_NDC1HWC0).status == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("NDC1HWC0 (32)") && Catch::Contains("[2, 33, 20]"));
  CHECK(calculate(src.t, ACL_FORMAT_FRACTAL_NZ, 999).status == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("additionalDtype 999"));
  CHECK(calculate(nullptr, ACL_FORMAT_FRACTAL_NZ).status == ACLNN_ERR_PARAM_NULLPTR);
  int64_t* shape = nullptr;
  int actual = 0;
  CHECK(aclnnNpuFormatCastCalculateSizeAndFormat(src.t, ACL_FORMAT_FRACTAL_NZ, -1, &shape, nullptr, &actual) ==
        ACLNN_ERR_PARAM_NULLPTR);
  CHECK(shape == nullptr);

  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const Dims wrong_storage{2, 2, 3, 16, 8};
  const TensorHandle bad_nz(dims, ACL_FLOAT16, contiguous_strides(dims), ACL_FORMAT_FRACTAL_NZ, wrong_storage, mem.ptr);
  CHECK(aclnnNpuFormatCastGetWorkspaceSize(src.t, bad_nz.t, &workspace, &executor) == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("storage dims [2, 2, 3, 16, 8]") &&
                                 Catch::Contains("expected [2, 2, 3, 16, 16]"));
  const TensorHandle other_dtype(dims, ACL_FLOAT, contiguous_strides(dims), ACL_FORMAT_ND, dims, mem.ptr);
  CHECK(aclnnNpuFormatCastGetWorkspaceSize(src.t, other_dtype.t, &workspace, &executor) == ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("keeps the dtype"));
  const Dims four{2, 3, 4, 5};
  const TensorHandle wrong_rank(four, ACL_FLOAT16, contiguous_strides(four), ACL_FORMAT_NDC1HWC0, four, mem.ptr);
  CHECK(aclnnNpuFormatCastGetWorkspaceSize(wrong_rank.t, wrong_rank.t, &workspace, &executor) ==
        ACLNN_ERR_PARAM_INVALID);
  CHECK_THAT(recent_error(), Catch::Contains("NDC1HWC0 (32)") && Catch::Contains("[2, 3, 4, 5]"));
  CHECK(aclnnNpuFormatCastGetWorkspaceSize(nullptr, bad_nz.t, &workspace, &executor) == ACLNN_ERR_PARAM_NULLPTR);
}
