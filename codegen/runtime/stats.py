"""The runtime's counters, in one registry: each backend's group (compiles, cache hits, module
loads) by name, for tests and diagnostics. A group is a plain dict of ints that its module keeps
as its `stats` (host.stats, cuda_cache.stats); `snapshot()` reads every group at once."""

from __future__ import annotations

from collections.abc import Sequence

_GROUPS: dict[str, dict[str, int]] = {}


def counters(group: str, names: Sequence[str]) -> dict[str, int]:
    """The counters of `group`, each of `names` starting at 0 (declared once, by the module that
    counts them; the same dict on every call)."""
    found = _GROUPS.setdefault(group, {})
    for name in names:
        found.setdefault(name, 0)
    return found


def snapshot() -> dict[str, dict[str, int]]:
    """A copy of every group's counters: {"host": {"compiles": 3, ...}, "cuda": {...}}."""
    return {group: dict(values) for group, values in _GROUPS.items()}


#: Calls from Python that start device work: a kernel launch, a launch batch (the cpu backend's
#: queue or a replayed plan's native batch: one call runs many launches), a GEMM, a graph launch.
#: Benchmarks read it per op call (issue 23's goal: a CudnnRNNV3 forward+backward in ≤ 8).
python_launches = counters("launches", ("from_python",))
