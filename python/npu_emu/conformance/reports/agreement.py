"""The check that an upstream run's junit.xml and report.json agree with
pytest's own outcomes: the plugin's per-report records and pytest's totals
(upstream/<file>.outcomes.jsonl in the output directory).

- the records of each file add up to the totals pytest printed (none lost);
- every test pytest reported is one unit in report.json and one testcase in
  junit.xml, with pytest's class and test name, and nothing else is there
  but the runner's file-level units (a crash, a time limit);
- each unit's pytest outcome is the worst of its records, and its status
  follows from it;
- each testcase's element follows from the outcome: no failure or error
  where pytest passed the test (or xfailed it) and the file did not list it,
  one where pytest failed it and the file did not list it;
- the junit totals are the counts of its testcases' elements.

Run: python -m npu_emu.conformance.reports.agreement OUTPUT_DIR"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

_STATUS = {"passed": "passed", "xpassed": "passed", "failed": "failed", "xfailed": "failed", "error": "errored",
           "skipped": "skipped"}


def _element(case: ET.Element) -> str:
    return next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "")


def _expected_element(pytest_outcome: str, outcome: str) -> set[str]:
    if outcome == "xpass":
        return {"failure"}
    if outcome == "fail":
        return {"error"} if pytest_outcome == "error" else {"failure", "error"}
    if outcome in ("xfail", "skip"):
        return {"skipped"}
    return {""}


def check(out: Path) -> list[str]:
    from npu_emu.conformance.upstream import junit_names, merged_outcome, read_records

    problems: list[str] = []
    report = json.loads((out / "report.json").read_text())
    units = report["units"]
    junit = ET.parse(out / "junit.xml").getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in junit.iter("testcase")}
    if len(cases) != sum(1 for _ in junit.iter("testcase")):
        problems.append("junit.xml: a testcase (classname, name) appears twice")
    by_name = {(u.get("classname"), u.get("name")): u for u in units}
    pytest_tests: set[tuple[str, str]] = set()
    from npu_emu.conformance.upstream import outcomes_path

    files = report.get("selection", {}).get("files", "").split()
    paths = [outcomes_path(out, f) for f in files] if files else sorted((out / "upstream").glob("*.outcomes.jsonl"))
    for path in paths:
        records, totals = read_records(path)
        counted: dict[str, int] = {}
        for rec in records:
            counted[rec["outcome"]] = counted.get(rec["outcome"], 0) + 1
        if totals is not None and {k: v for k, v in totals.items() if v} != counted:
            problems.append(f"{path.name}: records {counted} but pytest's totals {totals}")
        by_test: dict[str, list[dict]] = {}
        for rec in records:
            by_test.setdefault(rec["id"], []).append(rec)
        for tid, recs in by_test.items():
            worst = merged_outcome(recs)["outcome"].removeprefix("subtests ")
            name = junit_names(tid)
            pytest_tests.add(name)
            unit, case = by_name.get(name), cases.get(name)
            if unit is None:
                problems.append(f"{tid}: pytest reported it ({worst}), report.json has no unit")
                continue
            if case is None:
                problems.append(f"{tid}: pytest reported it ({worst}), junit.xml has no testcase")
                continue
            if worst not in _STATUS:
                problems.append(f"{tid}: pytest's outcome {worst!r} is none of {', '.join(_STATUS)}")
                continue
            if unit["pytest_outcome"] != worst or unit["status"] != _STATUS[worst]:
                problems.append(f"{tid}: pytest says {worst}, report.json {unit['pytest_outcome']}/"
                                f"{unit['status']}")
            prop = case.find("properties/property[@name='pytest_outcome']")
            if prop is None or prop.get("value") != worst:
                problems.append(f"{tid}: pytest says {worst}, junit.xml's property "
                                f"{None if prop is None else prop.get('value')}")
            if _element(case) not in _expected_element(worst, unit["outcome"]):
                problems.append(f"{tid}: pytest says {worst} (outcome {unit['outcome']}), junit.xml has "
                                f"<{_element(case) or 'no failure'}>")
    for name, unit in by_name.items():
        if name not in pytest_tests and unit.get("pytest_outcome"):
            problems.append(f"{unit['key']}: in report.json as {unit['pytest_outcome']}, pytest never reported it")
    for name in cases:
        if name not in by_name:
            problems.append(f"{name}: in junit.xml, not in report.json")
    for suite in junit.iter("testsuite"):
        elements = [_element(c) for c in suite.iter("testcase")]
        for attr, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            if int(suite.get(attr, "0")) != elements.count(tag):
                problems.append(f"junit.xml suite {suite.get('name')}: {attr}={suite.get(attr)} but "
                                f"{elements.count(tag)} <{tag}>")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m npu_emu.conformance.reports.agreement OUTPUT_DIR", file=sys.stderr)
        return 2
    problems = check(Path(argv[0]))
    for p in problems:
        print(p)
    print(f"{len(problems)} disagreements", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
