"""The conformance runner itself (npu_emu.conformance), on a few ops only.

Wrong results are planted with the runner's test-only switches
(NPU_EMU_CONFORMANCE_PLANT corrupts an op's npu result before the
comparison, NPU_EMU_CONFORMANCE_HANG makes an op's first sample hang); no
real kernel is changed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from npu_emu.conformance import expected as expected_file
from npu_emu.conformance.plan import DTYPES, Shard, load_op_db, plan_units, select_ops, shard_units
from npu_emu.conformance.reports.schema import validate
from npu_emu.conformance.results import FirstFailure, UnitResult


def run_cli(args: list[str], cwd: Path, env: dict[str, str] | None = None,
            timeout: float = 600, ignore_sigint: bool = False) -> subprocess.CompletedProcess:
    """ignore_sigint: start the CLI with SIGINT ignored, as a background job of
    a non-interactive shell (a CI script's `cmd &`) is."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("NPU", "NPU_EMU_CONFORMANCE_PLANT", "NPU_EMU_CONFORMANCE_HANG")}
    full_env.update(env or {})
    preexec = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    return subprocess.run([sys.executable, "-m", "npu_emu.conformance", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=preexec)


def units_by_key(out: Path) -> dict[str, dict]:
    report = json.loads((out / "report.json").read_text())
    return {u["key"]: u for u in report["units"]}


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    """One run of add and mul (float32, two workers): mul's result corrupted,
    add's first sample hanging past a 5 s timeout."""
    tmp = tmp_path_factory.mktemp("planted")
    expected = tmp / "expected.txt"
    expected.write_text("")
    proc = run_cli(["--ops", "add,mul", "--dtypes", "float32", "-j", "2", "--timeout", "5",
                    "--expected", str(expected), "--output-dir", str(tmp / "out")], tmp,
                   env={"NPU_EMU_CONFORMANCE_PLANT": "mul", "NPU_EMU_CONFORMANCE_HANG": "add"})
    return proc, tmp / "out"


def test_planted_wrong_result_is_a_failure(planted_run):
    proc, out = planted_run
    assert proc.returncode == 1, proc.stderr
    mul = units_by_key(out)["mul/float32"]
    assert mul["status"] == "failed" and mul["outcome"] == "fail"
    assert mul["samples"]["failed"] > mul["samples"]["passed"]  # corrupted (an empty output cannot be)
    assert "not close" in mul["first_failure"]["message"] or "not equal" in mul["first_failure"]["message"]
    assert "unexpected failed: mul/float32" in proc.stderr


def test_sample_timeout_fires_without_stalling_the_run(planted_run):
    proc, out = planted_run
    add = units_by_key(out)["add/float32"]
    assert add["status"] == "errored"
    assert add["first_failure"]["sample"] == 0
    assert add["first_failure"]["message"].startswith("timeout")
    assert add["samples"]["errored"] == 1
    assert add["samples"]["passed"] > 0  # the unit resumed after the hung sample


def test_junit_xml_is_valid_and_counts_match(planted_run):
    _, out = planted_run
    root = ET.parse(out / "junit.xml").getroot()
    assert root.tag == "testsuites"
    cases = list(root.iter("testcase"))
    assert sorted(c.get("name") for c in cases) == ["add", "mul"]
    assert int(root.get("tests")) == 2
    assert int(root.get("failures")) == 1 and len(list(root.iter("failure"))) == 1
    assert int(root.get("errors")) == 1 and len(list(root.iter("error"))) == 1
    suite = root.find("testsuite")
    assert suite.get("name") == "opinfo.float32" and int(suite.get("tests")) == 2


def test_json_report_matches_schema(planted_run):
    _, out = planted_run
    report = json.loads((out / "report.json").read_text())
    assert validate(report) == []
    assert report["totals"]["outcome"]["fail"] == 2
    # The validator can fail: a broken report is caught.
    broken = json.loads(json.dumps(report))
    broken["units"][0]["status"] = "great"
    del broken["totals"]["samples"]
    errors = validate(broken)
    assert any("status" in e for e in errors) and any("samples" in e for e in errors)


def test_markdown_summary_lists_unexpected_results(planted_run):
    _, out = planted_run
    md = (out / "summary.md").read_text()
    assert "## By dtype" in md and "| float32 |" in md
    assert "`mul/float32` | fail" in md and "`add/float32` | fail" in md


def test_expected_failure_exits_zero(tmp_path):
    expected = tmp_path / "expected.txt"
    expected.write_text("mul/float32: planted by the test\n")
    proc = run_cli(["--ops", "mul", "--dtypes", "float32", "--expected", str(expected),
                    "--output-dir", str(tmp_path / "out")], tmp_path, env={"NPU_EMU_CONFORMANCE_PLANT": "mul"})
    assert proc.returncode == 0, proc.stderr
    mul = units_by_key(tmp_path / "out")["mul/float32"]
    assert mul["outcome"] == "xfail" and mul["expected_reason"] == "planted by the test"


def test_unexpected_pass_exits_nonzero_and_update_expected_removes_it(tmp_path):
    expected = tmp_path / "expected.txt"
    expected.write_text("mul/float32: listed but passes\nzeta/float32: not run, kept\n")
    args = ["--ops", "mul", "--dtypes", "float32", "--expected", str(expected),
            "--output-dir", str(tmp_path / "out")]
    proc = run_cli(args, tmp_path)
    assert proc.returncode == 1
    assert units_by_key(tmp_path / "out")["mul/float32"]["outcome"] == "xpass"
    assert "unexpected pass: mul/float32" in proc.stderr
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert int(root.get("failures")) == 1

    proc = run_cli([*args, "--update-expected"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert expected_file.load(expected) == {"zeta/float32": "not run, kept"}


def test_machine_dependent_entry_accepts_a_pass_and_a_failure(tmp_path):
    """A `may fail:` entry (a unit whose result depends on the CPU's ISA):
    failing is an xfail, passing a pass, both exit 0, the reports say so, and
    --update-expected keeps the entry either way."""
    expected = tmp_path / "expected.txt"
    entry = {"mul/float32": "may fail: planted by the test"}
    expected.write_text("mul/float32: may fail: planted by the test\n")
    for plant, status, outcome in ((None, "passed", "pass"), ("mul", "failed", "xfail")):
        out = tmp_path / f"out-{status}"
        proc = run_cli(["--ops", "mul", "--dtypes", "float32", "--expected", str(expected), "--output-dir", str(out),
                        "--update-expected"], tmp_path, env={"NPU_EMU_CONFORMANCE_PLANT": plant} if plant else None)
        assert proc.returncode == 0, proc.stderr
        report = json.loads((out / "report.json").read_text())
        assert validate(report) == []
        [mul] = report["units"]
        assert (mul["status"], mul["outcome"], mul["may_fail"]) == (status, outcome, True)
        assert mul["expected_reason"] == entry["mul/float32"]
        assert f"may fail (machine-dependent), {status} here: mul/float32" in proc.stderr
        md = (out / "summary.md").read_text()
        assert "## Machine-dependent units (may fail)" in md and f"| `mul/float32` | {status} |" in md
        root = ET.parse(out / "junit.xml").getroot()
        assert (int(root.get("failures")), int(root.get("errors"))) == (0, 0)
        assert "machine-dependent" in ET.tostring(root, encoding="unicode")
        assert expected_file.load(expected) == entry


def test_acceptance_four_ops_float32(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "npu_emu.cli", "conformance", "--ops", "add,mul,sum,mm",
                           "--dtypes", "float32", "-j", "2"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env={k: v for k, v in os.environ.items() if k != "NPU"})
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "conformance-report"
    assert {p.name for p in out.iterdir()} >= {"report.json", "junit.xml", "summary.md"}
    units = units_by_key(out)
    assert sorted(units) == ["add/float32", "mm/float32", "mul/float32", "sum/float32"]
    assert all(u["outcome"] == "pass" and u["samples"]["passed"] > 0 for u in units.values())
    assert all(u["grad_checked"] for u in units.values())
    assert "wall time:" in proc.stderr


def test_host_arguments_stay_on_cpu_and_the_rest_moves_to_npu():
    # tensor_split reads its split-point tensor on the host (PyTorch requires
    # it on CPU, and its OpInfo makes it there for every device under test).
    import torch

    from npu_emu.conformance.samples import sample_to_npu

    ops = load_op_db()
    tensor_indices = 0
    for sample in ops["tensor_split"].sample_inputs("cpu", torch.float32):
        moved = sample_to_npu(sample, "tensor_split")
        assert moved.input.device.type == "npu"
        if isinstance(sample.args[0], torch.Tensor):
            tensor_indices += 1
            assert moved.args[0].device.type == "cpu"
        want = ops["tensor_split"](sample.input, *sample.args, **sample.kwargs)
        got = ops["tensor_split"](moved.input, *moved.args, **moved.kwargs)
        assert len(got) == len(want) and all(torch.equal(g.cpu(), w) for g, w in zip(got, want))
    assert tensor_indices > 0
    add_sample = next(s for s in ops["add"].sample_inputs("cpu", torch.float32) if isinstance(s.args[0], torch.Tensor))
    assert sample_to_npu(add_sample, "add").args[0].device.type == "npu"


@pytest.fixture(scope="module")
def op_db_units():
    ops = load_op_db()
    return plan_units(ops, select_ops(ops, None), list(DTYPES))


@pytest.mark.parametrize("count", [1, 3, 7])
def test_shards_are_disjoint_and_complete(op_db_units, count):
    shards = [shard_units(op_db_units, Shard(i, count)) for i in range(1, count + 1)]
    seen: set = set()
    for shard in shards:
        assert seen.isdisjoint(shard)
        seen.update(shard)
    assert seen == set(op_db_units)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_op_selection():
    ops = ["add", "sum", "sum.variant", "nn.functional.relu", "nn.functional.gelu", "summary"]
    assert select_ops(ops, ["sum"]) == ["sum", "sum.variant"]
    assert select_ops(ops, ["nn.functional.*"]) == ["nn.functional.gelu", "nn.functional.relu"]
    with pytest.raises(ValueError, match="--ops: no OpInfo named 'ad'.*add"):
        select_ops(ops, ["ad"])


@pytest.mark.parametrize("args, message", [
    (["--dtypes", "float64"], "--dtypes: unknown dtype(s) float64; allowed: all, float32"),
    (["--shard", "0/2"], "--shard expects I/N with 1 <= I <= N"),
    (["--shard", "x"], "--shard expects I/N"),
    (["-j", "0"], "-j/--jobs must be >= 1"),
])
def test_bad_arguments_are_named(tmp_path, args, message):
    proc = run_cli(args, tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr


def _unit(key: str, status: str, message: str = "", phase: str = "forward") -> UnitResult:
    op, dtype = key.split("/")
    result = UnitResult(op, dtype)
    result.samples[status] = 1
    if status in ("failed", "errored"):
        result.first_failure = FirstFailure(0, status, phase, "", message)
    result.finish()
    return result


def test_update_expected_keeps_reasons_and_categorises_new_entries(tmp_path):
    old = {"a/float32": "known: hand-written reason", "b/float32": "fixed since", "c/int64": "not run",
           "f/float32": "may fail: passes on some CPUs", "g/float32": "may fail: fails on some CPUs"}
    results = [
        _unit("f/float32", "passed"),
        _unit("g/float32", "failed", "Tensor-likes are not close!"),
        _unit("a/float32", "failed", "Tensor-likes are not close!\n\nMismatched elements: 1 / 4"),
        _unit("b/float32", "passed"),
        _unit("d/float16", "errored", "RuntimeError: no kernel for aten::foo\nmore"),
        _unit("e/bfloat16", "failed", "Tensor-likes are not close!", phase="grad"),
    ]
    new = expected_file.updated(old, results)
    assert new == {
        "a/float32": "known: hand-written reason",
        "c/int64": "not run",
        "f/float32": "may fail: passes on some CPUs",
        "g/float32": "may fail: fails on some CPUs",
        "d/float16": "error (forward): RuntimeError: no kernel for aten::foo",
        "e/bfloat16": "mismatch (grad): Tensor-likes are not close!",
    }
    path = tmp_path / "expected.txt"
    expected_file.save(path, new)
    assert expected_file.load(path) == new


def test_expected_file_rejects_malformed_lines(tmp_path):
    path = tmp_path / "expected.txt"
    path.write_text("add/float32 no colon\n")
    with pytest.raises(ValueError, match=r"expected.txt:1: expected '<op>/<dtype>: <reason>'"):
        expected_file.load(path)
    path.write_text("add/float32: may fail:\n")
    with pytest.raises(ValueError, match=r"expected.txt:1: add/float32: 'may fail:' needs a reason"):
        expected_file.load(path)


def test_repo_expected_file_parses():
    repo = Path(__file__).resolve().parents[2]
    entries = expected_file.load(repo / "conformance" / "expected_failures.txt")
    assert all(key.split("/")[1] in DTYPES for key in entries)


FAKE_TEST_FILE = textwrap.dedent("""
    import torch
    from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase, run_tests


    class TestFake(TestCase):
        @dtypes(torch.float32, torch.int64)
        def test_add(self, device, dtype):
            x = torch.ones(3, device=device, dtype=dtype)
            self.assertEqual((x + x).cpu(), torch.full((3,), 2, dtype=dtype))

        def test_device_is_npu(self, device):
            self.assertTrue(device.startswith("npu"), device)

        def test_wrong(self, device):
            self.assertEqual(torch.ones(2, device=device).sum().item(), 3.0)

        def test_listed(self, device):
            raise RuntimeError("the skip list should have skipped this")


    instantiate_device_type_tests(TestFake, globals())

    if __name__ == "__main__":
        run_tests()
""")


def test_upstream_runs_a_device_type_test_file_on_npu(tmp_path):
    """A fake PyTorch checkout: one test file using instantiate_device_type_tests."""
    src = tmp_path / "pytorch"
    (src / "test").mkdir(parents=True)
    (src / "test" / "test_fake.py").write_text(FAKE_TEST_FILE)
    skips = tmp_path / "skips.txt"
    skips.write_text("# comment\ntest_fake.py::TestFake*::test_listed_*: planted by the test\n")
    proc = run_cli(["upstream", "--pytorch-src", str(src), "--files", "test_fake.py", "--skips", str(skips),
                    "--output-dir", str(tmp_path / "out")], tmp_path)
    assert proc.returncode == 1, proc.stderr  # test_wrong fails
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert validate(report) == [] and report["kind"] == "upstream"
    units = {u["key"]: u for u in report["units"]}
    prefix = "test_fake.py::TestFakePRIVATEUSE1::"
    assert set(units) == {prefix + "test_add_npu/float32", prefix + "test_add_npu/int64",
                          prefix + "test_device_is_npu_npu", prefix + "test_wrong_npu", prefix + "test_listed_npu"}
    assert units[prefix + "test_add_npu/int64"]["outcome"] == "pass"
    assert units[prefix + "test_device_is_npu_npu"]["outcome"] == "pass"  # ran on npu, no CPU variant
    assert units[prefix + "test_wrong_npu"]["outcome"] == "fail"
    assert units[prefix + "test_listed_npu"]["outcome"] == "skip"
    assert "planted by the test" in units[prefix + "test_listed_npu"]["skip_reason"]
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert (int(root.get("tests")), int(root.get("failures")), int(root.get("skipped"))) == (5, 1, 1)


BROKEN_TEST_FILE = "from torch.testing._internal.common_methods_invocations import no_such_name\n"

HANGING_TEST_FILE = textwrap.dedent("""
    import threading

    import torch
    from torch.testing._internal.common_device_type import instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase


    class TestSlow(TestCase):
        def test_a_fast(self, device):
            self.assertEqual(torch.ones(2, device=device).sum().item(), 2.0)

        def test_b_hangs(self, device):
            threading.Event().wait()  # a test that never returns


    instantiate_device_type_tests(TestSlow, globals())
""")


def test_upstream_reports_collection_errors_and_keeps_results_of_a_timed_out_file(tmp_path):
    """A file that fails to import is one errored unit naming the ImportError; a
    file interrupted at --file-timeout still reports the tests it finished.
    The timeout counts from the end of collection to the written report, so
    however long a loaded machine takes to import torch, collect or exit, the
    fast test has the whole budget and the broken file is never "timed out";
    the hanging test keeps its file running until the timeout fires. Started
    with SIGINT ignored (as from a script's background job), pytest must still
    be interruptible."""
    src = tmp_path / "pytorch"
    (src / "test").mkdir(parents=True)
    (src / "test" / "test_broken.py").write_text(BROKEN_TEST_FILE)
    (src / "test" / "test_slow.py").write_text(HANGING_TEST_FILE)
    proc = run_cli(["upstream", "--pytorch-src", str(src), "--files", "test_broken.py", "test_slow.py",
                    "-j", "2", "--file-timeout", "20", "--output-dir", str(tmp_path / "out")], tmp_path,
                   timeout=600, ignore_sigint=True)
    assert proc.returncode == 1, proc.stderr
    units = units_by_key(tmp_path / "out")
    broken = units["test_broken.py::(collection)"]
    assert broken["status"] == "errored"
    assert "ImportError" in broken["first_failure"]["message"] and "no_such_name" in broken["first_failure"]["message"]
    assert units["test_slow.py::TestSlowPRIVATEUSE1::test_a_fast_npu"]["outcome"] == "pass"
    timeout = units["test_slow.py"]
    assert timeout["status"] == "errored" and "--file-timeout 20 s" in timeout["first_failure"]["message"]
    # The interrupted test is not a unit (pytest leaves a nameless placeholder for it).
    assert set(units) == {"test_broken.py::(collection)", "test_slow.py",
                          "test_slow.py::TestSlowPRIVATEUSE1::test_a_fast_npu"}


def test_upstream_interrupts_a_collection_that_hangs(tmp_path):
    src = tmp_path / "pytorch"
    (src / "test").mkdir(parents=True)
    (src / "test" / "test_import_hangs.py").write_text("import threading\n\nthreading.Event().wait()\n")
    proc = run_cli(["upstream", "--pytorch-src", str(src), "--files", "test_import_hangs.py",
                    "--collect-timeout", "10", "--file-timeout", "600", "--output-dir", str(tmp_path / "out")],
                   tmp_path, timeout=300)
    assert proc.returncode == 1, proc.stderr
    unit = units_by_key(tmp_path / "out")["test_import_hangs.py"]
    assert unit["status"] == "errored" and "--collect-timeout 10 s" in unit["first_failure"]["message"]


def test_upstream_names_a_bad_checkout(tmp_path):
    proc = run_cli(["upstream", "--pytorch-src", str(tmp_path / "nowhere")], tmp_path)
    assert proc.returncode == 2
    assert "--pytorch-src:" in proc.stderr and "is not a directory" in proc.stderr


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise():
    import io

    from npu_emu.conformance.progress import Progress

    results = [_unit("add/float32", "passed"), _unit("mul/float32", "failed", "Tensor-likes are not close!")]
    for r in results:
        r.apply_expectation(None)
    bar, plain = io.StringIO(), io.StringIO()
    for stream, tty in ((bar, True), (plain, False)):
        progress = Progress(len(results), stream, tty)
        for r in results:
            progress.unit_done(r)
        progress.close()
    assert bar.getvalue().count("\r") == 2 and "2/2" in bar.getvalue() and "fail 1" in bar.getvalue()
    lines = plain.getvalue().splitlines()
    assert lines == ["[1/2] add/float32: passed, pass, -, 0.0s",
                     "[2/2] mul/float32: failed, fail, -, 0.0s  (Tensor-likes are not close!)"]


def test_markdown_report_says_which_fallback_ops_the_op_table_serves():
    """A fallback op the table lists (atan2) fell back for a dtype; one it
    does not list has no native kernel: the report tells them apart."""
    from npu_emu.conformance.reports import markdown_report

    table_op, other = _unit("atan2/int64", "passed"), _unit("segment_reduce/float32", "passed")
    table_op.fallback_ops = {"aten::atan2": 2}
    other.fallback_ops = {"aten::segment_reduce": 3, "aten::atan2": 1}
    text = markdown_report._fallback_ops([table_op, other])
    rows = {line.split("|")[1].strip(): line for line in text if line.startswith("| `")}
    assert "| 2 | 3 | yes (aclnnAtan2): dtype not covered |" in rows["`aten::atan2`"]
    assert "| 1 | 3 | no: no native kernel |" in rows["`aten::segment_reduce`"]
    assert list(rows) == ["`aten::atan2`", "`aten::segment_reduce`"]
