"""HcclProcessGroup: torch.distributed's collectives on npu tensors, carried
by a ProcessGroupGloo made from the same store, rank and size.

PyTorch's c10d Backend cannot be subclassed from Python, but ProcessGroup
can (its trampoline reaches Python from C++ callers such as DDP's reducer),
so `hccl` is a ProcessGroup that stages npu tensors to host memory, runs the
gloo collective on the host copies and copies the results back, all on its
CommWorker's threads (the call returns at once). Host tensors go to gloo
untouched, so `cpu:gloo,npu:hccl` groups serve both devices."""

from __future__ import annotations

from collections.abc import Sequence
import weakref
from datetime import timedelta

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import AllgatherOptions  # not re-exported by torch.distributed

from npu_emu.distributed import reduce_ops
from npu_emu.distributed.comm_worker import CommWorker, Issue, npu_devices
from npu_emu.distributed.staging import CopyBack, host_like, to_host
from npu_emu.distributed.work import CombinedWork, StagedWork

Tensors = Sequence[torch.Tensor]


class HcclProcessGroup(dist.ProcessGroup):
    def __init__(self, store: dist.Store, rank: int, world_size: int, timeout: timedelta) -> None:
        super().__init__(rank, world_size)
        self._gloo = dist.ProcessGroupGloo(store, rank, world_size, timeout)
        # Helpers that look a backend up by device (DDP's parameter check,
        # `device_id=` binding) find gloo. The collectives of this class do
        # not go there; the dispatcher's c10d ops, which would hand it npu
        # tensors directly, are refused on npu (dispatcher_guard).
        for device in ("cpu", "npu"):
            self._register_backend(torch.device(device), dist.ProcessGroup.BackendType.GLOO, self._gloo)
        # Works issued between _start_coalescing and _end_coalescing.
        self._coalesced: list[StagedWork] | None = None
        self._worker = CommWorker(f"hccl-rank{rank}")
        weakref.finalize(self, self._worker.stop)

    def getBackendName(self) -> str:  # noqa: N802 (name fixed by the C++ trampoline)
        return "hccl"

    def _work(self, name: str, tensors: Tensors, issue: Issue, result) -> StagedWork:
        """Queues `issue` (staging and the gloo call, run on the worker) after
        the work queued so far on the current streams of `tensors`' devices."""
        work = StagedWork(name, self.rank(), result)
        self._worker.submit(work, npu_devices(tensors), sum(t.nbytes for t in tensors), issue)
        if self._coalesced is not None:
            self._coalesced.append(work)
        return work

    @staticmethod
    def _stage(inputs: Tensors) -> list[torch.Tensor]:
        return [to_host(t) for t in inputs]

    def _reduced(self, name: str, tensors: Tensors, opts, run, divide_on=None) -> StagedWork:
        """In-place reductions: stage, run gloo with a gloo-native op, apply
        AVG's division on `divide_on(hosts)` (default: every host copy), copy back."""
        op = reduce_ops.ReduceSpec(opts.reduceOp)
        opts.reduceOp = reduce_ops.gloo_op(op)
        size = self.size()

        def issue():
            hosts = self._stage(tensors)
            reduce_ops.prescale(op, hosts)
            copy_back = self._outputs(tensors, hosts)
            targets = hosts if divide_on is None else divide_on(hosts)
            copy_back.before_copy(lambda: reduce_ops.postscale(op, targets, size))
            return run(hosts, opts), copy_back

        return self._work(name, tensors, issue, list(tensors))

    # -- reductions ---------------------------------------------------------
    def allreduce(self, tensors: Tensors, opts=None) -> StagedWork:
        opts = opts or dist.AllreduceOptions()
        return self._reduced("allreduce", tensors, opts, lambda h, o: self._gloo.allreduce(h, o))

    def allreduce_coalesced(self, tensors: Tensors, opts=None) -> StagedWork:
        opts = opts or dist.AllreduceCoalescedOptions()
        return self._reduced("allreduce_coalesced", tensors, opts,
                             lambda h, o: self._gloo.allreduce_coalesced(h, o))

    def reduce(self, tensors: Tensors, opts=None) -> StagedWork:
        opts = opts or dist.ReduceOptions()
        root = self.rank() == opts.rootRank
        return self._reduced("reduce", tensors, opts, lambda h, o: self._gloo.reduce(h, o),
                             divide_on=lambda hosts: hosts if root else [])

    def reduce_scatter(self, outputs: Tensors, input_lists: Sequence[Tensors], opts=None) -> StagedWork:
        opts = opts or dist.ReduceScatterOptions()
        op = reduce_ops.ReduceSpec(opts.reduceOp)
        opts.reduceOp = reduce_ops.gloo_op(op)
        size = self.size()

        def issue():
            host_lists = [self._stage(inputs) for inputs in input_lists]
            for hosts in host_lists:
                reduce_ops.prescale(op, hosts)
            host_outputs = [host_like(t) for t in outputs]
            copy_back = self._outputs(outputs, host_outputs)
            copy_back.before_copy(lambda: reduce_ops.postscale(op, host_outputs, size))
            return self._gloo.reduce_scatter(host_outputs, host_lists, opts), copy_back

        return self._work("reduce_scatter", [*outputs, *(t for ts in input_lists for t in ts)], issue,
                          list(outputs))

    def _reduce_scatter_base(self, output: torch.Tensor, input: torch.Tensor, opts=None) -> StagedWork:
        opts = opts or dist.ReduceScatterOptions()
        op = reduce_ops.ReduceSpec(opts.reduceOp)
        opts.reduceOp = reduce_ops.gloo_op(op)
        size = self.size()

        def issue():
            (host_input,) = self._stage([input])
            if host_input is input and op.kind == dist.ReduceOp.RedOpType.PREMUL_SUM:
                host_input = input.clone()
            reduce_ops.prescale(op, [host_input])
            host_output = host_like(output)
            copy_back = self._outputs([output], [host_output])
            copy_back.before_copy(lambda: reduce_ops.postscale(op, [host_output], size))
            return self._gloo._reduce_scatter_base(host_output, host_input, opts), copy_back

        return self._work("reduce_scatter_tensor", [output, input], issue, [output])

    # -- data movement ------------------------------------------------------
    @staticmethod
    def _outputs(targets: Tensors, hosts: Tensors) -> CopyBack:
        copy_back = CopyBack()
        for target, host in zip(targets, hosts):
            copy_back.add(target, host)
        return copy_back

    @staticmethod
    def _output_lists(output_lists: Sequence[Tensors]) -> tuple[list[list[torch.Tensor]], CopyBack]:
        """Host buffers for lists of outputs, and the copies back into them."""
        host_lists = [[host_like(t) for t in outputs] for outputs in output_lists]
        copy_back = CopyBack()
        for outputs, host_outputs in zip(output_lists, host_lists):
            for target, host in zip(outputs, host_outputs):
                copy_back.add(target, host)
        return host_lists, copy_back

    @staticmethod
    def _flat(lists: Sequence[Tensors]) -> list[torch.Tensor]:
        return [t for ts in lists for t in ts]

    def broadcast(self, tensors: Tensors, opts=None) -> StagedWork:
        opts = opts or dist.BroadcastOptions()

        def issue():
            hosts = self._stage(tensors)
            return self._gloo.broadcast(hosts, opts), self._outputs(tensors, hosts)

        return self._work("broadcast", tensors, issue, list(tensors))

    def allgather(self, output_lists: Sequence[Tensors], inputs: Tensors, opts=None) -> StagedWork:
        opts = opts or AllgatherOptions()

        def issue():
            hosts = self._stage(inputs)
            host_lists, copy_back = self._output_lists(output_lists)
            return self._gloo.allgather(host_lists, hosts, opts), copy_back

        return self._work("allgather", [*inputs, *self._flat(output_lists)], issue,
                          [list(o) for o in output_lists])

    def _allgather_base(self, output: torch.Tensor, input: torch.Tensor, opts=None) -> StagedWork:
        opts = opts or AllgatherOptions()

        def issue():
            (host_input,) = self._stage([input])
            host_output = host_like(output)
            return (self._gloo._allgather_base(host_output, host_input, opts),
                    self._outputs([output], [host_output]))

        return self._work("all_gather_into_tensor", [output, input], issue, [output])

    def gather(self, output_lists: Sequence[Tensors], inputs: Tensors, opts=None) -> StagedWork:
        opts = opts or dist.GatherOptions()

        def issue():
            hosts = self._stage(inputs)
            host_lists, copy_back = self._output_lists(output_lists)
            return self._gloo.gather(host_lists, hosts, opts), copy_back

        return self._work("gather", [*inputs, *self._flat(output_lists)], issue, [list(o) for o in output_lists])

    def scatter(self, outputs: Tensors, input_lists: Sequence[Tensors], opts=None) -> StagedWork:
        opts = opts or dist.ScatterOptions()

        def issue():
            host_lists = [self._stage(inputs) for inputs in input_lists]
            host_outputs = [host_like(t) for t in outputs]
            return self._gloo.scatter(host_outputs, host_lists, opts), self._outputs(outputs, host_outputs)

        return self._work("scatter", [*outputs, *self._flat(input_lists)], issue, list(outputs))

    def alltoall_base(self, output: torch.Tensor, input: torch.Tensor, output_split_sizes: list[int],
                      input_split_sizes: list[int], opts=None) -> StagedWork:
        opts = opts or dist.AllToAllOptions()

        def issue():
            (host_input,) = self._stage([input])
            host_output = host_like(output)
            gloo_work = self._gloo.alltoall_base(host_output, host_input, output_split_sizes, input_split_sizes,
                                                 opts)
            return gloo_work, self._outputs([output], [host_output])

        return self._work("all_to_all_single", [output, input], issue, [output])

    def alltoall(self, outputs: Tensors, inputs: Tensors, opts=None) -> StagedWork:
        """Gloo has no list all_to_all: the inputs travel as one flat tensor
        through all_to_all_single and are split into the outputs."""
        opts = opts or dist.AllToAllOptions()
        dtypes = {t.dtype for t in [*outputs, *inputs]}
        if len(dtypes) != 1:
            raise TypeError("hccl (npu-emu): all_to_all needs one dtype across inputs and outputs; "
                            f"got {sorted(map(str, dtypes))}")

        def issue():
            hosts = self._stage(inputs)
            flat_input = torch.cat([h.reshape(-1) for h in hosts])
            flat_output = torch.empty(sum(t.numel() for t in outputs), dtype=flat_input.dtype)
            gloo_work = self._gloo.alltoall_base(flat_output, flat_input, [t.numel() for t in outputs],
                                                 [t.numel() for t in inputs], opts)
            copy_back = CopyBack()
            pieces = flat_output.split([t.numel() for t in outputs])
            for target, piece in zip(outputs, pieces):
                copy_back.add(target, piece.view(target.shape))
            return gloo_work, copy_back

        return self._work("all_to_all", [*outputs, *inputs], issue, list(outputs))

    def barrier(self, opts=None) -> StagedWork:
        opts = opts or dist.BarrierOptions()
        return self._work("barrier", [], lambda: (self._gloo.barrier(opts), CopyBack()), [])

    # -- point to point -----------------------------------------------------
    def send(self, tensors: Tensors, dst_rank: int, tag: int) -> StagedWork:
        return self._work("send", tensors,
                          lambda: (self._gloo.send(self._stage(tensors), dst_rank, tag), CopyBack()), list(tensors))

    def recv(self, tensors: Tensors, src_rank: int, tag: int) -> StagedWork:
        def issue():
            hosts = [host_like(t) for t in tensors]
            return self._gloo.recv(hosts, src_rank, tag), self._outputs(tensors, hosts)

        return self._work("recv", tensors, issue, list(tensors))

    def recv_anysource(self, tensors: Tensors, tag: int) -> StagedWork:
        def issue():
            hosts = [host_like(t) for t in tensors]
            return self._gloo.recv_anysource(hosts, tag), self._outputs(tensors, hosts)

        return self._work("recv_anysource", tensors, issue, list(tensors))

    # -- coalesced (torch.distributed's _coalescing_manager) ----------------
    def _start_coalescing(self, device: torch.device) -> None:
        """Collectives still run as they are called; the work returned at the
        end waits for all of them."""
        if self._coalesced is not None:
            raise RuntimeError("hccl (npu-emu): _start_coalescing called twice without _end_coalescing")
        self._coalesced = []

    def _end_coalescing(self, device: torch.device) -> CombinedWork:
        if self._coalesced is None:
            raise RuntimeError("hccl (npu-emu): _end_coalescing called without _start_coalescing")
        works, self._coalesced = self._coalesced, None
        return CombinedWork(works, [])

    def all_gather_single_coalesced(self, outputs: Tensors, inputs: Tensors, opts=None) -> CombinedWork:
        works = [self._allgather_base(o, i, opts or AllgatherOptions()) for o, i in zip(outputs, inputs)]
        return CombinedWork(works, list(outputs))

    def reduce_scatter_single_coalesced(self, outputs: Tensors, inputs: Tensors, opts=None) -> CombinedWork:
        """Each pair gets its own options: the reduce op is rewritten per call."""
        op = (opts or dist.ReduceScatterOptions()).reduceOp
        works = []
        for output, input in zip(outputs, inputs):
            pair_opts = dist.ReduceScatterOptions()
            pair_opts.reduceOp = op
            works.append(self._reduce_scatter_base(output, input, pair_opts))
        return CombinedWork(works, list(outputs))

    # torch.distributed's Python API and the C++ trampoline use these names.
    all_gather_single = _allgather_base
    reduce_scatter_single = _reduce_scatter_base
    all_to_all_single = alltoall_base
