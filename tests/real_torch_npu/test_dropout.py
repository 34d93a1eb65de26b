"""Train-mode dropout on the real torch_npu: its native_dropout launches
aclnnDropoutGenMaskV2 (a bit-packed keep mask, on its secondary stream) and
aclnnDropoutDoMask, its backward aclnnDropoutDoMask on the gradient with the
forward's mask. Were either missing, torch_npu would take the legacy aclop
path, which the stand-in refuses: these tests would raise."""

import pytest
import torch
import torch_npu  # noqa: F401

N = 64 * 1024


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_kept_elements_are_scaled_and_the_keep_rate_is_plausible(dtype, p):
    cpu = (torch.rand(N // 64, 64) + 0.5).to(dtype)  # no zeros: a zero output is a dropped element
    out = torch.nn.functional.dropout(cpu.npu(), p, training=True).cpu()
    kept = out != 0
    expected = (cpu.float() * (1 / (1 - p))).to(dtype)
    torch.testing.assert_close(out[kept], expected[kept], rtol=0, atol=0)
    rate = kept.double().mean().item()
    # Binomial: 6 standard deviations of the keep rate.
    assert abs(rate - (1 - p)) < 6 * ((p * (1 - p) / N) ** 0.5)


def test_backward_applies_the_forwards_mask():
    x = (torch.randn(37, 129) + 5).npu().requires_grad_()  # odd sizes: the mask's padding bits
    p = 0.4
    y = torch.nn.functional.dropout(x, p, training=True)
    grad = torch.randn(37, 129)
    y.backward(grad.npu())
    kept = (y != 0).cpu()
    expected = torch.where(kept, grad * (1 / (1 - p)), torch.zeros(()))
    torch.testing.assert_close(x.grad.cpu(), expected, rtol=1e-6, atol=1e-6)


def test_strided_input_and_module_in_train_and_eval_mode():
    base = torch.rand(8, 300) + 1
    x = base.npu().t()  # non-contiguous
    drop = torch.nn.Dropout(0.5).npu()
    out = drop(x).cpu()
    kept = out != 0
    torch.testing.assert_close(out[kept], (base.t() * 2)[kept], rtol=0, atol=0)
    assert 0.3 < kept.double().mean().item() < 0.7
    drop.eval()
    assert torch.equal(drop(x).cpu(), base.t())


def test_p_zero_and_one():
    x = (torch.rand(10, 10) + 1).npu().requires_grad_()
    y0 = torch.nn.functional.dropout(x, 0.0, training=True)
    assert torch.equal(y0.detach().cpu(), x.detach().cpu())
    y1 = torch.nn.functional.dropout(x, 1.0, training=True)
    assert torch.equal(y1.detach().cpu(), torch.zeros(10, 10))
    (y0.sum() + y1.sum()).backward()
    assert torch.equal(x.grad.cpu(), torch.ones(10, 10))


def test_masks_follow_the_generator_and_successive_masks_are_independent():
    x = torch.ones(N).npu()
    torch.npu.manual_seed(1234)
    first = torch.nn.functional.dropout(x, 0.5).cpu() != 0
    second = torch.nn.functional.dropout(x, 0.5).cpu() != 0
    torch.npu.manual_seed(1234)
    again = torch.nn.functional.dropout(x, 0.5).cpu() != 0
    assert torch.equal(first, again)
    # torch_npu advances its generator by a fixed amount per mask: a later
    # mask must not be the earlier one shifted by a few elements.
    for shift in range(0, 33):
        agreement = (second[shift:] == first[:N - shift]).double().mean().item()
        assert abs(agreement - 0.5) < 0.02, (shift, agreement)
