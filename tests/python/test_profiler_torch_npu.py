"""torch_npu.profiler as npu-emu's torch_npu provides it: torch.profiler with
the NPU activity and torch_npu's names and settings."""

from __future__ import annotations

import json

import pytest
import torch

import npu_emu.torch_npu_compat as torch_npu
from npu_emu.torch_npu_compat import profiler as tnp


def test_names_of_torch_npu_profiler():
    # torch_npu 2.13's torch_npu.profiler.__all__ (read from the real wheel).
    expected = {"profile", "ProfilerActivity", "supported_activities", "tensorboard_trace_handler", "schedule",
                "ProfilerAction", "_ExperimentalConfig", "supported_profiler_level", "supported_ai_core_metrics",
                "supported_export_type", "ProfilerLevel", "AiCMetrics", "ExportType", "HostSystem"}
    assert set(tnp.__all__) == expected
    assert all(hasattr(torch_npu.profiler, name) for name in expected)
    assert tnp.supported_activities() == {tnp.ProfilerActivity.CPU, tnp.ProfilerActivity.NPU}
    assert tnp.supported_profiler_level() == {"Level0", "Level1", "Level2", "Level_none"}
    assert tnp.AiCMetrics.PipeUtilization in tnp.supported_ai_core_metrics()


def test_profile_with_schedule_writes_an_ascend_pt_trace_per_cycle(tmp_path):
    x = torch.randn(8, 8).npu()
    config = tnp._ExperimentalConfig(profiler_level=tnp.ProfilerLevel.Level1,
                                     aic_metrics=tnp.AiCMetrics.PipeUtilization, l2_cache=False)
    with tnp.profile(activities=[tnp.ProfilerActivity.CPU, tnp.ProfilerActivity.NPU],
                     schedule=tnp.schedule(wait=1, warmup=1, active=2, repeat=1),
                     on_trace_ready=tnp.tensorboard_trace_handler(str(tmp_path), worker_name="w0"),
                     experimental_config=config) as prof:
        for _ in range(4):
            (x @ x).relu()
            torch.npu.synchronize()
            prof.step()
    (run,) = sorted(tmp_path.iterdir())
    assert run.name.startswith("w0_") and run.name.endswith("_ascend_pt")
    trace = json.loads((run / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_text())
    kernels = [e["name"] for e in trace["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"
               and e["args"].get("kind") == "kernel"]
    assert kernels == ["aclnnMm", "aclnnRelu"] * 2, "the two active steps only"
    assert trace["npu_profiler_level"] == "Level1"


def test_default_activities_include_npu():
    x = torch.randn(4, 4).npu()
    with tnp.profile() as prof:
        x.abs()
        torch.npu.synchronize()
    assert prof.activities == tnp.supported_activities()
    abs_op = next(e for e in prof.events() if e.name == "aten::abs")
    assert [k.name for k in abs_op.kernels] == ["aclnnAbs"]


@pytest.mark.parametrize("kwargs, message", [
    ({"profiler_level": "Level9"}, "profiler_level must be one of"),
    ({"aic_metrics": "bogus"}, "aic_metrics must be one of"),
    ({"export_type": "csv"}, "export_type must be one of"),
    ({"l2_cache": 1}, "l2_cache must be a bool"),
    ({"host_sys": ["gpu"]}, "host_sys must be one of"),
])
def test_experimental_config_rejects_bad_settings(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        tnp._ExperimentalConfig(**kwargs)


def test_schedule_takes_torch_npu_arguments():
    steps = tnp.schedule(1, 2)  # wait, active; warmup defaults to 0 as in torch_npu
    assert [steps(i) for i in range(3)] == [tnp.ProfilerAction.NONE, tnp.ProfilerAction.RECORD,
                                            tnp.ProfilerAction.RECORD_AND_SAVE]
    with pytest.raises(ValueError, match="active must be an int >= 1"):
        tnp.schedule(wait=0, active=0)


def test_what_npu_emu_cannot_do_says_so():
    with pytest.raises(NotImplementedError, match="export_type 'db'"):
        tnp._ExperimentalConfig(export_type=tnp.ExportType.Db)
    with pytest.raises(ValueError, match="activities must be among"):
        tnp.profile(activities=[tnp.ProfilerActivity.CUDA])
    with pytest.raises(TypeError, match="experimental_config must be"):
        tnp.profile(experimental_config={"profiler_level": "Level1"})
