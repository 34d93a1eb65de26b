// aclnn entries of the random family. Every entry takes the generator's
// (seed, offset) explicitly, as CANN's do; the runtime keeps no RNG state.
//
// npu-emu's counter contract (the emulator's kernels/random/random_ops.h): element i
// of the output, in row-major order of its logical shape, is computed from
// the Philox4x32-10 block of counter offset / 4 + i with key seed. An op on N
// elements (randperm: n) thus consumes 4 * N counter words; callers advance
// their generator's offset by that much between launches.
//
// Signatures are CANN's public ones, except the two marked "npu-emu": CANN
// has no exponential_ entry, and its dropout is DropoutGenMask +
// DropoutDoMask with a bit-packed uint8 mask, whereas PyTorch's
// native_dropout returns a bool mask of the input's shape.
#pragma once

#include "acl/acl_base.h"
#include "acl/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// selfRef ~ U[from, to). Floating dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor* selfRef, double from, double to,
                                                                    uint64_t seed, uint64_t offset,
                                                                    uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceUniform);

// selfRef ~ N(mean, std^2). Floating dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceNormalGetWorkspaceSize(const aclTensor* selfRef, float mean, float std,
                                                                   int64_t seed, int64_t offset,
                                                                   uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceNormal);

// selfRef ~ uniform integers in [from, to). Real dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceRandomGetWorkspaceSize(const aclTensor* selfRef, int64_t from, int64_t to,
                                                                   int64_t seed, int64_t offset,
                                                                   uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceRandom);

// selfRef ~ Bernoulli(prob) (0/1 in selfRef's dtype), prob a scalar in [0, 1].
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceBernoulliGetWorkspaceSize(const aclTensor* selfRef, const aclScalar* prob,
                                                                      int64_t seed, int64_t offset,
                                                                      uint64_t* workspaceSize,
                                                                      aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceBernoulli);

// selfRef[i] ~ Bernoulli(prob[i]); prob broadcasts to selfRef's shape.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceBernoulliTensorGetWorkspaceSize(const aclTensor* selfRef,
                                                                            const aclTensor* prob, int64_t seed,
                                                                            int64_t offset, uint64_t* workspaceSize,
                                                                            aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceBernoulliTensor);

// out (1-D, n elements) = a random permutation of 0..n-1.
ACL_FUNC_VISIBILITY aclnnStatus aclnnRandpermGetWorkspaceSize(int64_t n, int64_t seed, int64_t offset, aclTensor* out,
                                                              uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnRandperm);

// npu-emu: selfRef ~ Exponential(lambd), lambd > 0. Floating dtypes.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceExponentialGetWorkspaceSize(const aclTensor* selfRef, double lambd,
                                                                        int64_t seed, int64_t offset,
                                                                        uint64_t* workspaceSize,
                                                                        aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnInplaceExponential);

// npu-emu: maskOut (bool, self's shape) keeps each element with probability
// 1 - p; out = maskOut ? self / (1 - p) : 0 (all zero when p == 1).
ACL_FUNC_VISIBILITY aclnnStatus aclnnDropoutGetWorkspaceSize(const aclTensor* self, double p, int64_t seed,
                                                             int64_t offset, aclTensor* out, aclTensor* maskOut,
                                                             uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_LAUNCH_SIGNATURE(aclnnDropout);

#ifdef __cplusplus
}
#endif
