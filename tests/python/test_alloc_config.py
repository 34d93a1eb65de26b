"""PYTORCH_NPU_ALLOC_CONF / PYTORCH_ALLOC_CONF / PYTORCH_NO_NPU_MEMORY_CACHING:
parsing (in process, through the parser) and their effect at first use
(in fresh processes, since the environment is read once)."""

from __future__ import annotations

import pytest

import npu_emu
from npu_subprocess import run_json, run_python

MiB = 1 << 20
parse = npu_emu._C._npu_parse_allocator_config


def test_defaults():
    cfg = parse("")
    assert cfg == {"max_split_size": None, "garbage_collection_threshold": 0.0,
                   "roundup_power2_divisions": [0] * 16, "expandable_segments": False,
                   "base_addr_aligned_kb": 16, "caching_enabled": True, "per_process_memory_fraction": None}


def test_every_key_parses():
    cfg = parse("max_split_size_mb:128, garbage_collection_threshold:0.6,roundup_power2_divisions:4,"
                "expandable_segments:False,base_addr_aligned_kb:0")
    assert cfg["max_split_size"] == 128 * MiB
    assert cfg["garbage_collection_threshold"] == 0.6
    assert cfg["roundup_power2_divisions"] == [4] * 16
    assert cfg["expandable_segments"] is False
    assert cfg["base_addr_aligned_kb"] == 0


def test_roundup_list_form():
    # PyTorch's meaning: "<N>:<d>" is the interval of sizes in [N, 2N) MiB,
    # the first entry also covers all smaller sizes, ">" all larger ones.
    cfg = parse("roundup_power2_divisions:[256:1,512:2,>:4]")
    assert cfg["roundup_power2_divisions"] == [1] * 9 + [2] + [4] * 6


@pytest.mark.parametrize("text, expected", [
    ("[32:16,64:4]", [16] * 6 + [4] + [0] * 9),       # no '>': larger sizes are not rounded
    ("[1:2,2:4,>:8]", [2, 4] + [8] * 14),
    ("[64:8,256:2]", [8] * 7 + [0] + [2] + [0] * 7),  # 128 MiB, between the listed sizes, keeps 0
    ("[16:4,>:0]", [4] * 5 + [0] * 11),               # 0 switches rounding off
    ("[65536:2]", [2] * 16),                          # beyond 32 GiB: the last interval
])
def test_roundup_list_form_intervals(text, expected):
    assert parse("roundup_power2_divisions:" + text)["roundup_power2_divisions"] == expected


@pytest.mark.parametrize("text, message", [
    ("foo:1", "Unrecognized CachingAllocator option: foo"),
    ("max_split_size_mb:128,bogus_key:3", "Unrecognized CachingAllocator option: bogus_key"),
    ("max_split_size_mb:abc", "max_split_size_mb: 'abc'; allowed: an integer number of MiB greater than 20"),
    ("max_split_size_mb:20", "max_split_size_mb: '20'"),
    ("garbage_collection_threshold:1.5", "garbage_collection_threshold: '1.5'; allowed: a number strictly between"),
    ("garbage_collection_threshold:x", "garbage_collection_threshold"),
    ("roundup_power2_divisions:3", "roundup_power2_divisions: '3'; allowed: a power of two"),
    ("roundup_power2_divisions:[512:2,256:1]", "increasing power-of-two MiB sizes"),
    ("expandable_segments:yes", "expandable_segments: 'yes'; allowed: True or False"),
    ("base_addr_aligned_kb:17", "base_addr_aligned_kb: '17'; allowed: an integer from 0 to 16"),
    ("base_addr_aligned_kb:-1", "base_addr_aligned_kb"),
])
def test_bad_config_names_key_and_allowed_values(text, message):
    with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse(text)


ALLOC = """
x = torch.ones(10, device="npu")
print(json.dumps(npu_emu._C._npu_allocator_config()))
"""


def test_environment_config_applies_at_first_use():
    cfg = run_json(ALLOC, env={"PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:64,garbage_collection_threshold:0.5"})
    assert cfg["max_split_size"] == 64 * MiB and cfg["garbage_collection_threshold"] == 0.5


def test_generic_pytorch_alloc_conf_is_read_too():
    cfg = run_json(ALLOC, env={"PYTORCH_ALLOC_CONF": "max_split_size_mb:32"})
    assert cfg["max_split_size"] == 32 * MiB


def test_both_variables_set_is_an_error():
    proc = run_python(ALLOC, env={"PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:64",
                                  "PYTORCH_ALLOC_CONF": "max_split_size_mb:64"})
    assert proc.returncode != 0
    assert "RuntimeError" in proc.stderr
    assert "PYTORCH_NPU_ALLOC_CONF and PYTORCH_ALLOC_CONF are both set" in proc.stderr


def test_bad_environment_config_is_a_runtime_error_at_first_allocation_and_after():
    proc = run_python("""
        import torch, npu_emu  # importing works: the config is read at first use
        for attempt in range(2):
            try:
                torch.ones(3, device="npu")
            except RuntimeError as e:
                print("RuntimeError:", str(e).splitlines()[0])
    """, env={"PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:64,foo:1"})
    assert proc.returncode == 0, proc.stderr
    # The message names the variable that holds the bad option, and the options allowed.
    assert proc.stdout.count("RuntimeError: PYTORCH_NPU_ALLOC_CONF='max_split_size_mb:64,foo:1': "
                             "Unrecognized CachingAllocator option: foo; allowed options: max_split_size_mb,") == 2


def test_bad_generic_alloc_conf_names_pytorch_alloc_conf():
    proc = run_python(ALLOC, env={"PYTORCH_ALLOC_CONF": "garbage_collection_threshold:2"})
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: PYTORCH_ALLOC_CONF='garbage_collection_threshold:2': Invalid value for "
                           "CachingAllocator option garbage_collection_threshold"), proc.stderr


def test_expandable_segments_is_accepted_with_a_warning():
    proc = run_python(ALLOC, env={"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True"})
    assert proc.returncode == 0, proc.stderr
    assert '"expandable_segments": true' in proc.stdout
    assert "expandable_segments:True is accepted but not supported" in proc.stderr


def test_max_split_size_keeps_oversize_blocks_whole():
    # With max_split_size_mb:32 a cached 40 MiB block is not cut for a 25 MiB
    # request (that would strand the rest); a new segment is made instead.
    result = run_json("""
        MiB = 1 << 20
        x = torch.empty(40 * MiB, dtype=torch.uint8, device="npu")
        ptr = x.data_ptr()
        del x
        y = torch.empty(25 * MiB, dtype=torch.uint8, device="npu")
        z = torch.empty(40 * MiB, dtype=torch.uint8, device="npu")
        s = torch.npu.memory_stats()
        print(json.dumps({"y_reused": y.data_ptr() == ptr, "z_reused": z.data_ptr() == ptr,
                          "oversize_segments": s["oversize_segments.current"],
                          "oversize_allocations": s["oversize_allocations.current"],
                          "max_split_size": s["max_split_size"]}))
    """, env={"PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:32"})
    assert result == {"y_reused": False, "z_reused": True, "oversize_segments": 1, "oversize_allocations": 1,
                      "max_split_size": 32 * MiB}


def test_roundup_power2_divisions_changes_block_sizes():
    result = run_json("""
        x = torch.empty(1100 * 1024, dtype=torch.uint8, device="npu")
        print(json.dumps(torch.npu.memory_allocated()))
    """, env={"PYTORCH_NPU_ALLOC_CONF": "roundup_power2_divisions:4"})
    # 1100 KiB + 32 lies between 1 MiB and 2 MiB: rounded up to the next
    # quarter step, 1.25 MiB.
    assert result == 1280 * 1024


@pytest.mark.parametrize("conf, nbytes, block", [
    # 33 MiB lies in the interval of 32 MiB, which "[32:16,...]" gives 16
    # divisions of 2 MiB: 34 MiB, as in PyTorch and torch_npu (was 40 MiB).
    ("[32:16,64:4]", 33 * MiB, 34 * MiB),
    ("[32:16,64:4]", 65 * MiB, 80 * MiB),  # 64 MiB interval: 4 divisions of 16 MiB
    # Above the list, without '>': +32 bytes, then 512-byte rounding only.
    ("[32:16,64:4]", 128 * MiB + 256 * 1024, 128 * MiB + 256 * 1024 + 512),
    ("[1:2,>:8]", 33 * MiB, 36 * MiB),     # '>' covers every interval above the last entry
    ("16", 33 * MiB, 34 * MiB),            # single value: every interval
])
def test_roundup_power2_divisions_rounds_as_pytorch(conf, nbytes, block):
    result = run_json(f"""
        x = torch.empty({nbytes}, dtype=torch.uint8, device="npu")
        print(json.dumps(torch.npu.memory_allocated()))
    """, env={"PYTORCH_NPU_ALLOC_CONF": f"roundup_power2_divisions:{conf}"})
    assert result == block


def test_garbage_collection_releases_old_cached_segments():
    result = run_json("""
        MiB = 1 << 20
        torch.npu.set_per_process_memory_fraction(0.5)  # 128 MiB of 256
        x = torch.empty(60 * MiB, dtype=torch.uint8, device="npu")
        del x  # 62 MiB cached, above 0.3 * 128 MiB
        y = torch.empty(30 * MiB, dtype=torch.uint8, device="npu")
        s = torch.npu.memory_stats()
        print(json.dumps({"reserved": torch.npu.memory_reserved(), "retries": s["num_alloc_retries"]}))
    """, env={"NPU_EMU_HBM_MB": "256", "PYTORCH_NPU_ALLOC_CONF": "garbage_collection_threshold:0.3,max_split_size_mb:40"})
    # The 62 MiB segment is oversize for a 30 MiB request, so a new segment is
    # needed; garbage collection gives the old one back first.
    assert result == {"reserved": 32 * MiB, "retries": 0}
