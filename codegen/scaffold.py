"""Starting points, written without overwriting anything:

- `opgen new OpName --group G`: a new op's spec and kernel template (y = alpha·x), which the user
  then makes their own (from the built-in templates' `scaffold/`);
- `opgen init [DIR]`: a project of one's own (from `init/`): pyproject.toml with `[tool.opgen]`, an
  example op with its gradient op (specs and kernel template) and a test against a float64 NumPy
  reference; `opgen generate` then `pytest` pass in it.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from codegen import __version__, naming
from codegen.project import BUILTIN_TEMPLATES, ProjectError, check_namespace, check_package
from codegen.yamlnodes import SpecError

#: `opgen init`'s files: path in the project → template under the built-in `init/` (`.j2`: rendered
#: with the project's names; else copied as it is).
INIT_FILES = {
    "pyproject.toml": "pyproject.toml.j2",
    "README.md": "README.md.j2",
    "specs/example/scaled_tanh.family.yaml": "scaled_tanh.family.yaml",
    "specs/example/scaled_tanh.yaml": "scaled_tanh.yaml.j2",
    "specs/example/scaled_tanh_grad.yaml": "scaled_tanh_grad.yaml.j2",
    "templates/kernels/example/scaled_tanh.cu": "scaled_tanh.cu",
    "tests/test_scaled_tanh.py": "test_scaled_tanh.py.j2",
}


#: A distribution's name as pyproject.toml's `[project] name` takes it (PEP 508): ASCII only.
DISTRIBUTION_RE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")


class ScaffoldError(ValueError):
    """A bad name or group (by the rules `opgen generate` applies: codegen/naming.py), or a file
    that already exists."""


def _env(folder: str) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(BUILTIN_TEMPLATES / folder)),
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def _refuse_existing(files: dict[Path, str]) -> None:
    existing = [str(p) for p in files if p.exists()]
    if existing:
        raise ScaffoldError(f"{', '.join(existing)} already exist{'s' if len(existing) == 1 else ''}")


def scaffold_files(name: str, group: str, specs: Path, templates: Path, package: str = "generated",
                   function_name: str | None = None) -> dict[Path, str]:
    """`opgen new`'s files: their paths and texts, or ScaffoldError. `templates` is the template
    folder the kernel goes to (`kernels/<group>/`); `package` the import name its example uses;
    `function_name` the spec's `function_name:` (None: none, the name in snake_case)."""
    snake = check_names(name, group, function_name)
    env = _env("scaffold")
    context = {"name": name, "group": group, "snake": snake, "package": package, "function_name": function_name}
    files = {specs / group / f"{snake}.yaml": env.get_template("op.yaml.j2").render(context),
             templates / "kernels" / group / f"{snake}.cu": env.get_template("kernel.cu.j2").render(context)}
    _refuse_existing(files)
    spec = specs / group / f"{snake}.yaml"
    check_beside(spec, files[spec], specs)
    return files


def check_beside(spec: Path, text: str, specs: Path) -> None:
    """The new spec loads and shares no derived name with the ops of `specs` (FooBAR beside FooBar):
    a SpecError as `opgen generate` would raise it. A spec folder that does not load as it is is
    left to `opgen generate` to report."""
    from codegen.load import load_spec, load_specs

    try:
        ops = load_specs(specs) if specs.is_dir() else None
    except SpecError:
        ops = None
    new = load_spec(spec, specs, ops.activations if ops is not None else None, text=text)
    naming.check_unique([*(ops or []), new])


def check_names(name: str, group: str, function_name: str | None = None) -> str:
    """The new op's function name (`function_name` if given, else its name in snake_case), after the
    checks `opgen generate` makes of its group, its name, `function_name:` and the function name, with
    the same messages: no spec it would refuse is written."""
    try:
        naming.check_group(group)
    except naming.InvalidName as exc:
        raise ScaffoldError(str(exc)) from None
    try:
        naming.check_op_name(name)
    except naming.InvalidName as exc:
        raise ScaffoldError(f"op: {exc}") from None
    if function_name is not None:
        try:
            naming.check_given_function_name(function_name)
        except naming.InvalidName as exc:
            raise ScaffoldError(f"--function-name: {exc}") from None
    try:
        return naming.check_function_name(function_name or naming.snake_case(name))
    except naming.InvalidName as exc:
        raise ScaffoldError(f"op: {exc}") from None


def distribution_name(package: str) -> str:
    """The project's distribution name (`[project] name` in its pyproject.toml): my_ops → my-ops."""
    return package.replace("_", "-")


def init_names(target: Path, package: str | None = None, namespace: str | None = None) -> tuple[str, str]:
    """The package name (given, else the folder's name made an identifier: `my-ops` → `my_ops`) and
    torch namespace (given, else the package name) of a new project in `target`; ScaffoldError
    naming what to pass when one is not valid. The package also names the distribution, which
    must be ASCII (so that pyproject.toml is valid TOML and pip takes it)."""
    if package is None:
        package = re.sub(r"\W", "_", target.name.strip().lower())
        what = f"the package name from the folder's name {target.name!r} (pass --package NAME)"
    else:
        what = "--package"
    try:
        check_package(package, what, [target / package])
        distribution = distribution_name(package)
        if not DISTRIBUTION_RE.fullmatch(distribution):
            raise ScaffoldError(f"{what}: package name {package!r} gives the distribution name {distribution!r} "
                                f"(pyproject.toml's [project] name), which must be ASCII letters, digits, '.', '_' "
                                f"and '-', starting and ending with a letter or digit (PEP 508)")
        if namespace is None:
            namespace = package
            check_namespace(namespace, f"the torch namespace (the package name, {package!r}; pass "
                                       f"--torch-namespace NS)")
        else:
            check_namespace(namespace, "--torch-namespace")
    except ProjectError as exc:
        raise ScaffoldError(str(exc)) from None
    return package, namespace


def init_files(target: Path, package: str, namespace: str) -> dict[Path, str]:
    """`opgen init`'s files in `target`: their paths and texts, or ScaffoldError when one exists."""
    env = _env("init")
    context = {"package": package, "namespace": namespace, "distribution": distribution_name(package),
               "opgen_version": __version__}
    files: dict[Path, str] = {}
    for rel, source in INIT_FILES.items():
        if source.endswith(".j2"):
            files[target / rel] = env.get_template(source).render(context)
        else:
            files[target / rel] = (BUILTIN_TEMPLATES / "init" / source).read_text(encoding="utf-8")
    _refuse_existing(files)
    return files


def write_files(files: dict[Path, str]) -> None:
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

