"""The lowered launch plan (codegen/lower.py) as the literals a generated wrapper hands the runtime.

`plan_literal(op)` is the Python source of the module's `_PLAN = _rt.Plan(...)`; `plan_names(op)`
the wrapper locals the plan reads, in the order the call passes their values. The forms are
documented in codegen/runtime/plan.py, which records and replays them. Everything written is an
int, a bool, a validated identifier or a string through repr(): a spec cannot inject code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegen import lower, shapes, variants
from codegen.model import BACKEND_SWITCH, BACKENDS, Condition, OpSpec
from codegen.naming import dtype_local


def expression_literal(e: shapes.Expr | None, name: Callable[[str], str] = str) -> Any:
    """A shape expression or condition as runtime/plan.py's literal form (None: 0); `name` maps each
    symbol and each name a test reads (attrs, type variables)."""
    if e is None:
        return 0
    if isinstance(e, shapes.Is):
        if e.name == BACKEND_SWITCH and isinstance(e.value, str) and e.value in BACKENDS:
            return ("backend", e.value)
        return ("attr", name(e.name), e.value)
    if isinstance(e, shapes.Logic):
        return (e.op, *(expression_literal(a, name) for a in e.args))
    if isinstance(e, shapes.Not):
        return ("not", expression_literal(e.operand, name))
    if isinstance(e, shapes.Num):
        return e.value
    if isinstance(e, shapes.Sym):
        return name(e.name)
    if isinstance(e, shapes.Neg):
        return ("neg", expression_literal(e.operand, name))
    if isinstance(e, shapes.BinOp):
        return (e.op, expression_literal(e.left, name), expression_literal(e.right, name))
    if isinstance(e, shapes.Call):
        return (e.fn, *(expression_literal(a, name) for a in e.args))
    raise TypeError(f"not a shape expression: {e!r}")


def condition_literal(cond: Condition, name: Callable[[str], str] = str) -> tuple[Any, ...]:
    """A condition as runtime/plan.py's literal: one test per listed part, all of which must hold."""
    return tuple(expression_literal(part, name) for part in cond.parts())


class _Encoder:
    """One op's plan as literals, noting every wrapper local the literals read as it writes them
    (in order of first use; the loop variables and loop lets, which the plan binds itself, aside)."""

    def __init__(self, op: OpSpec, plan: lower.Plan):
        self.op, self.plan = op, plan
        self.slot = {name: i for i, name in enumerate(plan.slots)}
        self.read: dict[str, None] = {}
        self.bound: set[str] = set()

    def name(self, spec_name: str) -> str:
        """A spec name (a type variable, attr, symbol or let) as the wrapper's local, noted as read."""
        local = dtype_local(spec_name) if self.op.type_var(spec_name) is not None else spec_name
        self.read[local] = None
        return local

    def expr(self, e: shapes.Expr | None) -> Any:
        return expression_literal(e, self.name)

    def when(self, cond: Condition) -> tuple[Any, ...]:
        return condition_literal(cond, self.name)

    def steps(self, steps: tuple[lower.PlanStep, ...]) -> tuple[Any, ...]:
        return tuple(self.step(s) for s in steps)

    def step(self, step: lower.PlanStep) -> Any:
        if isinstance(step, lower.Repeat):
            self.bound.update((step.var, *(name for name, _ in step.lets)))
            return ("repeat", step.var, self.expr(step.count), tuple((n, self.expr(e)) for n, e in step.lets),
                    self.steps(step.steps), self.when(step.when), self.expr(step.lanes))
        if isinstance(step, lower.Gemm):
            sizes = (self.expr(step.m), self.expr(step.n), self.expr(step.k), step.trans_a, step.trans_b, step.beta,
                     self.expr(step.a_offset), self.expr(step.b_offset), self.expr(step.out_offset),
                     1 if step.batch is None else self.expr(step.batch), self.expr(step.a_stride),
                     self.expr(step.b_stride), self.expr(step.out_stride))
            return ("gemm", self.slot[step.a], self.slot[step.b], self.slot[step.out], sizes, self.when(step.when))
        picks = tuple(self.name(s) for s in step.specialize)
        return ("launch", step.kernel, picks, tuple(self.expr(d) for d in step.grid),
                tuple(self.expr(d) for d in step.block), self.expr(step.shared_bytes),
                tuple(self.arg(a) for a in step.args), self.when(step.when))

    def arg(self, arg: lower.Arg) -> Any:
        if isinstance(arg, lower.Buffer):
            return ("buf", self.slot[arg.slot])
        if isinstance(arg, lower.PointerList):
            return ("ptrs", self.slot[arg.slot])
        index = None if arg.index is None else self.expr(arg.index)
        if isinstance(arg, lower.ActivationArg):
            return ("act", self.name(arg.attr), index)
        return ("scalar", arg.ctor, self.name(arg.name), index, tuple(self.name(s) for s in arg.double_when))


def encode(op: OpSpec) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """(the names the plan reads, the plan's steps as literals)."""
    enc = _Encoder(op, lower.lower(op).plan)
    steps = enc.steps(enc.plan.steps)
    for variant in op.variants.names() if op.variants is not None else ():  # read to record which ran
        enc.name(variant)
    return tuple(n for n in enc.read if n not in enc.bound), steps


def plan_names(op: OpSpec) -> tuple[str, ...]:
    return encode(op)[0]


def plan_literal(op: OpSpec) -> str:
    """`_rt.Plan(...)` for the op's module: its steps one per line, for a reader."""
    names, steps = encode(op)
    lowered = lower.lower(op)
    lines = [f"_rt.Plan({op.name!r}, {names!r}, {lowered.plan.slots!r}, ("]
    lines += [f"    {step!r}," for step in steps]
    extra = ""
    if op.variants is not None:
        extra += f", variants={op.variants.names()!r}"
    if op.params:
        extra += f", params={variants.param_values(op)!r}"
    lines.append("), {")
    lines += [f"    {kernel!r}: {symbols!r}," for kernel, symbols in lowered.symbols.items()]
    lines.append(f"}}{extra})")
    return "\n".join(lines)
