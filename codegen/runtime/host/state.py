"""The host backend's process-wide state that several of its modules share, kept once here."""

from __future__ import annotations

import threading
from typing import Any

from codegen.runtime.stats import counters

stats = counters("host", ("compiles", "disk_hits", "memory_hits", "runtime_compiles"))
"""Counters for tests and diagnostics (module builds only; runtime builds apart): stats.py's "host"."""

_LOCK = threading.RLock()
"""Guards the loaded modules, the runtime and the compiler versions (re-entrant: load_module holds it
while the runtime loads)."""

batch_log: list[Any] | None = None
"""While batch_timing.record_batches() is open: each launch batch the runtime is handed, logged (else
None, and the batch paths check only that)."""
