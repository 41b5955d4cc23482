"""The lowered launch plan (codegen/lower.py) as the literals a generated wrapper hands the runtime.

`plan_literal(op)` is the Python source of the module's `_PLAN = _rt.Plan(...)`; `plan_names(op)`
the wrapper locals the plan reads, in the order the call passes their values. The forms are
documented in codegen/runtime/plan.py, which records and replays them. Everything written is an
int, a bool, a validated identifier or a string through repr(): a spec cannot inject code.
"""

from __future__ import annotations

from typing import Any

from codegen import lower, shapes
from codegen.model import BACKEND_SWITCH, BACKENDS, Condition, OpSpec


def _expr(e: shapes.Expr | None) -> Any:
    if e is None:
        return 0
    if isinstance(e, shapes.Num):
        return e.value
    if isinstance(e, shapes.Sym):
        return e.name
    if isinstance(e, shapes.Neg):
        return ("neg", _expr(e.operand))
    if isinstance(e, shapes.BinOp):
        return (e.op, _expr(e.left), _expr(e.right))
    if isinstance(e, shapes.Call):
        return (e.fn, *(_expr(a) for a in e.args))
    raise TypeError(f"not a shape expression: {e!r}")


def _when(cond: Condition) -> tuple[Any, ...]:
    tests: list[Any] = []
    for attr, value in cond.clauses:
        if attr == BACKEND_SWITCH and isinstance(value, str) and value in BACKENDS:
            tests.append(("backend", value))
        else:
            tests.append(("attr", attr, value))
    tests += [(cmp, _expr(lhs), _expr(rhs)) for lhs, cmp, rhs in cond.checks]
    return tuple(tests)


class _Encoder:
    """One op's plan as literals; collects the wrapper locals its expressions read."""

    def __init__(self, op: OpSpec, plan: lower.Plan):
        self.op, self.plan = op, plan
        self.slot = {name: i for i, name in enumerate(plan.slots)}
        self.bound: set[str] = set()  # loop variables and loop lets: bound by the plan itself

    def local(self, name: str) -> str:
        """A spec name (a type variable, attr, symbol or let) as the wrapper's local."""
        from codegen.pygen import dtype_local

        return dtype_local(name) if self.op.type_var(name) is not None else name

    def steps(self, steps: tuple[lower.PlanStep, ...]) -> tuple[Any, ...]:
        return tuple(self.step(s) for s in steps)

    def step(self, step: lower.PlanStep) -> Any:
        if isinstance(step, lower.Repeat):
            self.bound.update((step.var, *(name for name, _ in step.lets)))
            return ("repeat", step.var, _expr(step.count), tuple((n, _expr(e)) for n, e in step.lets),
                    self.steps(step.steps), _when(step.when))
        if isinstance(step, lower.Gemm):
            sizes = (_expr(step.m), _expr(step.n), _expr(step.k), step.trans_a, step.trans_b, step.beta,
                     _expr(step.a_offset), _expr(step.b_offset), _expr(step.out_offset))
            return ("gemm", self.slot[step.a], self.slot[step.b], self.slot[step.out], sizes, _when(step.when))
        suffix = tuple(self.local(s) for s in step.specialize)
        return ("launch", step.symbol, suffix, tuple(_expr(d) for d in step.grid),
                tuple(_expr(d) for d in step.block), _expr(step.shared_bytes), tuple(self.arg(a) for a in step.args),
                _when(step.when))

    def arg(self, arg: lower.Arg) -> Any:
        if isinstance(arg, lower.Buffer):
            return ("buf", self.slot[arg.slot])
        if isinstance(arg, lower.PointerList):
            return ("ptrs", self.slot[arg.slot])
        if isinstance(arg, lower.ActivationArg):
            return ("act", arg.attr, None if arg.index is None else _expr(arg.index))
        return ("scalar", arg.ctor, arg.name, None if arg.index is None else _expr(arg.index),
                tuple(self.local(s) for s in arg.double_when))


def _read(data: Any, out: dict[str, None]) -> None:
    """Every name a literal reads (strings in expression position), in order of first use."""
    if isinstance(data, str):
        out[data] = None
    elif isinstance(data, tuple):
        head = data[0] if data else None
        if head == "launch":
            _, _, suffix, grid, block, shared, args, when = data
            for item in (*suffix, *grid, *block, shared, when):
                _read(item, out)
            for a in args:
                if a[0] == "act":
                    out[a[1]] = None
                    _read(a[2], out)
                elif a[0] == "scalar":
                    out[a[2]] = None
                    _read(a[3], out)
                    for s in a[4]:
                        out[s] = None
        elif head == "gemm":
            _read(data[4], out)
            _read(data[5], out)
        elif head == "repeat":
            _, _, count, lets, body, when = data
            for item in (count, *(e for _, e in lets), *body, when):
                _read(item, out)
        elif head == "backend":
            pass
        elif head == "attr":
            out[data[1]] = None
        elif (isinstance(head, str) and not head.isidentifier()) or head in ("neg", "min", "max", "ceildiv"):
            for item in data[1:]:
                _read(item, out)
        else:
            for item in data:
                _read(item, out)


def encode(op: OpSpec) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """(the names the plan reads, the plan's steps as literals)."""
    enc = _Encoder(op, lower.lower(op).plan)
    steps = enc.steps(enc.plan.steps)
    read: dict[str, None] = {}
    for step in steps:
        _read(step, read)
    return tuple(n for n in read if n not in enc.bound), steps


def plan_names(op: OpSpec) -> tuple[str, ...]:
    return encode(op)[0]


def plan_literal(op: OpSpec) -> str:
    """`_rt.Plan(...)` for the op's module: its steps one per line, for a reader."""
    names, steps = encode(op)
    slots = lower.lower(op).plan.slots
    lines = [f"_rt.Plan({op.name!r}, {names!r}, {slots!r}, ("]
    lines += [f"    {step!r}," for step in steps]
    lines.append("))")
    return "\n".join(lines)
