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
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))


def shared_memory_ops() -> tuple[list[str], str]:
    """(op names, how they were chosen)."""
    from codegen.runtime.scope import Scope
    from codegen.warmup import generated_ops

    ops = [op for op in generated_ops() if op.kernels is not None]
    try:
        from cupy.cuda import driver

        attribute = driver.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
    except (ImportError, AttributeError):
        return [op.name for op in ops], "every op with kernels (no cuFuncGetAttribute here)"
    backend = Scope("cuda").backend
    chosen = []
    for op in ops:
        sizes = [int(driver.funcGetAttribute(attribute, backend.function(op.kernels, symbol).ptr))
                 for symbol in op.entry_points()]
        if any(size > 0 for size in sizes):
            chosen.append(op.name)
    return chosen, f"{len(chosen)} of {len(ops)} ops have a kernel with static shared memory"


def main() -> int:
    names, how = shared_memory_ops()
    print(how, file=sys.stderr)
    print(" ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
