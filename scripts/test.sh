#!/usr/bin/env bash
# Sets up if needed, builds, then runs every test: the Catch2 suite of the
# C++ layers, the pytest suite of the PyTorch backend and a fixed shard of the
# OpInfo conformance sweep (a few minutes). Fails if any of them does.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
BUILD=${NPU_EMU_BUILD_DIR:-$PWD/build}

echo "== Catch2: emulator, device model, kernels"
"$BUILD/npu_emu_tests" --order decl
cpp=$?

# The same suite built with ASan+UBSan (build-asan/, its own build; the first
# one takes minutes): memory errors, leaks and undefined behaviour halt it.
echo "== Catch2 under ASan+UBSan: scripts/sanitize.sh asan"
if [ "${NPU_EMU_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "skipped: NPU_EMU_SKIP_SANITIZE=1"
  san=0
else
  bash scripts/sanitize.sh asan
  san=$?
fi

echo "== pytest: the npu backend"
.venv/bin/python -m pytest -q -p no:cacheprovider tests/python "$@"
py=$?

echo "== pytest: the real torch_npu (PyPI torch-npu) on the CANN stand-in"
if [ "${NPU_EMU_SKIP_TORCH_NPU:-0}" = 1 ]; then
  echo "skipped: NPU_EMU_SKIP_TORCH_NPU=1"
  real=0
else
  .venv-torch-npu/bin/python -m pytest -q -p no:cacheprovider tests/real_torch_npu
  real=$?
fi

# Half of the float32 units (deterministic round-robin shard); fails only on
# unexpected failures or unexpected passes against conformance/expected_failures.txt.
SHARD=${NPU_EMU_CONFORMANCE_SHARD:-1/2}
echo "== conformance: OpInfo sweep, float32, shard $SHARD"
.venv/bin/python -m npu_emu.conformance --dtypes float32 --shard "$SHARD" -j 2 --output-dir conformance-report
conf=$?

echo "== summary: catch2 exit $cpp, asan+ubsan catch2 exit $san, pytest exit $py, real torch_npu exit $real, conformance exit $conf"
[ $cpp -eq 0 ] && [ $san -eq 0 ] && [ $py -eq 0 ] && [ $real -eq 0 ] && [ $conf -eq 0 ]
