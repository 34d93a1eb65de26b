"""Processes forked after the parent used npu (torch.cuda's rule): the
runtime's stream threads do not exist in the child, so there npu is
refused with one clear error; a child forked before the parent used npu
initializes its own. The state lives in the dispatch layer (a pthread_atfork
handler), so C++ and Python entry points agree."""

from __future__ import annotations

from npu_emu import _C


def _is_in_bad_fork() -> bool:
    """True in a process forked after its parent initialized npu."""
    return _C._is_in_bad_fork()


def _check_not_forked() -> None:
    """Raises the bad-fork RuntimeError in such a process."""
    if _is_in_bad_fork():
        raise RuntimeError("Cannot re-initialize NPU in forked subprocess. To use NPU with multiprocessing, "
                           "you must use the 'spawn' start method")
