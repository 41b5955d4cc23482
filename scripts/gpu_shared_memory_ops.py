#!/usr/bin/env python3
"""The ops with a kernel that uses static shared memory, as the cuda backend loads them
(cuFuncGetAttribute): the ops racecheck and synccheck check (scripts/gpu_check.py). Prints their
names on one line, space-separated. Where the attribute cannot be read (the CuPy stand-in of a
rehearsal), every op with kernels is listed: checking more is the safe side.

    python scripts/gpu_shared_memory_ops.py
"""

from __future__ import annotations

import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
for folder in (PROJECT, PROJECT / "bench"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def shared_memory_ops() -> tuple[list[str], str]:
    """(op names, how they were chosen): from the resources bench/gpu_resources.py reads of the
    loaded kernels; an op whose module did not load is kept (its own step reports it)."""
    try:
        from cupy.cuda import driver

        driver.funcGetAttribute  # noqa: B018 -- the CuPy stand-in has no driver
    except (ImportError, AttributeError):
        from codegen.warmup import generated_ops

        ops = [op.name for op in generated_ops() if op.kernels is not None]
        return ops, "every op with kernels (no cuFuncGetAttribute here)"
    from gpu_resources import online  # type: ignore[import-not-found]  # bench/ is put on sys.path above

    rows, failed, _ = online()
    measured = {row.op for row in rows}
    chosen = sorted({row.op for row in rows if row.shared_bytes > 0} | {line.split()[0] for line in failed})
    return chosen, (f"{len(chosen)} of {len(measured) + len(failed)} ops have a kernel with static shared memory"
                    + (f" or did not load ({len(failed)})" if failed else ""))


def main() -> int:
    names, how = shared_memory_ops()
    print(how, file=sys.stderr)
    print(" ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
