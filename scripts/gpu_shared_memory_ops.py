#!/usr/bin/env python3
"""The ops with a kernel that uses static shared memory, as the cuda backend loads them
(cuFuncGetAttribute): the ops racecheck and synccheck check (scripts/gpu_check.py). Prints their
names on one line, space-separated. Where the attribute cannot be read (the CuPy stand-in of a
rehearsal), every op with kernels is listed: checking more is the safe side. `--group rnn` lists
only the ops of that spec group (generated/rnn/), `--except-group rnn` the others: the GPU check runs
racecheck over the RNN modules as a step of its own, with its own time limit.

    python scripts/gpu_shared_memory_ops.py [--group G | --except-group G]
"""

from __future__ import annotations

import argparse
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


def groups() -> dict[str, str]:
    """Each generated op's spec group ("rnn" for generated.rnn.cudnn_rnn_v3), from its module."""
    from codegen.warmup import generated_ops

    return {op.name: op.module.__name__.split(".")[-2] for op in generated_ops()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The ops with a kernel that uses static shared memory.")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--group", help="only the ops of this spec group (rnn, nn, norm, ...)")
    which.add_argument("--except-group", help="only the ops of the other groups")
    args = parser.parse_args(argv)
    names, how = shared_memory_ops()
    if args.group or args.except_group:
        of = groups()
        names = [n for n in names if (of.get(n) == args.group if args.group else of.get(n) != args.except_group)]
        how += f"; of them {len(names)} " + (f"in {args.group}/" if args.group else f"outside {args.except_group}/")
    print(how, file=sys.stderr)
    print(" ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
