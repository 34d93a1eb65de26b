"""A few training steps on the real torch_npu match the same steps on CPU,
and no op takes the legacy aclop path (the stand-in's report, written at
exit, lists none)."""

from pathlib import Path

import pytest

import _npu_emu_standin
from conftest import run_python

SCRIPT = Path(__file__).with_name("training_workloads.py")


# torch_npu's flash attention looks this name up once to choose its
# variable-length (TND) route, which these workloads never take; every other
# name they look up resolves.
PROBED_ONLY = {"aclnnFlashAttentionVarLenScoreV4"}


# max_pool2d runs as aclnnMaxPool2dWithMask (+Backward), attention as
# aclnnFlashAttentionScore (+Grad), fused AdamW as aclnnApplyAdamWV2, the
# LSTM as aclnnLSTM (+ aclnnLstmBackward).
# cnn_amp_float16: float16 autocast on both sides, whose op lists differ
# (CPU's autocast is not CUDA's), with torch_npu's GradScaler on npu.
@pytest.mark.parametrize("workload", ["linear_sgd", "cnn_adamw", "transformer_adamw", "transformer_fused_adamw",
                                      "cnn_amp_float16", "lstm_adamw"])
def test_training_matches_cpu_with_no_legacy_aclop_call(workload, tmp_path):
    report = tmp_path / "standin_report.txt"
    r = run_python(f"import runpy, sys; sys.argv = ['x', '{workload}']; runpy.run_path('{SCRIPT}', run_name='__main__')",
                   {"NPU_EMU_STANDIN_REPORT": str(report)})
    assert r.returncode == 0, r.stderr[-3000:]
    diff = float(r.stdout.split("max_diff")[1])
    # Matrix products sum in another order than CPU's BLAS: close, not equal;
    # under AMP, float16 roundings of different ops on each side.
    assert diff < (2e-3 if "amp" in workload else 1e-4)
    parsed = _npu_emu_standin.read_report(report)
    assert parsed["aclop"] == {}
    assert set(parsed["missing-aclnn"]) <= PROBED_ONLY, parsed["missing-aclnn"]
