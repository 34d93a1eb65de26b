#!/usr/bin/env bash
# Builds the C++ layers (include/acl, device_model, kernels, emulator) and the
# Catch2 suite with sanitizers, in build directories of their own, and runs
# the suite; every sanitizer report halts the run and fails the script.
#
#   bash scripts/sanitize.sh asan      ASan + UBSan (also leaks)   -> build-asan/
#   bash scripts/sanitize.sh tsan      TSan (data races, lock order) -> build-tsan/
#   bash scripts/sanitize.sh all       both, one after the other
#   bash scripts/sanitize.sh pytest [pytest args]
#                                      a pytest selection (default: PYTEST_DEFAULT below) with the
#                                      ASan+UBSan emulator library under the normal build's
#                                      PyTorch extension (see run_pytest below)
#   Extra arguments of asan/tsan go to npu_emu_tests (e.g. "[runtime]").
#
# Needs scripts/setup.sh to have run once (the system packages; .venv's
# Python reads the op table). Neither PyTorch nor the normal build is needed
# for asan/tsan: the sanitizer builds leave dispatch/ out
# (CMakeLists.txt, NPU_EMU_SANITIZE). NPU_EMU_SANITIZE_BUILD_ROOT moves the
# build directories; NPU_EMU_JOBS sets ninja's parallelism.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${NPU_EMU_PYTHON:-$ROOT/.venv/bin/python}
BUILD_ROOT=${NPU_EMU_SANITIZE_BUILD_ROOT:-$ROOT}
JOBS=${NPU_EMU_JOBS:-$(nproc)}

log() { printf '[sanitize] %s\n' "$*"; }

# configure_and_build DIR SANITIZERS: only npu_emu_tests and what it links or
# loads (the emulator library and the stand-in libraries its tests dlopen).
configure_and_build() {
  local dir=$1 sanitizers=$2
  if [ ! -f "$dir/build.ninja" ]; then
    log "configuring $dir (-DNPU_EMU_SANITIZE=$sanitizers)"
    local launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_EMU_SANITIZE="$sanitizers" \
      -DPython3_EXECUTABLE="$PYTHON" "${launcher[@]}" >/dev/null || return 1
  fi
  log "building $dir (npu_emu_tests)"
  # Engineers sharing a machine serialize their builds on this lock; in CI it
  # is uncontended. Without flock, build directly.
  local lock=()
  command -v flock >/dev/null && lock=(flock /tmp/npu-build.lock)
  "${lock[@]}" ninja -C "$dir" -j "$JOBS" npu_emu_tests | grep -vE '^\[[0-9]+/[0-9]+\] '
  return "${PIPESTATUS[0]}"
}

run_asan() {
  local dir=$BUILD_ROOT/build-asan
  configure_and_build "$dir" address,undefined || return 1
  log "running npu_emu_tests under ASan+UBSan (suppressions: tests/sanitizers/lsan.supp)"
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1 \
  LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$dir/npu_emu_tests" --order decl "$@"
}

run_tsan() {
  local dir=$BUILD_ROOT/build-tsan
  configure_and_build "$dir" thread || return 1
  log "running npu_emu_tests under TSan (suppressions: tests/sanitizers/tsan.supp)"
  # oneTBB runs on the calling thread under TSan (tests/cpp/tsan_serial_tbb.cpp
  # says why). die_after_fork=0: test_process_lifecycle.cpp forks the
  # multi-threaded suite on purpose, and in the whole suite (not when that
  # test runs alone) something starts a thread in the child, which TSan
  # refuses by default; what the child does is what that test checks.
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$ROOT/tests/sanitizers/tsan.supp" \
    "$dir/npu_emu_tests" --order decl "$@"
}

# pytest on the ASan+UBSan emulator library. The PyTorch extension (_C) is
# the normal build's (PyTorch itself is not instrumented, so dispatch/ is
# not rebuilt); it reaches ACL through the driver table, and NPU=acl makes the
# driver load the vendor stand-in of build-asan (ASCEND_HOME_PATH), which
# forwards every call to build-asan's emulator library. The ASan runtime must
# be the first library of the process (LD_PRELOAD), and leak checking is off:
# the interpreter and torch hold memory until exit by design. --capture=sys:
# a report halts the process inside a test, and pytest's default descriptor
# capture would swallow it. Tests that call the emulator's own extensions
# (aclemu*, e.g. the delay_us fixture) cannot run this way: the vendor
# library set does not export them (NPU=emu would load the normal build's
# emulator library from python/npu_emu/lib instead).
PYTEST_DEFAULT=(tests/python/test_arith.py tests/python/test_copies.py tests/python/test_formats.py
  tests/python/test_reductions.py tests/python/test_indexing.py tests/python/test_conv.py)
run_pytest() {
  local dir=$BUILD_ROOT/build-asan
  configure_and_build "$dir" address,undefined || return 1
  local runtime
  runtime="$(g++ -print-file-name=libasan.so):$(g++ -print-file-name=libubsan.so)"
  (($#)) || set -- "${PYTEST_DEFAULT[@]}"
  log "running pytest $* on $dir's emulator (NPU=acl through its vendor stand-in)"
  NPU=acl ASCEND_HOME_PATH="$dir/vendor_standin" NPU_STANDIN_TARGET="$dir/python/npu_emu/lib/libnpu_emu_acl.so" \
  LD_PRELOAD="$runtime" \
  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$PYTHON" -m pytest -q -p no:cacheprovider --capture=sys "$@"
}

mode=${1:-asan}
(($#)) && shift
case "$mode" in
  asan) run_asan "$@" ;;
  tsan) run_tsan "$@" ;;
  all)
    run_asan "$@"; asan=$?
    run_tsan "$@"; tsan=$?
    log "asan+ubsan exit $asan, tsan exit $tsan"
    [ $asan -eq 0 ] && [ $tsan -eq 0 ] ;;
  pytest) run_pytest "$@" ;;
  *) echo "usage: bash scripts/sanitize.sh [asan|tsan|all|pytest] [args]" >&2; exit 2 ;;
esac
