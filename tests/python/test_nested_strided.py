"""Nested tensors with the strided layout are not supported on npu: every way
of making or using one raises one NotImplementedError that names the layout
and what to use instead; none may abort the process (building one from
tensors that require grad used to: autograd hit a missing kernel where no
exception may pass). The jagged layout keeps working."""

from __future__ import annotations

import textwrap

import pytest
import torch

from conftest import run_python

STRIDED_CASES = {
    "as_nested_tensor_requires_grad": """
        a = torch.arange(6.0, device="npu").reshape(2, 3).requires_grad_(True)
        b = torch.arange(8.0, device="npu").reshape(2, 4).requires_grad_(True)
        torch.nested.as_nested_tensor([a, b])
    """,
    "as_nested_tensor": """
        torch.nested.as_nested_tensor([torch.ones(2, 3, device="npu"), torch.ones(2, 4, device="npu")])
    """,
    "nested_tensor_to_npu": """
        torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(2, 4)]).to("npu")
    """,
    "nested_tensor_device_npu_then_op": """
        nt = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(2, 4)], device="npu", requires_grad=True)
        (nt + 1).unbind()
    """,
}


@pytest.mark.parametrize("case", sorted(STRIDED_CASES))
def test_strided_nested_tensor_on_npu_raises_one_clear_error(case):
    # In a child process: on failure this aborted the interpreter.
    code = "import torch, npu_emu\ntry:\n" + textwrap.indent(textwrap.dedent(STRIDED_CASES[case]), "    ") + (
        "\nexcept NotImplementedError as e:\n    print('RAISED', e)\nelse:\n    print('NO ERROR')\n")
    proc = run_python(code, env={"NPU": "emu"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "RAISED" in proc.stdout, proc.stdout
    assert "strided layout" in proc.stdout and "layout=torch.jagged" in proc.stdout, proc.stdout


def test_jagged_nested_tensor_still_works_on_npu():
    parts = [torch.arange(6.0).reshape(3, 2), torch.arange(8.0).reshape(4, 2)]
    cpu = torch.nested.nested_tensor(parts, layout=torch.jagged)
    npu = torch.nested.nested_tensor([p.npu() for p in parts], layout=torch.jagged)
    assert torch.equal((npu * 2 + 1).values().cpu(), (cpu * 2 + 1).values())
