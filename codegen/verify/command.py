"""`opgen verify [OP...]`: its arguments and the command (codegen/cli.py registers it).

The ops are the project's (`[tool.opgen]` here or above, as every command finds it; its package
made importable from its folder, its root too so that `reference:` modules import), or opgen's own
outside a project."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codegen.verify.checks import CHECKS, CPU_CHECKS

DESCRIPTION = ("Verify kernels: every case of every op (hand-written, derived from the spec, a cases file's) on "
               "the cpu plan, the cuda plan on the host emulation and the GPU kernel form, against each other and "
               "the op's float64 reference; in the sanitize build; in seeded random thread orders; the launch "
               "coverage; on a GPU, the cuda backend. Exit 0 when every check passes, 1 when a kernel fails one, "
               "2 when a required check could not run.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ops", nargs="*", metavar="OP", help="only these ops (class or function names; default: all)")
    p.add_argument("--require", nargs="+", choices=CHECKS, default=None, metavar="CHECK",
                   help=f"the checks that must run for every op, else exit 2 (default: {' '.join(CPU_CHECKS)}; "
                        f"checks: {', '.join(CHECKS)})")
    p.add_argument("--seed", type=int, default=0,
                   help="the seed of the random thread orders and of the cases' data (default: 0)")
    p.add_argument("--max-cases", type=int, default=None, metavar="N", help="at most N cases per op")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of the table")


def _ops_and_specs(args: argparse.Namespace) -> tuple[str, Path]:
    """The generated package's import name (importable once this returns) and its spec folder."""
    from codegen.project import find_config, find_project
    from codegen.verify.cases import SPECS
    from codegen.warmup import DEFAULT_PACKAGE

    if find_config(Path.cwd()) is None and args.specs is None and args.package is None:
        return DEFAULT_PACKAGE, SPECS
    from codegen.cli import overrides

    project = find_project(Path.cwd(), overrides(args))
    for folder in (project.out.parent, project.root):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    return project.package, project.specs


def cmd_verify(args: argparse.Namespace) -> int:
    from codegen.project import ProjectError
    from codegen.verify.reference import ReferenceError
    from codegen.verify.report import as_json, text
    from codegen.verify.run import verify
    from codegen.warmup import generated_ops, select_ops

    package, specs = _ops_and_specs(args)
    try:
        ops = select_ops(args.ops, generated_ops(package))
    except ImportError as exc:
        raise ProjectError(f"opgen verify: cannot import the generated package {package!r} (run `opgen generate` "
                           f"first): {exc}") from None
    except KeyError as exc:
        raise ProjectError(f"opgen verify: {exc.args[0]}") from None
    try:
        report = verify(ops, specs, tuple(args.require or CPU_CHECKS), args.seed, args.max_cases)
    except ReferenceError as exc:  # a `reference:` that does not import: the spec's problem, at its line
        raise ProjectError(str(exc)) from None
    print(as_json(report) if args.json else text(report))
    return report.status
