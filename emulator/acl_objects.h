// The emulator's definitions of the opaque aclnn objects. An aclTensor is a
// description (shape, strides, dtype, format, storage dims, address), never
// the data: kernels read the data only when their task runs on a stream.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "device_model/dtype.h"
#include "kernels/core/scalar.h"
#include "emulator/task.h"
#include "kernels/core/tensor_view.h"

struct aclTensor {
  npu::kernels::Shape view_dims;
  npu::kernels::Shape strides;
  int64_t offset = 0;  // in elements, from `data`
  npu::model::DType dtype = npu::model::DType::Float32;
  aclFormat format = ACL_FORMAT_ND;
  npu::kernels::Shape storage_dims;
  void* data = nullptr;

  // The logical view kernels iterate over. Throws AclError
  // (ACLNN_ERR_PARAM_INVALID) for a private format, whose bytes are not laid
  // out as the view says: entries see such tensors through a FormatScope.
  npu::kernels::TensorView view() const {
    require_base_format();
    return unchecked_view();
  }
  // The same view whatever the format: for entries that take private
  // formats themselves (aclnnNpuFormatCast) and only need the address.
  npu::kernels::TensorView unchecked_view() const {
    return npu::kernels::TensorView{first_element(), dtype, view_dims, strides};
  }

  // The parts of view(), inline: every tensor argument of every launch goes
  // through them, and an operand is built from them in place
  // (OperandArg::resolve). Fails (ACLNN_ERR_PARAM_INVALID) for a private format.
  void require_base_format() const {
    // ND first: the format of nearly every argument, without a table lookup.
    if (format != ACL_FORMAT_ND) require_base_format_slow();
  }
  // The address of the view's first element. A description without an
  // address is fine until something reads it: fails
  // (ACLNN_ERR_PARAM_NULLPTR) only for a null address of a view with elements.
  void* first_element() const {
    if (data == nullptr) require_empty_view();
    // Most views start at their storage's start: no item size lookup then.
    return offset == 0 ? data
                       : static_cast<char*>(data) + offset * static_cast<int64_t>(npu::model::itemsize(dtype));
  }

 private:
  void require_base_format_slow() const;
  void require_empty_view() const;
};

struct aclScalar {
  npu::model::DType dtype = npu::model::DType::Float64;
  // Aligned for every element type: kernels read the value in place through
  // a 0-dim view (aclnnScatterValue), and after the 4-byte dtype an int64 or
  // double sat misaligned (UBSan).
  alignas(16) std::array<unsigned char, 16> bytes{};

  npu::kernels::Scalar value() const { return npu::kernels::Scalar::from_raw(bytes.data(), dtype); }
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};

// Owns its tensors, as in CANN: aclDestroyTensorList destroys them too.
struct aclTensorList {
  std::vector<std::unique_ptr<const aclTensor>> tensors;
};

// Owns its scalars, as in CANN: aclDestroyScalarList destroys them too.
struct aclScalarList {
  std::vector<std::unique_ptr<const aclScalar>> scalars;
};

// What ...GetWorkspaceSize prepares and the launch call enqueues. The body
// captures tensor descriptions by value, so the caller may destroy its
// aclTensors right after the launch returns.
// The task is launched from where it lies: a task that runs at once on the
// launching thread (Stream::submit) is never moved again.
struct aclOpExecutor {
  npu::emu::Task task{"", nullptr, true};  // named after the launch API, a string literal
};

namespace npu::emu {

// Null checks with the aclnn error code, naming the parameter.
void require_tensor(const aclTensor* t, const char* name);
void require_scalar(const aclScalar* s, const char* name);

}  // namespace npu::emu
