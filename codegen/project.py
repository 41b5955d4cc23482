"""A project of opgen ops: where its specs and templates are, where its generated package goes, the
package's import name and its torch namespace. Read from `[tool.opgen]` in the project's
pyproject.toml (see `find_project`), overridden by command-line flags.

Everything that names the generated package (wrappers, the torch registration, docs, `#line`
paths) takes it from here, never from a constant: a user's package is theirs.

    [tool.opgen]
    specs = "specs"                 # the spec folder (default: specs)
    templates = ["templates"]       # template folders searched before opgen's built-in ones
                                    # (default: templates, when that folder exists)
    out = "myops"                   # the generated package's folder (default: the package name)
    package = "myops"               # its import name (default: the out folder's name)
    torch-namespace = "myops"       # torch.ops.<namespace>.<op> (default: the package name)

Paths in the file are relative to the folder holding it; paths given as flags to the current
directory. The file is the nearest pyproject.toml whose TOML data has a `tool.opgen` table, from the
current directory upward (`[tool.opgen]`, or `opgen = {...}` or `opgen.key = ...` under `[tool]`: the
same data). A bad table is a `ProjectError` naming `file:line`.

opgen's own files (the `codegen` package, its built-in templates and activation library, and the
`generated` package of opgen's own ops beside it) are package data, found through
importlib.resources; no command writes inside them (`check_writable`) except in opgen's own
repository, whose pyproject.toml is the project.
"""

from __future__ import annotations

import errno
import importlib.resources
import importlib.util
import keyword
import os
import re
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen.toml_lines import table_lines, tomllib  # (tomllib, or tomli on Python 3.10)

CONFIG_FILE = "pyproject.toml"
TABLE = "tool.opgen"
#: The keys of `[tool.opgen]`.
KEYS = ("specs", "templates", "out", "package", "torch-namespace")
#: Namespaces under `torch.ops` that belong to PyTorch (its operator libraries, and the names
#: `torch.ops` itself defines: `torch.ops.load_library` is a method, not a namespace). `prim` is
#: the one torch.library refuses; the others would mix a project's ops with PyTorch's own.
TORCH_NAMESPACES = frozenset({
    "aten", "prim", "prims", "_prims", "_refs", "quantized", "_quantized", "quantization", "quantized_decomposed",
    "mkl", "mkldnn", "mkldnn_prepacked", "onednn", "sparse", "inductor", "inductor_prims", "higher_order",
    "profiler", "debugprims", "rngprims", "debug_mode_ops", "export", "static_runtime", "symm_mem", "c10d",
    "_c10d_functional", "_c10d_functional_autograd", "_dtensor", "_native", "_test", "cuda", "torch", "ops",
    "load_library", "import_module", "loaded_libraries", "_dir"})
#: The longest name of a file or folder (bytes of UTF-8) that common file systems take (ext4, XFS,
#: APFS, NTFS): a package's name is its folder's.
NAME_MAX = 255
#: opgen's own ops' namespace: taken by `import generated.torch` (the ops opgen ships).
OPGEN_NAMESPACE = "opgen"


class ProjectError(Exception):
    """A bad `[tool.opgen]` table or flag, or a path no command may write: one line, with
    `file:line` where there is a file."""

    def __init__(self, message: str, file: Path | str | None = None, line: int = 0):
        self.file, self.line, self.message = file, line, message
        super().__init__(f"{file}:{line}: {message}" if file is not None else message)


def builtin_path(*parts: str) -> Path:
    """A file or folder of the `codegen` package's data (templates, the activation library), as a
    filesystem path. opgen runs from a folder on disk (a checkout or an installed wheel), not from
    a zip archive: its kernels' headers are compiled from these files."""
    resource = importlib.resources.files("codegen").joinpath(*parts)
    if not isinstance(resource, Path):  # pragma: no cover - a zipped install
        raise ProjectError(f"opgen's package data is not on disk ({resource}): install opgen unzipped")
    return resource


#: The built-in templates (python, docs, kernels' shared headers, scaffolds), searched after a
#: project's own template folders.
BUILTIN_TEMPLATES = builtin_path("templates")
#: The `codegen` package folder and the folder holding it (a checkout's root, or site-packages).
CODEGEN_DIR = builtin_path()
OPGEN_HOME = CODEGEN_DIR.parent


def opgen_own_config() -> Path:
    """Where opgen's own repository keeps its pyproject.toml (absent in an installed opgen)."""
    return OPGEN_HOME / CONFIG_FILE


def opgen_files() -> list[Path]:
    """The folders of the installed opgen: the codegen package and the `generated` package of
    opgen's own ops beside it."""
    return [CODEGEN_DIR, OPGEN_HOME / "generated"]


@dataclass(frozen=True)
class Overrides:
    """What command-line flags set (None or empty: not given). Paths relative to the current
    directory."""

    specs: Path | None = None
    templates: tuple[Path, ...] = ()
    out: Path | None = None
    package: str | None = None
    torch_namespace: str | None = None


@dataclass(frozen=True)
class Project:
    root: Path  # the folder holding the project's pyproject.toml (or the current directory)
    specs: Path  # the spec folder (absolute)
    templates: tuple[Path, ...]  # the project's template folders (absolute), searched before the built-ins
    out: Path  # the generated package's folder (absolute)
    package: str  # its import name ("generated" for opgen's own ops)
    torch_namespace: str  # torch.ops.<namespace>.<op> (default: the package name)
    config: Path | None = field(default=None, compare=False)  # the pyproject.toml read; None: flags only

    def relative(self, path: Path) -> str:
        """`path` as the generated files and messages show it: relative to the project's root when it
        lies under it (POSIX separators), else as given."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()

    @property
    def template_roots(self) -> list[Path]:
        """Where templates are looked up, in order: the project's folders, then the built-in ones."""
        return template_roots(self.templates)

    @property
    def is_opgen_itself(self) -> bool:
        """Whether this is opgen's own repository (its ops, `generated/`, its built-in templates)."""
        return self.config is not None and _same(self.config, opgen_own_config())

    def check_writable(self, path: Path, instead: str) -> None:
        """Refuse to write `path` when it lies inside the installed opgen (the codegen package or
        opgen's own `generated` package), unless this is opgen's own repository. `instead` says
        what to pass."""
        if self.is_opgen_itself:
            return
        resolved = path.resolve()
        for folder in opgen_files():
            if resolved == folder.resolve() or resolved.is_relative_to(folder.resolve()):
                raise ProjectError(f"refusing to write {path}: it is inside the installed opgen ({folder}); "
                                   f"{instead}")


def template_roots(extra: Sequence[Path] | None) -> list[Path]:
    """A project's template folders first (their kernels), then the built-in templates."""
    roots = [p.resolve() for p in (extra or [])]
    return roots + ([BUILTIN_TEMPLATES] if BUILTIN_TEMPLATES.resolve() not in roots else [])


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:  # pragma: no cover
        return False


# -- finding and reading the config ---------------------------------------------------------------------
#: Text that may hold the table in a file that is not valid TOML (its error is then reported, rather
#: than a project above it silently taken): `[tool.opgen]`, `tool.opgen.x = `, `opgen = ` or `opgen.x = `.
_OPGEN_KEY = r"""(?:opgen|"opgen"|'opgen')"""
_MAYBE_TABLE_RE = re.compile(rf"^\s*(?:\[\s*tool\s*\.\s*{_OPGEN_KEY}\s*[\].]|(?:tool\s*\.\s*)?{_OPGEN_KEY}\s*[.=])",
                             re.MULTILINE)


def _parse(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def find_config(cwd: Path) -> Path | None:
    """The nearest pyproject.toml whose data has a `tool.opgen` table (however the TOML writes it),
    from `cwd` upward (None: none). A file that is not valid TOML counts when its text looks as if it
    had one, so that its error is reported."""
    for folder in [cwd, *cwd.parents]:
        path = folder / CONFIG_FILE
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        data = _parse(text)
        if data is None:
            if _MAYBE_TABLE_RE.search(text):
                return path
        elif isinstance(data.get("tool"), dict) and "opgen" in data["tool"]:
            return path
    return None


def read_config(path: Path) -> tuple[dict[str, Any], dict[str, int], int]:
    """The `[tool.opgen]` table of a pyproject.toml, each key's line and the table's line."""
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ProjectError(f"not valid TOML: {message}", path, int(m.group(1)) if m else 1) from None
    table = data.get("tool", {}).get("opgen")
    header, lines = table_lines(text, ("tool", "opgen"))
    header = header or 1
    if not isinstance(table, dict):
        raise ProjectError("[tool.opgen] must be a table", path, header)
    return table, lines, header


# -- the project ---------------------------------------------------------------------------------------
def find_project(cwd: Path | None = None, overrides: Overrides | None = None, *,
                 require_out: bool = True) -> Project:
    """The project a command in `cwd` works on: `[tool.opgen]` of the nearest pyproject.toml that
    has one (see `find_config`), each key overridden by its flag. Without such a file the project
    is the flags alone, in `cwd`. `require_out=False` (commands that only read specs) accepts a
    project with no output folder (it gets `<cwd>/generated` and the package `generated`, never
    written). ProjectError on a bad table or flag."""
    cwd = (cwd or Path.cwd()).resolve()
    flags = overrides or Overrides()
    config = find_config(cwd)
    table: dict[str, Any] = {}
    lines: dict[str, int] = {}
    header = 0
    root = cwd
    if config is not None:
        table, lines, header = read_config(config)
        root = config.parent.resolve()
        unknown = [k for k in table if k not in KEYS]
        if unknown:
            key = unknown[0]
            close = [k for k in KEYS if k.replace("-", "_") == key.replace("-", "_")]
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ProjectError(f"[tool.opgen]: unknown key {key!r} ({hint}known: {', '.join(KEYS)})", config,
                               lines.get(key, header))

    def where(key: str) -> tuple[Path | None, int]:
        return config, lines.get(key, header)

    def text_value(key: str) -> str | None:
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, str) or not value.strip():
            raise ProjectError(f"[tool.opgen] {key}: expected a non-empty string, got {value!r}", *where(key))
        return value

    def folder(key: str, value: str) -> Path:
        path = path_value(root, value, f"[tool.opgen] {key}", *where(key))
        if not path.is_dir():
            raise ProjectError(f"[tool.opgen] {key}: folder {value!r} not found (in {root})", *where(key))
        return path

    # specs
    if flags.specs is not None:
        specs = path_value(cwd, flags.specs, "--specs")
    elif (value := text_value("specs")) is not None:
        specs = folder("specs", value)
    else:
        specs = (root / "specs").resolve()
    # templates
    templates: tuple[Path, ...]
    if flags.templates:
        templates = tuple(path_value(cwd, t, "--templates") for t in flags.templates)
    elif "templates" in table:
        value = table["templates"]
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(t, str) and t.strip() for t in items):
            raise ProjectError(f"[tool.opgen] templates: expected a folder or a list of folders, got {value!r}",
                               *where("templates"))
        templates = tuple(folder("templates", t) for t in items)
    else:
        default = root / "templates"
        templates = (default.resolve(),) if config is not None and default.is_dir() else ()
    # the package and its folder
    config_out = text_value("out")
    config_out_path: Path | None = None
    if config_out is not None:
        config_out_path = path_value(root, config_out, "[tool.opgen] out", *where("out"))
        if flags.out is None and not config_out_path.is_relative_to(root):
            # the file may come from anyone (a cloned repository): it writes inside its own folder
            # only; a flag the user typed may point anywhere
            raise ProjectError(f"[tool.opgen] out: {shown_value(config_out)} is {config_out_path}, outside the "
                               f"project's folder {root}: choose a folder inside it (a folder elsewhere: pass "
                               f"--out DIR)", *where("out"))
    config_package = text_value("package")
    if config_package is not None:
        check_package_name(config_package, "[tool.opgen] package", *where("package"))
    package_from: tuple[str, Path | None, int]
    if flags.package is not None:
        package, package_from = flags.package, ("--package", None, 0)
    elif config_package is not None:
        package, package_from = config_package, ("[tool.opgen] package", *where("package"))
    else:
        package, package_from = "", ("", None, 0)
    if flags.out is not None:
        out: Path | None = path_value(cwd, flags.out, "--out")
    elif config_out_path is not None:
        out = config_out_path
    elif package and config is not None:
        out = (root / package).resolve()  # the package's folder, beside pyproject.toml
    else:
        out = None
    if out is None:
        if require_out:
            if config is not None:
                raise ProjectError("[tool.opgen] needs `package` (the generated package's import name) or `out` "
                                   "(its folder)", config, header)
            raise ProjectError(f"no output folder: no [tool.opgen] in a {CONFIG_FILE} in {cwd} or above it, and "
                               f"no --out; run `opgen init DIR` to start a project of your own, or pass --out DIR "
                               f"(the generated package's folder)")
        # never written: list and show read specs only
        return Project(root, specs, templates, cwd / "generated", package or "generated", package or "generated",
                       config)
    if not package:
        package = out.name
        package_from = ("--out", None, 0) if flags.out is not None else ("[tool.opgen] out", *where("out"))
    what, file, line = package_from
    configured_outs = [out] + ([config_out_path] if config_out_path is not None else []) + (
        [(root / config_package).resolve()] if config_package is not None else [])
    check_package(package, what, configured_outs, file, line)
    # the torch namespace
    ns_where: tuple[str, Path | None, int]
    if flags.torch_namespace is not None:
        namespace, ns_where = flags.torch_namespace, ("--torch-namespace", None, 0)
    elif (value := text_value("torch-namespace")) is not None:
        namespace, ns_where = value, ("[tool.opgen] torch-namespace", *where("torch-namespace"))
    else:
        namespace, ns_where = package, (f"the torch namespace (the package name, {what})", file, line)
    project = Project(root, specs, templates, out, package, namespace, config)
    check_namespace(namespace, ns_where[0], project.is_opgen_itself, ns_where[1], ns_where[2])
    return project


def shown_value(value: str) -> str:
    """A value as a one-line message shows it: its repr, cut short when long."""
    return repr(value) if len(value) <= 200 else f"{value[:60]!r}... ({len(value)} characters)"


def path_value(base: Path, value: str | Path, what: str, file: Path | None = None, line: int = 0) -> Path:
    """`value` (a folder's path, relative to `base`) resolved, or a ProjectError when no file system
    takes it: a control character (a NUL byte), a name longer than NAME_MAX, a path too long."""
    text = str(value)
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise ProjectError(f"{what}: {shown_value(text)} holds the control character {bad!r}: a folder's path "
                           f"cannot", file, line)
    long = next((part for part in Path(text).parts if len(part.encode("utf-8", "surrogatepass")) > NAME_MAX), None)
    if long is not None:
        part = "" if long == text else f" ({shown_value(long)})"
        raise ProjectError(f"{what}: {shown_value(text)} has a name of {len(long.encode('utf-8', 'surrogatepass'))} "
                           f"bytes{part}: a file system takes at most {NAME_MAX}", file, line)
    path = (base / text).resolve()
    try:
        os.stat(path)
    except OSError as exc:  # a folder not made yet is fine; a path too long for the system is not
        if exc.errno == errno.ENAMETOOLONG:
            raise ProjectError(f"{what}: {shown_value(text)}: {exc.strerror}", file, line) from None
    return path


def check_package_name(name: str, what: str, file: Path | None = None, line: int = 0) -> None:
    """A package name must be an identifier as Python imports it (NFKC-normalised: `import ｐ`
    imports p), short enough to name its folder, and not a standard module's."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ProjectError(f"{what}: {shown_value(name)} is not a valid package name (a Python identifier: letters, "
                           f"digits and _, not starting with a digit)", file, line)
    size = len(name.encode("utf-8"))
    if size > NAME_MAX:
        raise ProjectError(f"{what}: package name {shown_value(name)} is {size} bytes long: it names the package's "
                           f"folder, and a file system takes at most {NAME_MAX}", file, line)
    imported = unicodedata.normalize("NFKC", name)
    if imported != name:
        raise ProjectError(f"{what}: package name {name!r} is not the name Python imports: Python reads "
                           f"identifiers NFKC-normalised, so `import {name}` looks for {imported!r}; write "
                           f"{imported!r}", file, line)
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        raise ProjectError(f"{what}: package name {name!r} shadows Python's standard module {name}: choose "
                           f"another", file, line)


def check_package(name: str, what: str, outs: Sequence[Path], file: Path | None = None, line: int = 0) -> None:
    """A package name must be valid (`check_package_name`) and must not shadow a module installed
    elsewhere than the project's own output folder (`numpy`, `codegen`, opgen's own `generated`)."""
    check_package_name(name, what, file, line)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # pragma: no cover - a broken finder
        spec = None
    if spec is None:
        return
    locations = [Path(p).resolve() for p in (spec.submodule_search_locations or [])]
    if any(loc == o.resolve() for loc in locations for o in outs):
        return  # the project's own package, already generated (and perhaps installed)
    found = locations[0] if locations else (spec.origin or "built in")
    raise ProjectError(f"{what}: package name {name!r} shadows the installed module {name} ({found}): choose "
                       f"another", file, line)


def check_namespace(name: str, what: str, opgen_itself: bool = False, file: Path | None = None,
                    line: int = 0) -> None:
    """A torch namespace must be an ASCII identifier (`torch.ops.<namespace>`; torch.library takes no
    other), not one of PyTorch's own, and not opgen's own (`opgen`, taken by opgen's built-in ops)
    outside opgen's repository."""
    if not (name.isascii() and name.isidentifier()) or keyword.iskeyword(name):
        raise ProjectError(f"{what}: {shown_value(name)} is not a valid torch namespace (torch.ops.<namespace> needs "
                           f"an ASCII identifier: letters a-z and A-Z, digits and _, not starting with a digit)",
                           file, line)
    if name in TORCH_NAMESPACES:
        raise ProjectError(f"{what}: torch namespace {name!r} belongs to PyTorch (torch.ops.{name}): choose "
                           f"another", file, line)
    if name == OPGEN_NAMESPACE and not opgen_itself:
        raise ProjectError(f"{what}: torch namespace {name!r} is opgen's own ops' (import generated.torch): "
                           f"choose another", file, line)
