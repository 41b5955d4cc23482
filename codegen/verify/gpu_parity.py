#!/usr/bin/env python3
"""Cross-backend parity: every op of the generated package runs on the cpu backend and on the cuda
backend with the same random inputs, and their outputs are compared with per-dtype tolerances.

The op list comes from the generated package (codegen.warmup.generated_ops), so a new op is
covered as soon as it is generated. Its inputs come from the builder registered for it in
codegen/verify/builders.py (`@builder("MyOp")`: a function of a NumPy Generator returning a list of
`Case`), or, for an op without one, from its spec (codegen/inputs.py: random sizes, dtypes, attrs and optional inputs
that satisfy the spec's shapes and constraints; labels start with "derived"). A hand-written
builder overrides the derived cases: write one when the inputs need meaning the spec cannot
state (statistics of the data, a params buffer laid out for the attrs; docs/specs.md, "Testing
your op").
An op with neither (a runtime op, or a spec no sampled sizes satisfy) FAILS the run, saying why
and where to add a builder, so coverage never silently shrinks. Outputs are poisoned with NaN on
both backends (OPGEN_POISON_OUTPUTS=1): an element a kernel forgets to write shows up as a NaN.

The builders' cases take GPU sizes that reach every launch configuration the specs can choose
(every kernel, block-size class, grid of 1 and more, dtype, and misaligned inputs;
tests/test_parity_coverage.py holds them to it). The run records the compared device's launches
(codegen/runtime/launches.py) and reports, here and in the markdown, what the specs can launch and
no case reached (codegen/launch_space.py), a coverage table per kernel and each op's wall time.

    python scripts/gpu_parity.py [--ops OP ...] [--out bench/gpu-parity.md] [--package P [--specs DIR]]

`--package` runs the ops of any generated package: an import name, found from the current
directory (no PYTHONPATH needed), or the package's folder; its derived cases come from `--specs`
(default: specs/ of the current directory for a package of your own). The hand-written builders
are opgen's own ops' (package `generated`): another package's ops run on derived cases.
`opgen verify` (codegen/verify/) runs the same cases on the cpu backend's three forms, from the wheel.

Exit status: 0 all equal within tolerance, 1 any mismatch / NaN / error / op without inputs,
2 no usable GPU. scripts/gpu_sanitize.py runs the same cases once under compute-sanitizer.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

# The names the tests and scripts that run scripts/gpu_parity.py use are importable from here.
from codegen.inputs import Case  # noqa: F401
from codegen.runtime.launches import Launch, record_launches
from codegen.runtime.settings import POISON_OUTPUTS
from codegen.verify.builders import BUILDERS, builder  # noqa: F401
from codegen.verify.cases import (  # noqa: F401
    SPECS,
    all_cases,
    derived_cases,
    misaligned,
    missing_builder_message,
    run_case,
)
from codegen.verify.compare import TOLERANCE, Result, compare
from codegen.verify.coverage import coverage_rows, launch_gaps
from codegen.verify.package_args import add_package_arguments, package_and_specs
from codegen.warmup import GeneratedOp, generated_ops


def disagreements(ops: list[GeneratedOp], reference: Any, other: Any) -> tuple[int, list[str]]:
    """Every case of every op run in two scopes and compared as parity compares cpu and cuda:
    (cases run, `op [case]: why` for each that differs). Ops without cases are left out."""
    cases, failed = 0, []
    for op, case in all_cases(ops):
        if case is None:
            continue
        result = compare(op.name, case.label, run_case(op, case, reference), run_case(op, case, other), case.fresh)
        cases += 1
        if not result.ok:
            failed.append(f"{op.name} [{case.label}]: {result.message}")
    return cases, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--ops", nargs="*", default=[], help="only these ops (class or function names)")
    parser.add_argument("--out", type=Path, default=None, help="write the full results as markdown here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--devices", nargs=2, default=["cpu", "cuda"], metavar=("REFERENCE", "DEVICE"),
                        help="the two scopes compared (default: cpu cuda; `cpu cpu` checks the builders "
                             "without a GPU)")
    add_package_arguments(parser)
    args = parser.parse_args(argv)
    package, args.specs = package_and_specs(parser, args.package, args.specs)

    POISON_OUTPUTS.set("1")
    warnings.filterwarnings("ignore", r".* is deprecated: ", DeprecationWarning)  # GRUBlockCell: TF's notice
    from codegen.runtime.scope import Scope, cuda_available
    from codegen.warmup import select_ops

    ok, why = cuda_available()
    if not ok and any(d.startswith("cuda") for d in args.devices):
        print(f"gpu_parity: no usable CUDA GPU: {why}", file=sys.stderr)
        return 2
    ops = select_ops(args.ops, generated_ops(package))
    cpu, gpu = Scope(args.devices[0]), Scope(args.devices[1])
    results: list[Result] = []
    launches: list[tuple[str, Launch]] = []  # (case label, launch) of every launch on the compared device
    times: dict[str, list[float]] = {}  # op → [input building, reference side, device side (+ comparison)] s
    start = time.perf_counter()
    cases = all_cases(ops, args.seed, args.specs)
    while True:
        t0 = time.perf_counter()
        try:
            op, case = next(cases)
        except StopIteration:
            break
        spent = times.setdefault(op.name, [0.0, 0.0, 0.0])
        t1 = time.perf_counter()
        spent[0] += t1 - t0
        if case is None:
            results.append(Result(op.name, "-", False, "", math.nan, missing_builder_message(op, args.specs)))
            continue
        t2 = None
        try:
            reference = run_case(op, case, cpu)
            t2 = time.perf_counter()
            with record_launches(gpu.backend) as recorded:
                device = run_case(op, case, gpu)
            launches += [(case.label, launch) for launch in recorded]
            result = compare(op.name, case.label, reference, device, case.fresh)
        except Exception as exc:  # noqa: BLE001 -- report every case, then fail
            detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
            result = Result(op.name, case.label, False, "", math.nan, f"error: {detail}")
        end = time.perf_counter()
        spent[1] += (t2 or end) - t1
        spent[2] += end - (t2 or end)
        results.append(result)
    took = time.perf_counter() - start

    failed = [r for r in results if not r.ok]
    per_op: dict[str, list[Result]] = {}
    for r in results:
        per_op.setdefault(r.op, []).append(r)
    width = max((len(name) for name in per_op), default=2)
    lines = [f"{'op':<{width}}  cases  failed  worst |cuda−cpu|/scale  build s  {args.devices[0]} s  "
             f"{args.devices[1]} s"]
    for name, rs in per_op.items():
        errs = [r.error for r in rs if not math.isnan(r.error)]
        b, c, g = times.get(name, [0.0, 0.0, 0.0])
        lines.append(f"{name:<{width}}  {len(rs):5d}  {sum(not r.ok for r in rs):6d}  "
                     f"{max(errs) if errs else math.nan:<22.3g}  {b:7.2f}  {c:5.2f}  {g:5.2f}")
    for r in failed[:20]:
        lines.append(f"FAIL {r.op} [{r.case}]: {r.message}")
    if len(failed) > 20:
        lines.append(f"... and {len(failed) - 20} more failures (see the markdown file)")
    gaps = launch_gaps(ops, [launch for _, launch in launches], gpu.backend.name, args.specs)
    lines.append(f"coverage ({gpu.backend.name} launch plan): {len(launches)} launches, "
                 f"{len(gaps) or 'no'} gap{'s' * (len(gaps) != 1)} against what the specs can launch")
    lines += [f"  gap: {gap}" for gap in gaps[:20]]
    lines.append(f"gpu_parity: {len(results)} cases over {len(per_op)} ops, {len(failed)} failed ({took:.1f} s)")
    print("\n".join(lines))
    if args.out is not None:
        write_markdown(args.out, results, took, times, launches, gaps, args.devices, gpu.backend.name)
    return 1 if failed else 0


def write_markdown(path: Path, results: list[Result], took: float, times: dict[str, list[float]] | None = None,
                   launches: list[tuple[str, Launch]] | None = None, gaps: list[str] | None = None,
                   devices: tuple[str, str] | list[str] = ("cpu", "cuda"), plan: str = "cuda") -> None:
    rows = ["| op | case | status | worst output | max abs err / scale | details |", "|---|---|---|---|---|---|"]
    for r in results:
        message = r.message.replace("|", "\\|")
        rows.append(f"| {r.op} | {r.case} | {'ok' if r.ok else 'FAIL'} | {r.worst} | {r.error:.3g} | {message} |")
    text = (f"# cpu vs cuda parity\n\n{len(results)} cases, {sum(not r.ok for r in results)} failed, "
            f"{took:.1f} s. Tolerances (rtol, atol·scale) by dtype: {TOLERANCE}.\n\n" + "\n".join(rows) + "\n")
    if times:
        counts: dict[str, int] = {}
        for r in results:
            counts[r.op] = counts.get(r.op, 0) + 1
        text += (f"\n## Wall time per op\n\nSeconds: building the inputs, the {devices[0]} side (the reference) "
                 f"and the {devices[1]} side with the comparison; each includes its first call's kernel loads "
                 f"(a compile unless cached).\n\n| op | cases | build s | {devices[0]} s | {devices[1]} s |\n"
                 "|---|---|---|---|---|\n")
        text += "".join(f"| {op} | {counts.get(op, 0)} | {b:.2f} | {c:.2f} | {g:.2f} |\n"
                        for op, (b, c, g) in times.items())
        total = [sum(t[i] for t in times.values()) for i in range(3)]
        text += f"| all | {len(results)} | {total[0]:.2f} | {total[1]:.2f} | {total[2]:.2f} |\n"
    if launches is not None:
        text += (f"\n## Launch coverage ({devices[1]}, the {plan} launch plan)\n\nEvery launch of the compared "
                 f"device, by kernel (codegen/runtime/launches.py). Block class p: p/2 < threads ≤ p. Against "
                 f"what each spec's launch plan can launch (codegen/launch_space.py): "
                 f"{'every kernel, block class, grid 1 and >1 and dtype reached' if not gaps else 'gaps below'}."
                 f"\n\n" + "\n".join(coverage_rows(launches)) + "\n")
        if gaps:
            text += "\nNot reached:\n\n" + "".join(f"- {gap}\n" for gap in gaps)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
