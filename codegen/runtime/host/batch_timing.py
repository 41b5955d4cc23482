"""The kernels' own execution in a call on the cpu backend, apart from the call's Python, for
benchmarks (bench/bench_host_overhead.py: a call's host overhead is its time less this).

Every kernel a cpu call runs reaches the emulation runtime through one entry, opgen_rt_run_batch:
the LaunchQueue's flush and a replayed plan's native batches both call it. While
`record_batches()` is open, each such call is logged with its arguments and the objects that own
the memory they point at (the launches' arrays, the buffers a plan's table points into), so the
log can be run again after the call returned. `replayer(log)` gives two callables that time it:

- `kernels()` runs the logged batches again: the same kernels on the same buffers and launch
  configurations, through the same entry, with no check, plan, allocation or queueing around them;
- `crossings()` makes as many calls to the same entry with an empty batch: what reaching the
  runtime from Python costs (ctypes, the batch's lock), which a native caller does not pay this way.

The kernels' own execution is kernels() less crossings(): the launches' cost in the emulation
(blocks, fibres, the kernel code; a GEMM step inside a batch too), which is the floor a faster
call path cannot go under. A call that reaches the runtime otherwise (a GEMM step run from Python,
a launch on its own: the sanitize build) is refused when the recording closes, as that time would
be missing from the replay.

Off by default: the batch paths check one module attribute (state.batch_log) per batch.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Callable, Iterator
from typing import Any

from codegen.runtime.stats import python_launches

from . import state
from .errors import HostKernelError
from .queue import run_batch

__all__ = ["record_batches", "replayer"]


@contextlib.contextmanager
def record_batches() -> Iterator[list[Any]]:
    """Log the launch batches run while the block runs (this process, every thread): entries of
    (blob, count, table, table_len, owners). Raises on exit, naming the count, when some call into
    the runtime was not a launch batch."""
    if state.batch_log is not None:
        raise RuntimeError("record_batches: a recording is open already (recordings do not nest)")
    log: list[Any] = []
    before = python_launches["from_python"]
    state.batch_log = log
    try:
        yield log
    finally:
        state.batch_log = None
    others = python_launches["from_python"] - before - len(log)
    if others:
        raise ValueError(f"record_batches: {others} of the {others + len(log)} calls into the runtime were not launch "
                         "batches (a GEMM step run from Python, or a launch on its own): a replay of the log "
                         "would miss their time")


def replayer(log: list[Any]) -> tuple[Callable[[], None], Callable[[], None]]:
    """(kernels, crossings): one pass each over the log, as the module doc says. kernels() holds
    the arrays the log's records and tables point at, not necessarily those reached only through
    a pointer array (a list input's items): pass such items as the kernels take them
    (C-contiguous, aligned, native order; no copy is made) and keep them."""
    if not log:
        raise ValueError("replayer: the log is empty: the call ran no kernel")
    run = run_batch()
    err = ctypes.create_string_buffer(1024)
    size = len(err)
    calls = list(log)  # (a copy that holds the owners: the pointers stay good while a callable lives)
    empty = [(b"", 0, None, 0, None)] * len(calls)

    def go(batches: list[Any]) -> None:
        for blob, count, table, table_len, _ in batches:  # (both passes: the same Python per batch)
            if run(blob, count, table, table_len, err, size) != count:
                raise HostKernelError(err.value.decode("utf-8", "replace") or "a replayed launch failed")

    return (lambda: go(calls)), (lambda: go(empty))
