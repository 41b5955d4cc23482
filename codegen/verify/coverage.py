"""The launch-coverage table and its gaps: what a run's recorded launches (codegen/runtime/launches.py)
reached of what the ops' specs can launch (codegen/launch_space.py)."""

from __future__ import annotations

from pathlib import Path

from codegen.launch_space import block_class, coverage_gaps, launch_space
from codegen.runtime.launches import Launch
from codegen.verify.cases import SPECS, spec_set
from codegen.warmup import GeneratedOp


def launch_gaps(ops: list[GeneratedOp], launches: list[Launch], plan: str, specs: Path = SPECS) -> list[str]:
    """What the launches left unreached of what the ops' specs can launch under `plan`
    (codegen/launch_space.py); ops whose spec is not under `specs` are left out."""
    from codegen.inputs import _usable_dtypes

    by_name = {spec.name: spec for spec in spec_set(specs)}
    names = {op.name for op in ops}
    spaces = {name: launch_space(spec, plan, _usable_dtypes(("float16", "bfloat16", "float32", "float64")))
              for name, spec in by_name.items() if name in names}
    return coverage_gaps(spaces, launches)


def coverage_rows(launches: list[tuple[str, Launch]]) -> list[str]:
    """The coverage table: per op and kernel, the threads per block its launches used (with their
    classes), the dtypes, the cases that launched it, the largest grid and the cases with a
    misaligned array argument."""
    kernels: dict[tuple[str, str], list[tuple[str, Launch]]] = {}
    for label, launch in launches:
        kernels.setdefault((launch.op, launch.kernel), []).append((label, launch))
    rows = ["| op | kernel | block sizes (threads) | block classes | dtypes | cases | largest grid | misaligned "
            "cases |", "|---|---|---|---|---|---|---|---|"]
    for (op, kernel), got in sorted(kernels.items()):
        threads = sorted({launch.threads for _, launch in got})
        classes = sorted({block_class(t) for t in threads})
        dtypes = sorted({"/".join(launch.dtypes) for _, launch in got})
        rank = max(len(launch.grid) for _, launch in got)
        grid = [max(launch.grid[i] for _, launch in got if i < len(launch.grid)) for i in range(rank)]
        rows.append(f"| {op} | {kernel} | {', '.join(map(str, threads))} | {', '.join(map(str, classes))} | "
                    f"{', '.join(dtypes)} | {len({label for label, _ in got})} | {grid} | "
                    f"{len({label for label, launch in got if launch.misaligned})} |")
    return rows
