// The arguments the CPU fallback hands to CPU kernels.
//
// Devices: written arguments must be npu tensors (see the header).
//
// Strides: aten::_to_cpu, which PyTorch's cpu_fallback calls on every tensor
// argument, keeps each npu tensor's strides on the CPU copy. Why: some CPU
// kernels choose their algorithm from the input's strides, and their backward
// formulas look at the strides of the (npu) tensor autograd saved.
// linalg_det, slogdet and logdet factor A^T instead of A when A is
// contiguous and return that LU; their backward asks A.is_contiguous() again
// to know which one it got. PyTorch's default _to_cpu (.cpu()) makes a
// non-dense npu view (a batch sliced with a step) contiguous, so the forward
// factored A^T while the backward, seeing the non-contiguous npu A, assumed
// A: the gradient came out transposed. Same strides on both sides, same choice.
#include "dispatch/fallback/fallback_arguments.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/format/storage_format.h"

namespace npu {

void check_written_arguments_on_npu(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const auto& schema = op.schema();
  const size_t count = schema.arguments().size();
  const auto args = torch::jit::last(stack, count);
  std::optional<c10::Device> read_device;  // an npu device some read tensor is on
  for (size_t i = 0; i < count; ++i) {
    const auto* alias = schema.arguments()[i].alias_info();
    if ((alias == nullptr || !alias->isWrite()) && args[i].isTensor() && args[i].toTensor().is_privateuseone()) {
      read_device = args[i].toTensor().device();
      break;
    }
  }
  if (!read_device) return;
  for (size_t i = 0; i < count; ++i) {
    const auto* alias = schema.arguments()[i].alias_info();
    if (alias == nullptr || !alias->isWrite() || !args[i].isTensor()) continue;
    const at::Tensor& written = args[i].toTensor();
    TORCH_CHECK(!written.defined() || written.is_privateuseone(), "Expected all tensors to be on the same device, "
                "but found at least two devices, ", *read_device, " and ", written.device(), "! (argument '",
                schema.arguments()[i].name(), "' of ", schema.name(), ", which the op writes)");
  }
}

namespace {

// Whether no two elements of `t` share memory, decided from its strides
// alone: every dim (by increasing stride) steps past the whole extent of the
// dims below it. Conservative: false also for some layouts that do not
// overlap, which then go through .cpu() as before.
bool strides_never_overlap(const at::Tensor& t) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.stride(a) < t.stride(b); });
  int64_t extent = 1;  // one past the furthest element the dims so far reach
  for (const int64_t d : dims) {
    if (t.stride(d) < extent) return false;
    extent = t.stride(d) * (t.size(d) - 1) + extent;
  }
  return true;
}

at::Tensor to_cpu_keeping_strides(const at::Tensor& t) {
  if (!t.defined() || !t.is_privateuseone() || t.is_non_overlapping_and_dense() || t.numel() == 0 ||
      !strides_never_overlap(t)) {
    return t.cpu();  // dense views keep their strides through .cpu() already
  }
  at::Tensor cpu = at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kCPU));
  cpu.copy_(t.cpu());
  return cpu;
}

// Arguments that share an npu storage (y.put_(index, y[:3]), ind.index_fill_(0,
// ind, 0)) share one CPU copy of it, as views with their own sizes, strides
// and offsets: the CPU kernel then sees the same aliasing as on the CPU, so
// its overlap checks raise at the call as they would there (separate copies
// hid the overlap, and the op ran on stale inputs). Only plain npu data
// (base format, no conjugate or negative bit) is shared this way.
bool shares_mirrorable_storage(const at::Tensor& t, at::TensorList all) {
  if (!t.defined() || !t.is_privateuseone() || t.numel() == 0 || has_private_format(t) || t.is_conj() || t.is_neg()) {
    return false;
  }
  const auto* storage = t.storage().unsafeGetStorageImpl();
  return std::any_of(all.begin(), all.end(), [&](const at::Tensor& other) {
    return &other != &t && other.defined() && other.is_privateuseone() && other.numel() > 0 &&
           other.storage().unsafeGetStorageImpl() == storage;
  });
}

// The CPU copy of the bytes of t's whole storage.
at::Tensor storage_bytes_on_cpu(const at::Tensor& t) {
  const auto nbytes = static_cast<int64_t>(t.storage().nbytes());
  at::Tensor bytes = at::empty({0}, t.options().dtype(at::kByte));
  bytes.set_(t.storage(), 0, {nbytes}, {1});
  return bytes.cpu();
}

}  // namespace

// aten::_to_cpu for npu tensors (ops/table/copy.yaml's registrations), what
// the boxed fallback moves its arguments with.
std::vector<at::Tensor> to_cpu(at::TensorList tensors) {
  std::vector<at::Tensor> result;
  result.reserve(tensors.size());
  std::map<const c10::StorageImpl*, at::Tensor> mirrors;  // npu storage -> its CPU bytes
  for (const at::Tensor& t : tensors) {
    if (!shares_mirrorable_storage(t, tensors)) {
      result.push_back(to_cpu_keeping_strides(t));
      continue;
    }
    auto [it, added] = mirrors.try_emplace(t.storage().unsafeGetStorageImpl());
    if (added) it->second = storage_bytes_on_cpu(t);
    at::Tensor view = at::empty({0}, t.options().device(at::kCPU));
    view.set_(it->second.storage(), t.storage_offset(), t.sizes(), t.strides());
    result.push_back(view);
  }
  return result;
}

// Not an op's kernel but a route to the fallback, so not in the op table.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  // out= ops whose only kernel besides CPU's is a composite: for npu inputs
  // that composite computes the result on npu and copy_s it into out, on
  // whatever device out is (a CPU out was filled silently). Through the
  // fallback they run CPU's kernel, after the written-argument device check.
  for (const char* op : {"_stack.out"}) {
    m.impl(op, torch::CppFunction::makeFromBoxedFunction<&npu_cpu_fallback>());
  }
}

}  // namespace npu
