#!/usr/bin/env python3
"""Runs a script with the CuPy stand-in (tests/fake_cupy.py) in place of a GPU: the rehearsal of
scripts/gpu_check.py (`--rehearsal`) runs each step's Python through this, so every step's
plumbing runs on a machine without a GPU — the "device" is host memory and its kernels are the
cpu backend's host-compiled ones.

    python scripts/fake_gpu.py scripts/gpu_parity.py --devices cpu cuda
    python scripts/fake_gpu.py -m pytest -m gpu ...
"""

from __future__ import annotations

import runpy
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
for folder in (PROJECT, PROJECT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: fake_gpu.py SCRIPT [ARGS...] | -m MODULE [ARGS...]")
    import fake_cupy
    import pytest

    patch = pytest.MonkeyPatch()
    cublas = fake_cupy.FakeCublas()
    with tempfile.TemporaryDirectory(prefix="opgen-fake-gpu-") as tmp:
        fake_cupy.install(patch, Path(tmp), cublas)
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
