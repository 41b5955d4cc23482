"""Shared vocabularies of a spec folder (`<specs>/_vocab/`): the activation library.

The activation library declares every activation function once (name, parameters with defaults,
a formula for people and the same function as a C expression). opgen ships one,
`codegen/_vocab/activations.yaml` (package data, read through importlib.resources); a spec folder
with its own `_vocab/activations.yaml` uses that one instead, whole (to extend the built-in
library, copy it: `builtin_activations_file()` says where it is). Every key is checked like an op
spec's, with `file:line` errors. The C expression lands in kernel source, so it is tokenised and
only numbers, `x`, the function's parameters, operators and an allow-list of math functions may
appear in it: a vocab entry cannot inject code.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from codegen import naming
from codegen.model import ActivationKind, ActivationLibrary, ActivationParam, Loc
from codegen.yamlnodes import MapReader, Node, SpecError, describe, parse_yaml

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

ACTIVATIONS_FILE = "_vocab/activations.yaml"
#: The built-in library as messages and generated files name it (the same installed or in a checkout).
BUILTIN_ACTIVATIONS = f"codegen/{ACTIVATIONS_FILE}"
#: Functions a formula's C expression may call: float math available to NVRTC and to the host
#: compiler (inside namespace opgen::act the vector math library's: templates/kernels/_vmath.cuh), and
#: the helpers that templates/kernels/_activations.cuh defines (names an activation may not take:
#: codegen/naming.py).
C_FUNCTIONS = naming.ACTIVATION_C_FUNCTIONS
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?f?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op><=|>=|==|!=|&&|\|\||[-+*/()?:<>!,]))")
MAX_TEXT = 500


def builtin_activations_file() -> Traversable:
    """opgen's own activation library, package data of `codegen`."""
    return importlib.resources.files("codegen").joinpath(*ACTIVATIONS_FILE.split("/"))


def load_activations(specs_root: Path) -> ActivationLibrary:
    """The activation library of a spec folder: its own `_vocab/activations.yaml` when it has one,
    else the built-in library."""
    path = specs_root / ACTIVATIONS_FILE
    if path.is_file():
        display = (Path(specs_root.name) / ACTIVATIONS_FILE).as_posix() if specs_root.name else ACTIVATIONS_FILE
        return _parse_library(path.read_bytes(), display)
    return builtin_activations()


@functools.cache
def builtin_activations() -> ActivationLibrary:
    """The built-in activation library (parsed once per process)."""
    return _parse_library(builtin_activations_file().read_bytes(), BUILTIN_ACTIVATIONS)


def _parse_library(data: bytes, display: str) -> ActivationLibrary:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(display, 1, f"not UTF-8 text: {exc.reason}") from None
    return _LibraryParser(display).parse(parse_yaml(text, display))


class _LibraryParser:
    def __init__(self, file: str):
        self.file = file

    def error(self, line: int, message: str) -> SpecError:
        return SpecError(self.file, line, message)

    def parse(self, root: Node) -> ActivationLibrary:
        r = MapReader(root, self.file, "activation library", None)
        items = r.pop("activations", required=True)
        r.finish()
        assert items is not None
        if not isinstance(items.value, list) or not items.value:
            raise self.error(items.line, f"activations: expected a non-empty list, got {describe(items.value)}")
        kinds: list[ActivationKind] = []
        for node in items.value:
            kind = self._kind(node, len(kinds))
            first = next((k for k in kinds if k.name == kind.name), None)
            if first is not None:
                raise self.error(node.line, f"activation {kind.name!r}: declared twice (first at line "
                                            f"{first.loc.line})")
            kinds.append(kind)
        return ActivationLibrary(tuple(kinds), self.file)

    def _text(self, node: Node | None, what: str, line: int) -> str:
        if node is None:
            raise self.error(line, f"{what}: missing")
        if not isinstance(node.value, str) or not node.value.strip():
            raise self.error(node.line, f"{what}: expected a non-empty string, got {describe(node.value)}")
        value = node.value.strip()
        if "\n" in value or len(value) > MAX_TEXT or any(ord(c) < 32 for c in value):
            raise self.error(node.line, f"{what}: must be one line of at most {MAX_TEXT} printable characters")
        return value

    def _name(self, node: Node | None, what: str, line: int) -> str:
        if node is None:
            raise self.error(line, f"{what}: missing required key 'name'")
        try:
            return naming.check_activation_name(node.value)
        except naming.InvalidName as exc:
            raise self.error(node.line, f"{what}: {exc}") from None

    def _kind(self, node: Node, index: int) -> ActivationKind:
        r = MapReader(node, self.file, "activation", None)
        name = self._name(r.pop("name"), "activation", node.line)
        what = r.what = f"activation {name!r}"
        params: list[ActivationParam] = []
        params_node = r.pop("params")
        if params_node is not None:
            if not isinstance(params_node.value, list):
                raise self.error(params_node.line, f"{what}: params: expected a list, got "
                                                   f"{describe(params_node.value)}")
            for p in params_node.value:
                param = self._param(p, what)
                if any(q.name == param.name for q in params):
                    raise self.error(p.line, f"{what}: parameter {param.name!r} is declared twice")
                params.append(param)
        formula = self._text(r.pop("formula"), f"{what}: formula", node.line)
        c_node = r.pop("c")
        c_expr = self._text(c_node, f"{what}: c", node.line)
        assert c_node is not None
        self._check_c(c_expr, {p.name for p in params}, c_node.line, what)
        r.finish()
        return ActivationKind(name, index, tuple(params), formula, c_expr, Loc(self.file, node.line))

    def _param(self, node: Node, what: str) -> ActivationParam:
        r = MapReader(node, self.file, f"{what}: parameter", None)
        name = self._name(r.pop("name"), f"{what}: parameter", node.line)
        pwhat = r.what = f"{what}: parameter {name!r}"
        values: dict[str, float | None] = {}
        for key in ("default", "min", "max"):
            n = r.pop(key, required=key == "default")
            if n is None:
                values[key] = None
                continue
            v = n.value
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise self.error(n.line, f"{pwhat}: {key}: {describe(v)} is not a finite number")
            values[key] = float(v)
        default, lo, hi = values["default"], values["min"], values["max"]
        assert default is not None
        if lo is not None and default < lo:
            raise self.error(node.line, f"{pwhat}: default {default!r} is below the minimum {lo}")
        if hi is not None and default > hi:
            raise self.error(node.line, f"{pwhat}: default {default!r} is above the maximum {hi}")
        doc_node = r.pop("doc")
        doc = self._text(doc_node, f"{pwhat}: doc", node.line) if doc_node is not None else ""
        r.finish()
        return ActivationParam(name, default, doc, Loc(self.file, node.line), lo, hi)

    def _check_c(self, text: str, params: set[str], line: int, what: str) -> None:
        """Only numbers, x, the parameters, operators and allowed calls; balanced parentheses."""
        if any(s in text for s in ("//", "/*", "*/")):
            raise self.error(line, f"{what}: c: comments are not allowed in a C expression")
        pos, depth, tokens = 0, 0, []
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if not text[pos:].strip():
                    break
                bad = text[pos:].strip()[0]
                raise self.error(line, f"{what}: c: character {bad!r} is not allowed in a C expression "
                                       f"(numbers, x, parameters, + - * / ?: comparisons, parentheses and calls)")
            pos = m.end()
            tokens.append((m.lastgroup, m.group(m.lastgroup or "")))
        for i, (kind, tok) in enumerate(tokens):
            nxt = tokens[i + 1][1] if i + 1 < len(tokens) else ""
            if kind == "name":
                if nxt == "(":
                    if tok not in C_FUNCTIONS:
                        raise self.error(line, f"{what}: c: unknown function {tok!r} (allowed: "
                                               f"{', '.join(sorted(C_FUNCTIONS))})")
                elif tok != "x" and tok not in params:
                    known = ", ".join(["x", *sorted(params)])
                    raise self.error(line, f"{what}: c: unknown name {tok!r} (known: {known})")
            elif tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth < 0:
                    raise self.error(line, f"{what}: c: unbalanced ')'")
        if depth:
            raise self.error(line, f"{what}: c: unbalanced '('")
        if not tokens:
            raise self.error(line, f"{what}: c: empty expression")
