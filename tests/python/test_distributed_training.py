"""DDP and FSDP2 (`fully_shard`) training of the example TinyGPT over hccl on
2 and 4 ranks against one process, and torch.distributed.checkpoint of npu
models (distributed_train_job.py)."""

from __future__ import annotations

import distributed_launch
import pytest


@pytest.mark.parametrize("world", [2, 4])
def test_ddp_fsdp2_and_checkpoint_match_single_process(tmp_path, world):
    # No NPU_EMU_DEVICE_COUNT: the emulator gives a torchrun job one device
    # per local rank (LOCAL_WORLD_SIZE), as each rank's set_device(LOCAL_RANK) expects.
    results = distributed_launch.run_job("distributed_train_job.py", [], world,
                                         lambda rank: {"CHECKPOINT_DIR": str(tmp_path)})
    for rank, (code, result, err) in enumerate(results):
        assert code == 0, f"rank {rank} failed:\n{err[-3000:]}"
        assert result["device"] == f"npu:{rank}"
        assert result["failures"] == [], result["failures"]
