"""YAML with line numbers: a thin reader over PyYAML's node tree.

PyYAML's `safe_load` forgets where values came from and silently keeps the last of duplicate
keys. Specs need both: every error names `file:line`, and a duplicate key is an error. So we
compose the node tree and convert it ourselves into `Node`s that remember their line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import yaml


class SpecError(Exception):
    """A spec problem, always rendered as `file:line: op X: message`."""

    def __init__(self, file: str, line: int, message: str, op: str | None = None):
        self.file, self.line, self.op, self.message = file, line, op, message
        where = f"op {op}: " if op else ""
        super().__init__(f"{file}:{line}: {where}{message}")


@dataclass
class Node:
    value: Any  # dict[str, Node] | list[Node] | scalar
    line: int
    #: keys of a `{...}` mapping that follow an unquoted string value on the same line: probably
    #: the rest of that value, cut at a comma (`{doc: Mean, weight and bias}`)
    split_keys: frozenset[str] = frozenset()


#: Why a key can be the tail of an unquoted value (see Node.split_keys).
SPLIT_HINT = "(a comma inside an unquoted value ends it in a {...} mapping: quote the value)"


_scalar_constructor = yaml.SafeLoader(stream="")

#: How deep a spec's mappings and lists may nest (a spec needs a handful of levels): PyYAML's
#: composer and this module recurse once per level.
MAX_DEPTH = 64


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing nesting deeper than MAX_DEPTH before it recurses into it."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _unencodable(text: str) -> str | None:
    """The character of `text` that UTF-8 cannot encode (a lone surrogate), as an escape; None when
    every one can."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ascii(text[exc.start])
    return None


def _convert(node: yaml.Node, file: str, seen: set[int] | None = None) -> Node:
    # An alias is the same node object met twice; refusing it keeps a spec's meaning visible at
    # each place and makes "billion laughs" alias bombs impossible.
    seen = set() if seen is None else seen
    if not isinstance(node, yaml.ScalarNode):
        if id(node) in seen:
            raise SpecError(file, node.start_mark.line + 1, "YAML anchors and aliases are not supported in specs")
        seen.add(id(node))
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Node] = {}
        split: set[str] = set()
        previous: yaml.Node | None = None
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(file, key_node.start_mark.line + 1, "mapping keys must be plain strings")
            key = key_node.value
            bad = _unencodable(key)
            if bad is not None:
                raise SpecError(file, key_node.start_mark.line + 1, f"a key holds a lone surrogate {bad}, which "
                                                                    f"cannot be encoded as UTF-8 (write the character, "
                                                                    f"or a pair of \\u escapes)")
            if key in out:
                raise SpecError(
                    file, key_node.start_mark.line + 1,
                    f"duplicate key {key!r} (first at line {out[key].line})")
            out[key] = _convert(value_node, file, seen)
            if node.flow_style and _unquoted_text(previous) and previous.end_mark.line == key_node.start_mark.line:
                split.add(key)
            previous = value_node
        return Node(out, line, frozenset(split))
    if isinstance(node, yaml.SequenceNode):
        return Node([_convert(n, file, seen) for n in node.value], line)
    assert isinstance(node, yaml.ScalarNode)
    bad = _unencodable(node.value)
    if bad is not None:
        raise SpecError(file, line, f"text with a lone surrogate {bad}, which cannot be encoded as UTF-8 (write "
                                    f"the character, or a pair of \\u escapes)")
    try:
        value = _scalar_constructor.construct_object(node)
    except ValueError as exc:  # an integer of more digits than Python converts (4300)
        raise SpecError(file, line, f"invalid YAML value: {exc}") from None
    return Node(value, line)


def _unquoted_text(node: yaml.Node | None) -> TypeGuard[yaml.ScalarNode]:
    # a plain scalar's style: None from PyYAML's composer, "" from libyaml's
    return isinstance(node, yaml.ScalarNode) and not node.style and node.tag == "tag:yaml.org,2002:str"


def _nesting(text: str) -> int:
    """How deep the text's mappings and lists nest, from libyaml's events (no recursion)."""
    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return deepest


def _compose(text: str) -> yaml.Node | None:
    """The node tree, from libyaml's composer when it reads the text within MAX_DEPTH (a spec
    folder 15x faster; its nodes convert alike); any other text goes to PyYAML's own composer,
    whose refusals (and their lines) the error messages are written for."""
    if yaml.__with_libyaml__:
        try:
            if _nesting(text) <= MAX_DEPTH:
                return yaml.compose(text, Loader=yaml.CSafeLoader)
        except Exception:  # noqa: BLE001 (anything libyaml refuses is judged, and reported, below)
            pass
    return yaml.compose(text, Loader=_Loader)


def parse_yaml(text: str, file: str) -> Node:
    try:
        root = _compose(text)
    except _TooDeep as exc:
        raise SpecError(file, exc.line, f"mappings and lists nested deeper than {MAX_DEPTH} levels") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecError(file, line, f"invalid YAML: {problem}") from None
    if root is None:
        raise SpecError(file, 1, "empty spec file")
    try:
        return _convert(root, file)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        raise SpecError(file, (mark.line + 1) if mark else 1, f"invalid YAML value: {exc.problem}") from None


class MapReader:
    """Pops keys from a mapping node; `finish()` rejects whatever was not popped."""

    def __init__(self, node: Node, file: str, what: str, op: str | None):
        self.file, self.what, self.op, self.line = file, what, op, node.line
        if not isinstance(node.value, dict):
            raise self.error(node.line, f"{what} must be a mapping, got {describe(node.value)}")
        self.items: dict[str, Node] = dict(node.value)
        self.split_keys = node.split_keys
        self.allowed: list[str] = []

    def error(self, line: int, message: str) -> SpecError:
        return SpecError(self.file, line, message, self.op)

    def pop(self, key: str, required: bool = False) -> Node | None:
        self.allowed.append(key)
        node = self.items.pop(key, None)
        if node is None and required:
            raise self.error(self.line, f"{self.what}: missing required key {key!r}")
        return node

    def pop_str(self, key: str, required: bool = False, default: str | None = None) -> str | None:
        node = self.pop(key, required)
        if node is None:
            return default
        if not isinstance(node.value, str):
            raise self.error(node.line, f"{self.what}: {key!r} must be a string, got {describe(node.value)}")
        return node.value

    def finish(self) -> None:
        if self.items:
            key, node = next(iter(self.items.items()))
            allowed = ", ".join(sorted(self.allowed))
            hint = f" {SPLIT_HINT}" if key in self.split_keys else ""
            raise self.error(node.line, f"{self.what}: unknown key {key!r} (allowed: {allowed}){hint}")


def describe(value: Any) -> str:
    """A value as an error message shows it: its YAML kind and, for scalars, itself."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    return f"{type(value).__name__} {value!r}"


def plain(node: Node) -> Any:
    """The node's value with line numbers stripped (for lists of scalars)."""
    if isinstance(node.value, dict):
        return {k: plain(v) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [plain(v) for v in node.value]
    return node.value
