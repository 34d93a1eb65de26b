"""Sparse COO and compressed (CSR/CSC) tensors on npu, against CPU.

A sparse npu tensor is built natively from dense npu parts (indices, values;
crow/col indices); ops that compute on sparse data run through the sparse
CPU fallback, counted like the dense one. Values are small integers in
float64, so sums and products are exact and compared with CPU exactly.
"""

from __future__ import annotations

from typing import Callable

import pytest
import torch

import npu_emu


def dense_with_zeros(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """A CPU float64 tensor of small integers, about half of them zero."""
    g = torch.Generator().manual_seed(seed)
    values = torch.randint(-4, 5, shape, generator=g).double()
    keep = torch.rand(shape, generator=g) < 0.5
    return values * keep


def same(npu: torch.Tensor, cpu: torch.Tensor) -> None:
    """Same layout, device type npu, and the same dense values as cpu."""
    assert npu.device.type == "npu"
    assert npu.layout == cpu.layout
    assert npu.shape == cpu.shape and npu.dtype == cpu.dtype
    assert torch.equal(npu.cpu().to_dense(), cpu.to_dense())


def uncoalesced_coo() -> torch.Tensor:
    """A CPU COO tensor with a repeated index (not coalesced)."""
    indices = torch.tensor([[0, 1, 1, 0], [2, 0, 0, 2]])
    values = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    return torch.sparse_coo_tensor(indices, values, (2, 3))


def test_coo_construction_and_parts_match_cpu():
    cpu = uncoalesced_coo()
    npu = torch.sparse_coo_tensor(cpu._indices().to("npu"), cpu._values().to("npu"), (2, 3))
    assert npu.is_sparse and npu.device.type == "npu"
    assert npu._indices().device.type == "npu" and npu._values().device.type == "npu"
    assert npu._nnz() == cpu._nnz() and npu.sparse_dim() == 2 and npu.dense_dim() == 0
    assert not npu.is_coalesced()
    same(npu, cpu)
    moved = cpu.to("npu")
    same(moved, cpu)
    coalesced = moved.coalesce()
    assert coalesced.is_coalesced() and coalesced._nnz() == 2
    assert torch.equal(coalesced.indices().cpu(), cpu.coalesce().indices())
    assert torch.equal(coalesced.values().cpu(), cpu.coalesce().values())


@pytest.mark.parametrize("sparse_dim", [1, 2])
def test_dense_to_sparse_and_back(sparse_dim):
    cpu = dense_with_zeros((4, 5), seed=sparse_dim)
    npu = cpu.to("npu").to_sparse(sparse_dim)
    same(npu, cpu.to_sparse(sparse_dim))
    assert npu.sparse_dim() == sparse_dim
    dense = npu.to_dense()
    assert dense.device.type == "npu" and dense.layout == torch.strided
    assert torch.equal(dense.cpu(), cpu)


COO_OPS: dict[str, Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": lambda a, b, d: a + b,
    "sub": lambda a, b, d: a - b,
    "mul_sparse": lambda a, b, d: a * b,
    "mul_scalar": lambda a, b, d: a * 3,
    "neg": lambda a, b, d: -a,
    "sparse_mm_dense": lambda a, b, d: torch.sparse.mm(a, d),
    "mm_dense": lambda a, b, d: torch.mm(a, d),
    "addmm": lambda a, b, d: torch.sparse.addmm(d[:4], a, d),
    "sum": lambda a, b, d: torch.sparse.sum(a),
    "sum_dim": lambda a, b, d: torch.sparse.sum(a, dim=1),
    "transpose": lambda a, b, d: a.t(),
    "dense_plus_sparse": lambda a, b, d: d.t() + a,
}


@pytest.mark.parametrize("name", COO_OPS)
def test_coo_ops_match_cpu(name):
    op = COO_OPS[name]
    a, b = dense_with_zeros((4, 5), 1), dense_with_zeros((4, 5), 2)
    d = dense_with_zeros((5, 4), 3)
    expected = op(a.to_sparse(), b.to_sparse(), d)
    got = op(a.to_sparse().to("npu"), b.to_sparse().to("npu"), d.to("npu"))
    assert got.device.type == "npu" and got.layout == expected.layout
    assert torch.equal(got.cpu().to_dense(), expected.to_dense())


def test_coo_in_place_keeps_the_npu_tensor():
    a, b = dense_with_zeros((3, 4), 4), dense_with_zeros((3, 4), 5)
    npu = a.to_sparse().to("npu")
    same_object = npu.add_(b.to_sparse().to("npu"))
    assert same_object is npu
    same(npu, (a + b).to_sparse())
    npu.mul_(2)
    assert torch.equal(npu.cpu().to_dense(), (a + b) * 2)
    npu.zero_()
    assert npu._nnz() == 0 and npu.device.type == "npu"


def test_sparse_embedding_gradient_on_npu_matches_cpu():
    torch.manual_seed(0)
    cpu_emb = torch.nn.Embedding(10, 3, sparse=True).double()
    npu_emb = torch.nn.Embedding(10, 3, sparse=True).double().to("npu")
    npu_emb.load_state_dict(cpu_emb.state_dict())
    idx = torch.tensor([[1, 2, 4], [4, 3, 9]])
    cpu_emb(idx).sum().backward()
    npu_emb(idx.to("npu")).sum().backward()
    grad = npu_emb.weight.grad
    assert grad.is_sparse and grad.device.type == "npu"
    assert torch.equal(grad.cpu().to_dense(), cpu_emb.weight.grad.to_dense())
    torch.optim.SGD(npu_emb.parameters(), lr=0.5).step()
    torch.optim.SGD(cpu_emb.parameters(), lr=0.5).step()
    assert torch.equal(npu_emb.weight.detach().cpu(), cpu_emb.weight.detach())


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_compressed_conversions_parts_and_ops(layout):
    cpu_dense = dense_with_zeros((4, 5), seed=7)
    convert = (lambda t: t.to_sparse_csr()) if layout == "csr" else (lambda t: t.to_sparse_csc())
    cpu = convert(cpu_dense)
    for npu in (convert(cpu_dense.to("npu")), cpu.to("npu")):
        same(npu, cpu)
        assert npu.values().device.type == "npu"
        if layout == "csr":
            assert torch.equal(npu.crow_indices().cpu(), cpu.crow_indices())
            assert torch.equal(npu.col_indices().cpu(), cpu.col_indices())
        else:
            assert torch.equal(npu.ccol_indices().cpu(), cpu.ccol_indices())
            assert torch.equal(npu.row_indices().cpu(), cpu.row_indices())
        assert npu._nnz() == cpu._nnz()
        assert torch.equal(npu.to_dense().cpu(), cpu_dense)
        assert torch.equal(npu.to_sparse().cpu().to_dense(), cpu_dense)
    npu = cpu.to("npu")
    d = dense_with_zeros((5, 3), seed=8)
    assert torch.equal(torch.mm(npu, d.to("npu")).cpu(), torch.mm(cpu, d))
    same(npu * 2, cpu * 2)
    assert torch.equal(npu.clone().cpu().to_dense(), cpu_dense)


def test_sparse_fallback_is_counted_and_obeys_error_mode(fallback_mode):
    npu = uncoalesced_coo().to("npu")
    before = npu_emu.fallback_report()
    npu.coalesce()
    after = npu_emu.fallback_report()
    assert after.get("aten::_coalesce", 0) == before.get("aten::_coalesce", 0) + 1
    fallback_mode("error")
    with pytest.raises(RuntimeError, match="_coalesce.*NPU_EMU_FALLBACK=error"):
        npu.coalesce()
    # the structural kernels are native: building and reading need no fallback
    built = torch.sparse_coo_tensor(npu._indices(), npu._values(), (2, 3))
    assert built._nnz() == 4 and built.is_sparse
