"""Training steps of a small GPT-style transformer and an LSTM classifier for
the benchmark (issue 15's speed targets), each with AdamW.

The transformer: token and position embeddings, two pre-norm encoder blocks
(4 heads, width 128, causal scaled_dot_product_attention, GELU), a final
layer norm and a head tied to the token embedding; batch 8 of 32 tokens,
vocabulary 512. The LSTM: two layers of 128 units over 20 steps of 32
features, batch 8, a linear classifier on the last step.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, WIDTH, HEADS, TOKENS, BATCH = 512, 128, 4, 32, 8


class TinyGPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Parameter(torch.randn(TOKENS, WIDTH) * 0.02)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(WIDTH, HEADS, 4 * WIDTH, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True) for _ in range(2))
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.head.weight = self.tokens.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.tokens(ids) + self.positions[: ids.shape[1]]
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1], device=ids.device)
        for block in self.blocks:
            h = block(h, src_mask=mask, is_causal=True)
        return self.head(self.norm(h))


class LstmClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(32, 128, num_layers=2, batch_first=True)
        self.out = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.lstm(x)[0][:, -1])


def _step(model: nn.Module, x: torch.Tensor, y: torch.Tensor,
          loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> Callable[[], object]:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def step() -> object:
        opt.zero_grad(set_to_none=True)
        value = loss(model(x), y)
        value.backward()
        opt.step()
        return value

    return step


def transformer_train_step(device: str) -> Callable[[], object]:
    torch.manual_seed(0)
    ids = torch.randint(0, VOCAB, (BATCH, TOKENS))
    targets = torch.randint(0, VOCAB, (BATCH, TOKENS))
    return _step(TinyGPT().to(device), ids.to(device), targets.to(device),
                 lambda logits, t: F.cross_entropy(logits.reshape(-1, VOCAB), t.reshape(-1)))


def lstm_train_step(device: str) -> Callable[[], object]:
    torch.manual_seed(0)
    x = torch.randn(BATCH, 20, 32)
    y = torch.randint(0, 10, (BATCH,))
    return _step(LstmClassifier().to(device), x.to(device), y.to(device), F.cross_entropy)
