"""`#line` directives in generated kernels, so that compilers (g++ for the cpu backend, NVRTC),
debuggers and sanitizers name a kernel template's own `file:line` rather than a line of the
generated `.cu` (or of its copy in the kernel cache).

Kernel templates are Jinja templates: a line with a tag or an expression can become any number of
lines (a loop, an include) or none (a tag alone on its line). So the loader below hands Jinja each
kernel template with `#line N "templates/kernels/..."` inserted after every such line, and at its
start: lines without Jinja syntax come out one for one, and each directive re-synchronizes after
the lines that do not. The directive is left out where it would change the output's meaning or
land mid-line: after a line ending in `\\` (a macro continues), inside `{% raw %}`, `{% set %}`,
`{% filter %}`, `{% macro %}` and `{% call %}` blocks, inside a tag that spans lines, around
whitespace control (`{%-`, `-%}`), and after a block tag that ends a line of other text (Jinja
joins that line to the next). Lines there may be off until the next directive.

Paths are relative to the project's root (`shown_path`): a user's kernel is
`templates/kernels/<group>/<file>.cu` when its template folder is `<project>/templates`, and the
built-in templates are `codegen/templates/...` wherever opgen is installed (in opgen's own
repository that is also their path from its root). So the generated text does not depend on where
the project, its copy or opgen is, and `opgen check` passes for any copy of a project. The module's
own generated text (the header and each op's entry points) is named by its path in the generated
package, starting with the package's import name (`generated/rnn/cudnn_rnn.cu` for opgen's own
CudnnRNN ops: codegen/modules.py), wherever the package is written, through `RESUME` lines in
`kernels/module.cu.j2`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import jinja2

from codegen.runtime.line_map import LineMap as LineMap  # re-exported: kernel_check, index_width

#: A line of `kernels/module.cu.j2` where the module's generated text resumes: `resume` replaces it by a
#: `#line` directive naming the generated file.
RESUME = "#line OPGEN_RESUME"

_OPEN = re.compile(r"\{([%{#])(-?)")
_CLOSE = {"%": "%}", "{": "}}", "#": "#}"}
_BLOCK_TAG = re.compile(r"\{%-?\s*(\w+)")
#: Blocks whose text is not output where it stands (or not as is): no directive inside them.
_OPAQUE = {"raw", "set", "filter", "macro", "call"}


_OURS = re.compile(r'#line (\d+) "([^"\\]*)"')

#: The built-in templates, shown as `codegen/templates/...` (their path from the folder holding the
#: codegen package: the repository's root for opgen's own ops, site-packages for an installed opgen).
BUILTIN_TEMPLATES = Path(__file__).resolve().parent / "templates"


def shown_path(path: Path, root: Path | None, template_roots: Sequence[Path] = ()) -> str:
    """`path` (a file or folder) as generated text names it, the same for any copy of the project: a
    built-in template as `codegen/templates/...`; else its path from the project's `root` when it
    lies under it; else from the template folder it is in, starting with that folder's own name
    (`templates/kernels/x.cu`), or from its own name (a folder outside the project)."""
    path = path.resolve()
    if path.is_relative_to(BUILTIN_TEMPLATES):
        return path.relative_to(BUILTIN_TEMPLATES.parent.parent).as_posix()
    if root is not None and path.is_relative_to(root.resolve()):
        return path.relative_to(root.resolve()).as_posix()
    for folder in template_roots:
        folder = Path(folder).resolve()
        if path.is_relative_to(folder):
            return f"{folder.name}/{path.relative_to(folder).as_posix()}"
    return path.name


def directive(line: int, path: str) -> str:
    return f'#line {line} "{path}"'


def mark_template(source: str, path: str) -> str:
    """A kernel template's Jinja source with `#line` directives naming `path` (see the module)."""
    lines = source.split("\n")
    out = [directive(1, path)]
    open_tag: str | None = None  # the closer of a tag still open at the end of a line
    opaque: list[str] = []  # open blocks of _OPAQUE
    for number, line in enumerate(lines, 1):
        out.append(line)
        if number == len(lines):
            break
        jinja, trimmed, open_tag = _scan_line(line, open_tag, opaque)
        if not jinja or open_tag or opaque or line.rstrip().endswith("\\") or trimmed:
            continue
        if re.match(r"\s*\{[%{#]-", lines[number]):  # the next line's `{%-` would eat the newline
            continue
        out.append(directive(number + 1, path))
    text = "\n".join(out)
    return text if text.endswith("\n") else text + "\n"  # an include's last line stays a line


def _scan_line(line: str, open_tag: str | None, opaque: list[str]) -> tuple[bool, bool, str | None]:
    """(has Jinja syntax, a directive after it would be unsafe, the closer still open). Tracks
    the opaque blocks opened and closed on the line in `opaque`."""
    jinja, unsafe, pos = open_tag is not None, False, 0
    if open_tag is not None:
        end = line.find(open_tag)
        if end < 0:
            return True, True, open_tag
        pos, open_tag = end + len(open_tag), None
        unsafe = line[end - 1:end] == "-"
    while (m := _OPEN.search(line, pos)) is not None:
        jinja = True
        closer = _CLOSE[m.group(1)]
        unsafe = unsafe or m.group(2) == "-"
        tag = _BLOCK_TAG.match(line, m.start())
        if tag:
            name = tag.group(1)
            if name in _OPAQUE or (name == "set" and "=" not in line[m.end():line.find(closer, m.end())]):
                opaque.append(name)
            elif name.startswith("end") and opaque and opaque[-1] == name[3:]:
                opaque.pop()
        end = line.find(closer, m.end())
        if end < 0:
            return True, True, closer
        unsafe = unsafe or line[end - 1] == "-"
        pos = end + len(closer)
    stripped = line.rstrip()
    if jinja and stripped.endswith("%}"):  # trim_blocks eats this line's newline: safe only if it is all tags
        text_before = _OPEN.split(stripped)[0]
        unsafe = unsafe or bool(text_before.strip())
    return jinja, unsafe, None


def resume(text: str, path: str) -> str:
    """The rendered kernel with each RESUME line replaced by `#line` naming the line after it in
    `path` (the generated file, whose lines these are), and without the directives that change
    nothing: one followed by another, or one saying what the line after it already is."""
    lines = text.split("\n")
    out: list[str] = []
    here: tuple[str | None, int] = (None, 1)  # where the next line is, as the compiler counts
    for i, line in enumerate(lines):
        m = _OURS.fullmatch(line)
        if line == RESUME:
            target = (path, len(out) + 2)  # the line after this directive, counted in the output
        elif m is not None:
            target = (m.group(2), int(m.group(1)))
        else:
            out.append(line)
            here = (here[0], here[1] + 1)
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if target != here and following != RESUME and not _OURS.fullmatch(following):
            out.append(directive(target[1], target[0]))
            here = target
    return "\n".join(out)


class MarkingLoader(jinja2.BaseLoader):
    """Serves `base`'s templates; those `marked(name)` selects come with `#line` directives naming
    their file as `shown_path` does (relative to the project's `root`; without one, from the
    template folder's own name)."""

    def __init__(self, base: jinja2.BaseLoader, roots: Sequence[Path], marked: Callable[[str], bool],
                 root: Path | None = None) -> None:
        self.base, self.roots, self.marked = base, [Path(r).resolve() for r in roots], marked
        self.root = root

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str | None,
                                                                                    Callable[[], bool] | None]:
        source, filename, uptodate = self.base.get_source(environment, template)
        if self.marked(template):
            source = mark_template(source, self.display_path(template, filename))
        return source, filename, uptodate

    def display_path(self, template: str, filename: str | None) -> str:
        if filename is not None:
            return shown_path(Path(filename), self.root, self.roots)
        return f"templates/{template}"
