#!/usr/bin/env python3
"""Run every parity case (codegen/verify/cases.py, as scripts/gpu_parity.py and `opgen verify` take them)
once on the cuda backend, for compute-sanitizer:

    compute-sanitizer --tool memcheck  --error-exitcode 86 python scripts/gpu_sanitize.py
    compute-sanitizer --tool racecheck --error-exitcode 86 python scripts/gpu_sanitize.py

(scripts/gpu-check.sh runs memcheck, racecheck and synccheck, and initcheck as advice). CuPy's
memory pool is switched off first, so that every array is its own cudaMalloc allocation and
memcheck sees an access one element past an array as out of bounds rather than as a read of the
pool's next block. The device is synchronised after every op so that an error is reported next to
the op that caused it. Kernels are loaded before the checked runs (from the disk cache when
`opgen warmup` or the parity run filled it), so the NVRTC compile is not sanitised.

`--package P` (an import name found from the current directory, or the package's folder) and
`--specs DIR` run another generated package's ops, as scripts/gpu_parity.py does.

Exit status: 0 every case ran (the sanitizer's own exit code reports what it found), 1 a case
raised, 2 no usable GPU.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback

from codegen.runtime.settings import POISON_OUTPUTS
from codegen.verify.cases import all_cases, missing_builder_message, run_case
from codegen.verify.package_args import add_package_arguments, package_and_specs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run every parity case once on the cuda backend.")
    parser.add_argument("--ops", nargs="*", default=[], help="only these ops")
    parser.add_argument("--keep-pool", action="store_true", help="keep CuPy's memory pool (faster, blinder)")
    add_package_arguments(parser)
    args = parser.parse_args(argv)
    package, specs = package_and_specs(parser, args.package, args.specs)

    POISON_OUTPUTS.set("1")
    from codegen.runtime.scope import Scope, cuda_available
    from codegen.warmup import generated_ops, select_ops

    ok, why = cuda_available()
    if not ok:
        print(f"gpu_sanitize: no usable CUDA GPU: {why}", file=sys.stderr)
        return 2
    import cupy

    if not args.keep_pool:
        cupy.cuda.set_allocator(None)  # raw cudaMalloc per array: exact bounds for memcheck
    scope = Scope("cuda")
    ops = select_ops(args.ops, generated_ops(package))
    for op in ops:  # load (or compile) every module before the checked launches
        if op.kernels is not None:
            scope.backend.load(op.kernels)
    start = time.perf_counter()
    ran = failed = missing = 0
    for op, case in all_cases(ops, specs=specs):
        if case is None:
            missing += 1
            print(f"gpu_sanitize: {missing_builder_message(op, specs)}", file=sys.stderr)
            continue
        try:
            out = run_case(op, case, scope)
            cupy.cuda.Device(scope.backend.index).synchronize()
            del out
        except Exception as exc:  # noqa: BLE001 -- report, go on with the next case
            failed += 1
            detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
            print(f"gpu_sanitize: {op.name} [{case.label}]: {detail}", file=sys.stderr)
            continue
        ran += 1
    print(f"gpu_sanitize: {ran} cases ran, {failed} raised, {missing} ops without inputs "
          f"({time.perf_counter() - start:.1f} s)")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
