"""torch_npu's SoC version numbers (its SocVersion enum) for the emulated
SoC name: Ascend910B1 -> 220, Ascend950 -> 260, unknown -> -1."""

from __future__ import annotations

from npu_emu import _C

_FAMILIES: tuple[tuple[int, tuple[str, ...]], ...] = (
    (100, ("Ascend910PremiumA", "Ascend910ProA", "Ascend910A", "Ascend910ProB", "Ascend910B")),
    (200, ("Ascend310P1", "Ascend310P2", "Ascend310P3", "Ascend310P4", "Ascend310P5", "Ascend310P7")),
    (220, ("Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4", "Ascend910B4-1")),
    (240, ("Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4")),
    (250, ("Ascend910_9391", "Ascend910_9392", "Ascend910_9381", "Ascend910_9382", "Ascend910_9372",
           "Ascend910_9362", "Ascend910_9363")),
    (260, ("Ascend950",)),
)
SOC_VERSIONS: dict[str, int] = {name: base + i for base, names in _FAMILIES for i, name in enumerate(names)}


def soc_version(name: str | None = None) -> int:
    """The number of SoC `name` (default: the emulated SoC); -1 when unknown.
    Ascend950 variants (Ascend950PR ...) share 260."""
    soc = _C._soc_name() if name is None else name
    if soc in SOC_VERSIONS:
        return SOC_VERSIONS[soc]
    return 260 if soc.startswith("Ascend950") else -1


def get_soc_version() -> int:
    return soc_version()
