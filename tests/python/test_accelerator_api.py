"""Every public torch.accelerator / torch.accelerator.memory call, and
torch.npu's memory calls, on npu: each works or raises a clear error; none
crashes the process.

The calls run one after another in a single fresh interpreter with two
emulated devices and npu tensors alive; it reports each call as it finishes,
so a call that kills the process fails its own test (and the calls after it
are reported as not reached) instead of taking pytest down."""

from __future__ import annotations

import json
from typing import Any

import pytest

from npu_subprocess import run_python

# (call, check): `check` is evaluated with the call's result as `r`.
WORKING = [
    ("torch.accelerator.device_count()", "r == 2"),
    ("torch.accelerator.is_available()", "r is True"),
    ("torch.accelerator.current_accelerator()", "r == torch.device('npu')"),
    ("torch.accelerator.current_device_index()", "r == 0"),
    ("torch.accelerator.set_device_index(1) or torch.accelerator.current_device_index()", "r == 1"),
    ("torch.accelerator.set_device_index(0) or torch.accelerator.current_device_index()", "r == 0"),
    ("torch.accelerator.current_stream(1)", "r.device == torch.device('npu:1')"),
    ("torch.accelerator.set_stream(S1) or torch.accelerator.current_stream(1)", "r == S1"),
    ("torch.accelerator.set_stream(torch.npu.default_stream(1)) or torch.accelerator.current_stream(1)",
     "r.stream_id == 0"),
    ("torch.accelerator.synchronize()", "r is None"),
    ("torch.accelerator.synchronize(1)", "r is None"),
    ("enter(torch.accelerator.device_index(1))", "r == 1"),
    ("torch.accelerator.memory.empty_cache()", "r is None"),
    ("torch.accelerator.memory.empty_host_cache()", "r is None"),
    ("torch.accelerator.memory.memory_stats()", "r['allocated_bytes.all.current'] >= X0.nbytes"),
    ("torch.accelerator.memory.memory_stats(1)", "r['allocated_bytes.all.current'] >= X1.nbytes"),
    ("torch.accelerator.memory.memory_allocated()", "r >= X0.nbytes"),
    ("torch.accelerator.memory.max_memory_allocated(1)", "r >= X1.nbytes"),
    ("torch.accelerator.memory.memory_reserved()", "r >= X0.nbytes"),
    ("torch.accelerator.memory.max_memory_reserved()", "r >= X0.nbytes"),
    ("torch.accelerator.memory.reset_accumulated_memory_stats()", "r is None"),
    ("torch.accelerator.memory.reset_peak_memory_stats(1)", "r is None"),
    ("torch.accelerator.memory.get_memory_info()", "0 < r[0] <= r[1]"),
    ("torch.npu.memory_stats(1)", "r['allocated_bytes.all.current'] >= X1.nbytes"),
    ("torch.npu.memory_summary()", "'NPU' in r"),
    ("torch.npu.memory_snapshot()", "len(r) >= 2"),
    ("torch.npu.mem_get_info(1)", "0 < r[0] <= r[1]"),
    ("torch.npu.empty_cache()", "r is None"),
    ("torch.npu.reset_peak_memory_stats()", "r is None"),
    ("torch.npu.max_memory_allocated()", "r >= X0.nbytes"),
    ("torch.npu.caching_allocator_delete(torch.npu.caching_allocator_alloc(100, 1))", "r is None"),
    ("torch.npu.synchronize(1)", "r is None"),
]

# (call, exception type, text the message must contain)
REFUSED = [
    ("torch.accelerator.set_device_index(5)", "RuntimeError", "Invalid NPU device index 5"),
    ("torch.accelerator.current_stream(7)", "RuntimeError", "Invalid NPU device index 7"),
    ("torch.accelerator.synchronize(9)", "RuntimeError", "Invalid NPU device index 9"),
    ("torch.accelerator.memory.memory_stats(5)", "RuntimeError", "Invalid NPU device index 5"),
    ("torch.accelerator.memory.get_memory_info(3)", "RuntimeError", "Invalid NPU device index 3"),
    # PyTorch first makes the stream's device (-1 for a CPU stream) current.
    ("torch.accelerator.set_stream(torch.Stream('cpu'))", "RuntimeError", "Invalid NPU device index -1"),
    ("torch.accelerator.get_device_capability()", "RuntimeError", "device capabilities"),
    ("torch.npu.synchronize(5)", "RuntimeError", "Invalid NPU device index 5"),
]

_CODE = r"""
X0 = torch.arange(1000.0, device="npu:0")
X1 = torch.arange(1000.0, device="npu:1")
PINNED = torch.arange(1000.0).pin_memory()
Y0 = torch.empty(1000, device="npu:0")
Y0.copy_(PINNED, non_blocking=True)
S1 = torch.npu.Stream(device=1)


def enter(context):
    with context:
        return torch.accelerator.current_device_index()


for index, call in enumerate(CALLS):
    try:
        outcome = {"result": repr(eval(call))}
    except Exception as e:
        outcome = {"error": type(e).__name__, "message": str(e)}
    print(json.dumps([index, outcome]), flush=True)
"""

CALLS = [call for call, _ in WORKING] + [call for call, _, _ in REFUSED]


@pytest.fixture(scope="module")
def outcomes() -> tuple[dict[int, dict[str, Any]], str]:
    # The checks run in the subprocess too, where the results live.
    checked = [f"(lambda r: ({check}, repr(r)))({call})" for call, check in WORKING]
    calls = checked + [call for call, _, _ in REFUSED]
    proc = run_python(f"CALLS = {calls!r}\n" + _CODE, {"NPU_EMU_DEVICE_COUNT": "2"})
    done = {}
    for line in proc.stdout.splitlines():
        if line.startswith("["):
            index, outcome = json.loads(line)
            done[index] = outcome
    ending = f"exit status {proc.returncode}\n{proc.stderr[-2000:]}"
    return done, ending


def _outcome(outcomes, index: int, call: str) -> dict[str, Any]:
    done, ending = outcomes
    if index not in done:
        first_missing = min(i for i in range(len(CALLS)) if i not in done)
        where = "died during this call" if first_missing == index else f"died earlier, at {CALLS[first_missing]}"
        pytest.fail(f"{call}: the process {where} ({ending})")
    return done[index]


@pytest.mark.parametrize("index", range(len(WORKING)), ids=[call for call, _ in WORKING])
def test_call_works(outcomes, index):
    call, check = WORKING[index]
    outcome = _outcome(outcomes, index, call)
    assert "error" not in outcome, f"{call} raised {outcome.get('error')}: {outcome.get('message')}"
    assert outcome["result"].startswith("(True,"), f"{call}: {check} does not hold, got {outcome['result']}"


@pytest.mark.parametrize("index", range(len(REFUSED)), ids=[call for call, _, _ in REFUSED])
def test_call_raises_a_clear_error(outcomes, index):
    call, error, text = REFUSED[index]
    outcome = _outcome(outcomes, len(WORKING) + index, call)
    assert outcome.get("error") == error, f"{call}: expected {error}, got {outcome}"
    assert text in outcome["message"]
