"""Lower bounds of shape expressions, so that a spec cannot divide by a size that may be 0.

An empty tensor is a valid input: every dimension may be 0 unless a `where:` line says otherwise.
A let such as `ceildiv(16, ceildiv(C, 32))` then divides by zero at C = 0, and the wrapper fails
with ZeroDivisionError instead of returning empty outputs. `opgen generate` therefore checks every
`//`, `%` and `ceildiv` of a spec: its divisor's lower bound, computed here by interval arithmetic
from what the spec guarantees, must be at least 1.

What is known: a literal is itself; a dimension of an input is >= 0 (>= k under a `where: X >= k`
or `X > k - 1` line on that symbol alone); an int attr is >= its `min` (unbounded below without
one); a let is bounded by its cases; `max`/`min`/`+`/`*` combine bounds; anything subtracted or
negated is unbounded below. The analysis never claims a bound that does not hold; it may miss one
(then the author writes `max(1, ...)`, which is also what the generated code should do).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from codegen.shapes import BinOp, Call, Expr, Is, Logic, Neg, Not, Num, Sym, to_text

UNBOUNDED = -math.inf


def lower_bound(e: Expr, known: Mapping[str, float]) -> float:
    """The least value `e` can take, given lower bounds of its symbols (a missing symbol: 0, as a
    dimension)."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Sym):
        return known.get(e.name, 0)
    if isinstance(e, Neg):
        return UNBOUNDED
    if isinstance(e, (Logic, Not, Is)):  # a condition: 0 or 1
        return 0
    if isinstance(e, Call):
        bounds = [lower_bound(a, known) for a in e.args]
        if e.fn == "max":
            return max(bounds)
        if e.fn == "min":
            return min(bounds)
        a, b = bounds  # ceildiv: positive over positive is at least 1
        return (1 if a >= 1 else 0) if a >= 0 and b >= 1 else UNBOUNDED
    assert isinstance(e, BinOp)
    a, b = lower_bound(e.left, known), lower_bound(e.right, known)
    if e.op == "+":
        return a + b
    if e.op == "-":  # only a literal subtrahend keeps a bound
        return a - e.right.value if isinstance(e.right, Num) else UNBOUNDED
    if e.op == "*":
        return a * b if a >= 0 and b >= 0 else UNBOUNDED
    if e.op not in ("//", "%"):  # a comparison: 0 or 1
        return 0
    return 0 if a >= 0 and b >= 1 else UNBOUNDED  # // and %


def divisors(e: Expr) -> Iterator[tuple[Expr, Expr]]:
    """(the division, its divisor) for every `//`, `%` and `ceildiv` in `e`."""
    if isinstance(e, BinOp):
        if e.op in ("//", "%"):
            yield e, e.right
        yield from divisors(e.left)
        yield from divisors(e.right)
    elif isinstance(e, Call):
        if e.fn == "ceildiv":
            yield e, e.args[1]
        for arg in e.args:
            yield from divisors(arg)
    elif isinstance(e, Logic):
        for arg in e.args:
            yield from divisors(arg)
    elif isinstance(e, (Neg, Not)):
        yield from divisors(e.operand)


def zero_divisor(e: Expr, known: Mapping[str, float]) -> tuple[Expr, Expr] | None:
    """The first division in `e` whose divisor may be 0 (or negative), or None."""
    for division, divisor in divisors(e):
        if lower_bound(divisor, known) < 1:
            return division, divisor
    return None


def conjuncts(e: Expr | None) -> tuple[Expr, ...]:
    """The parts of a condition that must all hold (`a and b and c`: a, b, c); None: none."""
    if e is None:
        return ()
    if isinstance(e, Logic) and e.op == "and":
        return tuple(p for a in e.args for p in conjuncts(a))
    return (e,)


def refine(known: dict[str, float], lhs: Expr, op: str, rhs: Expr) -> None:
    """Tighten a symbol's bound by a comparison that must hold: `X >= 1`, `X > 0`, `2 <= X`."""
    flipped = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
    if isinstance(lhs, Num) and isinstance(rhs, Sym) and op in flipped:
        lhs, op, rhs = rhs, flipped[op], lhs
    if isinstance(lhs, Sym) and isinstance(rhs, Num) and op in (">=", ">", "=="):
        least = rhs.value + (1 if op == ">" else 0)
        known[lhs.name] = max(known.get(lhs.name, 0), least)


def zero_divisor_message(e: Expr, known: Mapping[str, float]) -> str | None:
    """Why `e` may divide by zero, for a spec error; None when every divisor is at least 1."""
    found = zero_divisor(e, known)
    if found is None:
        return None
    division, divisor = found
    text = to_text(divisor)
    return (f"{to_text(division)} divides by {text}, which may be 0 (an empty input has 0-sized dimensions): "
            f"write max(1, {text}), or bound it with a where: line")
