"""NPU_EMU_TRACE=formats: the trace of a small known model lists exactly the
format casts and CPU fallbacks it makes, each with its op and call site."""

from __future__ import annotations

import json
import sys

import torch
import torch.nn.functional as F

import npu_emu
from conftest import run_python
from npu_emu import _C, debug
from npu_emu.debug import trace, trace_report
from npu_emu.formats import Format, npu_format_cast


def _line() -> int:
    return sys._getframe(1).f_lineno


def small_cnn_step(x_cpu: torch.Tensor, w_cpu: torch.Tensor) -> dict[str, int]:
    """Each line's comment says what the format rules make it do."""
    sites = {}
    x = npu_format_cast(x_cpu.npu(), Format.NC1HWC0); sites["cast_x"] = _line()   # explicit: NCHW -> NC1HWC0
    w = npu_format_cast(w_cpu.npu(), Format.FRACTAL_Z); sites["cast_w"] = _line()  # explicit: NCHW -> FRACTAL_Z
    y = F.conv2d(x, w, padding=1); sites["conv"] = _line()                        # reads both as they are
    y.add_(1); sites["add"] = _line()                                              # base-format result: nothing
    x[:, :2].sum(); sites["part"] = _line()                                        # part view: base copy of x
    torch.special.zeta(2.0, y.abs() + 1); sites["zeta"] = _line()                  # no native kernel: fallback
    x.cpu(); sites["d2h"] = _line()                                                # D2H: base copy of x
    return sites


def _events(path) -> list[dict]:
    return trace_report.load(path)


def test_trace_lists_exactly_the_casts_and_fallbacks(tmp_path):
    x_cpu, w_cpu = torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3)
    assert not _C._format_trace_on()
    debug.reset_reports()
    with debug.tracing(tmp_path / "t.jsonl") as path:
        assert _C._format_trace_on()
        sites = small_cnn_step(x_cpu, w_cpu)
    assert not _C._format_trace_on()
    fallbacks = npu_emu.fallback_report()
    events = _events(path)
    here = __file__
    casts = [(e["from"], e["to"], e["site"]) for e in events if e["event"] in trace_report.CAST_EVENTS]
    site = lambda key: f"{here}:{sites[key]} (small_cnn_step)"  # noqa: E731
    assert casts == [("NCHW", "NC1HWC0", site("cast_x")), ("NCHW", "FRACTAL_Z", site("cast_w")),
                     ("NC1HWC0", "NCHW", site("part")), ("NC1HWC0", "NCHW", site("d2h"))]
    by_site = {e["site"]: e for e in events if e["event"] == "cast"}
    assert by_site[site("cast_x")]["op"] == "npu::npu_format_cast"
    assert by_site[site("cast_x")]["decided_by"] == "npu_format_cast"
    assert by_site[site("cast_x")]["bytes"] == 2 * 3 * 36 * 4 + 2 * 1 * 36 * 16 * 4
    assert by_site[site("part")]["op"] == "aten::sum"
    assert by_site[site("part")]["decided_by"] == "base-format copy"
    assert all(e["shape"] == [2, 3, 6, 6] for e in events if e["event"] == "cast" and e["to"] != "FRACTAL_Z")
    created = [(e["tensor"]["format"], e["site"]) for e in events if e["event"] == "create"]
    assert created == [("NC1HWC0", site("cast_x")), ("FRACTAL_Z", site("cast_w"))]
    falls = [e for e in events if e["event"] == "fallback"]
    assert sum(fallbacks.values()) == len(falls) >= 1
    assert {e["site"] for e in falls} == {site("zeta")}
    assert [2, 4, 6, 6] in [i["shape"] for i in falls[0]["inputs"]]
    assert falls[0]["outputs"][0]["shape"] == [2, 4, 6, 6]
    moved = sum(4 * torch.Size(i["shape"]).numel() for i in falls[0]["inputs"] + falls[0]["outputs"])
    assert falls[0]["bytes"] == moved
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    # Off again: nothing more is written.
    npu_format_cast(x_cpu.npu(), Format.NC1HWC0)
    assert len(_events(path)) == len(events)
    summary = trace_report.summarize(events)
    assert summary.casts == 4 and summary.casts_by_site[site("d2h")] == 1
    text = trace_report.report_text(summary)
    assert "4 format casts" in text and "casts per call site:" in text


def test_trace_from_environment(tmp_path):
    path = tmp_path / "env.jsonl"
    script = tmp_path / "script.py"
    script.write_text("import torch, npu_emu\n"
                      "from npu_emu.formats import npu_format_cast\n"
                      "npu_format_cast(torch.ones(3, 20).npu(), 29)\n")
    done = run_python(f"import runpy; runpy.run_path({str(script)!r})", env={"NPU_EMU_TRACE": f"formats:{path}"})
    assert done.returncode == 0, done.stderr
    casts = [(e["from"], e["to"], e["site"]) for e in _events(path) if e["event"] == "cast"]
    assert casts == [("ND", "FRACTAL_NZ", f"{script}:3 (<module>)")]
    bad = run_python("import npu_emu", env={"NPU_EMU_TRACE": "timeline"})
    assert bad.returncode != 0 and "NPU_EMU_TRACE must be 'formats' or 'formats:PATH'" in bad.stderr


def test_backward_casts_name_the_autograd_node(tmp_path):
    x_nz = npu_format_cast(torch.randn(4, 20).npu(), Format.FRACTAL_NZ)
    w = torch.randn(4, 3).npu().requires_grad_()
    with trace.tracing(tmp_path / "b.jsonl") as path:
        y = (x_nz[:, :3] * w).sum(); forward_line = _line()  # part view of NZ: a base-format copy
        y.backward()                                          # MulBackward0 multiplies by the saved view: again
    casts = [e for e in _events(path) if e["event"] == "cast"]
    assert [(e["from"], e["to"]) for e in casts] == [("FRACTAL_NZ", "ND")] * 2
    assert casts[0]["op"] == "aten::mul" and casts[0]["site"] == f"{__file__}:{forward_line} " \
        "(test_backward_casts_name_the_autograd_node)"
    assert "MulBackward0" in casts[1]["op"]
    assert all(e["decided_by"] == "base-format copy" for e in casts)


def test_trace_lists_the_conversions_inside_aclnn_entries(tmp_path):
    """small_cnn_step's conv reads NC1HWC0 and FRACTAL_Z natively (no
    conversion inside its entry); a relu on the NC1HWC0 tensor is computed
    through base-format scratch: exactly one conversion, at its line."""
    x_cpu, w_cpu = torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3)
    with debug.tracing(tmp_path / "t.jsonl") as path:
        small_cnn_step(x_cpu, w_cpu)
        x = npu_format_cast(x_cpu.npu(), Format.NC1HWC0)
        r = torch.relu(x); relu_line = _line()
    torch.testing.assert_close(r.cpu(), torch.relu(x_cpu))
    events = _events(path)
    inside = [e for e in events if e["event"] == "entry_cast"]
    site = f"{__file__}:{relu_line} (test_trace_lists_the_conversions_inside_aclnn_entries)"
    assert [(e["entry"], e["from"], e["to"], e["shape"], e["site"]) for e in inside] == [
        ("aclnnRelu", "NC1HWC0", "NCHW", [2, 3, 6, 6], site)]
    assert inside[0]["op"] == "aten::relu" and inside[0]["dtype"] == "float32"
    # Bytes read and written: the padded storage and the base-format values.
    assert inside[0]["bytes"] == 2 * 1 * 36 * 16 * 4 + 2 * 3 * 36 * 4
    summary = trace_report.summarize(events)
    assert summary.entry_casts == 1, "counted apart from the casts"
    assert "1 conversions inside aclnn entries" in trace_report.report_text(summary)


def test_entry_conversions_in_place_write_back_and_outputs():
    """An in-place op on a private-format tensor reads its storage into
    scratch and lays the result back; an input read twice is read once."""
    a = npu_format_cast(torch.randn(20, 40).npu(), Format.FRACTAL_NZ)
    b = torch.randn(20, 40).npu()
    expected = a.cpu() + a.cpu()
    events: list[dict] = []
    _C._set_format_trace(events.append)
    try:
        a.add_(b); line_inplace = _line()
        c = a + a; line_twice = _line()
    finally:
        _C._set_format_trace(None)
    torch.testing.assert_close(c.cpu(), expected + 2 * b.cpu())
    inside = [(e["from"], e["to"], e["param"]) for e in events if e["event"] == "entry_cast"]
    assert inside[:2] == [("FRACTAL_NZ", "ND", "self"), ("ND", "FRACTAL_NZ", "self")], inside
    assert [i for i in inside[2:] if i[1] == "ND"] == [("FRACTAL_NZ", "ND", "self")], "one read for a + a"
    assert line_twice > line_inplace


def test_trace_of_a_training_cnn_repeats_its_entry_conversions_each_step():
    """A CNN with an NC1HWC0 input, a FRACTAL_Z conv weight and an NZ linear
    weight, two training steps: each step makes the same conversions inside
    entries, each on one of those tensors (by format and logical shape), and
    the weights' storages stay private."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1).npu()
    lin = torch.nn.Linear(4 * 6 * 6, 5).npu()
    conv.weight.data = npu_format_cast(conv.weight.data, Format.FRACTAL_Z)
    lin.weight.data = npu_format_cast(lin.weight.data, Format.FRACTAL_NZ)
    opt = torch.optim.SGD([*conv.parameters(), *lin.parameters()], lr=0.01)
    x = npu_format_cast(torch.randn(2, 3, 6, 6).npu(), Format.NC1HWC0)
    private = {("NC1HWC0", (2, 3, 6, 6)), ("FRACTAL_Z", (4, 3, 3, 3)), ("FRACTAL_NZ", (5, 144))}
    per_step = []
    events: list[dict] = []
    _C._set_format_trace(events.append)
    try:
        for _ in range(2):
            before = len(events)
            opt.zero_grad()
            lin(conv(torch.relu(x)).flatten(1)).square().sum().backward()
            opt.step()
            torch.npu.synchronize()
            per_step.append([e for e in events[before:] if e["event"] == "entry_cast"])
    finally:
        _C._set_format_trace(None)
    first, second = ([(e["entry"], e["param"], e["from"], e["to"]) for e in step] for step in per_step)
    assert first and first == second
    for e in per_step[0]:
        fmt = e["to"] if e["from"] in ("ND", "NCHW") else e["from"]
        assert (fmt, tuple(e["shape"])) in private, e
    # Conv and linear read their private weights natively: the relu on the
    # NC1HWC0 input converts it, and SGD's in-place update of each private
    # weight reads it into scratch and lays the result back.
    assert [(e["entry"], e["from"], e["to"]) for e in per_step[0]] == [
        ("aclnnRelu", "NC1HWC0", "NCHW"),
        ("aclnnAdd", "FRACTAL_Z", "NCHW"), ("aclnnAdd", "NCHW", "FRACTAL_Z"),
        ("aclnnAdd", "FRACTAL_NZ", "ND"), ("aclnnAdd", "ND", "FRACTAL_NZ")]
    assert npu_emu.formats.get_npu_format(lin.weight) == Format.FRACTAL_NZ
