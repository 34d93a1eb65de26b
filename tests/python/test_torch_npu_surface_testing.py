"""torch_npu.testing on npu-emu: the comparison rules torch_npu's unit tests
rely on (assertRtolEqual, assertEqual with prec), its input makers and its
test generators."""

from __future__ import annotations

import unittest

import numpy as np
import pytest
import torch

import npu_emu  # noqa: F401
import torch_npu
from torch_npu.testing.common_utils import SupportedDevices, create_common_tensor, create_dtype_tensor
from torch_npu.testing.decorator import Dtypes, Formats, instantiate_tests
from torch_npu.testing.testcase import TestCase


def _case() -> TestCase:
    return TestCase("run")


def _fails(fn, *args, **kwargs) -> bool:
    try:
        fn(*args, **kwargs)
    except AssertionError:
        return True
    return False


@pytest.mark.parametrize("dtype,prec_name", [(torch.float32, "prec"), (torch.float16, "prec16")])
def test_rtol_equal_passes_within_relative_or_absolute_bound(dtype, prec_name):
    tc = _case()
    bound = 1e-4 if prec_name == "prec" else 1e-3
    x = torch.linspace(1, 100, 1000, dtype=torch.float32)
    # every element 0.5 * bound off relatively: inside the rule
    tc.assertRtolEqual(x.to(dtype), (x * (1 + bound / 2)).to(dtype).npu())
    # large values, relative error 10 * bound everywhere: outside both bounds
    assert _fails(tc.assertRtolEqual, x.to(dtype), (x * (1 + 10 * bound)).to(dtype).npu())


def test_rtol_equal_tolerates_a_few_outliers_up_to_prec_times_numel():
    tc = _case()
    x = torch.ones(10000)
    y = x.clone()
    y[:1] = 2.0  # 1 bad element <= 1e-4 * 10000 = 1 allowed
    tc.assertRtolEqual(x, y.npu())
    y[:2] = 2.0  # 2 > 1 allowed
    assert _fails(tc.assertRtolEqual, x, y.npu())


def test_rtol_equal_checks_nan_positions_shape_and_dtype():
    tc = _case()
    x = torch.tensor([1.0, float("nan"), 3.0])
    tc.assertRtolEqual(x, x.clone().npu())
    assert _fails(tc.assertRtolEqual, x, torch.tensor([1.0, 2.0, 3.0]))
    assert _fails(tc.assertRtolEqual, torch.ones(2, 3), torch.ones(3, 2))
    assert _fails(tc.assertRtolEqual, torch.ones(3), torch.ones(3, dtype=torch.float64))
    tc.assertRtolEqual(torch.ones(3, dtype=torch.int32), torch.ones(3, dtype=torch.float64), auto_trans_dtype=True)


def test_rtol_equal_bool_is_exact_and_bfloat16_uses_allclose():
    tc = _case()
    b = torch.tensor([True, False, True])
    tc.assertRtolEqual(b, b.npu())
    assert _fails(tc.assertRtolEqual, b, ~b)
    x = torch.randn(64).bfloat16()
    tc.assertRtolEqual(x, x.npu())
    assert _fails(tc.assertRtolEqual, x, (x + 1).npu())


def test_rtol_equal_accepts_numpy_numbers_and_sequences():
    tc = _case()
    a = np.arange(6, dtype=np.float32)
    tc.assertRtolEqual(a, a.copy())
    tc.assertRtolEqual(1.0, 1.0)
    tc.assertRtolEqual((torch.ones(2), torch.zeros(2)), (torch.ones(2).npu(), torch.zeros(2).npu()))
    assert _fails(tc.assertRtolEqual, [torch.ones(2)], [torch.zeros(2)])


def test_assert_equal_is_absolute_with_prec():
    tc = _case()
    x = torch.tensor([1.0, 2.0])
    tc.assertEqual(x, (x + 1e-6).npu())  # default precision 1e-5
    assert _fails(tc.assertEqual, x, (x + 1e-3).npu())
    tc.assertEqual(x, (x + 1e-3).npu(), prec=1e-2)
    tc.assertEqual(1.0, 1.05, 0.1)
    assert _fails(tc.assertEqual, 1.0, 1.05)
    tc.assertEqual([1, 2], (1, 2))
    tc.assertEqual({"a": torch.ones(1)}, {"a": torch.ones(1).npu()})


def test_create_common_tensor_gives_equal_cpu_and_npu_tensors_with_format():
    np.random.seed(0)
    cpu, npu = create_common_tensor([np.float16, 3, (2, 4, 16, 16)], -2, 2)
    assert cpu.dtype == torch.float16 and npu.device.type == "npu"
    assert torch_npu.get_npu_format(npu) == 3
    assert torch.equal(cpu, npu.cpu())
    assert float(cpu.min()) >= -2 and float(cpu.max()) <= 2
    cpu_i, npu_i = create_dtype_tensor((5, 5), torch.int32, no_zero=True)
    assert bool((cpu_i != 0).all()) and torch.equal(cpu_i, npu_i.cpu())


def test_supported_devices_runs_on_the_emulated_soc_and_skips_others():
    family = torch.npu.get_device_name(0)[:10]
    ran = []

    class Probe(TestCase):
        @SupportedDevices([family])
        def test_here(self):
            ran.append("here")

        @SupportedDevices(["Ascend310P"])
        def test_elsewhere(self):
            ran.append("elsewhere")

    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(Probe).run(result)
    assert ran == ["here"]
    assert len(result.skipped) == 1 and "Ascend310P" in result.skipped[0][1]


def test_instantiate_tests_makes_one_test_per_dtype_and_format():
    seen = []

    @instantiate_tests
    class Generated(TestCase):
        @Dtypes(torch.float, torch.half)
        @Formats(0, 2)
        def test_op(self, dtype, npu_format, device):
            seen.append((dtype, npu_format, device))

    names = sorted(n for n in dir(Generated) if n.startswith("test_op"))
    assert names == ["test_op_float16_0", "test_op_float16_2", "test_op_float32_0", "test_op_float32_2"]
    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(Generated).run(result)
    assert result.wasSuccessful() and len(seen) == 4
    assert {d for _, _, d in seen} == {"npu"}


def test_testcase_setup_seeds_and_selects_the_device():
    values = []

    class Seeded(TestCase):
        def test_a(self):
            values.append(torch.rand(3))

        def test_b(self):
            values.append(torch.rand(3))

    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(Seeded).run(result)
    assert result.wasSuccessful() and torch.equal(values[0], values[1])
    assert Seeded.npu_device == "npu:0"


def test_assert_tensors_slow_equal_compares_elementwise():
    tc = _case()
    x = torch.arange(6.0).reshape(2, 3)
    tc.assertTensorsSlowEqual(x, (x + 1e-4).npu(), prec=1e-3)
    assert _fails(tc.assertTensorsSlowEqual, x, (x + 1e-2).npu(), 1e-3)
    assert _fails(tc.assertTensorsSlowEqual, x, x.reshape(3, 2))
    tc.assertTensorsSlowEqual(torch.empty(0, 5), torch.empty(0, 5, device="npu"))


def test_scaling_case_pairs_identical_models():
    from torch_npu.testing.common_utils import _create_scaling_case

    control, scaling, opt_c, opt_s, data, loss_fn, skip_iter = _create_scaling_case()
    assert skip_iter == 2 and len(data) == 4 and data[0][0].device.type == "npu"
    for c, s in zip(control.parameters(), scaling.parameters()):
        assert torch.equal(c.cpu(), s.cpu()) and c.device.type == "npu"
    assert opt_c.param_groups[0]["lr"] == 1.0 and isinstance(loss_fn, torch.nn.MSELoss)
