"""Lets written twice: the same name and the same value in two ops that could share them (two
members of one family, or an op and its `gradient:` op). A family file holds such a let once
(docs/specs.md, "Families"); `opgen check` prints the count and tests/test_families.py holds
opgen's own specs to 0."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from codegen.model import OpSpec


def _pairs(ops: Iterable[OpSpec]) -> list[tuple[OpSpec, OpSpec]]:
    """The ops that could share lets: an op and its gradient op, and any two members of a family."""
    ops = list(ops)
    by_name = {op.name: op for op in ops}
    families: dict[str, list[str]] = {}
    for op in ops:
        if op.family is not None:
            families.setdefault(op.family, []).append(op.name)
    pairs = [(op.name, op.gradient) for op in ops if op.gradient in by_name]
    pairs += [p for members in families.values() for p in combinations(members, 2)]
    unique = sorted({(min(a, b), max(a, b)) for a, b in pairs})
    return [(by_name[a], by_name[b]) for a, b in unique]


def shared_lets(ops: Iterable[OpSpec]) -> list[tuple[str, str, str]]:
    """(op, other op, let) for each let that both ops declare themselves, with the same value.
    A let both got from their family is declared once and not counted."""
    out = []
    for a, b in _pairs(ops):
        theirs = {let.name: let.value for let in b.own(b.lets)}
        out += [(a.name, b.name, let.name) for let in a.own(a.lets) if theirs.get(let.name) == let.value]
    return out
