"""What the LSTM and GRU layer tests share (test_rnn_layers.py,
test_gru_layers.py): launch counting of a layer op pair, a loss giving every
output element its own gradient, and the module configurations both run."""

from __future__ import annotations

import torch

import npu_emu


def launches(ops: tuple[str, ...]) -> dict[str, int]:
    report = npu_emu.native_report()
    return {op: report.get(op, 0) for op in ops}


def weighted_sum(tensors: list[torch.Tensor]) -> torch.Tensor:
    """A loss that gives every element of every output its own gradient."""
    return sum((t * torch.linspace(-1, 1, t.numel(), device=t.device, dtype=t.dtype).view(t.shape)).sum()
               for t in tensors)


CONFIGS = {
    # name: (module kwargs, batch_first input?, initial state given?)
    "1-layer": (dict(num_layers=1), False, False),
    "2-layers": (dict(num_layers=2), False, True),
    "bidirectional": (dict(num_layers=1, bidirectional=True), False, True),
    "2-layers-bidirectional-batch_first": (dict(num_layers=2, bidirectional=True, batch_first=True), True, False),
    "batch_first-with-state": (dict(num_layers=2, batch_first=True), True, True),
    "no-bias": (dict(num_layers=2, bias=False), False, True),
}
