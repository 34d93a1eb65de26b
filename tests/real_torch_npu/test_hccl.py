"""The real torch_npu's `init_process_group("hccl")` on the CANN stand-in's
HCCL: 2-rank jobs (one process per rank, as torchrun starts them) whose
collectives, point-to-point calls and DDP training match the same computation
on CPU, and a lost peer that ends in a clear error instead of a hang."""

from __future__ import annotations

import pytest

from hccl_ranks import describe, run_ranks


def assert_passed(results, scenario: str) -> None:
    for r in results:
        assert r.returncode == 0 and f"done {scenario}" in r.stdout, describe(results)


def test_every_collective_matches_cpu_on_two_ranks():
    results = run_ranks("collectives")
    assert_passed(results, "collectives")
    for r in results:
        for name in ("all_reduce product torch.float32", "all_reduce avg torch.float32", "all_reduce sum torch.bfloat16",
                     "broadcast src=1", "all_gather n=6 [1]", "all_gather n=128 [1]", "all_gather_into_tensor", "reduce_scatter sum",
                     "reduce_scatter_tensor max", "all_to_all_single uneven splits", "all_to_all [1]", "barrier",
                     "send/recv ring", "isend/irecv ring"):
            assert f"ok {name}\n" in r.stdout, describe(results)
    assert "ok reduce dst=last" in results[1].stdout


def test_collective_waits_for_the_kernels_queued_before_it():
    results = run_ranks("ordering", env={"NPU_EMU_KERNEL_DELAY_US": "20000"})
    assert_passed(results, "ordering")


def test_ddp_training_on_two_ranks_matches_one_process():
    results = run_ranks("ddp")
    assert_passed(results, "ddp")
    assert all("ok ddp 2.bias" in r.stdout for r in results), describe(results)


@pytest.mark.parametrize("scenario, reason", [("peer_dies", "closed the connection"),
                                              ("peer_hangs", "HCCL_EXEC_TIMEOUT")])
def test_a_lost_peer_gives_a_clear_error_not_a_hang(scenario, reason):
    results = run_ranks(scenario, env={"HCCL_EXEC_TIMEOUT": "5"}, timeout=180)
    rank0 = results[0]
    assert rank0.returncode is not None, describe(results)  # not killed at the timeout: it did not hang
    assert "ok all_reduce before losing a peer" in rank0.stdout, describe(results)
    # torch_npu raises with the stand-in's message, or (its watchdog) aborts
    # the process after printing it: either way the text names the cause.
    assert reason in rank0.stdout + rank0.stderr, describe(results)
    assert "npu-emu's HCCL" in rank0.stdout + rank0.stderr, describe(results)
    if scenario == "peer_dies":
        assert results[1].returncode == 3
