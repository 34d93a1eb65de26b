"""The stand-in's coverage report (NPU_EMU_STANDIN_REPORT): the aclnn names a
run looked up and the emulator lacks, and the op types sent to the legacy
aclop path, written at exit."""

import _npu_emu_standin
from conftest import run_python


def test_a_run_lists_its_legacy_op_calls_and_missing_aclnn_names(tmp_path):
    report = tmp_path / "report.txt"
    code = ("import torch, torch_npu\n"
            "x = torch.arange(4.).npu()\n"
            "print((x * 2).cpu().tolist())\n"
            "torch.npu.config.allow_internal_format = True\n"
            "y = torch_npu.npu_format_cast(torch.randn(2, 20, 5, 6).npu(), 3)\n"
            "try:\n"
            "    (y + 1).cpu()\n"
            "except RuntimeError as e:\n"
            "    print('refused' if 'legacy aclop path' in str(e) else str(e))\n")
    r = run_python(code, {"NPU_EMU_STANDIN_REPORT": str(report)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == ["[0.0, 2.0, 4.0, 6.0]", "refused"]
    parsed = _npu_emu_standin.read_report(report)
    # Refused before torch_npu queues it, when its op type is not known yet.
    assert parsed["aclop"] == {"(refused-before-queueing)": 1}
    # Every missing name is a lookup the emulator could not answer.
    assert all(name.startswith("aclnn") for name in parsed["missing-aclnn"])


def test_in_place_ops_torch_npu_calls_by_cann_name_stay_on_aclnn(tmp_path):
    # ones (aclnnInplaceOne), add_ (aclnnInplaceAdd), mul_ by a scalar
    # (aclnnInplaceMuls), addcdiv_/addcmul_ (Adam's moments).
    report = tmp_path / "report.txt"
    code = ("import torch, torch_npu\n"
            "a = torch.ones(3, device='npu')\n"
            "a.add_(torch.arange(3.).npu(), alpha=2).mul_(3)\n"
            "a.addcmul_(a, a, value=0.5).addcdiv_(a, a + 1, value=2)\n"
            "c = torch.ones(3).add_(torch.arange(3.), alpha=2).mul_(3)\n"
            "c.addcmul_(c, c, value=0.5).addcdiv_(c, c + 1, value=2)\n"
            "print(torch.allclose(a.cpu(), c))\n")
    r = run_python(code, {"NPU_EMU_STANDIN_REPORT": str(report)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "True"
    parsed = _npu_emu_standin.read_report(report)
    assert parsed["aclop"] == {}
    assert not {"aclnnInplaceOne", "aclnnInplaceAdd", "aclnnInplaceMuls", "aclnnInplaceAddcmul",
                "aclnnInplaceAddcdiv"} & set(parsed["missing-aclnn"])
