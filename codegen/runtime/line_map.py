"""A kernel source's `#line` directives read back: which template `file:line` each physical line of
a generated kernel is. The runtime reads them to name a kernel's own line in a sanitizer report
(host_sanitize.py); the compiler's checks (kernel_check, index_width) read them through
codegen.linemarks, which writes the directives. No Jinja here: the runtime imports this module."""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_DIRECTIVE = re.compile(r'#\s*(?:line\s+)?(\d+)(?:\s+"((?:\\.|[^"\\])*)")?\s*$')


@dataclass(frozen=True)
class SourceLine:
    """A line of a source file, shown as `file:line` (also codegen.model.Loc: where a spec says something)."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class LineMap:
    """A text's physical lines → the file:line its `#line` directives say they are, and back."""

    def __init__(self, default_file: str, text: str | None = None) -> None:
        self.default_file = default_file
        self.marks: list[tuple[int, int, str]] = []  # (physical line of the directive, N, file)
        for number, line in enumerate((text or "").split("\n"), 1):
            if line.lstrip().startswith("#"):
                self.add(number, line.strip())

    def add(self, physical: int, text: str) -> None:
        m = _LINE_DIRECTIVE.match(text)
        if m:
            file = m.group(2) if m.group(2) is not None else (self.marks[-1][2] if self.marks else self.default_file)
            self.marks.append((physical, int(m.group(1)), file))

    def __call__(self, physical: int) -> SourceLine:
        mark = next((m for m in reversed(self.marks) if m[0] < physical), None)
        if mark is None:
            return SourceLine(self.default_file, physical)
        return SourceLine(mark[2], mark[1] + physical - mark[0] - 1)

    @property
    def files(self) -> set[str]:
        return {file for _, _, file in self.marks}

    def physical(self, file: str, line: int) -> int | None:
        """The physical line that is `file:line` (the last one, if a loop repeats it)."""
        found = None
        for k, (at, first, name) in enumerate(self.marks):
            end = self.marks[k + 1][0] if k + 1 < len(self.marks) else None
            candidate = at + 1 + line - first
            if name == file and line >= first and (end is None or candidate < end):
                found = candidate
        return found
