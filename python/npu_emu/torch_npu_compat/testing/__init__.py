"""torch_npu.testing: the unit-test helpers torch_npu's own tests are written with."""
