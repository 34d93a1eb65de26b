// Everything the generated registrations (build/generated/dispatch/register_*.cpp) use.
#pragma once

#include <ATen/ScalarOps.h>
#include <ATen/TensorIterator.h>
#include <torch/library.h>

#include "dispatch/aclnn_capabilities.h"
#include "dispatch/ops/op_runner.h"
#include "dispatch/table/arg_conversions.h"
#include "dispatch/table/math_bits.h"
#include "dispatch/fallback/capability.h"
#include "dispatch/fallback/fallback_call.h"
#include "dispatch/table/structured_call.h"
#include "dispatch/table/unary_conversions.h"

#include <ATen/ops/add_meta.h>
