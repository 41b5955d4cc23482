#!/usr/bin/env python3
"""Registers, static shared memory and local memory (stack / spills) of every kernel entry point,
against the largest block each op's launch plan can launch it with.

    python bench/gpu_resources.py            # on a GPU: the kernels as the cuda backend loads them
                                             # (cuFuncGetAttribute on the loaded module)
    python bench/gpu_resources.py --offline  # no GPU needed: scripts/nvrtc_compile.py with NVRTC 13.0.88
                                             # from its pip wheel (--nvrtc VERSION for others), the
                                             # resources read from the cubins

Writes a markdown table (default bench/gpu-resources.md, beside the benchmark results; --offline
defaults to bench/gpu-resources-offline.md, which `python scripts/nvrtc_compile.py --markdown
bench/gpu-resources-offline.md` writes for every pinned NVRTC release) and prints it. A module that
does not compile or load is reported and the others go on. Exit status: 0 every module loaded and no
kernel is over a limit (codegen/resources.py: registers × the largest block, static shared memory,
the driver's thread limit), 1 otherwise, 2 no usable GPU. Local memory above 0 means a stack frame
or register spills: worth a look in any kernel that should be bandwidth-bound.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from codegen.resources import KernelResources, attach_blocks, summary, table  # noqa: E402
from codegen.warmup import generated_ops  # noqa: E402


def online() -> tuple[list[KernelResources], list[str], str]:
    """(rows, one line per op whose module did not compile or load, what was measured)."""
    from codegen.runtime.scope import Scope, cuda_available

    ok, why = cuda_available()
    if not ok:
        raise SystemExit(f"gpu_resources: no usable CUDA GPU ({why}); use --offline for the compiler's report")
    import cupy

    driver = cupy.cuda.driver
    backend = Scope("cuda").backend
    rows: list[KernelResources] = []
    failed: list[str] = []
    for op in generated_ops():
        if op.kernels is None:
            continue
        try:
            backend.load(op.kernels)
            functions = [(symbol, backend.function(op.kernels, symbol)) for symbol in op.entry_points("cuda")]
        except Exception as exc:  # noqa: BLE001 -- report the module, measure the others
            first = str(exc).strip().splitlines()
            failed.append(f"{op.name} ({op.kernels.path.name}): {type(exc).__name__}: "
                          f"{' '.join(first[:3]) if first else ''}")
            continue
        for symbol, fn in functions:

            def attr(name: str, ptr: int = fn.ptr) -> int:
                return int(driver.funcGetAttribute(getattr(driver, f"CU_FUNC_ATTRIBUTE_{name}"), ptr))

            rows.append(KernelResources(op.name, symbol, attr("NUM_REGS"), attr("SHARED_SIZE_BYTES"),
                                        attr("LOCAL_SIZE_BYTES"), max_threads=attr("MAX_THREADS_PER_BLOCK")))
    return rows, failed, f"{backend.describe()}; as loaded by the cuda backend (cuFuncGetAttribute)"


def offline(argv: list[str]) -> int:
    """scripts/nvrtc_compile.py (NVRTC from pip wheels), by default with the NVRTC release GPU
    machines most likely load."""
    scripts = str(PROJECT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    import nvrtc_compile

    return nvrtc_compile.main(argv if "--nvrtc" in argv else ["--nvrtc", nvrtc_compile.PYTORCH_NVRTC, *argv])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Per-kernel registers, shared and local memory.")
    parser.add_argument("--offline", action="store_true", help="NVRTC from pip here, no GPU needed")
    parser.add_argument("--nvrtc", action="append", default=[], help="with --offline: an NVRTC release "
                                                                     "(scripts/nvrtc_compile.py RELEASES)")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.offline:
        path = args.markdown or PROJECT / "bench" / "gpu-resources-offline.md"
        return offline([*(a for v in args.nvrtc for a in ("--nvrtc", v)), "--markdown", str(path)])
    rows, failed, source = online()
    from codegen.load import load_specs

    attach_blocks(rows, load_specs(PROJECT / "specs"))
    text = table(rows)
    problems = [f"{r.kernel}: {p}" for r in rows for p in r.problems()]
    notes = [f"- **{f} (not compiled or not loaded)**" for f in failed] + [f"- **{p}**" for p in problems]
    print(f"{source}\n\n{text}\n\n{summary(rows)}")
    for line in notes:
        print(f"FAIL {line[4:-2]}")
    path = args.markdown or PROJECT / "bench" / "gpu-resources.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Kernel resources\n\n{source}.\n\n{text}\n\n{summary(rows)}.\n"
                    + ("\n" + "\n".join(notes) + "\n" if notes else ""), encoding="utf-8")
    print(f"written: {os.path.relpath(path)}")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
