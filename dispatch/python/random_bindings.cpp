// npu_emu._C's random functions: the per-device default generators as
// torch.Generator objects, which torch.npu.random seeds and snapshots.
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/utils/pybind.h>

#include "dispatch/runtime/npu_device.h"
#include "dispatch/runtime/npu_generator.h"

namespace py = pybind11;

namespace npu {

void bind_random(py::module& m) {
  // A torch.Generator wrapping (not copying) the device's default generator:
  // seeding or restoring it changes what npu random ops draw.
  m.def("_npu_default_generator", torch::wrap_pybind_function([](int device) {
          const auto index = static_cast<c10::DeviceIndex>(device);
          check_device_index(index);
          return py::reinterpret_steal<py::object>(THPGenerator_initDefaultGenerator(default_generator(index)));
        }));
}

}  // namespace npu
