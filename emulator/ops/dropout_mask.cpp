#include "emulator/ops/dropout_mask.h"

#include <string>

#include "emulator/acl_error.h"
#include "emulator/op_args.h"
#include "emulator/op_launch.h"
#include "kernels/random/dropout_mask.h"

namespace npu::emu {

namespace {

void require_probability(double prob, const char* op) {
  if (!(prob >= 0.0 && prob <= 1.0)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": prob must be in [0, 1], got " + std::to_string(prob));
  }
}

// The mask of `numel` elements: 1-D contiguous uint8 of align(numel, 128) / 8 bytes.
void require_mask(const aclTensor* mask, int64_t numel, const char* op, const char* name) {
  require_tensor(mask, name);
  const int64_t bytes = kernels::dropout_mask_bytes(numel);
  if (mask->dtype != model::DType::UInt8 || mask->view_dims.size() != 1 || mask->view_dims[0] != bytes ||
      (bytes > 1 && mask->strides[0] != 1)) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": " + name + " must be contiguous uint8 of shape [" +
                                      std::to_string(bytes) + "] (align(" + std::to_string(numel) +
                                      " elements, 128) / 8), got " + model::dtype_name(mask->dtype) + " " +
                                      kernels::shape_str(mask->view_dims));
  }
}

int64_t shape_numel(const aclIntArray* shape, const char* op) {
  if (shape == nullptr) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(op) + ": shape is null");
  int64_t numel = 1;
  for (const int64_t d : shape->values) {
    if (d < 0) fail(ACLNN_ERR_PARAM_INVALID, std::string(op) + ": shape has a negative dim " + std::to_string(d));
    numel *= d;
  }
  return numel;
}

TaskBody gen_mask(const char* op, const aclIntArray* shape, double prob, int64_t seed, int64_t offset,
                  aclTensor* out) {
  require_probability(prob, op);
  const int64_t numel = shape_numel(shape, op);
  require_mask(out, numel, op, "out");
  const kernels::PhiloxInputs rng{static_cast<uint64_t>(seed), static_cast<uint64_t>(offset)};
  return [m = out->view(), numel, prob, rng] { kernels::dropout_gen_mask(m, numel, prob, rng); };
}

}  // namespace

TaskBody dropout_gen_mask_task(const aclIntArray* shape, double prob, int64_t seed, int64_t offset, aclTensor* out) {
  return gen_mask("aclnnDropoutGenMask", shape, prob, seed, offset, out);
}

TaskBody dropout_gen_mask_v2_task(const aclIntArray* shape, double prob, int64_t seed, int64_t offset,
                                  aclDataType probDataType, aclTensor* out) {
  // The dtype CANN's kernel compares prob in; npu-emu compares a 24-bit
  // uniform float with prob in double for every one of them.
  if (probDataType != ACL_FLOAT && probDataType != ACL_FLOAT16 && probDataType != ACL_BF16) {
    fail(ACLNN_ERR_PARAM_INVALID, "aclnnDropoutGenMaskV2: probDataType must be ACL_FLOAT, ACL_FLOAT16 or ACL_BF16, got " +
                                      std::to_string(static_cast<int>(probDataType)));
  }
  return gen_mask("aclnnDropoutGenMaskV2", shape, prob, seed, offset, out);
}

TaskBody dropout_do_mask_task(const aclTensor* self, const aclTensor* mask, double prob, aclTensor* out) {
  require_tensor(self, "self");
  require_tensor(out, "out");
  require_floating(self, "self");
  require_probability(prob, "aclnnDropoutDoMask");
  require_shape(out, self->view_dims, "out");
  if (out->dtype != self->dtype) {
    fail(ACLNN_ERR_PARAM_INVALID, std::string("aclnnDropoutDoMask: out must have self's dtype ") +
                                      model::dtype_name(self->dtype) + ", got " + model::dtype_name(out->dtype));
  }
  require_mask(mask, self->view().numel(), "aclnnDropoutDoMask", "mask");
  return [o = out->view(), s = self->view(), m = mask->view(), prob] { kernels::dropout_do_mask(o, s, m, prob); };
}

}  // namespace npu::emu
