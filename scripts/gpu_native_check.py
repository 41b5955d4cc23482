#!/usr/bin/env python3
"""The wrappers' native cuda path on a real GPU (issue 32), for a GPU session: what CI checks only on
the libcuda, cuBLAS and CuPy stand-ins (tests/test_native_cuda_wrappers.py).

1. Every parity case (scripts/gpu_parity.py) on Scope("cuda") through the native driver
   (OPGEN_NATIVE=1) and through the Python plan (OPGEN_NATIVE=0): outputs bit-identical, errors the
   same type and message; how many calls the driver served, and why the others went to Python.
2. The cost of the outputs' allocator the front-end calls back (the cuda backend's `empty`) beside
   CuPy's own `empty`, per call: what a leaner allocator could save of the host time.
3. bench/bench_norm_gpu.py (LayerNorm, Softmax, BiasAdd and their gradients, float32 and float16,
   beside PyTorch eager) with OPGEN_NATIVE=1, then 0: the goal is ≤ 1.1× PyTorch at [8192, 1024].

    python scripts/gpu_native_check.py [--no-bench] [--repeats 30]

Exit status 1 where a case differs (the rows say which); the benchmark tables are printed for the
record (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import collections
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def _host(value: Any) -> Any:
    if isinstance(value, Exception):
        return value
    return tuple(np.asarray(v.get() if hasattr(v, "get") else v) for v in value)


def _device(value: Any) -> Any:
    """A C-contiguous, aligned NumPy input as a CuPy array (what the native front-end takes; a host
    array goes to the Python path, which copies it); misaligned views stay for run_case to place."""
    import cupy

    if isinstance(value, list):
        return [_device(v) for v in value]
    if isinstance(value, np.ndarray) and value.flags.c_contiguous and value.flags.aligned and value.dtype.isnative:
        return cupy.asarray(value)
    return value


def _call(parity: dict[str, Any], op: Any, case: Any, native: bool) -> Any:
    os.environ["OPGEN_NATIVE"] = "1" if native else "0"
    try:
        out = _host(parity["run_case"](op, case, "cuda"))
    except Exception as e:  # noqa: BLE001  (compared: the same on both paths)
        return e
    return out


def parity_check() -> int:
    import cupy

    from codegen.runtime import native_front
    from codegen.warmup import generated_ops

    parity = runpy.run_path(str(PROJECT / "scripts" / "gpu_parity.py"))
    ops = [op for op in generated_ops() if getattr(op.module, "_NATIVE", None) is not None]
    differ, served, total, why = 0, 0, 0, collections.Counter[str]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for op, case in parity["all_cases"](ops):
            if case is None:
                continue
            case = case._replace(args=tuple(_device(a) for a in case.args),
                                 kwargs={k: _device(v) for k, v in case.kwargs.items()})
            python = _call(parity, op, case, native=False)
            before = op.module._NATIVE.served
            native = _call(parity, op, case, native=True)
            cupy.cuda.get_current_stream().synchronize()
            total += 1
            if op.module._NATIVE.served > before:
                served += 1
            elif not isinstance(python, Exception):
                why[f"{op.name}: {native_front.extension().last_fallback()}"] += 1
            if isinstance(python, Exception) or isinstance(native, Exception):
                same = type(python) is type(native) and str(python) == str(native)
            else:
                same = len(python) == len(native) and all(
                    a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
                    for a, b in zip(python, native, strict=True))
            if not same:
                differ += 1
                print(f"DIFFERS {op.name} {case.label}: python {python!r:.200} native {native!r:.200}", flush=True)
    print(f"parity: {total} cases, {differ} differ, {served} served natively")
    for reason, n in why.most_common():
        print(f"  to Python x{n}: {reason}")
    return 1 if differ else 0


def allocator_cost(calls: int = 20000) -> None:
    import time

    import cupy

    from codegen.runtime.cuda import cuda_backend

    backend = cuda_backend(0)
    for name, empty in (("backend.empty", backend.empty), ("cupy.empty", cupy.empty)):
        empty((8192, 1024), "float32")
        start = time.perf_counter()
        for _ in range(calls):
            empty((8192, 1024), "float32")
        print(f"{name}((8192, 1024), 'float32'): {(time.perf_counter() - start) / calls * 1e6:.2f} us per call")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-bench", action="store_true")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    status = parity_check()
    allocator_cost()
    if not args.no_bench:
        for native in ("1", "0"):
            print(f"\nbench_norm_gpu.py, OPGEN_NATIVE={native}", flush=True)
            env = {**os.environ, "OPGEN_NATIVE": native}
            subprocess.run([sys.executable, str(PROJECT / "bench" / "bench_norm_gpu.py"), "--repeats",
                            str(args.repeats)], env=env, check=False)
    return status


if __name__ == "__main__":
    sys.exit(main())
