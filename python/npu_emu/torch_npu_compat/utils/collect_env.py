"""torch_npu.utils.collect_env: PyTorch's environment report plus the
torch_npu and CANN versions (`python -m torch_npu.utils.collect_env`)."""

from __future__ import annotations

import sys
from typing import NamedTuple

import torch
import torch.utils.collect_env as torch_collect_env

from npu_emu.npu import utils as npu_utils

__all__ = ["SystemEnv", "get_cann_version", "get_env_info", "get_pretty_env_info", "get_torch_npu_version", "main"]


class SystemEnv(NamedTuple):
    torch_version: str
    torch_npu_version: str
    is_debug_build: str
    python_version: str
    python_platform: str
    pip_version: str
    pip_packages: str
    conda_packages: str
    os: str
    libc_version: str
    gcc_version: str
    clang_version: str
    cmake_version: str
    caching_allocator_config: str
    is_xnnpack_available: str
    cpu_info: str
    cann_version: str


def get_cann_version() -> str:
    """The emulated CANN version, or "not known"."""
    return npu_utils.get_cann_version() or "not known"


def get_torch_npu_version() -> str:
    from npu_emu.torch_npu_compat import __version__

    return __version__


def get_env_info() -> SystemEnv:
    run = torch_collect_env.run
    pip_version, pip_packages = torch_collect_env.get_pip_packages(run)
    return SystemEnv(
        torch_version=torch.__version__,
        torch_npu_version=get_torch_npu_version(),
        is_debug_build=str(torch.version.debug),
        python_version=f"{sys.version.replace(chr(10), ' ')} ({sys.maxsize.bit_length() + 1}-bit runtime)",
        python_platform=torch_collect_env.get_python_platform(),
        pip_version=pip_version,
        pip_packages=pip_packages or "",
        conda_packages=torch_collect_env.get_conda_packages(run) or "",
        os=torch_collect_env.get_os(run),
        libc_version=torch_collect_env.get_libc_version(),
        gcc_version=torch_collect_env.get_gcc_version(run),
        clang_version=torch_collect_env.get_clang_version(run),
        cmake_version=torch_collect_env.get_cmake_version(run),
        caching_allocator_config=torch_collect_env.get_cachingallocator_config(),
        is_xnnpack_available=torch_collect_env.is_xnnpack_available(),
        cpu_info=torch_collect_env.get_cpu_info(run),
        cann_version=get_cann_version(),
    )


_FORMAT = """
PyTorch version: {torch_version}
Torch-npu version: {torch_npu_version}
Is debug build: {is_debug_build}
OS: {os}
GCC version: {gcc_version}
Clang version: {clang_version}
CMake version: {cmake_version}
Libc version: {libc_version}

Python version: {python_version}
Python platform: {python_platform}
Is XNNPACK available: {is_xnnpack_available}

CPU:
{cpu_info}

CANN:
{cann_version}

Versions of relevant libraries:
{pip_packages}
{conda_packages}
""".strip()


def pretty_str(info: SystemEnv) -> str:
    values = {k: ("Could not collect" if v is None else v) for k, v in info._asdict().items()}
    return _FORMAT.format(**values)


def get_pretty_env_info() -> str:
    return pretty_str(get_env_info())


def main() -> None:
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
