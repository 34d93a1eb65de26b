// How a reduction runs on the CPU, for any accumulator op (see reduce_ops.h).
// The strategies live in reduce_engine.cpp, compiled once; each op and dtype
// only instantiates the small typed FoldKernel below (its hot loops), which
// keeps compile time and code size proportional to the ops, not to ops x
// strategies. Strategies:
//  - rows: each output folds its own (ideally contiguous) slice; outputs are
//    spread over workers;
//  - split: few outputs but a long reduction: each output's range is cut into
//    fixed chunks folded in parallel and merged in order (deterministic);
//  - columns: the input's contiguous dim is kept (e.g. sum over dim 0 of a
//    row-major matrix): a block of adjacent outputs advances row by row, so
//    every load is sequential and vectorizes across outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/core/bool_bytes.h"
#include "kernels/core/tensor_view.h"
#include "kernels/reduce/reduce_plan.h"

namespace npu::kernels {

// A reduction's typed part, behind a small virtual interface. Accumulators
// are opaque, trivially copyable, at most kMaxAccBytes bytes, 16-aligned.
class FoldKernel {
 public:
  static constexpr std::size_t kMaxAccBytes = 32;
  virtual ~FoldKernel() = default;
  virtual std::size_t acc_size() const = 0;
  // acc[0..n) = identity
  virtual void init(void* acc, int64_t n) const = 0;
  // *acc folds the n input elements at offset, offset + stride, ...;
  // pos is the reduced position of the first one.
  virtual void fold_run(void* acc, int64_t offset, int64_t stride, int64_t n, int64_t pos) const = 0;
  // acc[j] folds input element offset + j, for j < n (one row of a column block).
  virtual void fold_row(void* acc, int64_t offset, int64_t n, int64_t pos) const = 0;
  // Reduces n outputs whose slices are single runs (len elements, stride
  // run_stride) starting at base + i * base_step, storing output i at
  // (o0 + i * s0, o1 + i * s1). Saves a virtual call per output for short rows.
  virtual void reduce_outputs(int64_t base, int64_t base_step, int64_t n, int64_t run_stride, int64_t len,
                              int64_t o0, int64_t s0, int64_t o1, int64_t s1) const = 0;
  // *a = merge(*a, *b), a covering earlier positions.
  virtual void merge(void* a, const void* b) const = 0;
  // Writes the result of *acc at the two outputs' element offsets.
  virtual void store(int64_t offset0, int64_t offset1, const void* acc) const = 0;
};

// Runs `kernel` over `plan`; calls to store touch distinct outputs.
void run_reduction(const ReducePlan& plan, const FoldKernel& kernel);

template <class Op, class Store>
class TypedFold final : public FoldKernel {
 public:
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  static_assert(std::is_trivially_copyable_v<Acc> && sizeof(Acc) <= kMaxAccBytes && alignof(Acc) <= 16);

  TypedFold(const Op& op, const In* in, const Store& store) : op_(op), in_(in), store_(store) {}

  std::size_t acc_size() const override { return sizeof(Acc); }
  void init(void* acc, int64_t n) const override {
    Acc* a = static_cast<Acc*>(acc);
    for (int64_t i = 0; i < n; ++i) a[i] = op_.identity();
  }
  void fold_run(void* acc, int64_t offset, int64_t stride, int64_t n, int64_t pos) const override {
    Acc& a = *static_cast<Acc*>(acc);
    a = op_.fold_run(a, in_ + offset, stride, n, pos);
  }
  void fold_row(void* acc, int64_t offset, int64_t n, int64_t pos) const override {
    Acc* a = static_cast<Acc*>(acc);
    const In* row = in_ + offset;
    for (int64_t j = 0; j < n; ++j) a[j] = op_.step(a[j], row[j], pos);
  }
  void reduce_outputs(int64_t base, int64_t base_step, int64_t n, int64_t run_stride, int64_t len, int64_t o0,
                      int64_t s0, int64_t o1, int64_t s1) const override {
    for (int64_t i = 0; i < n; ++i) {
      store_(o0 + i * s0, o1 + i * s1, op_.fold_run(op_.identity(), in_ + base + i * base_step, run_stride, len, 0));
    }
  }
  void merge(void* a, const void* b) const override {
    Acc& x = *static_cast<Acc*>(a);
    x = op_.merge(x, *static_cast<const Acc*>(b));
  }
  void store(int64_t offset0, int64_t offset1, const void* acc) const override {
    store_(offset0, offset1, *static_cast<const Acc*>(acc));
  }

 private:
  const Op& op_;
  const In* in_;
  const Store& store_;
};

// Runs `op` over `plan` reading in's data; store(offset0, offset1, acc)
// writes one output.
template <class Op, class Store>
void run_reduction(const ReducePlan& plan, const Op& op, const TensorView& in, const Store& store) {
  std::optional<BoolBytes> bools;  // same strides, so `plan` still applies
  const TensorView src = normalized_bools(in, bools);
  run_reduction(plan, TypedFold<Op, Store>(op, static_cast<const typename Op::in_t*>(src.data), store));
}

}  // namespace npu::kernels
