"""Which npus a process and its ranks see: ASCEND_RT_VISIBLE_DEVICES (a comma
list of device ids, renumbered from 0, as CANN does), one device per local
rank under torchrun, bad values naming the variable; ranks driving several
emulated devices, and several ranks (threads) in one process."""

from __future__ import annotations

import json

import distributed_launch
import pytest
from conftest import run_python

COUNT = "import torch, npu_emu; print(torch.npu.device_count())"


def test_visible_devices_pick_ids_of_a_whole_machine():
    """Without NPU_EMU_DEVICE_COUNT the emulated machine has 16 npus to pick from."""
    code = COUNT + "\nx = torch.arange(3.0, device='npu:1'); print((x * 2).cpu().tolist(), x.device)"
    r = run_python(code, {"ASCEND_RT_VISIBLE_DEVICES": "6,3"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["2", "[0.0, 2.0, 4.0] npu:1"]


@pytest.mark.parametrize(("env", "count"), [
    ({"LOCAL_WORLD_SIZE": "3"}, "3"),  # torchrun: one npu per local rank
    ({"LOCAL_WORLD_SIZE": "4", "ASCEND_RT_VISIBLE_DEVICES": "9"}, "1"),  # the list decides
])
def test_device_count_follows_the_launch(env, count):
    r = run_python(COUNT, env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == count


@pytest.mark.parametrize(("env", "message"), [
    ({"ASCEND_RT_VISIBLE_DEVICES": "0,x"}, "each ASCEND_RT_VISIBLE_DEVICES entry (a comma list of device ids of "
                                           "the emulated machine, which has 16 devices) must be an integer from 0 "
                                           "to 15, got 'x'"),
    ({"ASCEND_RT_VISIBLE_DEVICES": "1,1"}, "ASCEND_RT_VISIBLE_DEVICES lists device 1 twice"),
    ({"ASCEND_RT_VISIBLE_DEVICES": "2", "NPU_EMU_DEVICE_COUNT": "2"}, "which has 2 devices) must be an integer "
                                                                       "from 0 to 1, got '2'"),
    ({"LOCAL_WORLD_SIZE": "0"}, "LOCAL_WORLD_SIZE (torchrun's processes per node"),
])
def test_bad_device_settings_name_the_variable(env, message):
    r = run_python("import torch, npu_emu; torch.ones(1, device='npu')", env)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr[-2000:]


def test_ranks_with_two_visible_devices_each():
    """Rank r sees physical npus 2r and 2r+1 as npu:0 and npu:1."""
    results = distributed_launch.run_job(
        "distributed_job.py", ["two_devices", "hccl"], 2,
        lambda rank: {"ASCEND_RT_VISIBLE_DEVICES": f"{2 * rank},{2 * rank + 1}"})
    for rank, (code, result, err) in enumerate(results):
        assert code == 0, f"rank {rank} failed:\n{err[-3000:]}"
        assert result["current"] == "npu:0"
        assert result["failures"] == [], result["failures"]


_THREAD_RANKS = """
import threading, datetime, json
import torch, torch.distributed as dist, npu_emu
from npu_emu.distributed.process_group import HcclProcessGroup

store, world, out = dist.HashStore(), 2, {}

def rank_main(rank):
    torch.npu.set_device(rank)  # per thread
    group = HcclProcessGroup(store, rank, world, datetime.timedelta(seconds=60))
    t = torch.full((4,), float(rank + 1), device="npu") * 10
    group.allreduce([t]).wait()
    gathered = [torch.empty(4, device="npu") for _ in range(world)]
    group.allgather([gathered], [torch.full((4,), float(rank), device="npu")]).wait()
    out[rank] = [str(t.device), (t + 1).cpu().tolist(), [g.cpu().tolist() for g in gathered]]

threads = [threading.Thread(target=rank_main, args=(r,)) for r in range(world)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(json.dumps(out))
"""


def test_ranks_as_threads_of_one_process_each_on_its_npu():
    r = run_python(_THREAD_RANKS, {"NPU_EMU_DEVICE_COUNT": "2"})
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout.strip().splitlines()[-1])
    for rank in range(2):
        device, after, gathered = result[str(rank)]
        assert device == f"npu:{rank}"
        assert after == [31.0] * 4
        assert gathered == [[0.0] * 4, [1.0] * 4]
