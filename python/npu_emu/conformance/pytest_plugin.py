"""pytest plugin for running PyTorch's own test files on npu (loaded with
`-p npu_emu.conformance.pytest_plugin` by `npu-emu conformance upstream`).

It activates the npu backend before any test module imports
torch.testing._internal.common_device_type, whose import-time list of device
test bases then includes PrivateUse1TestBase (it checks that the PrivateUse1
backend has a registered device module); PYTORCH_TESTING_DEVICE_ONLY_FOR,
set by the runner, leaves only that base. It also marks the tests the
project's skip list names as skipped, with the list's reason, and tells the
runner when collection is done and when the reports are written (a byte on
the pipe PROGRESS_FD_ENV names): the runner's --file-timeout counts between
the two."""

from __future__ import annotations

import fnmatch
import os
import signal
from pathlib import Path

import pytest

import npu_emu  # noqa: F401  (activates the npu backend)

SKIPS_ENV = "NPU_EMU_CONFORMANCE_SKIPS"
TEST_DIR_ENV = "NPU_EMU_CONFORMANCE_TEST_DIR"
# The runner's pipe: this plugin writes COLLECTED when collection is done and
# FINISHED when the session's reports are written.
PROGRESS_FD_ENV = "NPU_EMU_CONFORMANCE_PROGRESS_FD"
COLLECTED, FINISHED = b"c", b"f"


def load_skips(path: Path) -> list[tuple[str, str]]:
    """(pattern, reason) pairs from `<test id glob>: <reason>` lines; `#` comments."""
    skips = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = line.partition(": ")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{number}: expected '<test id glob>: <reason>', got {raw!r}")
        skips.append((pattern.strip(), reason.strip()))
    return skips


def test_id(nodeid: str, test_dir: Path | None, rootdir: Path) -> str:
    """The node id with its file relative to the checkout's test/ directory
    (`test_ops.py::TestCommonPRIVATEUSE1::test_x_privateuse1_float32`), whatever
    pytest chose as rootdir."""
    path, sep, rest = nodeid.partition("::")
    if test_dir is not None:
        try:
            path = str((rootdir / path).resolve().relative_to(test_dir.resolve()))
        except ValueError:
            pass
    return f"{path}{sep}{rest}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skips_path = os.environ.get(SKIPS_ENV)
    if not skips_path:
        return
    skips = load_skips(Path(skips_path))
    test_dir = Path(os.environ[TEST_DIR_ENV]) if os.environ.get(TEST_DIR_ENV) else None
    for item in items:
        tid = test_id(item.nodeid, test_dir, Path(str(config.rootpath)))
        for pattern, reason in skips:
            if fnmatch.fnmatchcase(tid, pattern):
                item.add_marker(pytest.mark.skip(reason=f"npu-emu skip list: {reason}"))
                break


# Popped at import, so that no process this one starts writes to a
# descriptor number that is something else there.
_progress_fd = os.environ.pop(PROGRESS_FD_ENV, None)

if _progress_fd is not None:
    # Nor do they inherit it: the runner takes end of file as pytest's exit.
    os.set_inheritable(int(_progress_fd), False)
    # The runner interrupts pytest with SIGINT at its timeouts. A process
    # started with SIGINT ignored (any background job of a non-interactive
    # shell, and what it starts, inherits that) would never see it, and
    # Python installs its KeyboardInterrupt handler only where SIGINT is not
    # ignored: install it here.
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _progress(marker: bytes) -> None:
    if _progress_fd is not None:
        try:
            os.write(int(_progress_fd), marker)
        except OSError:  # the runner is gone (interrupted itself): nobody to tell
            pass


def pytest_collection_finish(session: pytest.Session) -> None:
    _progress(COLLECTED)


def pytest_unconfigure(config: pytest.Config) -> None:
    # After every pytest_sessionfinish, so the junit report is written.
    _progress(FINISHED)
