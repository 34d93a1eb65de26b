"""torch_npu._inductor on npu-emu: torch_npu registers its Ascend inductor
code generators here; npu-emu has none. Importing works (scripts import it
before calling torch.compile) and warns once that torch.compile's inductor
backend is not supported on npu; torch.compile(backend='inductor') on npu
tensors then raises npu-emu's one error, and backend='eager' / 'aot_eager'
work. Any name looked up here raises the not-supported error."""

from __future__ import annotations

import warnings
from typing import NoReturn

from npu_emu.npu.not_supported import refuse
from npu_emu.unsupported import INDUCTOR_MESSAGE

warnings.warn(f"torch_npu._inductor: {INDUCTOR_MESSAGE}", UserWarning, stacklevel=2)


def __getattr__(name: str) -> NoReturn:
    if name.startswith("__"):  # import machinery and introspection probes
        raise AttributeError(name)
    refuse(f"torch_npu._inductor.{name}", "torch.compile(backend='inductor') on npu is not supported either; "
           "use torch.compile(backend='eager') or backend='aot_eager'")
