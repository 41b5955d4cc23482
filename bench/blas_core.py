"""Which OpenBLAS kernels run the cpu backend's GEMMs (NumPy's BLAS).

OpenBLAS picks its kernel set ("core") once, when it loads: from the CPU, or from
OPENBLAS_CORETYPE when the environment sets it. The CI-like VM of bench/RESULTS.md sets
OPENBLAS_CORETYPE=Haswell (AVX2 kernels) on an AVX-512 CPU whose own pick would be SkylakeX;
PyTorch's CPU kernels (MKL, oneDNN) choose their ISA themselves, so the setting changes only our
side. The benchmarks print the kernel set in their header line, and --blas-core NAME sets
OPENBLAS_CORETYPE for one run (a diagnostic: what the same plan does on other kernels).
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys


def choose_from_argv(argv: list[str] | None = None) -> str:
    """Apply --blas-core NAME (if given) to the environment; call it before NumPy is imported.
    Returns the setting in force, for the header line."""
    argv = sys.argv if argv is None else argv
    for i, arg in enumerate(argv):
        name = argv[i + 1] if arg == "--blas-core" and i + 1 < len(argv) else \
            arg.split("=", 1)[1] if arg.startswith("--blas-core=") else None
        if name is not None:
            if "numpy" in sys.modules:
                raise SystemExit(f"--blas-core {name}: NumPy is loaded already, so OpenBLAS chose its kernels")
            os.environ["OPENBLAS_CORETYPE"] = name
    return f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"


def loaded_core() -> str:
    """The kernel set NumPy's OpenBLAS runs (its corename), or 'unknown' for another BLAS."""
    import numpy as np

    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in glob.glob(os.path.join(libs, "*openblas*")):
        lib = ctypes.CDLL(path)
        for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename"):
            fn = getattr(lib, symbol, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return str(fn().decode())
    return "unknown"
