"""Typing of conditions and let values: the parsed tree (shapes.parse_condition) checked against the
op's names and rewritten so that each test of a non-int name is an `Is`.

Types: an int (shape symbols, int attrs, int lets, params, loop variables; float attrs compare like
numbers), a flag (a comparison, a boolean let, a variant name: 0 or 1 where an int is needed, as in
C), a bool (`and`/`or`/`not`, a bool attr, a test of an enum/string attr, `backend` or a type
variable: never arithmetic). Enum and string attrs, `backend` and type variables are compared with
`==`/`!=` to one of their values written bare (`rnn_mode == lstm`, `backend == cuda`,
`T == float64`). A refusal raises ConditionTypeError; the loader adds the file:line and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codegen.shapes import COMPARISON_OPS, BinOp, Call, Expr, Is, Logic, Neg, Not, Num, Sym, to_text

INT, FLAG, BOOL = "int", "flag", "bool"


class ConditionTypeError(ValueError):
    """An ill-typed condition or let value; the message says what was expected and what was given."""


@dataclass(frozen=True)
class Named:
    """What a name is to a condition: `kind` one of "int", "flag", "bool" (a bool attr) or "value"
    (compared with one of `values`: an enum attr, `backend`, a type variable; `values` None: a
    string attr, any bare word); `what` names it in messages ("enum attr", "type variable")."""

    kind: str
    what: str = ""
    values: tuple[str, ...] | None = None


def typed(e: Expr, names: Mapping[str, Named]) -> tuple[Expr, str]:
    """(`e` with each test of a non-int name an `Is`, its type). Names not in `names` are ints
    (the loader's binding check reports unbound ones)."""
    if isinstance(e, Num):
        return e, INT
    if isinstance(e, Is):  # already typed (typing is idempotent)
        return e, BOOL
    if isinstance(e, Sym):
        named = names.get(e.name, Named(INT))
        if named.kind == "bool":
            return Is(e.name, True), BOOL
        if named.kind == "value":
            raise ConditionTypeError(f"{e.name!r} is {_a(named.what)}: compare it with == or != to one of its "
                                     f"values{_values(named)}")
        return e, named.kind
    if isinstance(e, Not):
        operand, _ = _truth(e.operand, names, "not")
        return Not(operand), BOOL
    if isinstance(e, Logic):
        return Logic(e.op, tuple(_truth(a, names, e.op)[0] for a in e.args)), BOOL
    if isinstance(e, BinOp) and e.op in COMPARISON_OPS:
        return _comparison(e, names)
    if isinstance(e, (BinOp, Neg, Call)):
        return _arithmetic(e, names), INT
    raise ConditionTypeError(f"not a condition: {e!r}")


def condition(e: Expr, names: Mapping[str, Named]) -> Expr:
    """A whole condition (a `when:`, a variant's): it must be true or false, not an int."""
    return _truth(e, names, "a condition")[0]


def _truth(e: Expr, names: Mapping[str, Named], role: str) -> tuple[Expr, str]:
    out, kind = typed(e, names)
    if kind == INT:
        where = "expected a condition" if role == "a condition" else f"'{role}' expects conditions"
        raise ConditionTypeError(f"{where} (comparisons, bool attrs, boolean lets, variants), got the int "
                                 f"expression {to_text(e)!r}")
    return out, kind


def _arithmetic(e: BinOp | Neg | Call, names: Mapping[str, Named]) -> Expr:
    def operand(x: Expr) -> Expr:
        out, kind = typed(x, names)
        if kind == BOOL:
            raise ConditionTypeError(f"arithmetic on a bool: {to_text(x)!r} in {to_text(e)!r} is true or false, "
                                     f"not a number (a comparison, a boolean let or a variant counts as 0/1)")
        return out

    if isinstance(e, Neg):
        return Neg(operand(e.operand))
    if isinstance(e, Call):
        return Call(e.fn, tuple(operand(a) for a in e.args))
    return BinOp(e.op, operand(e.left), operand(e.right))


def _comparison(e: BinOp, names: Mapping[str, Named]) -> tuple[Expr, str]:
    for subject, other in ((e.left, e.right), (e.right, e.left)):
        if not isinstance(subject, Sym):
            continue
        named = names.get(subject.name)
        if named is not None and named.kind == "value":
            return _value_test(e, subject.name, named, other, names), BOOL
    if any(isinstance(side, BinOp) and side.op in COMPARISON_OPS for side in (e.left, e.right)):
        # `(1 < N) < 3`: a chain in Python's reading, a compared 0/1 in C's: refused, as in where:
        raise ConditionTypeError(f"{to_text(e)!r}: comparisons do not chain: join them with 'and' "
                                 f"(\"1 < N and N < 3\")")
    left, right = typed(e.left, names), typed(e.right, names)
    for side, kind in (left, right):
        if kind == BOOL:
            raise ConditionTypeError(f"{to_text(e)!r} compares {to_text(side)!r}, which is true or false: "
                                     f"use it (or 'not' it) as a condition")
    return BinOp(e.op, left[0], right[0]), FLAG


def _value_test(e: BinOp, name: str, named: Named, other: Expr, names: Mapping[str, Named]) -> Expr:
    """`attr == value` / `attr != value` as an `Is` (negated for !=)."""
    if e.op not in ("==", "!="):
        raise ConditionTypeError(f"{to_text(e)!r}: {name!r} is {_a(named.what)}: only == and != compare it")
    if not isinstance(other, Sym) or other.name in names:
        shown = f"the int {to_text(other)}" if isinstance(other, Num) else repr(to_text(other))
        raise ConditionTypeError(f"{to_text(e)!r}: {name!r} is {_a(named.what)}, compared with {shown}: expected "
                                 f"one of its values written bare{_values(named)}")
    if named.values is not None and other.name not in named.values:
        raise ConditionTypeError(f"{to_text(e)!r}: {other.name!r} is not a value of {name!r}{_values(named)}")
    test = Is(name, other.name)
    return test if e.op == "==" else Not(test)


def _a(what: str) -> str:
    return f"an {what}" if what[:1] in "aeiou" else f"a {what}"


def _values(named: Named) -> str:
    return f" ({', '.join(named.values)})" if named.values else ""
