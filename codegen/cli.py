"""The `opgen` command: init, generate, check, list, show, demo, new, warmup, verify, gpu-check.

Every command works on a project (codegen/project.py): `[tool.opgen]` in the nearest
pyproject.toml from the current directory upward, each key overridden by its flag (`--specs`,
`--templates`, `--out`, `--package`, `--torch-namespace`; paths relative to the current
directory). No command writes inside the installed opgen.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jinja2

from codegen import __version__, cxx_check, modules, warmup
from codegen import files as filesmod
from codegen.load import load_specs
from codegen.model import OpSpec, pattern_switch_text
from codegen.naming import earlier_rule_warning, snake_case
from codegen.project import (
    BUILTIN_TEMPLATES,
    CONFIG_FILE,
    OPGEN_HOME,
    Overrides,
    Project,
    ProjectError,
    find_config,
    find_project,
    template_roots,
)
from codegen.render import render_all
from codegen.shapes import to_text
from codegen.shared_lets import shared_lets
from codegen.yamlnodes import SpecError

__all__ = ["BUILTIN_TEMPLATES", "PROJECT", "build_parser", "main", "signature", "template_roots"]

#: opgen's own source tree (the folder holding `codegen/`: a checkout's root, or site-packages when
#: installed; codegen/project.py's OPGEN_HOME). Never a default: a command's folders come from its
#: project (tests and scripts use this one).
PROJECT = OPGEN_HOME.resolve()

#: What to pass instead of writing into the installed opgen.
WRITE_ELSEWHERE = "run the command in a project of your own (`opgen init DIR` makes one) or pass --out DIR"


def overrides(args: argparse.Namespace) -> Overrides:
    return Overrides(specs=getattr(args, "specs", None), templates=tuple(getattr(args, "templates", None) or ()),
                     out=getattr(args, "out", None), package=getattr(args, "package", None),
                     torch_namespace=getattr(args, "torch_namespace", None))


def project_of(args: argparse.Namespace, require_out: bool = True) -> Project:
    """The project the command works on: [tool.opgen] here or above, the flags over it."""
    return find_project(Path.cwd(), overrides(args), require_out=require_out)


def shown(path: Path) -> Path:
    """A path as the command prints it: relative to the current directory when under it."""
    try:
        return path.relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def check_specs(project: Project) -> None:
    if not project.specs.is_dir():
        hint = "" if project.config is not None else (
            f" (no [tool.opgen] in a {CONFIG_FILE} here or above it: pass --specs DIR, or run `opgen init DIR` to "
            f"start a project)")
        raise ProjectError(f"{shown(project.specs)}: spec folder not found{hint}")


def _compile(project: Project) -> tuple[list[OpSpec], dict[str, str]]:
    check_specs(project)
    missing = [t for t in project.templates if not t.is_dir()]
    if missing:
        raise ProjectError(f"template folder {shown(missing[0])} not found")
    ops = load_specs(project.specs)
    files = render_all(ops, project.template_roots, project=project)
    for op in ops:
        warning = earlier_rule_warning(op)
        if warning is not None:
            print(f"opgen: warning: {warning}", file=sys.stderr)
    return ops, files


def generate(project: Project, compile_check: bool = True) -> tuple[list[OpSpec], dict[str, str], filesmod.Plan]:
    """Generation, the one path of `opgen generate` and `opgen demo`: the output folder checked, the
    spec and template folders and every spec checked, every file rendered, the host form of each
    kernel module that changed compiled (`compile_check`: codegen/cxx_check.py), then written all or
    nothing. (ops, files, what was written)."""
    project.check_writable(project.out, WRITE_ELSEWHERE)
    ops, files = _compile(project)
    plan = filesmod.plan(files, project.out)
    if compile_check:  # only what differs from the output folder: an unchanged project compiles nothing
        skipped = cxx_check.check_modules({rel: files[rel] for rel in plan.written if rel.endswith(".cu")})
        if skipped is not None:
            print(f"opgen generate: {skipped}", file=sys.stderr)
    filesmod.apply(files, project.out, plan)
    return ops, files, plan


def cmd_generate(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    project = project_of(args)
    _, files, plan = generate(project, compile_check=not args.no_compile)
    took = time.perf_counter() - start
    out = shown(project.out)
    for rel in plan.written:
        print(f"  wrote   {out / rel}")
    for rel in plan.removed:
        print(f"  removed {out / rel}")
    print(f"opgen generate: {len(files)} files, {len(plan.written)} written, {len(plan.unchanged)} unchanged, "
          f"{len(plan.removed)} removed ({took:.2f} s)")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    project = project_of(args)
    ops, files = _compile(project)
    plan = filesmod.plan(files, project.out)
    out = shown(project.out)
    for module in modules.module_groups(ops):  # the merge: ops whose kernels compile as one module
        if len(module.ops) > 1:
            print(f"opgen check: kernel module {out / module.path} holds {', '.join(module.names)} "
                  f"(one compile for {len(module.ops)} ops)")
    if plan.drifted:
        print(f"opgen check: {len(plan.drifted)} generated file(s) out of date with "
              f"{project.relative(project.specs)}/ and the templates (run `opgen generate`):")
        for rel in plan.written:
            print(f"  {'stale  ' if (project.out / rel).exists() else 'missing'} {out / rel}")
        for rel in plan.removed:
            print(f"  extra   {out / rel}")
        return 1
    print(f"opgen check: {len(files)} generated files up to date")
    twice = shared_lets(ops)
    print(f"opgen check: {len(twice)} let(s) written twice by ops that could share them (an op and its gradient, "
          f"two members of a family){': a family file holds each once' if twice else ''}")
    return 0


def _specs(args: argparse.Namespace) -> list[OpSpec]:
    project = project_of(args, require_out=False)
    check_specs(project)
    return load_specs(project.specs)


def cmd_list(args: argparse.Namespace) -> int:
    ops = _specs(args)
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
    lines.append(f"  python: {op.snake_name}({', '.join(params)}, scope=None)")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    ops = {op.name: op for op in _specs(args)}
    op = ops.get(args.op) or next((o for o in ops.values() if o.snake_name == args.op), None)
    if op is None:
        print(f"opgen show: no op named {args.op!r} (known: {', '.join(sorted(ops))})", file=sys.stderr)
        return 2
    print(signature(op))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from codegen.demo import run_demo

    flags = overrides(args)
    return run_demo(None if flags == Overrides() else project_of(args))


def cmd_new(args: argparse.Namespace) -> int:
    from codegen.scaffold import ScaffoldError, scaffold_files, write_files

    project = project_of(args, require_out=False)
    if project.config is None and args.specs is None:
        raise ProjectError(f"opgen new: no [tool.opgen] in a {CONFIG_FILE} in {Path.cwd()} or above it: run it "
                           f"in a project (`opgen init DIR` makes one), or pass --specs DIR and --templates DIR")
    if not project.templates:
        raise ProjectError("opgen new: no template folder for the kernel: pass --templates DIR (or set templates "
                           "in [tool.opgen])")
    kernels = project.templates[0]
    try:
        files = scaffold_files(args.op, args.group, project.specs, kernels, package=project.package,
                               function_name=args.function_name)
    except ScaffoldError as exc:
        print(f"opgen new: {exc}", file=sys.stderr)
        print("opgen new: nothing was written", file=sys.stderr)
        return 2
    for path in files:
        project.check_writable(path, "pass --specs DIR and --templates DIR (folders of your own)")
    write_files(files)
    for path in files:
        print(f"  wrote   {shown(path)}")
    extra = "".join(f" --{key} {value}" for key, value in (("specs", args.specs), ("templates", args.templates and
                                                                                     args.templates[0]))
                    if value is not None)
    print(f"opgen new: {args.op} (y = alpha·x, a starting point): edit both files, then `opgen generate{extra}` "
          f"and test {args.function_name or snake_case(args.op)} against a float64 NumPy reference (docs/specs.md has "
          f"the language)")
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from codegen.scaffold import ScaffoldError, init_files, init_names, write_files

    target = (Path.cwd() / args.dir).resolve()
    try:
        package, namespace = init_names(target, args.package, args.torch_namespace)
        files = init_files(target, package, namespace)
    except ScaffoldError as exc:
        print(f"opgen init: {exc}", file=sys.stderr)
        print("opgen init: nothing was written", file=sys.stderr)
        return 2
    Project(target, target / "specs", (), target / package, package, namespace).check_writable(
        target, "pass a folder of your own: opgen init DIR")
    write_files(files)
    for path in files:
        print(f"  wrote   {shown(path)}")
    go = "" if target == Path.cwd().resolve() else f"cd {shown(target)} && "
    print(f"opgen init: a project with the package {package} (torch.ops.{namespace}.*) and an example op with its "
          f"gradient, ScaledTanh and ScaledTanhGrad. Next: {go}opgen generate && pytest")
    return 0


def cmd_warmup(args: argparse.Namespace) -> int:
    """`codegen.warmup.run_warmup` with the arguments parsed (codegen.warmup.add_arguments); in a
    project of your own, the package is the project's unless --package is given (its folder made
    importable)."""
    package = args.package
    if package is None:
        package = warmup.DEFAULT_PACKAGE
        if find_config(Path.cwd()) is not None:
            project = find_project(Path.cwd())
            if not project.is_opgen_itself:
                if str(project.out.parent) not in sys.path:
                    sys.path.insert(0, str(project.out.parent))
                package = project.package
    return int(warmup.run_warmup(args.ops, args.device, package, args.jobs))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="opgen", description="Compile op specs into kernels, wrappers and docs.",
        epilog=f"Folders and names come from [tool.opgen] in the nearest {CONFIG_FILE} (from the current directory "
               "upward); flags override it. `opgen init DIR` starts a project of your own.")
    parser.add_argument("--version", action="version", version=f"opgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help: str, folders: bool = True, out: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        if folders:
            p.add_argument("--specs", type=Path, default=None, metavar="DIR",
                           help="the spec folder (default: [tool.opgen] specs, else specs/)")
            p.add_argument("--templates", type=Path, action="append", metavar="DIR",
                           help="a template folder searched before the built-in templates, where your "
                                "kernels/<group>/*.cu live (repeatable; default: [tool.opgen] templates)")
        if out:
            p.add_argument("--out", type=Path, default=None, metavar="DIR",
                           help="the generated package's folder (default: [tool.opgen] out)")
            p.add_argument("--package", default=None, metavar="NAME",
                           help="its import name (default: [tool.opgen] package, else the folder's name)")
            p.add_argument("--torch-namespace", default=None, metavar="NS",
                           help="torch.ops.NS.<op> (default: [tool.opgen] torch-namespace, else the package name)")
        return p

    init = sub.add_parser("init", help="start a project of your own: pyproject.toml with [tool.opgen], an example "
                                       "op with its gradient (specs, kernel) and its test",
                          description="Write a working project into DIR (default: the current directory) without "
                                      "overwriting anything; then `opgen generate` and `pytest` there pass.")
    init.add_argument("dir", nargs="?", default=".", metavar="DIR", help="the project's folder (default: .)")
    init.add_argument("--package", default=None, metavar="NAME",
                      help="the generated package's import name (default: DIR's name as an identifier)")
    init.add_argument("--torch-namespace", default=None, metavar="NS",
                      help="torch.ops.NS.<op> (default: the package name)")
    init.set_defaults(func=cmd_init)
    gen = add("generate", "generate every op into the output folder")
    gen.add_argument("--no-compile", action="store_true",
                     help="skip the C++ check (each changed kernel module's host form compiled with -fsyntax-only, "
                          "errors reported at the template's file:line)")
    gen.set_defaults(func=cmd_generate)
    add("check", "exit 1 if the output folder is out of date").set_defaults(func=cmd_check)
    add("list", "list the ops", out=False).set_defaults(func=cmd_list)
    show = add("show", "print an op's resolved signature", out=False)
    show.add_argument("op", help="op name (FusedBatchNormV3) or function name (fused_batch_norm_v3)")
    show.set_defaults(func=cmd_show)
    add("demo", "generate, then run the ops on the default device (outside a project: opgen's own ops as "
                "installed)").set_defaults(func=cmd_demo)
    new = add("new", "write a working starting spec and kernel template for a new op", out=False)
    new.add_argument("op", help="the op's name, CamelCase (MyOp)")
    new.add_argument("--group", default="custom", help="its group folder under the spec folder (default: custom)")
    new.add_argument("--function-name", default=None, metavar="NAME",
                     help="its Python function, module, spec file and torch op name, written as `function_name:` "
                          "(default: the op's name in snake_case, docs/specs.md#function-names)")
    new.set_defaults(func=cmd_new)
    warm = sub.add_parser("warmup", help="compile the ops' kernels into the disk cache",
                          description=warmup.DESCRIPTION)
    warmup.add_arguments(warm, project_default=True)  # codegen.warmup's own arguments, parsed once, here
    warm.set_defaults(func=cmd_warmup)
    # `opgen verify` and `opgen gpu-check` (codegen/verify/command.py: their arguments and commands)
    from codegen.verify import command as verify_command

    for name, text, arguments, func in (
            ("verify", verify_command.DESCRIPTION, verify_command.add_arguments, verify_command.cmd_verify),
            ("gpu-check", verify_command.GPU_CHECK, verify_command.add_gpu_check_arguments,
             verify_command.cmd_gpu_check)):
        p = add(name, text.split(": ")[0])
        p.description = text
        arguments(p)
        p.set_defaults(func=func)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (SpecError, ProjectError) as exc:
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
