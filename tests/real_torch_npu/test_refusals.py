"""What the emulated CANN refuses, torch_npu raises at the call, and the
process keeps working.

torch_npu runs ops through a task queue: an error inside it stops the queue
for good, and torch_npu then drops every later operation, so results would be
silently wrong. The stand-in therefore refuses the legacy aclop path (which
torch_npu takes for most ops on private-format tensors, and for an op whose
aclnn functions are missing) before torch_npu queues the op. Each script runs
in a fresh interpreter, so a regression cannot poison the other tests."""

import json

import pytest

import _npu_emu_standin
from conftest import run_python

# After each refused op, ops that must still run correctly: an out-of-place
# op, an in-place one, a reduction and a copy back, on fresh tensors and on
# the refused op's own input.
SCRIPT = """
import json, torch, torch_npu
torch.npu.config.allow_internal_format = True
results = []
cases = {cases}
ops = {{
    "add": lambda t: t + 1,
    "mul": lambda t: t * 2,
    "neg": lambda t: -t,
    "sum": lambda t: t.sum(),
    "add_": lambda t: t.add_(1),
    "sub_tensor": lambda t: t - t,
}}
for fmt, shape, dtype, op in cases:
    cpu = (torch.randn(*shape) * 10).to(getattr(torch, dtype))
    t = torch_npu.npu_format_cast(cpu.npu(), fmt)
    try:
        ops[op](t)
        torch.npu.synchronize()
        refused = None
    except RuntimeError as e:
        refused = str(e)
    x = torch.arange(12.).reshape(3, 4).npu()
    y = torch.ones(3, 4).npu()
    y.add_(x, alpha=2)
    later_ok = (torch.equal((x * 3).cpu(), torch.arange(12.).reshape(3, 4) * 3)
                and torch.equal(y.cpu(), 1 + 2 * torch.arange(12.).reshape(3, 4))
                and x.sum().item() == 66.0
                and torch.equal(t.cpu(), cpu)
                and torch.equal(torch_npu.npu_format_cast(t, 2 if len(shape) < 4 else 0).add(1).cpu(), cpu + 1))
    results.append({{"case": [fmt, shape, dtype, op], "refused": refused, "later_ok": bool(later_ok)}})
print(json.dumps(results))
"""

CASES = [
    (3, [2, 20, 5, 6], "float32", "add"),        # NC1HWC0, channels padded to 32
    (3, [1, 17, 4, 4], "float16", "mul"),
    (29, [33, 47], "float32", "add"),            # FRACTAL_NZ, both dims padded
    (29, [3, 5, 7], "bfloat16", "neg"),
    (29, [2, 16, 16], "float32", "sum"),
    (4, [40, 20, 3, 3], "float32", "add_"),      # FRACTAL_Z, in place
    (3, [2, 16, 3, 3], "float32", "sub_tensor"),
]


def test_ops_torch_npu_sends_to_aclop_are_refused_at_the_call_and_later_ops_stay_correct(tmp_path):
    report = tmp_path / "report.txt"
    r = run_python(SCRIPT.format(cases=CASES), {"NPU_EMU_STANDIN_REPORT": str(report)})
    assert r.returncode == 0, r.stderr[-3000:]
    results = json.loads(r.stdout.splitlines()[-1])
    assert len(results) == len(CASES)
    for result in results:
        assert result["refused"] is not None, result["case"]
        assert "legacy aclop path" in result["refused"] and "private format" in result["refused"], result
        assert "later ops run normally" in result["refused"]
        assert result["later_ok"], result["case"]
    # Counted once per refused op in the coverage report.
    assert sum(_npu_emu_standin.read_report(report)["aclop"].values()) == len(CASES)


def test_the_refusal_describes_the_ops_tensors():
    r = run_python(SCRIPT.format(cases=[(3, [2, 20, 5, 6], "float32", "add")]))
    assert r.returncode == 0, r.stderr[-3000:]
    message = json.loads(r.stdout.splitlines()[-1])[0]["refused"]
    # torch_npu describes a private-format operand by its storage shape:
    # [N, C1, H, W, C0] for NC1HWC0.
    assert "float32 NC1HWC0 (3) [2,2,5,6,16]" in message, message


@pytest.mark.parametrize("what", ["executing and op name is=aclnnAdd.", "copy, srclen=4, dstlen is 4, kind=1"])
def test_an_operation_dropped_by_torch_npus_stopped_queue_raises_instead(what):
    # torch_npu reports each operation its stopped queue drops through
    # aclAppLog only; the stand-in's aclAppLog raises there instead. Called
    # here as torch_npu calls it (from C++ callers the exception reaches
    # Python as a RuntimeError; through ctypes it ends the process).
    code = ("import ctypes, _npu_emu_standin\n"
            "home = _npu_emu_standin.prepare()\n"
            "lib = ctypes.CDLL(str(home / 'lib64' / 'libascendcl.so'))\n"
            f"lib.aclAppLog(3, b'f', b'NPUQueue.cpp', 1, b\"[PTA]:Task queue thread is exit, can't call Enqueue() for {what}\")\n"
            "print('not raised')\n")
    r = run_python(code)
    assert "not raised" not in r.stdout
    assert "task queue stopped after an earlier error" in r.stderr, r.stderr[-2000:]


def test_other_log_lines_do_not_raise():
    code = ("import ctypes, _npu_emu_standin\n"
            "home = _npu_emu_standin.prepare()\n"
            "lib = ctypes.CDLL(str(home / 'lib64' / 'libascendcl.so'))\n"
            "lib.aclAppLog(3, b'f', b'NPUQueue.cpp', 1, b\"[PTA]:Task queue thread is exit, can't call Enqueue() for event, event is=0x1\")\n"
            "lib.aclAppLog(2, b'f', b'x.cpp', 1, b'some warning %d', 3)\n"
            "print('ok')\n")
    r = run_python(code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


COPY_INTO_PRIVATE = """
import json, torch, torch_npu
torch.npu.config.allow_internal_format = True
out = []
for fmt, shape in {cases}:
    cpu = torch.randn(*shape)
    src = torch.full(shape, 2.0)
    for kind in ("h2d", "d2d"):
        t = torch_npu.npu_format_cast(cpu.npu(), fmt)
        try:
            t.copy_(src if kind == "h2d" else src.npu())
            torch.npu.synchronize()
            outcome = "exact" if torch.equal(t.cpu(), src) else "wrong"
        except RuntimeError as e:
            outcome = "refused" if "legacy aclop path" in str(e) else str(e)
        # Reading a private-format tensor back, and copying it into a base one, are exact.
        back = torch.empty(shape).npu()
        back.copy_(torch_npu.npu_format_cast(src.npu(), fmt))
        out.append([fmt, kind, outcome, torch.equal(back.cpu(), src)])
print(json.dumps(out))
"""


def test_a_copy_into_a_private_format_tensor_is_never_silently_dropped():
    # torch_npu's copy_ into a private-format destination asks the format
    # cast for the destination's own format; CANN refuses that, and so must
    # the stand-in (answering made torch_npu keep the old values). torch_npu
    # then takes the aclop path, refused at the call.
    r = run_python(COPY_INTO_PRIVATE.format(cases=[(29, [33, 47]), (3, [2, 20, 5, 6]), (4, [40, 20, 3, 3])]))
    assert r.returncode == 0, r.stderr[-3000:]
    for fmt, kind, outcome, read_back_exact in json.loads(r.stdout.splitlines()[-1]):
        assert outcome in ("exact", "refused"), (fmt, kind, outcome)
        assert read_back_exact, (fmt, kind)
