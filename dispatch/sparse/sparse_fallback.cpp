// The CPU fallback for sparse npu tensors: the boxed kernel of the
// SparsePrivateUse1 and SparseCsrPrivateUse1 dispatch keys, so every op PyTorch
// has a sparse CPU kernel for runs with sparse (COO, CSR/CSC/BSR/BSC) npu
// arguments. The npu arguments, sparse or dense, are copied to the CPU, the
// op runs there, written arguments are copied back into their npu tensors and
// results come back to the device of the first npu argument. Each use is
// counted and subject to NPU_EMU_FALLBACK like the dense fallback.
//
// PyTorch's at::native::cpu_fallback cannot be reused: it writes arguments
// back with _copy_from_and_resize, which has no sparse form.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include "dispatch/fallback/cpu_fallback.h"
#include "dispatch/sparse/sparse_fallback.h"

namespace npu {

namespace {

bool on_npu(const at::Tensor& t) { return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1; }

// The sparse CPU dispatch key matching the sparse npu arguments' layouts.
bool has_sparse_cpu_kernel(const c10::OperatorHandle& op) {
  return op.hasComputedKernelForDispatchKey(c10::DispatchKey::SparseCPU) ||
         op.hasComputedKernelForDispatchKey(c10::DispatchKey::SparseCsrCPU);
}

// npu argument `npu` after the CPU kernel wrote `cpu`, its CPU copy.
void write_back(const at::Tensor& npu, const at::Tensor& cpu) {
  if (npu.layout() == at::kStrided && cpu.layout() == at::kStrided) {
    at::native::resize_output(npu, cpu.sizes());  // an out= the kernel resized
  }
  npu.copy_(cpu);  // sparse layouts: copy_sparse_ (structure and data), registered by ops/table/sparse.yaml
}

struct Written {
  at::Tensor npu;
  at::Tensor cpu;
};

// Replaces the npu tensors in `value` by CPU copies; remembers the pairs of a
// written argument; notes the first npu device seen.
void to_cpu(c10::IValue& value, bool written, std::vector<Written>& writes, std::optional<c10::Device>& device) {
  const auto move = [&](const at::Tensor& t) -> at::Tensor {
    if (!on_npu(t)) return t;
    if (!device) device = t.device();
    at::Tensor cpu = t.to(at::kCPU);
    if (written) writes.push_back({t, cpu});
    return cpu;
  };
  if (value.isTensor()) {
    value = move(value.toTensor());
  } else if (value.isTensorList()) {
    std::vector<at::Tensor> list = value.toTensorVector();
    for (auto& t : list) t = move(t);
    value = c10::IValue(list);
  } else if (value.isOptionalTensorList()) {
    auto list = value.toOptionalTensorList();
    c10::List<std::optional<at::Tensor>> moved;
    for (const std::optional<at::Tensor>& t : list) moved.push_back(t ? std::optional<at::Tensor>(move(*t)) : t);
    value = c10::IValue(moved);
  }
}

void to_device(c10::IValue& value, c10::Device device) {
  if (value.isTensor()) {
    const at::Tensor t = value.toTensor();
    if (t.defined()) value = t.to(device);
  } else if (value.isTensorList()) {
    std::vector<at::Tensor> list = value.toTensorVector();
    for (auto& t : list) t = t.to(device);
    value = c10::IValue(list);
  }
}

void sparse_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = fallback_op_name(op);
  TORCH_CHECK_NOT_IMPLEMENTED(has_sparse_cpu_kernel(op), name,
                              " is not supported for sparse npu tensors: npu-emu runs sparse ops through the CPU, "
                              "and PyTorch has no sparse CPU kernel for it. Convert with .to_dense() first.");
  admit_fallback(name);
  const auto& schema = op.schema();
  const auto& arguments = schema.arguments();
  const std::size_t first = stack->size() - arguments.size();
  std::vector<Written> writes;
  std::vector<std::optional<at::Tensor>> written_npu(arguments.size());  // the npu tensor an aliased return refers to
  std::optional<c10::Device> device;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const auto* alias = arguments[i].alias_info();
    const bool written = alias != nullptr && alias->isWrite();
    c10::IValue& value = (*stack)[first + i];
    if (written && value.isTensor()) written_npu[i] = value.toTensor();
    to_cpu(value, written, writes, device);
  }
  op.callBoxed(stack);
  for (const auto& w : writes) write_back(w.npu, w.cpu);
  if (!device) return;  // no npu argument: nothing to bring back
  const auto& returns = schema.returns();
  const std::size_t first_return = stack->size() - returns.size();
  for (std::size_t r = 0; r < returns.size(); ++r) {
    c10::IValue& value = (*stack)[first_return + r];
    // An in-place or out= op returns the npu argument it wrote, not a copy.
    const auto* alias = returns[r].alias_info();
    std::optional<at::Tensor> same;
    if (alias != nullptr && alias->isWrite()) {
      for (std::size_t i = 0; i < arguments.size() && !same; ++i) {
        const auto* arg_alias = arguments[i].alias_info();
        if (written_npu[i] && arg_alias != nullptr && arg_alias->beforeSets() == alias->beforeSets()) {
          same = written_npu[i];
        }
      }
    }
    if (same) {
      value = *same;
    } else {
      to_device(value, *device);
    }
  }
}

// An op with a sparse CPU kernel may also have a composite kernel (a
// structured op's CompositeExplicitAutogradNonFunctional one: mm's calls mm.out
// with an output of its input's layout), which the dispatcher prefers over a
// backend fallback, and which is wrong for sparse layouts. So every op
// PyTorch has a kernel for under a sparse CPU key gets the fallback
// registered explicitly under the npu key, unless npu has its own.
void register_for_ops_of(c10::DispatchKey cpu_key, c10::DispatchKey npu_key, torch::Library& library) {
  for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0) continue;
    const auto op = c10::Dispatcher::singleton().findOp(name);
    if (!op || !op->hasKernelForDispatchKey(cpu_key) || op->hasKernelForDispatchKey(npu_key)) continue;
    const std::string unqualified = name.name.substr(6) + (name.overload_name.empty() ? "" : "." + name.overload_name);
    library.impl(unqualified.c_str(), torch::CppFunction::makeFromBoxedFunction<&sparse_cpu_fallback>());
  }
}

}  // namespace

void register_sparse_fallbacks() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Registrations last as long as their Library: the process.
    static torch::Library coo(torch::Library::IMPL, "aten", c10::DispatchKey::SparsePrivateUse1, __FILE__, __LINE__);
    static torch::Library compressed(torch::Library::IMPL, "aten", c10::DispatchKey::SparseCsrPrivateUse1, __FILE__,
                                     __LINE__);
    register_for_ops_of(c10::DispatchKey::SparseCPU, c10::DispatchKey::SparsePrivateUse1, coo);
    register_for_ops_of(c10::DispatchKey::SparseCsrCPU, c10::DispatchKey::SparseCsrPrivateUse1, compressed);
  });
}

TORCH_LIBRARY_IMPL(_, SparsePrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&sparse_cpu_fallback>());
}

TORCH_LIBRARY_IMPL(_, SparseCsrPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&sparse_cpu_fallback>());
}

}  // namespace npu
