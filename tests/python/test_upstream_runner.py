"""`npu-emu conformance upstream` (PyTorch's own test files on npu): its
reports, on small synthetic test files written like PyTorch's.

The main synthetic file has one test of each kind pytest tells apart
(passed, failed, skipped, xfailed by the file's own mark, a non-strict
xpass, a strict xpass), failures that differ only in numbers (one cause),
tests listed in an expected-failures file, and a second class instantiated
after a device-type class ran its setUpClass, which PyTorch then names
...NPU instead of ...PRIVATEUSE1 (what happens to every file after the first
in one process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from npu_emu.conformance import upstream_expected
from npu_emu.conformance.pytest_plugin import canonical_id
from npu_emu.conformance.reports import agreement
from npu_emu.conformance.reports.schema import validate

OUTCOMES_FILE = textwrap.dedent("""
    import unittest

    import pytest
    import torch
    from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase


    class TestOutcomes(TestCase):
        @dtypes(torch.float32, torch.int64)
        def test_add(self, device, dtype):
            x = torch.ones(3, device=device, dtype=dtype)
            self.assertEqual((x + x).cpu(), torch.full((3,), 2, dtype=dtype))

        @unittest.expectedFailure
        def test_known_bug(self, device):
            raise RuntimeError("a bug the test file itself marks")

        @pytest.mark.xfail(reason="lenient mark", strict=False)
        def test_lenient(self, device):
            pass

        @pytest.mark.xfail(reason="strict mark", strict=True)
        def test_strict(self, device):
            pass

        def test_view_a(self, device):
            raise RuntimeError("shape '[2, 3]' is invalid for input of size 7 " + "of a long message " * 20)

        def test_view_b(self, device):
            raise RuntimeError("shape '[4]' is invalid for input of size 5 " + "of a long message " * 20)

        def test_listed_fails(self, device):
            raise ValueError("listed in the expected-failures file")

        def test_listed_passes(self, device):
            pass

        def test_skipped(self, device):
            self.skipTest("not on this device")


    instantiate_device_type_tests(TestOutcomes, globals())

    # Running a device-type class's setUpClass renames PyTorch's PrivateUse1
    # base to the backend's name: the classes instantiated after it end in NPU.
    def _run_a_set_up_class():
        for name, test_class in list(globals().items()):
            if name.startswith("TestOutcomes"):
                return test_class.setUpClass()


    _run_a_set_up_class()


    class TestLater(TestCase):
        def test_listed_later(self, device):
            raise ValueError("listed under the other class name")

        def test_fine(self, device):
            self.assertEqual(torch.ones(2, device=device).sum().item(), 2.0)


    instantiate_device_type_tests(TestLater, globals())
""")

# Keys written in both forms: each must match whichever name PyTorch chose.
EXPECTED = textwrap.dedent("""
    # planted by the test
    test_outcomes.py::TestOutcomesNPU::test_listed_fails_npu: ValueError: listed
    test_outcomes.py::TestOutcomesPRIVATEUSE1::test_listed_passes_npu: listed but passes
    test_outcomes.py::TestLaterPRIVATEUSE1::test_listed_later_npu: ValueError: listed, other name
""")

HANGING_FILE = textwrap.dedent("""
    import threading

    import torch
    from torch.testing._internal.common_device_type import instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase


    class TestSlow(TestCase):
        def test_a_fast(self, device):
            self.assertEqual(torch.ones(2, device=device).sum().item(), 2.0)

        def test_b_hangs(self, device):
            threading.Event().wait()  # never returns: the file's time limit ends it


    instantiate_device_type_tests(TestSlow, globals())
""")


def run_cli(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NPU"}
    return subprocess.run([sys.executable, "-m", "npu_emu.conformance", "upstream", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def checkout(root: Path, files: dict[str, str]) -> Path:
    (root / "pytorch" / "test").mkdir(parents=True)
    for name, text in files.items():
        (root / "pytorch" / "test" / name).write_text(text)
    return root / "pytorch"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The CPU reference run of the outcomes file, then its npu run compared with it."""
    tmp = tmp_path_factory.mktemp("upstream")
    src = checkout(tmp, {"test_outcomes.py": OUTCOMES_FILE})
    (tmp / "expected.txt").write_text(EXPECTED)
    cpu = run_cli(["--pytorch-src", str(src), "--files", "test_outcomes.py", "--device", "cpu",
                   "--output-dir", str(tmp / "cpu")], tmp)
    npu = run_cli(["--pytorch-src", str(src), "--files", "test_outcomes.py", "--expected", str(tmp / "expected.txt"),
                   "--cpu-report", str(tmp / "cpu" / "report.json"), "--output-dir", str(tmp / "npu")], tmp)
    return tmp, cpu, npu


def units(out: Path) -> dict[str, dict]:
    report = json.loads((out / "report.json").read_text())
    return {u["name"]: u for u in report["units"]}


def test_pytest_outcomes_are_counted_as_pytest_counts_them(runs):
    tmp, _, npu = runs
    assert npu.returncode == 1, npu.stderr  # unexpected failures and an unexpected pass
    report = json.loads((tmp / "npu" / "report.json").read_text())
    assert validate(report) == []
    u = units(tmp / "npu")
    assert (u["test_known_bug_npu"]["pytest_outcome"], u["test_known_bug_npu"]["outcome"]) == ("xfailed", "xfail")
    assert "test file's own mark" in u["test_known_bug_npu"]["expected_reason"]
    assert (u["test_lenient_npu"]["pytest_outcome"], u["test_lenient_npu"]["outcome"]) == ("xpassed", "pass")
    assert (u["test_strict_npu"]["pytest_outcome"], u["test_strict_npu"]["outcome"]) == ("failed", "fail")
    assert (u["test_skipped_npu"]["pytest_outcome"], u["test_skipped_npu"]["outcome"]) == ("skipped", "skip")
    assert report["totals"]["pytest_outcomes"] == {"passed": 4, "failed": 5, "error": 0, "skipped": 1,
                                                   "xfailed": 1, "xpassed": 1}
    assert report["totals"]["units"] == 12
    # pytest's own last line for the same run says the same.
    records = (tmp / "npu" / "upstream" / "test_outcomes.py.outcomes.jsonl").read_text().splitlines()
    assert json.loads(records[-1])["pytest_totals"] == {"passed": 4, "failed": 5, "skipped": 1, "xfailed": 1,
                                                        "xpassed": 1}


def test_expected_failures_match_either_class_name(runs):
    tmp, _, npu = runs
    u = units(tmp / "npu")
    assert u["test_listed_later_npu"]["classname"] == "test_outcomes.TestLaterNPU"
    assert u["test_listed_fails_npu"]["classname"] == "test_outcomes.TestOutcomesPRIVATEUSE1"
    assert u["test_listed_fails_npu"]["outcome"] == "xfail"
    assert u["test_listed_later_npu"]["outcome"] == "xfail"
    assert u["test_listed_passes_npu"]["outcome"] == "xpass"
    assert "unexpected pass" in npu.stderr and "test_listed_passes" in npu.stderr
    assert canonical_id("f.py::TestAPRIVATEUSE1::test_b_privateuse1_float32") == "f.py::TestANPU::test_b_npu_float32"


def test_junit_keeps_pytorch_names_and_fails_only_what_failed(runs):
    tmp, _, _ = runs
    text = (tmp / "npu" / "junit.xml").read_text()
    assert "did not run on npu" not in text
    root = ET.parse(tmp / "npu" / "junit.xml").getroot()
    [suite] = root.findall("testsuite")
    assert suite.get("name") == "test_outcomes.py"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["test_add_npu_float32"].get("classname") == "test_outcomes.TestOutcomesPRIVATEUSE1"
    assert cases["test_fine_npu"].get("classname") == "test_outcomes.TestLaterNPU"
    failed = {name for name, c in cases.items() if c.find("failure") is not None or c.find("error") is not None}
    assert failed == {"test_strict_npu", "test_view_a_npu", "test_view_b_npu", "test_listed_passes_npu"}
    assert cases["test_known_bug_npu"].find("skipped").get("type") == "pytest.xfail"
    assert cases["test_listed_fails_npu"].find("skipped").get("type") == "npu-emu.xfail"
    assert len(cases["test_add_npu_int64"]) == 1  # only its properties: a plain pass
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("12", "4", "0", "4")


def test_summary_groups_failures_by_cause_with_whole_messages(runs):
    tmp, _, _ = runs
    summary = (tmp / "npu" / "summary.md").read_text()
    assert "| 2 | `RuntimeError: shape '[…]' is invalid for input of size N of a long message" in summary
    # The example message is whole, not cut mid-line.
    assert "shape '[2, 3]' is invalid for input of size 7 " + "of a long message " * 19 + "of a long message" in summary
    assert "## Unexpected passes (1)" in summary and "TestOutcomesNPU::test_listed_passes_npu" in summary


def test_reports_agree_with_pytest_and_a_tampered_junit_does_not(runs, tmp_path):
    tmp, _, _ = runs
    assert agreement.check(tmp / "npu") == []
    assert agreement.check(tmp / "cpu") == []
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tmp / "npu", copy)
    text = (copy / "junit.xml").read_text()
    (copy / "junit.xml").write_text(text.replace('name="test_fine_npu" time="', 'name="test_fine_npu" x="', 1)
                                    .replace('<property name="pytest_outcome" value="xfailed" />',
                                             '<property name="pytest_outcome" value="skipped" />'))
    problems = agreement.check(copy)
    assert any("test_known_bug_npu" in p and "xfailed" in p for p in problems), problems


def test_cpu_reference_run_is_the_same_tests_on_cpu(runs):
    tmp, cpu, _ = runs
    assert cpu.returncode == 0, cpu.stderr  # failures of a reference run are not the npu run's
    cpu_units = units(tmp / "cpu")
    assert "test_add_cpu_float32" in cpu_units and cpu_units["test_add_cpu_float32"]["classname"].endswith("CPU")
    ref = json.loads((tmp / "npu" / "report.json").read_text())["cpu_reference"]
    assert ref["total"]["tests"] == 12 and ref["only_npu_reported"] == 0 and ref["only_cpu_reported"] == 0
    assert ref["total"]["cpu_passed"] == ref["total"]["npu_passed"] == 5  # passed and xpassed, on both
    assert "## npu against CPU (the same tests)" in (tmp / "npu" / "summary.md").read_text()


def test_update_expected_writes_causes_from_the_logs(runs, tmp_path):
    tmp, _, _ = runs
    expected = tmp_path / "expected.txt"
    expected.write_text(EXPECTED)
    proc = run_cli(["--pytorch-src", str(tmp / "pytorch"), "--files", "test_outcomes.py", "--report-only",
                    "--expected", str(expected), "--update-expected", "--cpu-report", str(tmp / "cpu" / "report.json"),
                    "--output-dir", str(tmp / "npu")], tmp)
    entries = upstream_expected.load(expected)
    assert proc.returncode == 0, proc.stderr  # every failure listed now
    assert entries["test_outcomes.py::TestOutcomesNPU::test_listed_fails_npu"] == "ValueError: listed"  # kept
    assert "test_outcomes.py::TestOutcomesNPU::test_listed_passes_npu" not in entries  # it passed
    assert entries["test_outcomes.py::TestOutcomesNPU::test_view_a_npu"] == (
        "also fails on CPU: RuntimeError: shape '[…]' is invalid for input of size N" + " of a long message" * 20)
    assert "test_outcomes.py::TestOutcomesNPU::test_known_bug_npu" not in entries  # the file's own mark


def test_a_timed_out_file_keeps_pytorch_names_of_the_tests_it_finished(tmp_path):
    src = checkout(tmp_path, {"test_slow.py": HANGING_FILE})
    proc = run_cli(["--pytorch-src", str(src), "--files", "test_slow.py", "--file-timeout", "15",
                    "--output-dir", str(tmp_path / "out")], tmp_path)
    assert proc.returncode == 1, proc.stderr
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["test_a_fast_npu"].get("classname") == "test_slow.TestSlowPRIVATEUSE1"
    assert cases["test_a_fast_npu"].find("failure") is None
    message = cases["(file)"].find("error").get("message")
    assert "--file-timeout 15 s" in message and "during test_slow.py::TestSlowPRIVATEUSE1::test_b_hangs_npu" in message
    assert agreement.check(tmp_path / "out") == []


def test_plain_pytest_without_the_backend_says_how_to_enable_it(tmp_path):
    (tmp_path / "test_outcomes.py").write_text(OUTCOMES_FILE)
    env = {k: v for k, v in os.environ.items() if k != "NPU"}
    env["PYTORCH_TESTING_DEVICE_ONLY_FOR"] = "privateuse1"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_outcomes.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 5  # pytest: no tests collected
    assert "the npu backend was not active" in proc.stderr and "NPU=emu" in proc.stderr


def test_shards_split_a_file_into_the_same_disjoint_parts_on_every_device(runs):
    from npu_emu.conformance.pytest_plugin import shard_of

    tmp, _, _ = runs
    full = units(tmp / "npu")
    parts = {shard_of(f"test_outcomes.py::{u['classname'].split('.', 1)[1]}::{name}", 3)
             for name, u in full.items()}
    assert len(parts) > 1  # the planted file spreads over the parts
    assert shard_of("t.py::TestXPRIVATEUSE1::test_y_npu_float32", 7) == shard_of("t.py::TestXCPU::test_y_cpu_float32", 7)
    # A relative --output-dir (pytest runs in the checkout's test/, the runner where it was started).
    proc = run_cli(["--pytorch-src", "pytorch", "--files", "test_outcomes.py", "--shard", "2/3",
                    "--expected", "expected.txt", "--output-dir", "shard-out"], tmp)
    assert proc.returncode in (0, 1), proc.stderr
    expected = {name for name, u in full.items()
                if shard_of(f"test_outcomes.py::{u['classname'].split('.', 1)[1]}::{name}", 3) == 1}
    assert set(units(tmp / "shard-out")) == expected
    assert agreement.check(tmp / "shard-out") == []
    bad = run_cli(["--pytorch-src", str(tmp / "pytorch"), "--files", "test_outcomes.py", "--shard", "4/3"], tmp)
    assert bad.returncode == 2 and "--shard" in bad.stderr


def test_repo_upstream_expected_file_parses_with_canonical_keys_and_causes():
    from npu_emu.conformance.cli import data_dir

    path = data_dir() / upstream_expected.FILE_NAME
    entries = upstream_expected.load(path)
    assert entries, path
    raw_keys = [line.split(": ", 1)[0] for line in path.read_text().splitlines() if line and not line.startswith("#")]
    assert raw_keys == [canonical_id(k) for k in raw_keys]  # written in the NPU form
    assert all(cause.strip() for cause in entries.values())


def test_merged_shard_logs_give_the_reports_of_the_whole_run(runs):
    # A CI runs a file as --shard jobs; --merge builds one report from their output dirs.
    tmp, _, _ = runs
    for i in (1, 2, 3):
        proc = run_cli(["--pytorch-src", "pytorch", "--files", "test_outcomes.py", "--shard", f"{i}/3",
                        "--expected", "expected.txt", "--output-dir", f"merge-part{i}"], tmp)
        assert proc.returncode in (0, 1), proc.stderr
    proc = run_cli(["--pytorch-src", "pytorch", "--files", "test_outcomes.py", "--expected", "expected.txt",
                    "--merge", "merge-part1", "merge-part2", "merge-part3", "--output-dir", "merged"], tmp)
    assert proc.returncode in (0, 1), proc.stderr
    whole, merged = units(tmp / "npu"), units(tmp / "merged")
    assert {n: u["pytest_outcome"] for n, u in merged.items()} == {n: u["pytest_outcome"] for n, u in whole.items()}
    assert agreement.check(tmp / "merged") == []
    totals = json.loads((tmp / "merged" / "report.json").read_text())["totals"]["pytest_outcomes"]
    assert totals == json.loads((tmp / "npu" / "report.json").read_text())["totals"]["pytest_outcomes"]
    bad = run_cli(["--pytorch-src", "pytorch", "--files", "test_outcomes.py", "--merge", "no-such-dir"], tmp)
    assert bad.returncode == 2 and "--merge" in bad.stderr
