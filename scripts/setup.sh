#!/usr/bin/env bash
# Sets up everything npu-emu needs on a fresh Debian machine, idempotently:
# system packages, the .venv with the pinned torch, the CMake build, and the
# editable install of the package. Safe to run again: it redoes only what is
# missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv
BUILD=${NPU_EMU_BUILD_DIR:-$ROOT/build}
TORCH_VERSION=2.13.0

log() { printf '[setup] %s\n' "$*"; }

# 1. System packages (Debian).
APT_PACKAGES=(libeigen3-dev libtbb-dev catch2 cmake ninja-build g++ make)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. The virtual environment with the pinned torch (an unpinned request would
#    pull a multi-GB CUDA build).
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import torch, pytest, setuptools, numpy, expecttest, yaml, matplotlib; assert torch.__version__.startswith('$TORCH_VERSION')" 2>/dev/null; then
  log "installing torch==$TORCH_VERSION and the test tools into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "torch==$TORCH_VERSION" pytest setuptools numpy expecttest pyyaml matplotlib "hypothesis==6.170.17"
fi

# 3. The native build (emulator library, Catch2 tests, PyTorch extension).
if [ ! -f "$BUILD/build.ninja" ]; then
  log "configuring $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$VENV/bin/python" >/dev/null
fi
log "building (ninja)"
ninja -C "$BUILD" -j "${NPU_EMU_JOBS:-$(nproc)}" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test "${PIPESTATUS[0]}" -eq 0

# 4. The package itself, editable, without build isolation (isolation would
#    fetch its own torch). The .pth file runs the NPU= switch at start-up so
#    `import torch_npu` works before `import torch`.
SITE=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if ! "$VENV/bin/python" -c "import importlib.metadata as m; m.distribution('npu-emu')" 2>/dev/null; then
  log "installing npu-emu (editable) into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps -e "$ROOT"
fi
echo "import _npu_emu_switch; _npu_emu_switch.at_startup()" > "$SITE/npu_emu_switch.pth"

# 5. The real torch_npu (PyPI torch-npu) in an environment of its own, for
#    tests/real_torch_npu: torch pinned as above, torch-npu installed without
#    dependencies (so nothing can pull another torch), its two small ones by
#    hand. npu-emu is reached through a path entry (its native files are this
#    build's), plus the same start-up switch. NPU_EMU_SKIP_TORCH_NPU=1 skips it.
TORCH_NPU_VENV=$ROOT/.venv-torch-npu
TORCH_NPU_VERSION=2.13.0
if [ "${NPU_EMU_SKIP_TORCH_NPU:-0}" != 1 ]; then
  if [ ! -x "$TORCH_NPU_VENV/bin/python" ]; then
    log "creating $TORCH_NPU_VENV"
    "$PYTHON" -m venv "$TORCH_NPU_VENV"
  fi
  if ! "$TORCH_NPU_VENV/bin/python" -c "import importlib.metadata as m, pytest, numpy, yaml
assert m.version('torch').startswith('$TORCH_VERSION') and m.version('torch-npu') == '$TORCH_NPU_VERSION'" 2>/dev/null; then
    log "installing torch==$TORCH_VERSION and torch-npu==$TORCH_NPU_VERSION into $TORCH_NPU_VENV"
    "$TORCH_NPU_VENV/bin/pip" install -q --disable-pip-version-check "torch==$TORCH_VERSION" numpy pyyaml pytest
    "$TORCH_NPU_VENV/bin/pip" install -q --disable-pip-version-check --no-deps "torch-npu==$TORCH_NPU_VERSION"
  fi
  TORCH_NPU_SITE=$("$TORCH_NPU_VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  echo "$ROOT/python" > "$TORCH_NPU_SITE/npu_emu_path.pth"
  echo "import _npu_emu_switch; _npu_emu_switch.at_startup()" > "$TORCH_NPU_SITE/npu_emu_switch.pth"
fi
log "ready"
