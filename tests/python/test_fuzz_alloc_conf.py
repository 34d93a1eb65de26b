"""Fuzz target (issue 20): PYTORCH_NPU_ALLOC_CONF parsing.

Through the parser itself (npu_emu._C._npu_parse_allocator_config): text built
from the grammar (known and unknown keys, valid and invalid values, spaces,
empty items) is accepted with exactly the values it says, or refused with one
RuntimeError naming the option; arbitrary text is accepted only with values in
their ranges, or refused the same way. A few settings also go through the
environment of a fresh process, where the first allocation works or fails
with an error naming the variable. Settings: tests/python/fuzz_settings.py.
"""

from __future__ import annotations

import json

from fuzz_settings import fuzz_settings, hypothesis
from npu_subprocess import run_python

import npu_emu

st = hypothesis.strategies
parse = npu_emu._C._npu_parse_allocator_config
MiB = 1 << 20
KEYS = ("max_split_size_mb", "garbage_collection_threshold", "roundup_power2_divisions", "expandable_segments",
        "base_addr_aligned_kb", "per_process_memory_fraction")
POWERS = [1 << k for k in range(12)]

# Each item strategy draws (text, key, expected value or None when invalid).
spaces = st.sampled_from(["", " ", "  "])


def item(key: str, values) -> st.SearchStrategy:
    return st.tuples(spaces, values, spaces).map(lambda t: (f"{t[0]}{key}:{t[1][0]}{t[2]}", key, t[1][1]))


def whole(n: int) -> str:
    return str(n)


max_split = st.one_of(
    st.integers(21, 1 << 20).map(lambda n: (whole(n), n * MiB)),
    st.integers(0, 20).map(lambda n: (whole(n), None)),
    st.integers(1 << 44, 10**18 - 1).map(lambda n: (whole(n), None)),  # bytes beyond 64 bits: refused
    st.sampled_from(["", "-5", "3.5", "abc", "32mb", "0x40", "+64", " "]).map(lambda s: (s, None)),
)
fraction_open = st.one_of(
    st.floats(0.001, 0.999).map(lambda v: (repr(v), v)),
    st.sampled_from(["0", "1", "1.0", "0.0", "-0.5", "2", "nan", "inf", "", "half", "0.5x"]).map(lambda s: (s, None)),
)
fraction_closed = st.one_of(
    st.floats(0.0, 1.0).map(lambda v: (repr(v), v)),
    st.sampled_from(["-0.1", "1.5", "nan", "inf", "", "all"]).map(lambda s: (s, None)),
)
divisions = st.one_of(
    st.sampled_from([0, *POWERS]).map(lambda d: (whole(d), [d] * 16)),
    st.sampled_from(["3", "6", "-2", "", "two", "[", "]", "[]", "[1:3]", "[>:2,1:2]", "[2:2,1:2]", "[1:2,,]",
                     "[[1:2]]"]).map(lambda s: (s, None)),
)
flag = st.one_of(st.sampled_from([("True", True), ("true", True), ("False", False), ("false", False)]),
                 st.sampled_from(["1", "0", "yes", "", "TRUE "]).map(lambda s: (s, None)))
aligned = st.one_of(st.integers(0, 16).map(lambda n: (whole(n), n)),
                    st.sampled_from(["17", "-1", "", "4k", "99999999999999999999"]).map(lambda s: (s, None)))
unknown = st.sampled_from(["bogus:1", "max_split_size:64", "MAX_SPLIT_SIZE_MB:64", ":5", "max_split_size_mb",
                           "roundup_power2_divisions"]).map(lambda s: (s, s.split(":")[0], None))

ITEMS = st.one_of(item("max_split_size_mb", max_split), item("garbage_collection_threshold", fraction_open),
                  item("per_process_memory_fraction", fraction_closed), item("roundup_power2_divisions", divisions),
                  item("expandable_segments", flag), item("base_addr_aligned_kb", aligned), unknown)
FIELD = {"max_split_size_mb": "max_split_size", "roundup_power2_divisions": "roundup_power2_divisions",
         "garbage_collection_threshold": "garbage_collection_threshold", "expandable_segments": "expandable_segments",
         "base_addr_aligned_kb": "base_addr_aligned_kb", "per_process_memory_fraction": "per_process_memory_fraction"}


@fuzz_settings(ci_examples=1500)
@hypothesis.given(items=st.lists(ITEMS, max_size=5), empty_items=st.integers(0, 2))
# What the fuzz found: the byte limit wrapped to 0; a subnormal fraction refused.
@hypothesis.example(items=[("max_split_size_mb:17592186044416", "max_split_size_mb", None)], empty_items=0)
@hypothesis.example(items=[("per_process_memory_fraction:5e-324", "per_process_memory_fraction", 5e-324)],
                    empty_items=0)
def test_config_from_the_grammar_parses_to_exactly_its_values_or_names_the_bad_option(items, empty_items):
    text = ",".join([t for t, _, _ in items] + [""] * empty_items)
    invalid = [(key, t) for t, key, value in items if value is None]
    try:
        cfg = parse(text)
    except RuntimeError as e:
        message = str(e)
        assert invalid, f"{text!r} refused although every item is valid: {message}"
        assert "CachingAllocator" in message and any(key in message for key, _ in invalid), (text, message)
        return
    assert not invalid, f"{text!r} accepted although {invalid} is invalid: {cfg}"
    last = {key: value for _, key, value in items}  # the last setting of a key wins
    for key, expected in last.items():
        got = cfg[FIELD[key]]
        assert got == expected or (isinstance(expected, float) and abs(got - expected) <= 1e-12 * max(1, expected)), (
            text, key, got, expected)


def check_ranges(cfg: dict) -> None:
    assert cfg["max_split_size"] is None or (cfg["max_split_size"] > 20 * MiB and cfg["max_split_size"] % MiB == 0)
    assert 0.0 <= cfg["garbage_collection_threshold"] < 1.0
    assert cfg["per_process_memory_fraction"] is None or 0.0 <= cfg["per_process_memory_fraction"] <= 1.0
    assert all(d == 0 or d & (d - 1) == 0 for d in cfg["roundup_power2_divisions"])
    assert 0 <= cfg["base_addr_aligned_kb"] <= 16


@fuzz_settings(ci_examples=3000)
@hypothesis.given(text=st.one_of(st.text(max_size=80),
                                 st.text(alphabet=",:[]>. _-0123456789eTruFalsmxpitdbkgcn", max_size=80)))
def test_arbitrary_text_is_accepted_in_range_or_refused_with_one_error(text):
    try:
        cfg = parse(text)
    except RuntimeError as e:
        assert "CachingAllocator" in str(e), (text, str(e))
        return
    check_ranges(cfg)


@fuzz_settings(ci_examples=4)
@hypothesis.given(items=st.lists(ITEMS, min_size=1, max_size=3))
def test_the_environment_setting_applies_or_fails_the_first_allocation_naming_it(items):
    text = ",".join(t for t, _, _ in items)
    code = """
    try:
        x = torch.ones(1000, device="npu") + 1
        print(json.dumps({"ok": float(x.sum().item())}))
    except RuntimeError as e:
        print(json.dumps({"error": str(e)}))
    """
    proc = run_python(code, env={"PYTORCH_NPU_ALLOC_CONF": text}, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if any(value is None for _, _, value in items):
        assert "PYTORCH_NPU_ALLOC_CONF" in result.get("error", ""), (text, result)
    else:
        assert result == {"ok": 2000.0}, (text, result)
