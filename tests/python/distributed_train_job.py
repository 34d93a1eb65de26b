"""One rank of a training job for test_distributed_training.py (run as a
script, env:// rendezvous, any world size): the example TinyGPT
(examples/train_gpt.py) trained with DDP and with FSDP2 (`fully_shard`) on
this rank's share of every batch, against the same training in one process;
then torch.distributed.checkpoint of the FSDP2 (sharded) and of a plain
model, loaded into fresh models. Prints one JSON line of failures."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import train_gpt  # noqa: E402  (the example's model and batches)

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
LOCAL_RANK = int(os.environ["LOCAL_RANK"])
STEPS = 2
# SGD, not the example's AdamW: Adam's update of a near-zero gradient is
# about ±lr whatever its size, so summation-order noise would decide it.
LR = 0.5


def model(device: torch.device, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return train_gpt.TinyGPT().to(device)


def train(net: torch.nn.Module, device: torch.device, rows: slice) -> None:
    optimizer = torch.optim.SGD(net.parameters(), lr=LR)
    for idx, target in train_gpt.make_batches(STEPS):
        logits = net(idx[rows].to(device))
        loss = F.cross_entropy(logits.reshape(-1, train_gpt.VOCAB), target[rows].reshape(-1).to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def compare(what: str, params: dict[str, torch.Tensor], reference: torch.nn.Module, device: torch.device,
            failures: list[str]) -> None:
    for name, want in reference.named_parameters():
        got = params[name]
        if got.device != device:
            failures.append(f"{what} {name} is on {got.device}")
        gap = (got.detach().cpu() - want.detach().cpu()).abs().max().item()
        if not torch.allclose(got.detach().cpu(), want.detach().cpu(), rtol=1e-4, atol=1e-5):
            failures.append(f"{what} {name} differs from single-process training by {gap}")


def main() -> None:
    torch.npu.set_device(LOCAL_RANK)
    dist.init_process_group("hccl", timeout=timedelta(seconds=int(os.environ.get("JOB_TIMEOUT_S", "60"))))
    device = torch.device("npu", torch.npu.current_device())
    checkpoints = Path(os.environ["CHECKPOINT_DIR"])
    rows_per_rank = train_gpt.BATCH // WORLD
    mine = slice(RANK * rows_per_rank, (RANK + 1) * rows_per_rank)
    failures: list[str] = []

    reference = model(device)
    train(reference, device, slice(None))

    ddp = torch.nn.parallel.DistributedDataParallel(model(device), device_ids=[device.index])
    train(ddp, device, mine)
    compare("DDP", dict(ddp.module.named_parameters()), reference, device, failures)

    sharded = model(device)
    for block in sharded.blocks:
        fully_shard(block)
    fully_shard(sharded)
    train(sharded, device, mine)
    compare("FSDP2", {n: p.full_tensor() for n, p in sharded.named_parameters()}, reference, device, failures)

    # DCP of the sharded model: each rank writes its shards; a fresh sharded
    # model (other weights) loads them back.
    dcp.save(sharded.state_dict(), checkpoint_id=checkpoints / "fsdp2")
    fresh = model(device, seed=1)
    for block in fresh.blocks:
        fully_shard(block)
    fully_shard(fresh)
    state = fresh.state_dict()
    dcp.load(state, checkpoint_id=checkpoints / "fsdp2")
    fresh.load_state_dict(state)
    saved = {n: p.full_tensor() for n, p in sharded.named_parameters()}
    for name, p in fresh.named_parameters():
        if p.to_local().device != device or not torch.equal(p.full_tensor().cpu(), saved[name].cpu()):
            failures.append(f"DCP (FSDP2) {name} after load differs from the saved one")

    # DCP of a plain npu model: DDP's replica, the same on every rank (DCP
    # writes each replicated tensor once, from one rank).
    dcp.save(ddp.module.state_dict(), checkpoint_id=checkpoints / "plain")
    plain = model(device, seed=2)
    state = plain.state_dict()
    dcp.load(state, checkpoint_id=checkpoints / "plain")
    plain.load_state_dict(state)
    for (name, p), q in zip(plain.named_parameters(), ddp.module.parameters()):
        if p.device != device or not torch.equal(p.detach().cpu(), q.detach().cpu()):
            failures.append(f"DCP (plain) {name} after load differs from the saved one")

    print(json.dumps({"failures": failures, "device": str(device)}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
