// Precompiled header of the PyTorch extension: the torch headers nearly every
// dispatch file includes. Only dispatch/ includes PyTorch headers.
#pragma once
#include <ATen/ATen.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>
