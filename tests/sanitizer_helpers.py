"""Launching planted kernels through the host emulation's sanitize build and checking its report
(tests/test_host_sanitizer.py, tests/test_racecheck.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from codegen.runtime import host


def sanitized_module(source: str, name_hint: str,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[host.HostModule]:
    """Body of a module-scoped fixture: the sanitize build of `source`, compiled into a private cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPGEN_CACHE_DIR", str(tmp_path_factory.mktemp("opgen-cache")))
        yield host.load_module(source, name_hint=name_hint, sanitize=True)


@pytest.fixture(autouse=True)
def in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-order scheduling unless a test asks otherwise; the previous setting comes back after."""
    monkeypatch.setattr(host.switches, "_random_seed", host.switches._random_seed)
    host.set_random_order(None)


def run(mod: host.HostModule, name: str, grid: int, block: int, args: tuple, shared_mem: int = 0) -> None:
    mod.get_function(name)((grid,), (block,), args, shared_mem=shared_mem)


def fails(mod: host.HostModule, name: str, grid: int, block: int, args: tuple, *patterns: str,
          shared_mem: int = 0) -> str:
    """Runs a planted bug; its report must name the kernel, a block and a thread, and match every pattern."""
    with pytest.raises(host.HostKernelError) as e:
        run(mod, name, grid, block, args, shared_mem)
    msg = str(e.value)
    assert f"kernel '{name}' block (" in msg and " thread (" in msg, msg
    for pattern in patterns:
        assert re.search(pattern, msg), f"{pattern!r} not in:\n{msg}"
    return msg


def f32(n: int, value: float = 0.0) -> np.ndarray:
    return np.full(n, value, np.float32)
