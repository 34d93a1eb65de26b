"""Makes torch_npu's submodule paths importable where npu-emu keeps the code
elsewhere: `import torch_npu.npu.amp` (-> npu_emu.npu.amp) must give the
module torch.npu.amp already is, not a second copy."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

# Packages under torch_npu_compat that live elsewhere in npu_emu.
REDIRECTS = {"npu_emu.torch_npu_compat.npu": "npu_emu.npu"}


class _SameModuleLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self._target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self._target)

    def exec_module(self, module: ModuleType) -> None:
        pass  # already executed under its own name


class RedirectFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path=None, target=None):
        for alias, real in REDIRECTS.items():
            if fullname == alias or fullname.startswith(alias + "."):
                real_name = real + fullname[len(alias):]
                real_spec = importlib.util.find_spec(real_name)
                if real_spec is None:
                    return None
                return importlib.machinery.ModuleSpec(fullname, _SameModuleLoader(real_name),
                                                      is_package=real_spec.submodule_search_locations is not None)
        return None


def install() -> None:
    if not any(isinstance(f, RedirectFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, RedirectFinder())


install()
