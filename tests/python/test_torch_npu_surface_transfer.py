"""torch_npu.contrib.transfer_to_npu: a training script written for CUDA runs
on npu unchanged (fresh interpreters: the import patches torch globally)."""

from __future__ import annotations

import textwrap

from conftest import run_python

CUDA_TRAINING_SCRIPT = textwrap.dedent("""
    import torch
    import torch_npu
    from torch_npu.contrib import transfer_to_npu

    assert torch.cuda.is_available() and torch.cuda.device_count() >= 1
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).cuda()
    assert next(model.parameters()).device.type == "npu"
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler()
    x = torch.randn(32, 8, device="cuda")
    y = x.sum(dim=1, keepdim=True).to(device)
    assert x.is_cuda and x.device.type == "npu" and y.device.type == "npu"
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():
            loss = torch.nn.functional.mse_loss(model(x).float(), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    torch.cuda.synchronize()
    assert losses[-1] < losses[0] / 2, losses
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        assert model(x).dtype == torch.bfloat16
    assert torch.cuda.memory_allocated() > 0
    assert torch.cuda.current_stream().device.type == "npu"
    ev = torch.cuda.Event(enable_timing=True)
    ev.record()
    ev.synchronize()
    z = torch.zeros(3).to("cuda:0")
    assert z.device == torch.device("npu", 0)
    state = {k: v.cpu() for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    assert isinstance(z, torch.cuda.FloatTensor)
    g = torch.Generator(device="cuda")
    assert g.device.type == "npu" and isinstance(g, torch.Generator)
    with torch.device("cuda"):
        assert torch.ones(2).device.type == "npu"
    with torch.device("meta"):
        assert torch.nn.Linear(2, 2).weight.device.type == "meta"
    torch.set_default_device("cuda")
    try:
        assert torch.tensor(1).device.type == "npu"
    finally:
        torch.set_default_device(None)
    event = torch.Event(device="cuda:0", enable_timing=True)
    assert event.device.type == "npu" and isinstance(event, torch.Event)
    assert torch.cuda.default_generators == torch.npu.default_generators
    print("TRAINED", losses[0], losses[-1])
""")


def test_cuda_training_script_runs_on_npu_unchanged():
    result = run_python(CUDA_TRAINING_SCRIPT, env={"NPU": "emu"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "TRAINED" in result.stdout


def test_torch_load_map_location_cuda_goes_to_npu(tmp_path):
    path = tmp_path / "t.pt"
    code = textwrap.dedent(f"""
        import torch
        from torch_npu.contrib import transfer_to_npu
        torch.save(torch.arange(4.0), {str(path)!r})
        t = torch.load({str(path)!r}, map_location="cuda:0")
        assert t.device.type == "npu", t.device
        assert torch.equal(t.cpu(), torch.arange(4.0))
        print("LOADED")
    """)
    result = run_python(code, env={"NPU": "emu"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "LOADED" in result.stdout


def test_cuda_graphs_refuse_clearly():
    code = textwrap.dedent("""
        import torch
        from torch_npu.contrib import transfer_to_npu
        try:
            torch.cuda.CUDAGraph()
        except RuntimeError as err:
            print("REFUSED", err)
    """)
    result = run_python(code, env={"NPU": "emu"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "REFUSED torch.npu.NPUGraph" in result.stdout


def test_per_device_nccl_backend_becomes_npu_hccl():
    code = textwrap.dedent("""
        import os, socket
        import torch, torch_npu
        import torch_npu.contrib.transfer_to_npu
        import torch.distributed as dist
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        dist.init_process_group(backend="cuda:nccl", init_method=f"tcp://127.0.0.1:{port}", world_size=1, rank=0)
        try:
            print(dist.get_backend())
        finally:
            dist.destroy_process_group()
    """)
    result = run_python(code, env={"NPU": "emu", "NPU_EMU_TORCH_NPU": "compat"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-1] == "npu:hccl"
