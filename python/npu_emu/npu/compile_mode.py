"""torch.npu.set_compile_mode: accepted for compatibility; the emulator has no
op compiler, so every mode behaves the same."""

from __future__ import annotations

_jit_compile = False


def set_compile_mode(jit_compile: bool = False) -> None:
    global _jit_compile
    if not isinstance(jit_compile, bool):
        raise TypeError(f"jit_compile must be a bool, got {type(jit_compile).__name__}")
    _jit_compile = jit_compile


def is_jit_compile_false() -> bool:
    return not _jit_compile
