"""Where a table of a TOML file and each of its keys are written, for messages that name `file:line`.

tomllib gives the data without positions; which table and keys exist is always decided by that
data (the caller's), and this only finds the lines. A table can be written as a header
(`[tool.opgen]`), as dotted keys under a parent (`[tool]` then `opgen.out = ...`, or `tool.opgen.out
= ...` at the top), or as an inline table (`opgen = {out = "x"}`); each key's line is the first line
that defines it, and a key of an inline table is on the inline table's line. Lines inside multi-line
strings are skipped; keys are read as TOML reads them (quoted or bare, spaces around dots).
"""

from __future__ import annotations

import re
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=")
_MULTILINE = re.compile(r'"""|\'\'\'')


def _path(dotted: str) -> tuple[str, ...]:
    """A dotted key as TOML reads it: `tool . "opgen"` → ("tool", "opgen")."""
    data = tomllib.loads(f"{dotted} = 0")
    path: list[str] = []
    while isinstance(data, dict):
        ((key, data),) = data.items()
        path.append(key)
    return tuple(path)


def table_lines(text: str, table: tuple[str, ...]) -> tuple[int, dict[str, int]]:
    """The line where `table` is first defined (0: nowhere) and the line of each key directly in it
    that is written on a line of its own (the others: the table's line)."""
    start = 0
    keys: dict[str, int] = {}
    current: tuple[str, ...] = ()
    open_string: str | None = None  # the delimiter of a multi-line string that is still open
    n = len(table)
    for number, line in enumerate(text.splitlines(), 1):
        if open_string is not None:
            if open_string in line:
                open_string = None
            continue
        header, assign = _HEADER.match(line), _ASSIGN.match(line)
        if header is None:
            quotes = _MULTILINE.findall(line[assign.end():] if assign else line)
            if len(quotes) % 2:
                open_string = quotes[-1]
        if header:
            current = full = _path(header.group(1))
        elif assign:
            full = current + _path(assign.group(1))
        else:
            continue
        if full[:n] == table and len(full) > n:
            keys.setdefault(full[n], number)
            start = start or number
        elif table[:len(full)] == full and (header is None or full == table):
            start = start or number  # the table's header, or an inline table holding it
    return start, keys
