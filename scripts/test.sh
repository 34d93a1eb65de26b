#!/usr/bin/env bash
# Sets up if needed, builds, then runs every test: the Catch2 suite of the
# C++ layers and the pytest suite of the PyTorch backend. Fails if either does.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
BUILD=${NPU_EMU_BUILD_DIR:-$PWD/build}

echo "== Catch2: emulator, device model, kernels"
"$BUILD/npu_emu_tests" --order decl
cpp=$?

echo "== pytest: the npu backend"
.venv/bin/python -m pytest -q -p no:cacheprovider tests/python "$@"
py=$?

echo "== summary: catch2 exit $cpp, pytest exit $py"
[ $cpp -eq 0 ] && [ $py -eq 0 ]
