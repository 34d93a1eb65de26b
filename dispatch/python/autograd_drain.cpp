// Exit safety for autograd's npu device threads.
//
// Autograd runs the nodes of an npu graph on the engine's per-device threads.
// The thread that finishes a graph task may be its last owner and release it
// after the caller has returned; releasing it frees the result tensors the
// caller turned into Python objects, which takes the GIL. If the interpreter is
// finalizing by then, Python ends the thread (pthread_exit) inside that
// noexcept release and the process aborts with "terminate called without an
// active exception" — one exit in four after a backward on npu.
//
// At exit (an atexit handler, before finalization), one small backward on each
// device that ever held memory runs through the same device thread, whose
// queue is first-in first-out: it completes only after that thread dropped
// every earlier graph task. Its own tensors never reach Python, so releasing
// them needs no GIL.
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/utils/pybind.h>

#include "dispatch/memory/npu_allocator.h"
#include "dispatch/runtime/npu_device.h"

namespace py = pybind11;

namespace npu {
namespace {

bool ever_held_memory(c10::DeviceIndex device) {
  const auto stats = memory::device_allocator(device).stats();
  const auto& all = stats.allocation[static_cast<size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE)];
  return all.allocated > 0 || all.current > 0;
}

void drain_autograd_device_threads() {
  py::gil_scoped_release no_gil;  // the device threads may need it to finish
  at::AutoGradMode grad_mode(true);
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) {
    if (!ever_held_memory(d)) continue;
    const auto x = at::ones({1}, at::TensorOptions().device(c10::Device(c10::DeviceType::PrivateUse1, d)))
                       .requires_grad_(true);
    torch::autograd::grad({x.mul(2.0).sum()}, {x});
  }
}

}  // namespace

void bind_autograd_drain(py::module& m) {
  m.def("_drain_autograd_device_threads", &drain_autograd_device_threads,
        "Waits until autograd's npu device threads released every finished graph task (registered atexit).");
}

}  // namespace npu
