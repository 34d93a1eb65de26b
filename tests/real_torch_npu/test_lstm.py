"""nn.LSTM on the real torch_npu: torch_npu 2.13 sends one-layer LSTMs with
biases (float32/float16) to CANN's aclnnLSTM and aclnnLstmBackward, which the
stand-in runs on npu-emu's LSTM layer kernel (ops/table/rnn_cann.yaml); it
sends every other LSTM to the legacy aclop path, which the stand-in refuses
naming the op."""

import copy

import pytest
import torch
import torch_npu  # noqa: F401

import _npu_emu_standin
from conftest import run_python


def run(model: torch.nn.Module, x: torch.Tensor, state, device: str):
    model = copy.deepcopy(model).to(device)
    x = x.detach().to(device).requires_grad_()
    state = tuple(s.detach().to(device).requires_grad_() for s in state) if state is not None else None
    out, (h, c) = model(x, state)
    # Every output feeds the loss, so every gradient path runs.
    (out.square().sum() + (h * 0.5).sum() + (c * 0.25).sum()).backward()
    grads = [p.grad for p in model.parameters()] + [x.grad] + ([s.grad for s in state] if state else [])
    return [t.detach().cpu() for t in (out, h, c, *grads)]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_forward_and_backward_match_cpu(batch_first, with_state):
    torch.manual_seed(0)
    model = torch.nn.LSTM(5, 7, batch_first=batch_first)
    x = torch.randn(3, 6, 5) if batch_first else torch.randn(6, 3, 5)
    state = (torch.randn(1, 3, 7), torch.randn(1, 3, 7)) if with_state else None
    for got, want in zip(run(model, x, state, "npu"), run(model, x, state, "cpu")):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_strided_input_and_eval_mode():
    torch.manual_seed(1)
    model = torch.nn.LSTM(4, 6).eval()
    x = torch.randn(5, 2, 8)[:, :, ::2]  # a strided view
    with torch.no_grad():
        got = model.to("npu")(x.npu())
        want = model.cpu()(x)
    for g, w in zip((got[0], *got[1]), (want[0], *want[1])):
        torch.testing.assert_close(g.cpu(), w, rtol=1e-5, atol=1e-5)


def test_float16_matches_cpu_in_float32_within_half_precision():
    torch.manual_seed(2)
    model = torch.nn.LSTM(8, 8)
    x = torch.randn(4, 2, 8)
    out, (h, c) = copy.deepcopy(model).half().npu()(x.half().npu())
    want, (wh, wc) = model(x)
    assert out.dtype == torch.float16
    for g, w in zip((out, h, c), (want, wh, wc)):
        torch.testing.assert_close(g.float().cpu(), w, rtol=0, atol=5e-3)


def test_lstm_training_runs_on_aclnn_only(tmp_path):
    report = tmp_path / "report.txt"
    code = ("import torch, torch_npu\n"
            "m = torch.nn.LSTM(3, 4).npu()\n"
            "out, _ = m(torch.randn(5, 2, 3).npu())\n"
            "out.sum().backward()\n"
            "print(all(p.grad is not None for p in m.parameters()))\n")
    r = run_python(code, {"NPU_EMU_STANDIN_REPORT": str(report)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "True"
    parsed = _npu_emu_standin.read_report(report)
    assert parsed["aclop"] == {}
    assert not {"aclnnLSTM", "aclnnLstmBackward"} & set(parsed["missing-aclnn"])


# torch_npu sends these to the legacy aclop path (op-plugin's acl_op::lstm).
@pytest.mark.parametrize("options", ["num_layers=2", "bidirectional=True", "bias=False"])
def test_lstms_torch_npu_sends_to_aclop_are_refused_clearly(options):
    code = ("import torch, torch_npu\n"
            f"m = torch.nn.LSTM(3, 4, {options}).npu()\n"
            "try:\n"
            "    m(torch.randn(5, 2, 3).npu())\n"
            "    torch.npu.synchronize()\n"
            "    print('ran')\n"
            "except RuntimeError as e:\n"
            "    print('REFUSED', ' '.join(str(e).split()))\n"
            "print((torch.ones(2).npu() * 3).cpu().tolist())\n")
    r = run_python(code)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert lines[0].startswith("REFUSED"), lines
    assert "legacy aclop path" in lines[0]
    assert "cell_type=LSTM" in lines[0]  # the refusal shows the op's attributes (DynamicRNN's)
    assert lines[-1] == "[3.0, 3.0]"  # the process keeps working
