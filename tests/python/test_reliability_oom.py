"""Issue 20: the caching allocator reports out-of-memory only when the request
does not fit, not because its cache fragmented the device."""

from __future__ import annotations

import pytest

from conftest import run_python

# A seeded churn of large tensors whose live data plus the next request stays
# under 80 % of the 512 MiB device: every request fits.
_CHURN = """
import random, torch, npu_emu
rng = random.Random({seed})
hbm = 512 << 20
live, live_bytes, ooms = [], 0, []
for _ in range(1500):
    n = rng.randint(1, 160) << 20
    while live and live_bytes + n > 0.8 * hbm:
        victim = live.pop(rng.randrange(len(live)))
        live_bytes -= victim.numel()
        del victim
    try:
        t = torch.empty(n, dtype=torch.uint8, device="npu")
    except torch.OutOfMemoryError as e:
        ooms.append((n >> 20, live_bytes >> 20, str(e)))
        continue
    t[:1].fill_(1)
    live.append(t)
    live_bytes += n
    del t  # only `live` holds the tensors
live.clear()
torch.npu.synchronize()
print("ooms", len(ooms), ooms[:1])
print("allocated", torch.npu.memory_allocated())
"""


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("conf", ["", "max_split_size_mb:32", "garbage_collection_threshold:0.6"])
def test_no_oom_for_requests_that_fit(seed: int, conf: str) -> None:
    env = {"NPU_EMU_HBM_MB": "512"}
    if conf:
        env["PYTORCH_NPU_ALLOC_CONF"] = conf
    result = run_python(_CHURN.format(seed=seed), env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ooms 0 "), lines[0]
    assert lines[1] == "allocated 0"


def test_oom_message_says_reserved_but_unallocated() -> None:
    code = """
import torch, npu_emu
keep = torch.empty(100 << 20, dtype=torch.uint8, device="npu")
cached = torch.empty(200 << 20, dtype=torch.uint8, device="npu")
del cached  # 200 MiB reserved, not allocated
try:
    torch.empty(600 << 20, dtype=torch.uint8, device="npu")
except torch.OutOfMemoryError as e:
    print(e)
print("allocated", torch.npu.memory_allocated() >> 20)
"""
    result = run_python(code, env={"NPU_EMU_HBM_MB": "512"})
    assert result.returncode == 0, result.stderr
    assert "is reserved by PyTorch but unallocated" in result.stdout, result.stdout
    assert result.stdout.splitlines()[-1] == "allocated 100"
