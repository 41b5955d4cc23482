"""Launch variants and tunable parameters as lets: what `variants:` and `params:` mean to the rest
of the compiler, derived from the model fields (the loader calls `arrange` once the params, the
lets and the variants, a family's merged with the member's own, are read).

A param is a let with a constant value, first. Each variant name is a boolean let, true for the
first variant whose condition holds, `otherwise` true when none does: exactly one is true. The
variants' lets go right after the last declared let their conditions read, so declared lets after
them may read the variant names (`state_slots: 2*fused`).
"""

from __future__ import annotations

from codegen.model import Let, OpSpec, Param, Switch, Variants
from codegen.shapes import Expr, Logic, Not, Num, Sym, symbols


def arrange(params: tuple[Param, ...], declared: tuple[Let, ...], variants: Variants | None) -> tuple[Let, ...]:
    """The op's lets: params, then the declared lets with the variants' inserted."""
    head = tuple(Let(p.name, Switch(None, (("", Num(p.value)),)), p.loc, "param") for p in params)
    if variants is None:
        return head + declared
    flags = flag_lets(variants)
    read = {s for let in flags for e in let.value.values() for s in symbols(e)}
    at = max((i + 1 for i, let in enumerate(declared) if let.name in read), default=0)
    return head + declared[:at] + flags + declared[at:]


def flag_lets(variants: Variants) -> tuple[Let, ...]:
    """One boolean let per variant name, in order: first match wins."""
    out: list[Let] = []
    earlier: list[Expr] = []
    for v in variants.cases:
        cond = v.when.expr()
        parts = (*earlier, *(() if cond is None else (cond,)))
        out.append(Let(v.name, Switch(None, (("", _all(parts)),)), v.loc, "variant"))
        earlier.append(Not(Sym(v.name)))
    out.append(Let(variants.otherwise, Switch(None, (("", _all(tuple(earlier))),)), variants.loc, "variant"))
    return tuple(out)


def _all(parts: tuple[Expr, ...]) -> Expr:
    if not parts:
        return Num(1)
    return parts[0] if len(parts) == 1 else Logic("and", parts)


def declared_lets(op: OpSpec) -> tuple[Let, ...]:
    """The lets the spec writes under `let:` (not those params and variants derive)."""
    return tuple(let for let in op.lets if not let.origin)


def param_values(op: OpSpec) -> dict[str, int]:
    """The op's tunable parameters by name (a benchmark's thresholds)."""
    return {p.name: p.value for p in op.params}
