"""Train a small GPT-style transformer on the Ascend npu: token embedding tied
to the output head, causal F.scaled_dot_product_attention, AdamW and mixed
precision (torch.npu.amp).

    NPU=emu python examples/train_gpt.py --steps 8 --amp bfloat16 --compare

The task is synthetic and learnable: each sequence counts upwards modulo the
vocabulary from a random start, so the next token follows from the current
one. With --compare the same model, from the same weights and batches, also
trains on CPU in float32, and the losses are compared.
"""

from __future__ import annotations

import copy
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu  # noqa: F401  (torch.npu, the npu device)

from training_report import cpu_reference, debug, parse_args, print_table, reset_counters, timed_steps

VOCAB, CONTEXT, DIM, HEADS, LAYERS, BATCH = 64, 32, 64, 4, 2, 8


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        # No key bias: attention is invariant to it, so it would get no gradient.
        self.qkv = nn.Linear(DIM, 3 * DIM, bias=False)
        self.proj = nn.Linear(DIM, DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, HEADS, d // HEADS).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(CONTEXT, DIM)
        self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.ln = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB, bias=False)
        self.head.weight = self.tok.weight  # weight tying: one matrix for embedding and output
        # Small embeddings (GPT-2's 0.02): the tied head starts near uniform predictions.
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.shape[1], device=idx.device)
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos(pos))))


def make_batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(steps):
        start = torch.randint(0, VOCAB, (BATCH, 1), generator=g)
        seq = (start + torch.arange(CONTEXT + 1)) % VOCAB
        batches.append((seq[:, :-1], seq[:, 1:]))
    return batches


def trainer(model: nn.Module, device: str, amp: str):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    use_amp = device == "npu" and amp != "off"
    dtype = torch.bfloat16 if amp == "bfloat16" else torch.float16
    # float16 needs loss scaling; bfloat16 has float32's range and does not.
    # A small initial scale keeps the first steps from overflowing (and being skipped).
    scaler = torch.amp.GradScaler("npu", init_scale=2.0**10, enabled=use_amp and amp == "float16")

    def step(idx: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="npu", dtype=dtype, enabled=use_amp):
            logits = model(idx)
            loss = F.cross_entropy(logits.flatten(0, 1), target.flatten())
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        return loss

    return step


def main() -> int:
    args = parse_args(__doc__.splitlines()[0], steps=8)
    torch.manual_seed(0)
    initial = TinyGPT()
    batches = make_batches(args.steps)

    cpu_steps = cpu_reference(trainer, initial, batches, args.compare)

    reset_counters()
    model = copy.deepcopy(initial).npu()
    assert model.head.weight is model.tok.weight, "moving to npu keeps the tied weight tied"
    npu_steps = list(timed_steps(trainer(model, "npu", args.amp), batches, "npu"))
    ok = print_table(f"GPT-style transformer ({LAYERS} layers, dim {DIM}, tied embedding/head, SDPA), AdamW, "
                     f"amp={args.amp}", npu_steps, cpu_steps, args.amp, setup_casts=0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
