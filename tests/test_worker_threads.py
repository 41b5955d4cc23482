"""tests/worker_threads.py: a pytest-xdist worker's BLAS and OpenMP pools get its share of the cores."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import worker_threads

TESTS = Path(__file__).resolve().parent


def test_a_worker_gets_its_share_of_the_cores_and_nothing_else_changes() -> None:
    worker = {"PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "2"}
    assert worker_threads.shares(worker, 2) == {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    assert worker_threads.shares({**worker, "PYTEST_XDIST_WORKER_COUNT": "4"}, 16) == {
        "OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4"}
    assert worker_threads.shares({**worker, "PYTEST_XDIST_WORKER_COUNT": "4"}, 2)["OMP_NUM_THREADS"] == "1"
    assert worker_threads.shares({**worker, "OMP_NUM_THREADS": "3"}, 2) == {"OPENBLAS_NUM_THREADS": "1"}  # kept
    assert worker_threads.shares({}, 2) == {}  # not a worker: as the process starts
    assert worker_threads.shares({"PYTEST_XDIST_WORKER": "gw0"}, 2) == {}


def test_numpys_openblas_takes_the_share_when_it_loads() -> None:
    """In a fresh process posing as one of two workers on this machine: apply(), then NumPy's OpenBLAS
    runs with that many threads (cores // 2, at least 1)."""
    script = textwrap.dedent("""
        import ctypes, os, sys
        os.environ.update(PYTEST_XDIST_WORKER="gw0", PYTEST_XDIST_WORKER_COUNT="2")
        import worker_threads
        worker_threads.apply()
        import numpy
        from codegen.runtime.host import blas
        names = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads")
        for path in blas._mapped_libraries():
            if blas._LIBRARY.search(path):
                lib = ctypes.CDLL(path)
                found = [getattr(lib, n) for n in names if hasattr(lib, n)]
                if found:
                    print(found[0]())
                    sys.exit(0)
        print("no OpenBLAS")
    """)
    env = {k: v for k, v in os.environ.items() if k not in (*worker_threads.VARIABLES, "PYTEST_XDIST_WORKER",
                                                            "PYTEST_XDIST_WORKER_COUNT")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(TESTS.parent)])
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.strip() == "no OpenBLAS":
        pytest.skip("NumPy's BLAS here is not an OpenBLAS (codegen/runtime/host/blas.py uses none then)")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    assert int(proc.stdout) == max(1, cpus // 2)
