"""Model → file texts. Jinja runs with StrictUndefined; translation lives in pygen.py and the
filters below, so templates only lay out text. The template tree mirrors the output tree.

Every name of the generated package (its import name, its torch namespace, the paths its files
show) comes from the `Project` rendered (codegen/project.py); without one, opgen's own: package
`generated`, torch namespace `opgen`, paths from the repository's root. Each file's header records
the opgen version that wrote it; the package's `_opgen.py` also declares the generated-code ABI,
which the runtime checks at import (codegen/runtime/abi.py).
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import jinja2

from codegen import (
    __version__,
    drivergen,
    drivergen_checks,
    drivergen_unit,
    entrygen,
    index_width,
    jaxgen,
    kernel_check,
    linemarks,
    modules,
    naming,
    plan_data,
    pygen,
    torch_native,
    torchgen,
)
from codegen.files import UNMARKED
from codegen.model import ActivationLibrary, AttrType, Loc, OpSpec, expr_switch_text, pattern_switch_text
from codegen.naming import camel_case, outputs_class, snake_case
from codegen.project import OPGEN_HOME, Project
from codegen.runtime import cxx, manifest, torch_names
from codegen.runtime.abi import GENERATED_ABI
from codegen.shapes import to_text
from codegen.yamlnodes import SpecError

GENERATOR = "opgen"
#: opgen's own checkout (the folder holding the codegen package): the root of its own project.
REPOSITORY = OPGEN_HOME.resolve()


def own_project() -> Project:
    """opgen's own ops: specs/ → generated/ (import name `generated`, torch namespace `opgen`)."""
    return Project(root=REPOSITORY, specs=REPOSITORY / "specs", templates=(), out=REPOSITORY / "generated",
                   package="generated", torch_namespace="opgen")


def docstring(text: str) -> str:
    """Text that is safe inside a non-raw triple-quoted Python string: backslashes doubled, and no
    run of quotes can close the string (a quote followed by a quote, or at the end, is escaped)."""
    text = text.replace("\\", "\\\\")
    return re.sub(r'"(?=")|"$', '\\"', text)


def c_comment(text: str) -> str:
    """Text that is safe inside a /* */ comment."""
    return text.replace("*/", "*\\/")


def markdown(text: str) -> str:
    """Spec text on a reference page: no raw HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def table_cell(text: str) -> str:
    """Spec text in a Markdown table cell: `markdown`, on one line, with `|` escaped."""
    return markdown(text).replace("\n", " ").replace("|", "\\|")


def indent_lines(text: str, prefix: str) -> str:
    return "\n".join((prefix + line) if line.strip() else "" for line in text.splitlines())


#: The generator's functions the templates call, by the names they call them: the calls from the
#: templates into the generator, listed (tests/test_render_env.py checks every name a template calls
#: is here or another global).
TEMPLATE_FUNCTIONS = {
    "activation_import": pygen.activation_import, "activation_spec": pygen.activation_spec,
    "attr_annotation": pygen.attr_annotation, "codegen_imports": pygen.codegen_imports,
    "enum_alias": pygen.enum_alias, "fake_body": pygen.fake_body, "fake_params": pygen.fake_params,
    "literal": pygen.literal, "native_call": pygen.native_call, "native_first": pygen.native_first,
    "py_value": pygen.py_value, "run_body": pygen.run_body, "run_params": pygen.run_params,
    "plan_literal": plan_data.plan_literal,
    "backward_body": torchgen.backward_body, "gradient_doc": torchgen.gradient_doc,
    "has_tensor_inputs": torchgen.has_tensor_inputs, "no_gradient_reason": torchgen.no_gradient_reason,
    "setup_context_body": torchgen.setup_context_body, "setup_context_params": torchgen.setup_context_params,
    "torch_impl_attr": torchgen.impl_attr, "torch_params": torchgen.params, "torch_returns": torchgen.returns,
    "torch_schema": torchgen.schema, "torch_native_kernel": torch_native.native_kernel,
    "torch_python_helper": torch_names.python_helper, "torch_autograd_helper": torch_names.autograd_helper,
    "jax_attr_kinds": jaxgen.attr_kinds, "jax_handler_stem": jaxgen.handler_stem, "jax_inputs": jaxgen.input_names,
    "jax_gradient": jaxgen.gradient, "jax_no_gradient": jaxgen.no_gradient, "jax_outputs": jaxgen.output_names,
    "jax_vmap_method": jaxgen.vmap_method,
    "jax_not_provided": jaxgen.not_provided, "jax_target": jaxgen.target,
}


def make_env(template_roots: Sequence[Path], project: Project | None = None) -> jinja2.Environment:
    """The environment the templates render in, with the names of `project`'s package (opgen's own
    without one) as globals: `project`, `package_path` (the package as its files name it: its
    import name as a path, `generated`, the same wherever the package is written), `specs_path`
    and `kernel_path(op)` (an op's kernel template, as its `#line`s name it)."""
    project = project or own_project()
    roots = list(template_roots)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(root) for root in template_roots]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(docstring=docstring, c_comment=c_comment, markdown=markdown, cell=table_cell, snake=snake_case,
                       camel=camel_case, indent_lines=indent_lines, shape_text=pattern_switch_text,
                       expr_text=expr_switch_text, pyrepr=repr, pycomment=lambda text: " ".join(str(text).split()),
                       expr_dim=lambda e: to_text(e))
    env.filters["function"] = snake_case  # an op's name → its function (render_all: its spec's function_name)
    env.globals.update(TEMPLATE_FUNCTIONS, outputs_class=outputs_class, project=project,
                       package_path=project.package.replace(".", "/"),
                       specs_path=linemarks.shown_path(project.specs, project.root),
                       kernel_path=lambda op: kernel_path(op, roots, project),
                       kernel_module=modules.wrapper_reference,
                       pytorch_doc=lambda op: pytorch_doc(op, project),
                       opgen_version=__version__, generated_abi=GENERATED_ABI)
    return env


def header(source: str, comment: str, specs: str = "specs") -> str:
    """The first line of a generated file: what it was generated from (a spec, relative to the spec
    folder `specs` as the project shows it) and the opgen version that wrote it. It carries
    files.MARKER (`by opgen — do not edit`), by which stale generated files are told from a user's."""
    return banner(f"{specs}/{source}", comment)


def banner(source: str, comment: str) -> str:
    return f"{comment} generated from {source} by {GENERATOR} — do not edit ({GENERATOR} {__version__})"


def kernel_file(op: OpSpec, template_roots: Sequence[Path], root: Path = REPOSITORY) -> Path:
    """The op's kernel template: `kernels/<source>` in the first template folder that has it (an
    error naming the folders searched, as the project at `root` shows them, if none has)."""
    assert op.kernel is not None
    name = f"kernels/{op.kernel.source}"
    file = next((root / name for root in template_roots if (root / name).is_file()), None)
    if file is None:
        searched = ", ".join(f"{linemarks.shown_path(Path(folder) / 'kernels', root, template_roots)}/"
                             for folder in template_roots)
        raise SpecError(op.kernel.loc.file, op.kernel.loc.line,
                        f"kernel: source {op.kernel.source!r} not found under {searched} (put it in a template "
                        f"folder's kernels/, or name that folder with --templates or `templates` in "
                        f"[tool.opgen])", op.name)
    return file


def kernel_path(op: OpSpec, template_roots: Sequence[Path], project: Project) -> str:
    """The op's kernel template as generated files name it (codegen/templates/kernels/nn/x.cu)."""
    return linemarks.shown_path(kernel_file(op, template_roots, project.root), project.root, template_roots)


def pytorch_doc(op: OpSpec, project: Project) -> str | None:
    """The link from the op's reference page to opgen's docs/pytorch.md: only in opgen's own
    checkout (a user's package has no copy of opgen's docs beside it)."""
    docs, pages = REPOSITORY / "docs" / "pytorch.md", project.out / "docs" / op.group
    if project.root.resolve() != REPOSITORY or not project.out.resolve().is_relative_to(REPOSITORY):
        return None
    return Path(os.path.relpath(docs, pages.resolve())).as_posix()


class OutputFiles(dict[str, str]):
    """render_all's files by path, each path added once, as torchgen's FileManager writes each file
    once: a second output at a path (also one that differs only in case, one path in a checkout on
    macOS or Windows) or a second file of one Python module (`torch.py` and `torch/__init__.py`) is
    refused before anything is written, with a SpecError naming both sources."""

    def __init__(self) -> None:
        super().__init__()
        self._sources: dict[str, tuple[str, str, Loc | None, str | None]] = {}  # key → path, what, where, op

    def add(self, path: str, text: str, what: str, loc: Loc | None = None, op: str | None = None) -> None:
        """Add `path` (`what` made it: an op's wrapper, the package's torch registration; `loc`
        and `op`: the spec it comes from, where there is one)."""
        for key in self._keys(path):
            seen = self._sources.get(key)
            if seen is not None:
                raise self._collision(path, what, loc, op, seen)
        for key in self._keys(path):
            self._sources[key] = (path, what, loc, op)
        self[path] = text

    @staticmethod
    def _keys(path: str) -> list[str]:
        """The names `path` takes: the path up to case, and its Python module (x.py and x/__init__.py
        are both module x)."""
        keys = [f"path {path.casefold()}"]
        if path.endswith(".py"):
            module = path[:-3].removesuffix("/__init__")
            keys.append(f"module {module.replace('/', '.').casefold()}")
        return keys

    @staticmethod
    def _collision(path: str, what: str, loc: Loc | None, op: str | None,
                   seen: tuple[str, str, Loc | None, str | None]) -> SpecError:
        first, first_what, first_loc, first_op = seen
        same = ("one file" if first == path else "one file on a case-insensitive file system (macOS, Windows)"
                if first.casefold() == path.casefold() else "one Python module")
        where = f", {first_loc}" if first_loc is not None else ""
        message = f"generated {path} ({what}) and {first} ({first_what}{where}) would be {same}: rename one of them"
        at = loc or first_loc
        if at is None:  # two of the package's own files: a bug in opgen's templates
            raise AssertionError(message)
        return SpecError(at.file, at.line, message, op if loc is not None else first_op)


def render_all(ops: list[OpSpec], template_roots: Sequence[Path], activations: ActivationLibrary | None = None,
               *, project: Project | None = None) -> dict[str, str]:
    """Every generated file's path (relative to the output root) and text. Templates are looked up
    in `template_roots` in order: a user's kernel folders first, the built-in templates last. The
    activation library defaults to the one `load_specs` read with the ops. `project` names the
    package (import name, torch namespace, paths); None: opgen's own. Ops that share a derived
    name, and outputs that share a path or module, are a SpecError (nothing rendered)."""
    naming.check_unique(ops)
    env = make_env(template_roots, project)
    functions = {op.name: op.snake_name for op in ops}
    env.filters["function"] = lambda name: functions.get(name) or snake_case(name)
    specs = str(env.globals["specs_path"])
    library = activations or getattr(ops, "activations", None) or ActivationLibrary()
    env.globals["activation_library"] = library
    files = OutputFiles()
    groups: dict[str, list[OpSpec]] = {}
    for op in sorted(ops, key=lambda o: o.name):
        groups.setdefault(op.group, []).append(op)
        base = PurePosixPath(op.group) / op.snake_name
        driver, no_driver = None, ""
        if drivergen_checks.has_driver(op):
            try:
                driver = drivergen_unit.op_file(op, drivergen.runtime_plan(op), library, header(op.source, "//", specs))
            except drivergen_checks.DriverError as exc:  # a check it has no C++ for: the Python path runs it
                no_driver = str(exc)
        ctx = {"op": op, "module": op.snake_name, "native": driver is not None, "no_driver": no_driver}
        try:
            files.add(f"{base}.py", env.get_template("python/op.py.j2").render(
                ctx, header=header(op.source, "#", specs)), f"{op.name}'s wrapper", op.loc, op.name)
            files.add(f"docs/{base}.md", env.get_template("docs/op.md.j2").render(
                ctx, header=header(op.source, "<!--", specs) + " -->"), f"{op.name}'s reference page", op.loc,
                      op.name)
        except pygen.TranslationError as exc:  # found while rendering: reported where the spec says it
            raise SpecError(exc.loc.file, exc.loc.line, exc.message, op.name) from None
        if driver is not None:
            files.add(f"{base}.driver.cpp", driver, f"{op.name}'s native driver", op.loc, op.name)
    for module in modules.module_groups(ops):
        first = module.ops[0]
        try:
            files.add(module.path, render_module(env, module, template_roots),
                      f"the kernels of {', '.join(module.names)}", first.loc, first.name)
        except pygen.TranslationError as exc:
            raise SpecError(exc.loc.file, exc.loc.line, exc.message, first.name) from None
    all_header = banner(f"{specs}/", "#")
    if library.kinds:
        files.add("activations.py", env.get_template("python/activations.py.j2").render(
            header=banner(library.source, "#")), "the activation library's module")
    files.add("_opgen.py", env.get_template("python/_opgen.py.j2").render(header=all_header),
              "the package's version module")
    files.add("__init__.py", env.get_template("python/__init__.py.j2").render(
        imports=package_imports(ops, bool(library.kinds)), exported=exported_names(ops, bool(library.kinds)),
        header=all_header, example=min((op.name for op in ops), default="Op")), "the package's __init__")
    registered = [op for op in sorted(ops, key=lambda o: (o.group, o.snake_name)) if op.torch.register]
    files.add("torch.py", env.get_template("python/torch.py.j2").render(
        ops=registered, skipped=[op for op in sorted(ops, key=lambda o: o.name) if not op.torch.register],
        by_name={op.name: op for op in ops}, header=all_header), "the package's PyTorch registration")
    files.add("torch_native.cpp", torch_native.source(registered, (project or own_project()).torch_namespace,
                                                      banner(f"{specs}/", "//")),
              "the package's PyTorch registration in C++ (stable ABI)")
    files.add("jax.py", env.get_template("python/jax.py.j2").render(
        ops=jaxgen.provided(registered), activations=jaxgen.takes_activations(registered), header=all_header,
        by_name={op.name: op for op in ops},
        skipped=[op for op in sorted(ops, key=lambda o: o.name) if jaxgen.not_provided(op) is not None]),
              "the package's JAX functions")
    files.add("jax_ffi.cpp", jaxgen.source(registered, banner(f"{specs}/", "//")),
              "the package's XLA FFI handlers")
    files.add("py.typed", UNMARKED["py.typed"], "the package's typing marker")
    for group, members in groups.items():
        files.add(f"{group}/__init__.py", env.get_template("python/group_init.py.j2").render(
            group=group, ops=members, header=all_header),
                  f"group {group}'s __init__, for {', '.join(op.name for op in members)}", members[0].loc,
                  members[0].name)
    files.add("docs/index.md", env.get_template("docs/index.md.j2").render(
        groups=groups, header=banner(f"{specs}/", "<!--") + " -->"), "the reference pages' index")
    return dict(files)


def package_imports(ops: list[OpSpec], activations: bool = False) -> list[tuple[str, list[str]]]:
    """(module, names) the package's __init__ imports, sorted by module as linters expect
    (`._opgen` first, then `.abc.op` before `.activations` before `.nn.op`). `_opgen` comes first
    so that code from an incompatible opgen is refused before any other module of it loads."""
    imports = [(f"{op.group.replace('/', '.')}.{op.snake_name}", [op.name, outputs_class(op.name), op.snake_name])
               for op in ops]
    imports += [("activations", ["Activation", "ActivationLike"])] if activations else []
    return [("_opgen", ["OPGEN_VERSION"]), *sorted(imports)]


def exported_names(ops: list[OpSpec], activations: bool = False) -> list[str]:
    """The package's __all__, in the order linters expect (isort style: CONSTANTS, Classes, functions)."""
    names = ["OPGEN_VERSION", "Scope"] + [n for op in ops for n in (op.name, outputs_class(op.name), op.snake_name)]
    names += ["Activation", "ActivationLike"] if activations else []
    return sorted(names, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n))


def render_kernel(env: jinja2.Environment, op: OpSpec, template_roots: Sequence[Path]) -> str:
    """The .cu of the module holding `op`'s kernels, as if `op` were its only member."""
    return render_module(env, modules.KernelModule(op.kernel.source, (op,)), template_roots)  # type: ignore[union-attr]


def render_module(env: jinja2.Environment, module: modules.KernelModule, template_roots: Sequence[Path]) -> str:
    """The module's .cu: its kernel template once, with `#line` directives naming the template's
    own lines (linemarks.py), then each member's entry points; every member's launch steps checked
    against their device functions (kernel_check.py), and the device code for 32-bit index
    arithmetic over the sizes any member passes (index_width.py). Paths are those of the project
    `make_env` was given."""
    project = env.globals.get("project")
    project = project if isinstance(project, Project) else own_project()
    first = module.ops[0]
    name = f"kernels/{module.source}"
    file = str(kernel_file(first, template_roots, project.root))
    marked, marking = _marked(env, template_roots, project)
    slots = activation_library(env).slots
    text = linemarks.resume(module_text(marked, module), f"{env.globals['package_path']}/{module.path}")
    sizes: dict[str, frozenset[int]] = {}
    for op in module.ops:
        kernel_check.check_kernel(op, text, marking.display_path(name, file), slots)
        for function, positions in kernel_check.size_params(op, slots).items():
            sizes[function] = sizes.get(function, frozenset()) | positions
    index_width.check(first, text, sizes)
    return with_manifest(module.ops, text, slots)


#: Each environment's overlay that serves kernel templates with their `#line`s, made once: its
#: templates compile once for every op (the shared headers and op.cu.j2 would compile per op).
_MARKED: weakref.WeakKeyDictionary[jinja2.Environment, tuple[jinja2.Environment, linemarks.MarkingLoader]] = (
    weakref.WeakKeyDictionary())


def _marked(env: jinja2.Environment, template_roots: Sequence[Path],
            project: Project) -> tuple[jinja2.Environment, linemarks.MarkingLoader]:
    if env not in _MARKED:
        marking = linemarks.MarkingLoader(env.loader or jinja2.FileSystemLoader([]), template_roots,
                                          lambda t: t.startswith("kernels/") and not t.endswith(".j2"), project.root)
        _MARKED[env] = env.overlay(loader=marking), marking
    return _MARKED[env]


def module_text(env: jinja2.Environment, module: modules.KernelModule) -> str:
    """The module as `env` renders it (`#line` directives only where its loader marks the
    templates), before `linemarks.resume` and the manifest: the header, the template once (it sees
    the activation library, not an op), each member's entry points."""
    slots = activation_library(env).slots
    body = env.get_template(f"kernels/{module.source}").render(op=module.ops[0])
    activations = any(a.type in (AttrType.ACTIVATION, AttrType.LIST_ACTIVATION) for op in module.ops for a in op.attrs)
    return env.get_template("kernels/module.cu.j2").render(
        ops=module.ops, body=body, activations=activations,
        entries={op.name: "\n".join(entrygen.entry_points(op, slots)) for op in module.ops},
        header=banner(", ".join(f"{env.globals['specs_path']}/{op.source}" for op in module.ops), "//"))


def with_manifest(ops: Sequence[OpSpec], text: str, slots: int) -> str:
    """The .cu with its manifest line at the end (after the entry points: no template line moves):
    every member's entry points as pygen wrote them, and the extern __shared__ arrays the kernel
    template declares, read once here with the scanner the manifest spares the runtime."""
    body = text if text.endswith("\n") else text + "\n"
    stated = entrygen.manifest(ops, slots, tuple(cxx.extern_shared(cxx.stream(body).tokens)))
    return body + manifest.line(stated, body)


def activation_library(env: jinja2.Environment) -> ActivationLibrary:
    """The activation library render_all put in the environment (an empty one outside it)."""
    library = env.globals.get("activation_library")
    return library if isinstance(library, ActivationLibrary) else ActivationLibrary()
