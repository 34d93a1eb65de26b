"""Data-parallel training on npu with the `hccl` process group:

    NPU=emu torchrun --nproc_per_node 2 examples/ddp_train.py

Each rank drives the npu of its LOCAL_RANK (npu-emu emulates one per local
rank under torchrun) and trains on its share of every batch;
DistributedDataParallel averages the gradients over `hccl`. At the end
rank 0 trains the same model from the same weights on whole batches in one
process and checks that the weights agree (exit code 1 if not).
Without torchrun the script trains in one process.
"""

from __future__ import annotations

import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch_npu  # noqa: F401

STEPS, BATCH, FEATURES, CLASSES, LR = 30, 32, 16, 4, 0.01


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(FEATURES, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, CLASSES))


def batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    """A learnable task: the class is the argmax of the first CLASSES features."""
    g = torch.Generator().manual_seed(1)
    data = []
    for _ in range(STEPS):
        x = torch.randn(BATCH, FEATURES, generator=g)
        data.append((x, x[:, :CLASSES].argmax(1)))
    return data


def train(model: nn.Module, device: torch.device, rank: int, world: int) -> list[float]:
    """Adam over this rank's rows of every batch; returns the local losses."""
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    rows = BATCH // world
    losses = []
    for x, y in batches():
        mine = slice(rank * rows, (rank + 1) * rows)
        loss = F.cross_entropy(model(x[mine].to(device)), y[mine].to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def main() -> int:
    distributed = "WORLD_SIZE" in os.environ
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.npu.set_device(local_rank)
    device = torch.device("npu", local_rank)
    if not distributed:
        losses = train(make_model().to(device), device, 0, 1)
        print(f"single process: loss {losses[0]:.4f} -> {losses[-1]:.4f}")
        return 0

    dist.init_process_group("hccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    if BATCH % world:
        raise ValueError(f"the batch of {BATCH} must split evenly over the ranks; got WORLD_SIZE={world}")
    model = nn.parallel.DistributedDataParallel(make_model().to(device), device_ids=[local_rank])
    losses = torch.tensor(train(model, device, rank, world), device=device)
    dist.all_reduce(losses, op=dist.ReduceOp.AVG)  # the loss of whole batches
    status = 0
    if rank == 0:
        reference = make_model().to(device)
        reference_losses = train(reference, device, 0, 1)
        worst = max((p.detach().cpu() - q.detach().cpu()).abs().max().item()
                    for p, q in zip(model.module.parameters(), reference.parameters()))
        print(f"{world} ranks over hccl: loss {losses[0].item():.4f} -> {losses[-1].item():.4f}; "
              f"single process: {reference_losses[0]:.4f} -> {reference_losses[-1]:.4f}; "
              f"largest weight difference {worst:.2e}")
        status = 0 if worst < 1e-4 else 1
        print("matches single-process training" if status == 0 else "DIFFERS from single-process training")
    dist.destroy_process_group()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
