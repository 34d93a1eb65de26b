// Task makers of CANN's aclnnInplace* ops (ops/table/inplace.yaml): each is
// its out-of-place op's task maker with the updated tensor passed as both
// self and out, so this header only gathers those families' makers.
#pragma once

#include "emulator/ops/activation.h"
#include "emulator/ops/activation_backward.h"
#include "emulator/ops/binary.h"
#include "emulator/ops/index.h"
#include "emulator/ops/reduce.h"
#include "emulator/ops/shape.h"
#include "emulator/ops/ternary.h"
#include "emulator/ops/unary.h"
