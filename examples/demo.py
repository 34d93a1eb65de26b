"""The main job: tensors on the emulated Ascend device, checked against CPU."""

import torch
import torch_npu  # noqa: F401  (the torch_npu-compatible module under NPU=emu)


def main() -> None:
    print(f"npu available: {torch.npu.is_available()}, devices: {torch.npu.device_count()}")
    props = torch.npu.get_device_properties(0)
    print(f"device 0: {torch.npu.get_device_name(0)} ({props.cube_core_num} cube cores, "
          f"{props.total_memory / 2**30:.0f} GiB HBM)")

    a_cpu = torch.randn(4, 5)
    b_cpu = torch.randn(5)
    a, b = a_cpu.npu(), b_cpu.npu()
    c = a * b + a
    print("on npu:", c.device, c.shape)
    result = c.cpu()
    expected = a_cpu * b_cpu + a_cpu
    torch.testing.assert_close(result, expected)
    print(result)
    print("npu result matches CPU")


if __name__ == "__main__":
    main()
