"""The `hccl` process group (npu_emu.distributed): 2-rank jobs of
distributed_job.py checking every collective against the same computation
on CPU and a dying rank; plus one-process groups in this interpreter (DDP and
FSDP2: test_distributed_training.py)."""

from __future__ import annotations

import distributed_launch
import pytest
import torch
import torch.distributed as dist

WORLD = 2


def run_job(scenario: str, backend: str) -> list[tuple[int, dict | None, str]]:
    """2 ranks of distributed_job.py, one emulated npu each (NPU_EMU_DEVICE_COUNT)."""
    return distributed_launch.run_job("distributed_job.py", [scenario, backend], WORLD,
                                      lambda rank: {"NPU_EMU_DEVICE_COUNT": str(WORLD)})


@pytest.mark.parametrize("backend", ["hccl", "cpu:gloo,npu:hccl"])
def test_collectives_on_npu_match_cpu(backend):
    for rank, (code, result, err) in enumerate(run_job("collectives", backend)):
        assert code == 0, f"rank {rank} failed:\n{err[-3000:]}"
        assert result["device"] == f"npu:{rank}"  # LOCAL_RANK picked the device
        assert result["npu"] == [], result["npu"]
        assert result["cpu"] == [], result["cpu"]
        assert result["stream"] == [], result["stream"]


def test_dead_rank_fails_the_other_with_a_clear_error():
    (code0, result0, err0), (code1, _, _) = run_job("peer_dies", "hccl")
    assert code1 == 3
    assert code0 == 0, err0[-3000:]
    assert result0["type"] == "HcclWorkError"
    assert "hccl (npu-emu, on gloo): allreduce failed on rank 0" in result0["error"]
    assert "peer rank" in result0["error"]


# --- one-process groups in this interpreter


@pytest.fixture
def one_rank_group():
    created = []

    def init(**kwargs):
        dist.init_process_group(store=dist.HashStore(), rank=0, world_size=1, **kwargs)
        created.append(True)

    yield init
    if created and dist.is_initialized():
        dist.destroy_process_group()


@pytest.mark.parametrize("backend", ["hccl", None])
def test_hccl_is_npus_backend(one_rank_group, backend):
    one_rank_group(**({"backend": backend} if backend else {}))
    t = torch.arange(6.0, device="npu").reshape(2, 3)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert t.device.type == "npu"
    assert torch.equal(t.cpu(), torch.arange(6.0).reshape(2, 3))
    if backend:
        assert dist.get_backend() == "hccl"


def test_results_reach_npu_after_wait(one_rank_group, delay_us):
    """Slow kernels before and after the collective: the input is read after
    its producer, and the consumer queued after wait() sees the result."""
    one_rank_group(backend="hccl")
    delay_us(5000)
    t = torch.ones(8, device="npu") * 3
    work = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)
    work.wait()
    out = (t + 1).cpu()
    assert torch.equal(out, torch.full((8,), 4.0))
    assert work.is_completed()


def test_group_bound_to_an_npu_device(one_rank_group):
    one_rank_group(backend="hccl", device_id=torch.device("npu", 0))
    t = torch.full((3,), 2.0, device="npu")
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
    assert torch.equal(t.cpu(), torch.full((3,), 2.0))


def test_dispatcher_ops_on_npu_are_refused_clearly(one_rank_group):
    """c10d's dispatcher ops would hand npu tensors to gloo, which reads
    their memory without waiting for the npu stream."""
    one_rank_group(backend="hccl")
    group = dist.group.WORLD.boxed()
    calls = {
        "_allgather_base_": lambda: torch.ops.c10d._allgather_base_(
            torch.empty(2, device="npu"), torch.ones(2, device="npu"), group, True, -1),
        "alltoall_": lambda: torch.ops.c10d.alltoall_(
            [torch.empty(2, device="npu")], [torch.ones(2, device="npu")], group, True, -1),
    }
    for name, call in calls.items():
        with pytest.raises(NotImplementedError, match=rf"c10d::{name} on npu tensors is not supported.*"
                                                      r"init_process_group\('hccl'\)"):
            call()


def test_gloo_group_with_npu_tensors_points_to_hccl(one_rank_group):
    one_rank_group(backend="gloo")
    for call in (lambda: dist.all_reduce(torch.ones(2, device="npu")),
                 lambda: dist.broadcast(torch.ones(2, device="npu"), src=0)):
        with pytest.raises(NotImplementedError, match=r"npu tensors need npu-emu's hccl process group"):
            call()
    cpu = torch.ones(2)
    dist.all_reduce(cpu)  # host tensors keep working on gloo
    assert torch.equal(cpu, torch.ones(2))
