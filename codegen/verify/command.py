"""`opgen verify [OP...]` and `opgen gpu-check`: their arguments and commands (codegen/cli.py registers
them).

The ops are the project's (`[tool.opgen]` here or above, as every command finds it; its package
made importable from its folder, its root too so that `reference:` modules import), or opgen's own
outside a project."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from codegen.verify.names import CHECKS, CPU_CHECKS, DEFAULT_BUDGET

if TYPE_CHECKING:
    from codegen.project import Project

DESCRIPTION = ("Verify kernels: every case of every op (hand-written, derived from the spec, a cases file's) on "
               "the cpu plan, the cuda plan on the host emulation and the GPU kernel form, against each other and "
               "the op's float64 reference; in the sanitize build; in seeded random thread orders; the launch "
               "coverage; on a GPU, the cuda backend; every NVRTC release installed, with the kernels' "
               "resources. Exit 0 when every check passes, 1 when a kernel fails one, "
               "2 when a required check could not run.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ops", nargs="*", metavar="OP", help="only these ops (class or function names; default: all)")
    p.add_argument("--require", nargs="+", choices=CHECKS, default=None, metavar="CHECK",
                   help=f"the checks that must run for every op, else exit 2 (default: {' '.join(CPU_CHECKS)}; "
                        f"checks: {', '.join(CHECKS)})")
    p.add_argument("--seed", type=int, default=0,
                   help="the seed of the random thread orders and of the cases' data (default: 0)")
    p.add_argument("--max-cases", type=int, default=None, metavar="N", help="at most N cases per op")
    p.add_argument("--no-nvrtc", action="store_true", help="leave out the NVRTC compiles (the slowest check)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of the table")


def _project(args: argparse.Namespace) -> Project | None:
    """The project (its package made importable from its folder, its root too for `reference:`
    modules), or None outside one: opgen's own ops."""
    from codegen.cli import overrides
    from codegen.project import find_config, find_project

    if find_config(Path.cwd()) is None and args.specs is None and args.package is None:
        return None
    project = find_project(Path.cwd(), overrides(args))
    for folder in (project.out.parent, project.root):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    return project


def cmd_verify(args: argparse.Namespace) -> int:
    from codegen.project import ProjectError
    from codegen.verify.cases import SPECS
    from codegen.verify.reference import ReferenceError
    from codegen.verify.report import as_json, text
    from codegen.verify.run import verify
    from codegen.warmup import DEFAULT_PACKAGE, generated_ops, select_ops

    project = _project(args)
    package, specs = (DEFAULT_PACKAGE, SPECS) if project is None else (project.package, project.specs)
    try:
        ops = select_ops(args.ops, generated_ops(package))
    except ImportError as exc:
        raise ProjectError(f"opgen verify: cannot import the generated package {package!r} (run `opgen generate` "
                           f"first): {exc}") from None
    except KeyError as exc:
        raise ProjectError(f"opgen verify: {exc.args[0]}") from None
    try:
        report = verify(ops, specs, tuple(args.require or CPU_CHECKS), args.seed, args.max_cases, not args.no_nvrtc)
    except ReferenceError as exc:  # a `reference:` that does not import: the spec's problem, at its line
        raise ProjectError(str(exc)) from None
    print(as_json(report) if args.json else text(report))
    return report.status


GPU_CHECK = ("The GPU check for the project's ops, within a budget: the environment, every kernel module compiled "
             "with this machine's NVRTC, cpu ⇄ cuda parity with the coverage table, compute-sanitizer (memcheck, "
             "racecheck, synccheck), the kernels' registers, spills and shared memory; the summary "
             "(OUT/summary.md) rewritten after every step. Exit 0 when no step failed.")


def add_gpu_check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET, metavar="S",
                   help=f"seconds for the whole run (default: {DEFAULT_BUDGET:.0f})")
    p.add_argument("--results", type=Path, default=None, metavar="DIR",
                   help="the results folder (default: $OUT, else gpu-check/ in the project's folder)")
    p.add_argument("--ops", nargs="+", default=[], metavar="OP", help="only these ops")
    p.add_argument("--rehearsal", action="store_true",
                   help="without a GPU, on the CuPy stand-in (needs a checkout of opgen)")


def cmd_gpu_check(args: argparse.Namespace) -> int:
    """codegen/verify/gpu_check.py's run for the project's package (its folder, so that every step
    imports it from wherever it runs) and spec folder; opgen's own ops outside a project."""
    from codegen.verify import gpu_check

    argv = ["--budget", str(args.budget), *(["--out", str(args.results)] if args.results else []),
            *(["--ops", *args.ops] if args.ops else []), *(["--rehearsal"] if args.rehearsal else [])]
    project = _project(args)
    if project is None or project.is_opgen_itself:
        return gpu_check.main(argv, prog="opgen gpu-check")
    return gpu_check.main([*argv, "--package", str(project.out), "--specs", str(project.specs)],
                          prog="opgen gpu-check", default_out=project.root / "gpu-check")
