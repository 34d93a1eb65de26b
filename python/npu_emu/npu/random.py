"""torch.npu random: seeding and snapshots of the per-device default
generators (torch.cuda.random's names). A state is a 16-byte uint8 CPU
tensor: uint64 seed + int64 offset of the counter-based generator."""

from __future__ import annotations

from collections.abc import Iterable

import torch

from npu_emu import _C
from npu_emu.npu.device import DeviceLike, _check, _index, device_count

__all__ = [
    "default_generators", "get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed", "manual_seed_all",
    "seed", "seed_all", "set_rng_state", "set_rng_state_all",
]

_generators: dict[int, torch.Generator] = {}


def _generator(device: DeviceLike = None) -> torch.Generator:
    """The default generator of `device` (None: the current device)."""
    index = _check(_index(device))
    if index not in _generators:
        _generators[index] = _C._npu_default_generator(index)
    return _generators[index]


def get_default_generator(device: DeviceLike = None) -> torch.Generator:
    """The default generator of `device` (torch_npu.npu.get_default_generator)."""
    return _generator(device)


def __getattr__(name: str):
    # torch.npu.default_generators, as torch.cuda.default_generators: one per
    # visible device (computed on access: the count is the driver's).
    if name == "default_generators":
        return tuple(_generator(i) for i in range(device_count()))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def manual_seed(seed: int) -> None:
    """Seeds the current device's default generator."""
    _generator().manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seeds the default generator of every device."""
    for i in range(device_count()):
        _generator(i).manual_seed(int(seed))


def seed() -> None:
    """Seeds the current device's default generator with a random number."""
    _generator().seed()


def seed_all() -> None:
    """Seeds every device's default generator with one random number."""
    if device_count() == 0:
        return
    random_seed = _generator(0).seed()
    for i in range(1, device_count()):
        _generator(i).manual_seed(random_seed)


def initial_seed() -> int:
    """The current seed of the current device's default generator."""
    return _generator().initial_seed()


def get_rng_state(device: DeviceLike = "npu") -> torch.Tensor:
    """The state of `device`'s default generator (16 bytes, uint8, CPU)."""
    return _generator(device).get_state()


def get_rng_state_all() -> list[torch.Tensor]:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: torch.Tensor, device: DeviceLike = "npu") -> None:
    """Restores `device`'s default generator from a get_rng_state() tensor."""
    if not isinstance(new_state, torch.Tensor):
        raise TypeError(f"set_rng_state expects a torch.ByteTensor, got {type(new_state).__name__}")
    _generator(device).set_state(new_state.clone(memory_format=torch.contiguous_format))


def set_rng_state_all(new_states: Iterable[torch.Tensor]) -> None:
    states = list(new_states)
    if len(states) != device_count():
        raise ValueError(f"set_rng_state_all expects {device_count()} states (one per device), got {len(states)}")
    for i, state in enumerate(states):
        set_rng_state(state, i)
