"""Every C symbol the torch_npu wheel binds from CANN at load time is
exported by the stand-in (standin/wheel_load_symbols.txt), and that list is
the installed wheel's."""

import ctypes
import importlib.util
import sys
from pathlib import Path

import _npu_emu_standin
from conftest import REPO

SYMBOL_FILE = REPO / "standin" / "wheel_load_symbols.txt"


def listed_symbols() -> list[str]:
    return [line for line in SYMBOL_FILE.read_text().splitlines() if line and not line.startswith("#")]


def test_the_list_is_the_installed_wheels():
    spec = importlib.util.spec_from_file_location("list_wheel_symbols", REPO / "standin" / "list_wheel_symbols.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    site_packages = Path(importlib.util.find_spec("torch_npu").origin).parents[1]
    assert module.load_time_symbols(site_packages) == listed_symbols()


def test_every_load_time_symbol_resolves_in_the_stand_in():
    home = _npu_emu_standin.prepare()
    libraries = [ctypes.CDLL(str(_npu_emu_standin.EMULATOR_LIBRARY))]
    libraries += [ctypes.CDLL(str(home / "lib64" / name)) for name in _npu_emu_standin.LIBRARIES]
    symbols = listed_symbols()
    assert len(symbols) == 84  # torch-npu 2.13.0
    missing = [s for s in symbols if not any(hasattr(lib, s) for lib in libraries)]
    assert missing == []


def test_the_layout_has_what_torch_npu_checks():
    home = _npu_emu_standin.cann_home()
    for directory in ("runtime", "compiler", "opp", "lib64"):
        assert (home / directory).is_dir(), directory
    info = (home / "ascend_toolkit_install.info").read_text()
    assert "version=9.1.0" in info.splitlines()
    assert sys.modules["torch_npu"].__file__.startswith(str(Path(importlib.util.find_spec("torch_npu").origin).parent))
