"""Issue 20: NPU_EMU_FAULTS injects an out-of-memory or an operator error so
that users can test their recovery paths; the process keeps working after
each fault and loses no device memory."""

from __future__ import annotations

import ast

import pytest

from conftest import run_python

_OOM = """
import torch, npu_emu

def step(i):
    t = torch.full((1000 * i,), float(i), device="npu")
    return t.sum().item()

failed = []
for i in range(1, 7):
    before = torch.npu.memory_allocated()
    try:
        value = step(i)
    except torch.OutOfMemoryError as e:
        failed.append(i)
        print("message", str(e).splitlines()[0])
    else:
        assert value == 1000 * i * i, value
    assert torch.npu.memory_allocated() == before
print("failed", failed)
x = torch.arange(10.0, device="npu")
print("after", (x * 2).sum().item())
"""


@pytest.mark.parametrize("n", [1, 2, 4])
def test_oom_at_n_fails_one_allocation(n: int) -> None:
    result = run_python(_OOM, env={"NPU_EMU_FAULTS": f"oom@{n}"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("message NPU out of memory") and f"NPU_EMU_FAULTS=oom@{n}" in lines[0], lines
    failed = ast.literal_eval(next(line for line in lines if line.startswith("failed"))[len("failed "):])
    assert len(failed) == 1, failed  # one fault, then the next allocations work
    assert lines[-1] == "after 90.0"


_OP = """
import torch, npu_emu
x = torch.arange(6.0, device="npu")
y = torch.full((6,), 2.0, device="npu")
torch.npu.synchronize()
outcomes = []
for i in range(3):
    before = torch.npu.memory_allocated()
    try:
        r = {expr}
        outcomes.append(r.cpu().tolist())
    except RuntimeError as e:
        outcomes.append("error")
        print("message", " ".join(str(e).split()))
        torch.npu.synchronize()
        assert torch.npu.memory_allocated() == before, (torch.npu.memory_allocated(), before)
print("outcomes", outcomes)
"""


@pytest.mark.parametrize(
    ("spec", "expr", "op", "expected"),
    [
        ("aclnn_error@Add:2", "x + y", "aclnnAdd", [0.0 + 2, 1.0 + 2, 2.0 + 2, 3.0 + 2, 4.0 + 2, 5.0 + 2]),
        ("aclnn_error@aclnnMul", "x * y", "aclnnMul", [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]),
        ("aclnn_error@Exp:3", "torch.exp(x * 0)", "aclnnExp", [1.0] * 6),
    ],
)
def test_op_error_fails_one_launch(spec: str, expr: str, op: str, expected: list[float]) -> None:
    result = run_python(_OP.format(expr=expr), env={"NPU_EMU_FAULTS": spec, "NPU_EMU_FALLBACK": "error"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    message = next(line for line in lines if line.startswith("message"))
    assert "NPU_EMU_FAULTS" in message and op in message, message
    outcomes = lines[-1]
    errors = outcomes.count("'error'")
    assert errors == 1, outcomes
    assert outcomes.count(repr(expected)) == 2, outcomes


@pytest.mark.parametrize("value", ["oom@0", "oom@x", "oom", "boom@1", "aclnn_error@", "aclnn_error@Add:0",
                                   "oom@1,,oom@2"])
def test_bad_faults_setting_is_an_error(value: str) -> None:
    result = run_python("import torch, npu_emu; print(torch.ones(2, device='npu').sum().item())",
                        env={"NPU_EMU_FAULTS": value})
    assert result.returncode != 0, result.stdout
    assert "NPU_EMU_FAULTS" in result.stderr and "allowed entries" in result.stderr, result.stderr
