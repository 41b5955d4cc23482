"""The switches every launch reads: random thread/block order and the sanitize build (set in this
process, else from the environment), and the environment's launch settings (OS threads, the
random-order seed, fiber stack size; OPGEN_HOST_CATCH_SIGNALS, which the runtime reads itself,
checked). The state lives here once; readers look it up here at each launch
(``switches._sanitize``), so a change takes effect at once."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.runtime.settings import (
    HOST_CATCH_SIGNALS,
    HOST_RANDOM_ORDER,
    HOST_SANITIZE,
    HOST_STACK_KB,
    HOST_THREADS,
    raw_values,
)

_UNSET = object()
_random_seed: Any = _UNSET
_sanitize: Any = _UNSET


def set_random_order(seed: int | None) -> None:
    """Run threads and blocks in a seeded random order (None: in order). Overrides the env var."""
    global _random_seed
    if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
        raise TypeError("seed must be an int or None")
    _random_seed = None if seed is None else int(seed)


def set_sanitize(on: bool | None) -> None:
    """Run every kernel launch through the sanitize build (None: as $OPGEN_HOST_SANITIZE says).

    Out-of-bounds accesses to any launch buffer or shared memory, data races between threads not
    ordered by a barrier or warp sync, uninitialised shared memory, signed overflow, bad shifts,
    misaligned accesses and warp/barrier misuse then raise HostKernelError naming kernel, block,
    thread and the source line. Slow (every access is checked); one OS thread per launch."""
    global _sanitize
    if on is not None and not isinstance(on, bool):
        raise TypeError("set_sanitize expects True, False or None")
    _sanitize = _UNSET if on is None else on


def sanitize_enabled() -> bool:
    """set_sanitize's setting, else $OPGEN_HOST_SANITIZE (1/true/yes/on: enabled)."""
    if _sanitize is not _UNSET:
        return bool(_sanitize)
    return bool(HOST_SANITIZE.get())


def random_order() -> int | None:
    """The active random-order seed: set_random_order's, else $OPGEN_HOST_RANDOM_ORDER, else None."""
    if _random_seed is not _UNSET:
        return _random_seed
    seed: int | None = HOST_RANDOM_ORDER.get()
    return seed


def _launch_settings() -> tuple[int, int | None, int]:
    """What the environment says of every launch: OS threads, the random-order seed, fiber stack
    bytes. Remembered by the raw values (read on every batch, so read as cheaply as they can be)."""
    raw = (_random_seed, *_launch_values())
    settings = _SETTINGS_SEEN.get(raw)
    if settings is not None:
        return settings
    settings = (HOST_THREADS.get(), random_order(), HOST_STACK_KB.get() * 1024)
    HOST_CATCH_SIGNALS.get()  # the runtime reads it itself (rt/settings.cpp, same rules): a bad value fails here first
    if len(_SETTINGS_SEEN) < 64:
        _SETTINGS_SEEN[raw] = settings
    return settings


_SETTINGS_SEEN: dict[tuple[Any, ...], tuple[int, int | None, int]] = {}
_launch_values = raw_values(HOST_THREADS, HOST_RANDOM_ORDER, HOST_STACK_KB, HOST_CATCH_SIGNALS)
