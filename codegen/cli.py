"""The `opgen` command: generate, check, list, show, demo, new, warmup."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jinja2

from codegen import __version__
from codegen import files as filesmod
from codegen.load import load_specs
from codegen.model import OpSpec, pattern_switch_text
from codegen.naming import snake_case
from codegen.render import render_all
from codegen.shapes import to_text
from codegen.yamlnodes import SpecError

#: Defaults: the project's own folders (a checkout), overridable for a user's spec folder.
PROJECT = Path(__file__).resolve().parent.parent


BUILTIN_TEMPLATES = Path(__file__).resolve().parent / "templates"


def template_roots(extra: list[Path] | None) -> list[Path]:
    """A user's template folders first (their kernels), then the built-in templates."""
    roots = [p.resolve() for p in (extra or [])]
    return roots + ([BUILTIN_TEMPLATES] if BUILTIN_TEMPLATES.resolve() not in roots else [])


def _compile(specs: Path, templates: list[Path]) -> tuple[list[OpSpec], dict[str, str]]:
    if not specs.is_dir():
        raise SpecError(str(specs), 0, "spec folder not found")
    ops = load_specs(specs)
    return ops, render_all(ops, template_roots(templates))


def cmd_generate(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    _, files = _compile(args.specs, args.templates)
    plan = filesmod.plan(files, args.out)
    filesmod.apply(files, args.out, plan)
    took = time.perf_counter() - start
    for rel in plan.written:
        print(f"  wrote   {args.out / rel}")
    for rel in plan.removed:
        print(f"  removed {args.out / rel}")
    print(f"opgen generate: {len(files)} files, {len(plan.written)} written, {len(plan.unchanged)} unchanged, "
          f"{len(plan.removed)} removed ({took:.2f} s)")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    _, files = _compile(args.specs, args.templates)
    plan = filesmod.plan(files, args.out)
    if plan.drifted:
        print(f"opgen check: {len(plan.drifted)} generated file(s) out of date with specs/ and templates/ "
              f"(run `opgen generate`):")
        for rel in plan.written:
            print(f"  {'stale  ' if (args.out / rel).exists() else 'missing'} {args.out / rel}")
        for rel in plan.removed:
            print(f"  extra   {args.out / rel}")
        return 1
    print(f"opgen check: {len(files)} generated files up to date")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    ops = load_specs(args.specs)
    width = max((len(op.name) for op in ops), default=0)
    for op in sorted(ops, key=lambda o: (o.group, o.name)):
        flag = " (deprecated)" if op.deprecated else ""
        print(f"{op.name:<{width}}  {op.group:<9} {op.summary}{flag}")
    return 0


def signature(op: OpSpec) -> str:
    """The resolved signature, as `opgen show` prints it."""
    lines = [f"{op.name}  ({op.source})", f"  {op.summary}"]
    if op.deprecated:
        lines.append(f"  DEPRECATED: {op.deprecated}")
    for tv in op.type_vars:
        lines.append(f"  type {tv.name}: {'list of ' if tv.is_list else ''}{' | '.join(tv.allowed)}")
    lines.append("  inputs:")
    for a in op.inputs:
        shape = pattern_switch_text(a.shape) if a.shape is not None else "any"
        extra = (" optional" if a.optional else "") + (" list" if a.is_list else "")
        if a.accepts_dtypes:
            extra += f" (also {', '.join(a.accepts_dtypes)}, converted)"
        bounds = [f"≥ {to_text(a.values_min)}" if a.values_min is not None else "",
                  f"≤ {to_text(a.values_max)}" if a.values_max is not None else ""]
        if any(bounds):
            extra += f" values {' '.join(b for b in bounds if b)}"
        if not a.when.empty:
            extra += f" when {a.when.text()}"
        lines.append(f"    {a.name}: {a.dtype} {shape}{extra}")
    lines.append("  attrs:")
    for at in op.attrs:
        default = f" = {at.default!r}" if at.has_default else " (required)"
        allowed = f" in {list(at.allowed)}" if at.allowed is not None else ""
        lines.append(f"    {at.name}: {at.type}{default}{allowed}")
    lines.append("  outputs:")
    for o in op.outputs:
        lines.append(f"    {o.name}: {o.dtype} {pattern_switch_text(o.shape)}{' list' if o.is_list else ''}")
    if op.runtime is not None:
        lines.append(f"  runtime: {op.runtime.text()}")
    params = [a.name + ("=None" if a.optional else "") for a in op.inputs]
    params += ["*"] + [f"{at.name}={at.default!r}" if at.has_default else at.name for at in op.attrs]
    lines.append(f"  python: {snake_case(op.name)}({', '.join(params)}, scope=None)")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    ops = {op.name: op for op in load_specs(args.specs)}
    op = ops.get(args.op) or next((o for o in ops.values() if snake_case(o.name) == args.op), None)
    if op is None:
        print(f"opgen show: no op named {args.op!r} (known: {', '.join(sorted(ops))})", file=sys.stderr)
        return 2
    print(signature(op))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from codegen.demo import run_demo

    return run_demo()


def cmd_new(args: argparse.Namespace) -> int:
    from codegen.scaffold import ScaffoldError, scaffold_files, write_scaffold

    templates = args.templates or BUILTIN_TEMPLATES
    try:
        files = scaffold_files(args.op, args.group, args.specs, templates)
    except ScaffoldError as exc:
        print(f"opgen new: {exc}", file=sys.stderr)
        return 2
    write_scaffold(files)
    for path in files:
        print(f"  wrote   {path}")
    extra = "" if args.templates is None else f" --specs {args.specs} --templates {args.templates}"
    print(f"opgen new: {args.op} (y = alpha·x, a starting point): edit both files, then `opgen generate{extra}` "
          f"and test {snake_case(args.op)} against a float64 NumPy reference (docs/specs.md has the language)")
    return 0


def cmd_warmup(args: argparse.Namespace) -> int:
    from codegen.warmup import run_warmup

    return run_warmup(args.ops, args.device)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="opgen", description="Compile op specs into kernels, wrappers and docs.")
    parser.add_argument("--version", action="version", version=f"opgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help: str, folders: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help)
        if folders:
            p.add_argument("--specs", type=Path, default=PROJECT / "specs", help="spec folder (default: specs/)")
            p.add_argument("--templates", type=Path, action="append", metavar="DIR",
                           help="a template folder searched before the built-in templates/ (repeatable): "
                                "where your kernels/<group>/*.cu live")
            p.add_argument("--out", type=Path, default=PROJECT / "generated",
                           help="output folder (default: generated/)")
        return p

    add("generate", "generate every op into the output folder").set_defaults(func=cmd_generate)
    add("check", "exit 1 if the output folder is out of date").set_defaults(func=cmd_check)
    add("list", "list the ops").set_defaults(func=cmd_list)
    show = add("show", "print an op's resolved signature")
    show.add_argument("op", help="op name (FusedBatchNormV3) or function name (fused_batch_norm_v3)")
    show.set_defaults(func=cmd_show)
    add("demo", "generate, then run one generated op on the default device", folders=False).set_defaults(
        func=cmd_demo)
    new = add("new", "write a working starting spec and kernel template for a new op", folders=False)
    new.add_argument("op", help="the op's name, CamelCase (MyOp)")
    new.add_argument("--group", default="custom", help="its group folder under specs/ (default: custom)")
    new.add_argument("--specs", type=Path, default=PROJECT / "specs", help="spec folder (default: specs/)")
    new.add_argument("--templates", type=Path, default=None, metavar="DIR",
                     help="template folder for the kernel (default: the built-in templates/)")
    new.set_defaults(func=cmd_new)
    warm = add("warmup", "compile the ops' kernels for this machine's GPU into the disk cache", folders=False)
    warm.add_argument("ops", nargs="*", metavar="OP", help="ops to compile (class or function name); all when none")
    warm.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    warm.set_defaults(func=cmd_warmup)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except SpecError as exc:
        print(f"opgen: error: {exc}", file=sys.stderr)
        print("opgen: nothing was written", file=sys.stderr)
        return 2
    except jinja2.TemplateError as exc:  # a bug in a template, not in a spec
        where = f"{exc.filename}:{exc.lineno}: " if isinstance(exc, jinja2.TemplateSyntaxError) else ""
        print(f"opgen: template error: {where}{exc}", file=sys.stderr)
        print("opgen: nothing was written", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
