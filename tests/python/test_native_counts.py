"""npu_emu.native_report() counts every native launch exactly: per op, from
several host threads on their own streams at once, and from zero again after
reset_reports(). (The counters are updated on every launch without a lock.)"""

import threading

import torch

import npu_emu


def _launch(ops: int, use_stream: bool, errors: list[BaseException]) -> None:
    try:
        a = torch.ones(16, device="npu")
        b = torch.full((16,), 2.0, device="npu")
        stream = torch.npu.Stream() if use_stream else torch.npu.current_stream()
        with torch.npu.stream(stream):
            for _ in range(ops):
                a + b
                a * b
                a.neg()
        stream.synchronize()
    except BaseException as e:  # reported by the main thread
        errors.append(e)


def test_native_counts_exact_across_threads():
    threads_n, ops = 4, 300
    npu_emu.debug.reset_reports()
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_launch, args=(ops, i % 2 == 0, errors)) for i in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    native = npu_emu.native_report()
    # torch.ones/full launch fill ops of their own; the three loop ops are
    # counted once per call, whichever thread or stream launched them.
    assert native["aclnnAdd"] == threads_n * ops
    assert native["aclnnMul"] == threads_n * ops
    assert native["aclnnNeg"] == threads_n * ops


def test_native_counts_start_from_zero_after_reset():
    a = torch.ones(8, device="npu")
    a + a
    npu_emu.debug.reset_reports()
    assert "aclnnAdd" not in npu_emu.native_report()
    for _ in range(3):
        a + a
    assert npu_emu.native_report()["aclnnAdd"] == 3
    npu_emu.debug.reset_reports()
    a + a
    assert npu_emu.native_report()["aclnnAdd"] == 1
