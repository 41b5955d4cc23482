"""Under pytest-xdist (README: `-n auto`, one worker a core) each worker's BLAS and OpenMP pools get the
worker's share of the cores, as the README's command already gives each worker one.

NumPy's OpenBLAS (the cpu backend's GEMM: codegen/runtime/host/blas.py) and PyTorch's OpenMP start a
thread per core in every process, and OpenBLAS's threads spin for a while after each call before they
sleep: with two workers on two cores, each worker's pool spun on the core the other worker was using.
tests/test_cudnn_rnn.py alone under load (one process, warm cache): 15.3 s of CPU with the pools as
they start, 7.6–8.9 s with one thread (bench/RESULTS.md, 2026-11-29 19:25–20:50, s7-suite). Only thread
counts change: the cpu backend's GEMM gives the same bits (OpenBLAS divides a product's rows and columns
between its threads, not its sums); PyTorch's parallel reductions may round otherwise, as on a machine with
another core count, which the tests' tolerances against PyTorch allow. A setting already in the environment
is kept; outside pytest-xdist nothing changes."""

from __future__ import annotations

import os
from collections.abc import Mapping

#: OpenBLAS reads the first (and, where it is unset, the second); PyTorch's OpenMP the second.
VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def shares(environ: Mapping[str, str], cpus: int) -> dict[str, str]:
    """The variables to set in a worker whose environment is `environ` on `cpus` cores (none outside a
    pytest-xdist worker, none the environment sets already)."""
    workers = environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if "PYTEST_XDIST_WORKER" not in environ or not workers.isdigit() or int(workers) < 1:
        return {}
    share = str(max(1, cpus // int(workers)))
    return {name: share for name in VARIABLES if name not in environ}


def apply() -> None:
    """Called by tests/conftest.py at its import: in a worker that is before NumPy or PyTorch loads
    (they read the variables once, when they load), and the tests' subprocesses inherit them."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    os.environ.update(shares(os.environ, cpus))
