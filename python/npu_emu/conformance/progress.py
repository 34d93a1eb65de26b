"""Progress output: a one-line bar on a terminal, one plain line per unit
otherwise (CI logs)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from npu_emu.conformance.results import UnitResult

_BAR_WIDTH = 30


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.counts = {"pass": 0, "fail": 0, "xfail": 0, "xpass": 0, "skip": 0}
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.started = time.monotonic()

    def unit_done(self, result: UnitResult) -> None:
        self.done += 1
        self.counts[result.outcome] += 1
        if self.tty:
            self._draw()
        else:
            mode = {True: "native", False: "fallback", None: "-"}[result.native]
            note = f"  ({result.first_failure.message.splitlines()[0][:100]})" if (
                result.outcome in ("fail", "xpass") and result.first_failure) else ""
            print(f"[{self.done}/{self.total}] {result.key}: {result.status}, {result.outcome}, {mode}, "
                  f"{result.duration_s:.1f}s{note}", file=self.stream, flush=True)

    def _draw(self) -> None:
        filled = int(_BAR_WIDTH * self.done / max(1, self.total))
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        c = self.counts
        line = (f"\r[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {self.done}/{self.total}  "
                f"pass {c['pass']} fail {c['fail']} xfail {c['xfail']} xpass {c['xpass']} skip {c['skip']}  "
                f"{elapsed:.0f}s, eta {eta:.0f}s")
        self.stream.write(line)
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()
