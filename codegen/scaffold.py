"""`opgen new OpName --group G`: a working starting point for a new op — a spec and its kernel
template (y = alpha·x), which the user then makes their own. Nothing is overwritten."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from codegen.naming import snake_case

OP_NAME_RE = re.compile(r"[A-Z][A-Za-z0-9]*")
GROUP_RE = re.compile(r"[a-z][a-z0-9_]*")


class ScaffoldError(ValueError):
    """A bad name or group, or a file that already exists."""


def scaffold_files(name: str, group: str, specs: Path, templates: Path) -> dict[Path, str]:
    """The new files' paths and texts, or ScaffoldError."""
    if not OP_NAME_RE.fullmatch(name):
        raise ScaffoldError(f"op name {name!r} is not valid: expected CamelCase like MyOp ({OP_NAME_RE.pattern})")
    if not GROUP_RE.fullmatch(group):
        raise ScaffoldError(f"group {group!r} is not valid: expected lower_case like nn ({GROUP_RE.pattern})")
    snake = snake_case(name)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).resolve().parent /
                                                                "templates" / "scaffold")),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    context = {"name": name, "group": group, "snake": snake}
    files = {specs / group / f"{snake}.yaml": env.get_template("op.yaml.j2").render(context),
             templates / "kernels" / group / f"{snake}.cu": env.get_template("kernel.cu.j2").render(context)}
    existing = [str(p) for p in files if p.exists()]
    if existing:
        raise ScaffoldError(f"{', '.join(existing)} already exist(s); nothing was written")
    return files


def write_scaffold(files: dict[Path, str]) -> None:
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
