"""The real torch_npu on npu-emu's CANN stand-in (standin/): where the
stand-in is, and preparing this process so torch_npu's native libraries load
it instead of a CANN installation.

torch_npu's libraries are linked against libascendcl.so, libhccl.so, ... and
dlopen libopapi.so by name. LD_LIBRARY_PATH is read only when a process
starts, so instead the stand-in libraries are loaded here first: the dynamic
loader then satisfies those names with the already loaded libraries (it
matches by SONAME before searching any path). Kept free of heavy imports: it
runs from the import hook, before torch_npu.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_PACKAGE_LIB = Path(__file__).resolve().parent / "npu_emu" / "lib"
EMULATOR_LIBRARY = _PACKAGE_LIB / "libnpu_emu_acl.so"
# Written by standin/CMakeLists.txt: the absolute path of the build's cann/.
_CANN_HOME_POINTER = _PACKAGE_LIB / "cann_home"
# In dependency order: each library's DT_NEEDED ones come before it.
LIBRARIES = ("libascendcl.so", "libnnopbase.so", "libopapi.so", "libacl_op_compiler.so", "libhccl.so",
             "libge_runner.so", "libgraph.so", "libacl_tdt_channel.so")

_prepared: Path | None = None


def cann_home() -> Path:
    """The stand-in's CANN directory: NPU_EMU_CANN_HOME, else the build's."""
    configured = os.environ.get("NPU_EMU_CANN_HOME", "").strip()
    if configured:
        home = Path(configured)
    elif _CANN_HOME_POINTER.is_file():
        home = Path(_CANN_HOME_POINTER.read_text().strip())
    else:
        raise RuntimeError("npu-emu's CANN stand-in is not built (no python/npu_emu/lib/cann_home); "
                           "run scripts/setup.sh, or set NPU_EMU_TORCH_NPU=compat to use npu-emu's own backend")
    missing = [name for name in LIBRARIES if not (home / "lib64" / name).is_file()]
    if missing:
        raise RuntimeError(f"npu-emu's CANN stand-in at {home} lacks {', '.join(missing)}; rebuild with scripts/setup.sh")
    return home


def prepare() -> Path:
    """Points this process's CANN environment at the stand-in and loads its
    libraries; idempotent. Returns the stand-in's directory."""
    global _prepared
    if _prepared is not None:
        return _prepared
    home = cann_home()
    # What CANN's set_env.sh would export; torch_npu checks these at import.
    os.environ["ASCEND_HOME_PATH"] = str(home)
    os.environ["ASCEND_OPP_PATH"] = str(home / "opp")
    os.environ["ASCEND_TOOLKIT_HOME"] = str(home)
    # torch_npu reports each aclnn name it cannot resolve at warning level;
    # the stand-in needs those lines for its coverage report and for naming
    # the missing aclnn function when an op falls to the legacy path. The
    # stand-in's log prints nothing unless ASCEND_SLOG_PRINT_TO_STDOUT=1.
    os.environ.setdefault("ASCEND_GLOBAL_LOG_LEVEL", "2")
    ctypes.CDLL(str(EMULATOR_LIBRARY), mode=ctypes.RTLD_GLOBAL)
    loaded = [ctypes.CDLL(str(home / "lib64" / name), mode=ctypes.RTLD_GLOBAL) for name in LIBRARIES]
    _check_settings(loaded[0])
    _prepared = home
    return home


def _check_settings(ascendcl: ctypes.CDLL) -> None:
    """A bad ASCEND_GLOBAL_LOG_LEVEL, ASCEND_SLOG_PRINT_TO_STDOUT or
    NPU_EMU_STANDIN_VERBOSE is the error of `import torch_npu` (the stand-in
    parses them, standin/src/log_settings.h)."""
    settings_error = ascendcl.npuEmuStandinSettingsError
    settings_error.restype = ctypes.c_char_p
    message = settings_error()
    if message:
        raise RuntimeError(f"npu-emu's CANN stand-in: {message.decode()}")


def read_report(path: str | os.PathLike) -> dict[str, dict[str, int]]:
    """The stand-in's coverage report (NPU_EMU_STANDIN_REPORT=<path>, written
    at exit): {"missing-aclnn": {name: lookups}, "aclop": {op type: calls}}."""
    report: dict[str, dict[str, int]] = {"missing-aclnn": {}, "aclop": {}}
    for line in Path(path).read_text().splitlines():
        kind, name, count = line.split()
        report.setdefault(kind, {})[name] = int(count)
    return report
