#include "kernels/reduce/reduce_engine.h"

#include <algorithm>
#include <vector>

#include <tbb/task_arena.h>

#include "kernels/core/nd_iter.h"
#include "kernels/reduce/acc_buffer.h"

namespace npu::kernels {

namespace {

constexpr int64_t kSplitGrain = 32768;  // reduced elements per chunk when one output is split
constexpr int64_t kMaxBlock = 8192;     // outputs advanced together by the column strategy

// n accumulators of the kernel's type, set to its identity.
AccBuffer identities(const FoldKernel& k, int64_t n) {
  AccBuffer buf(k.acc_size(), n);
  k.init(buf.at(0), n);
  return buf;
}

int64_t inner(const Shape& s) { return s.empty() ? 0 : s.back(); }

class Engine {
 public:
  Engine(const ReducePlan& p, const FoldKernel& k) : p_(p), k_(k) {}

  void run() const {
    if (p_.outputs == 0) return;
    const int64_t workers = tbb::this_task_arena::max_concurrency();
    const bool columns = !p_.kept_sizes.empty() && !p_.red_sizes.empty() && p_.kept_in.back() == 1 &&
                         p_.red_in.back() != 1;
    if (columns) {
      run_columns();
    } else if (p_.outputs >= 4 * workers || p_.reduce_size < 4 * kSplitGrain) {
      run_rows();
    } else {
      run_split();
    }
  }

 private:
  // Folds reduced positions [rb, re) of the output whose slice starts at `base`.
  void fold(void* acc, int64_t base, int64_t rb, int64_t re) const {
    if (p_.red_sizes.empty()) {
      if (rb < re) k_.fold_run(acc, base, 0, 1, 0);
      return;
    }
    const int64_t rs = p_.red_in.back();
    for_each_run<1>(p_.red_sizes, {&p_.red_in}, rb, re, [&](const std::array<int64_t, 1>& off, int64_t pos, int64_t n) {
      k_.fold_run(acc, base + off[0], rs, n, pos);
    });
  }

  // Visits outputs [ob, oe) as f(input_base, out_offset0, out_offset1).
  template <class F>
  void for_outputs(int64_t ob, int64_t oe, const F& f) const {
    const int64_t si = inner(p_.kept_in), s0 = inner(p_.kept_out[0]), s1 = inner(p_.kept_out[1]);
    for_each_run<3>(p_.kept_sizes, {&p_.kept_in, &p_.kept_out[0], &p_.kept_out[1]}, ob, oe,
                    [&](const std::array<int64_t, 3>& off, int64_t, int64_t n) {
                      for (int64_t i = 0; i < n; ++i) f(off[0] + i * si, off[1] + i * s0, off[2] + i * s1);
                    });
  }

  void run_rows() const {
    const int64_t r = p_.reduce_size;
    if (p_.red_sizes.size() <= 1) {  // each output is one run: let the typed kernel loop over outputs
      const int64_t rs = inner(p_.red_in);
      const int64_t si = inner(p_.kept_in), s0 = inner(p_.kept_out[0]), s1 = inner(p_.kept_out[1]);
      parallel_range(p_.outputs, grain_for(r), [&](int64_t ob, int64_t oe) {
        for_each_run<3>(p_.kept_sizes, {&p_.kept_in, &p_.kept_out[0], &p_.kept_out[1]}, ob, oe,
                        [&](const std::array<int64_t, 3>& off, int64_t, int64_t n) {
                          k_.reduce_outputs(off[0], si, n, rs, r, off[1], s0, off[2], s1);
                        });
      });
      return;
    }
    parallel_range(p_.outputs, grain_for(r), [&](int64_t ob, int64_t oe) {
      const AccBuffer acc(k_.acc_size(), 1);
      for_outputs(ob, oe, [&](int64_t base, int64_t o0, int64_t o1) {
        k_.init(acc.at(0), 1);
        fold(acc.at(0), base, 0, r);
        k_.store(o0, o1, acc.at(0));
      });
    });
  }

  void run_split() const {
    const int64_t r = p_.reduce_size;
    const int64_t chunks = (r + kSplitGrain - 1) / kSplitGrain;
    for_outputs(0, p_.outputs, [&](int64_t base, int64_t o0, int64_t o1) {
      const AccBuffer partial = identities(k_, chunks);
      parallel_range(chunks, 1, [&](int64_t cb, int64_t ce) {
        for (int64_t c = cb; c < ce; ++c) fold(partial.at(c), base, c * kSplitGrain, std::min(r, (c + 1) * kSplitGrain));
      });
      for (int64_t c = 1; c < chunks; ++c) k_.merge(partial.at(0), partial.at(c));
      k_.store(o0, o1, partial.at(0));
    });
  }

  void run_columns() const {
    const int64_t width = p_.kept_sizes.back();
    const int64_t rows = p_.reduce_size;
    const Shape outer(p_.kept_sizes.begin(), p_.kept_sizes.end() - 1);
    const Shape outer_in(p_.kept_in.begin(), p_.kept_in.end() - 1);
    const Shape outer_o0(p_.kept_out[0].begin(), p_.kept_out[0].end() - 1);
    const Shape outer_o1(p_.kept_out[1].begin(), p_.kept_out[1].end() - 1);
    const int64_t s0 = p_.kept_out[0].back(), s1 = p_.kept_out[1].back();
    const int64_t groups = p_.outputs / width;
    // Wide blocks keep each row's read long and sequential (few TLB misses,
    // prefetch-friendly); their accumulators stay in L1/L2.
    const int64_t block = width <= kMaxBlock ? width : kMaxBlock / 2;
    const int64_t blocks = (width + block - 1) / block;
    // Too few blocks to keep the workers busy: also cut the rows into chunks
    // whose partial results merge afterwards. Depends on shapes only, so
    // results are reproducible.
    const int64_t chunks = std::clamp<int64_t>((16 + groups * blocks - 1) / (groups * blocks), 1,
                                               std::max<int64_t>(1, rows / 64));
    const int64_t chunk_rows = (rows + chunks - 1) / chunks;
    const int64_t rs = p_.red_in.back();
    const AccBuffer partial = identities(k_, chunks > 1 ? chunks * p_.outputs : 0);

    auto task = [&](int64_t t) {
      const int64_t c = t % chunks, blk = (t / chunks) % blocks, g = t / (chunks * blocks);
      const int64_t j0 = blk * block, w = std::min(block, width - j0);
      const int64_t base = offset_of(g, outer, outer_in) + j0;
      const AccBuffer own = identities(k_, chunks > 1 ? 0 : w);
      void* acc = chunks > 1 ? partial.at(c * p_.outputs + g * width + j0) : own.at(0);
      const int64_t rb = std::min(rows, c * chunk_rows), re = std::min(rows, rb + chunk_rows);
      for_each_run<1>(p_.red_sizes, {&p_.red_in}, rb, re, [&](const std::array<int64_t, 1>& off, int64_t pos, int64_t n) {
        for (int64_t r = 0; r < n; ++r) k_.fold_row(acc, base + off[0] + r * rs, w, pos + r);
      });
      if (chunks > 1) return;
      const int64_t b0 = offset_of(g, outer, outer_o0) + j0 * s0, b1 = offset_of(g, outer, outer_o1) + j0 * s1;
      for (int64_t j = 0; j < w; ++j) k_.store(b0 + j * s0, b1 + j * s1, own.at(j));
    };
    parallel_range(groups * blocks * chunks, grain_for(chunk_rows * block), [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; ++t) task(t);
    });
    if (chunks == 1) return;
    parallel_range(p_.outputs, grain_for(chunks), [&](int64_t ob, int64_t oe) {
      for (int64_t o = ob; o < oe; ++o) {
        for (int64_t c = 1; c < chunks; ++c) k_.merge(partial.at(o), partial.at(c * p_.outputs + o));
        const int64_t g = o / width, j = o % width;
        k_.store(offset_of(g, outer, outer_o0) + j * s0, offset_of(g, outer, outer_o1) + j * s1, partial.at(o));
      }
    });
  }

  const ReducePlan& p_;
  const FoldKernel& k_;
};

}  // namespace

void run_reduction(const ReducePlan& plan, const FoldKernel& kernel) { Engine(plan, kernel).run(); }

}  // namespace npu::kernels
