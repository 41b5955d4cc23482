"""What a spec's launch plan can launch, read from the spec alone: every kernel step, the block-size
classes its block expression can yield, whether each grid dimension can be 1 and more than 1, and
the dtypes it is specialized for. scripts/gpu_parity.py reports its launches against this, and
tests/test_parity_coverage.py fails when a parity case reaches less of it.

    space = launch_space(op_spec, plan="cuda")
    space["layer_norm"].blocks      # frozenset({32, 64, 128, 256, 512, 1024})
    space["layer_norm_grad_partials"].grid   # (frozenset({'1', '>1'}), frozenset({'1', '>1'}))
    coverage_gaps({op.name: space}, launches)   # what no recorded launch reached, one line each

How: each combination of the attrs that switch lets or guard steps (`by: data_format`, `when:
{is_training: true}`) is walked separately, so lets that switch together stay together; within it
every expression is evaluated over intervals: shape symbols and loop variables are any size ≥ 0,
int attrs lie within their bounds, lets switched `by: backend` take the plan's case. A step whose
`when:` cannot hold (`chunk > 0` with chunk 0 on the GPU), or inside a loop that never runs, can
not launch. The interval of the threads per block is split into classes: powers of two p ≤ 1024,
p standing for (p/2, p] threads (96 threads is class 128). Intervals over-approximate: a class
or grid they promise that no sizes reach would show as a gap that no case can fill. None does in
today's specs under the GPU plan (its block sizes are `max(lo, min(hi, 32*ceildiv(n, k)))` of a free
size, or constants); the cpu plan has such (`ceildiv(D, max(1, D))` is 1, its interval 0 … ∞), so
only the GPU plan's space is held against the parity cases.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from codegen import shapes
from codegen.model import (
    BACKEND_SWITCH,
    DTYPE_ACCUMULATORS,
    AttrType,
    Condition,
    DType,
    LaunchStep,
    OpSpec,
    RepeatStep,
    Step,
)

__all__ = ["BLOCK_CLASSES", "Interval", "KernelSpace", "block_class", "coverage_gaps", "grid_class", "launch_space"]

INF = math.inf
#: the block-size classes: p stands for (p/2, p] threads per block
BLOCK_CLASSES = tuple(1 << k for k in range(11))  # 1 .. 1024


def block_class(threads: int) -> int:
    """The class of a block of `threads` threads: the power of two at or above it (96 → 128)."""
    return 1 << max(0, (int(threads) - 1).bit_length())


@dataclass(frozen=True)
class Interval:
    """The integers lo..hi (either may be infinite)."""

    lo: float
    hi: float

    @staticmethod
    def of(value: float) -> Interval:
        return Interval(value, value)

    def __or__(self, other: Interval) -> Interval:
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))

    def can_be(self, value: float) -> bool:
        return self.lo <= value <= self.hi


ANY_SIZE = Interval(0, INF)
UNKNOWN = Interval(-INF, INF)


def _mul(a: float, b: float) -> float:
    return 0 if a == 0 or b == 0 else a * b  # 0·inf is 0 here: a size 0 times anything


def _div(a: Interval, b: Interval, ceil: bool) -> Interval:
    """a // b (or ceildiv), b restricted to its positive part (a zero divisor raises: no launch)."""
    if b.hi < 1:
        return UNKNOWN
    b = Interval(max(b.lo, 1), b.hi)
    # monotone: increasing in a, and in b decreasing for a >= 0, increasing for a < 0
    lo = a.lo / (b.hi if a.lo >= 0 else b.lo)
    hi = a.hi / (b.lo if a.hi >= 0 else b.hi)
    rounded = math.ceil if ceil else math.floor
    return Interval(lo if math.isinf(lo) else rounded(lo), hi if math.isinf(hi) else rounded(hi))


def _compare(op: str, a: Interval, b: Interval) -> Interval:
    """1 when the comparison must hold, 0 when it cannot, 0..1 when it may."""
    always = {"<": a.hi < b.lo, "<=": a.hi <= b.lo, ">": a.lo > b.hi, ">=": a.lo >= b.hi,
              "==": a.lo == a.hi == b.lo == b.hi, "!=": a.hi < b.lo or b.hi < a.lo}[op]
    never = {"<": a.lo >= b.hi, "<=": a.lo > b.hi, ">": a.hi <= b.lo, ">=": a.hi < b.lo,
             "==": a.hi < b.lo or b.hi < a.lo, "!=": a.lo == a.hi == b.lo == b.hi}[op]
    return Interval.of(1) if always else Interval.of(0) if never else Interval(0, 1)


class _Ranges:
    """Intervals of expressions for one attr combination under one plan; `local` holds the loop
    variables' and loop lets' intervals of the steps being walked."""

    def __init__(self, op: OpSpec, plan: str, attrs: Mapping[str, Any]) -> None:
        self.op, self.plan, self.attrs = op, plan, attrs
        self.lets = {let.name: let for let in op.lets}
        self.cache: dict[str, Interval] = {}
        self.local: dict[str, Interval] = {}

    def symbol(self, name: str) -> Interval:
        if name in self.local:
            return self.local[name]
        if name in self.cache:
            return self.cache[name]
        self.cache[name] = UNKNOWN  # (a let that reads itself: unknown rather than a loop)
        let = self.lets.get(name)
        attr = self.op.attr(name)
        if let is not None:
            sw = let.value
            if sw.by is None:
                value = self(sw.only())
            elif sw.by == BACKEND_SWITCH:
                value = self(sw.get(self.plan))
            elif sw.by in self.attrs:
                value = self(sw.get(_key(self.attrs[sw.by])))
            else:
                value = _union(self(e) for e in sw.values())
        elif attr is not None and attr.type is AttrType.INT:
            value = Interval(-INF if attr.minimum is None else attr.minimum, INF if attr.maximum is None
                             else attr.maximum)
            numbers = [float(v) for v in attr.allowed or () if isinstance(v, (int, float))]
            if numbers:
                value = Interval(min(numbers), max(numbers))
        elif attr is not None:
            value = UNKNOWN
        else:  # a shape symbol or named group: any size
            value = ANY_SIZE
        self.cache[name] = value
        return value

    def __call__(self, e: shapes.Expr) -> Interval:
        if isinstance(e, shapes.Num):
            return Interval.of(e.value)
        if isinstance(e, shapes.Sym):
            return self.symbol(e.name)
        if isinstance(e, shapes.Neg):
            v = self(e.operand)
            return Interval(-v.hi, -v.lo)
        if isinstance(e, shapes.Call):
            args = [self(a) for a in e.args]
            if e.fn == "min":
                return Interval(min(a.lo for a in args), min(a.hi for a in args))
            if e.fn == "max":
                return Interval(max(a.lo for a in args), max(a.hi for a in args))
            return _div(args[0], args[1], ceil=True)
        if isinstance(e, shapes.BinOp):
            a, b = self(e.left), self(e.right)
            if e.op == "+":
                return Interval(a.lo + b.lo, a.hi + b.hi)
            if e.op == "-":
                return Interval(a.lo - b.hi, a.hi - b.lo)
            if e.op == "*":
                ends = [_mul(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
                return Interval(min(ends), max(ends))
            if e.op == "//":
                return _div(a, b, ceil=False)
            if e.op == "%":
                return Interval(0, max(0, min(a.hi, b.hi - 1))) if a.lo >= 0 and b.lo >= 1 else UNKNOWN
            return _compare(e.op, a, b)
        if isinstance(e, shapes.Not):
            v = self(e.operand)
            return Interval(1 - min(v.hi, 1), 1 - min(max(v.lo, 0), 1)) if v.lo >= 0 else Interval(0, 1)
        if isinstance(e, shapes.Logic):  # each operand's truth as 0..1: and is the least, or the most
            truth = [Interval(min(max(v.lo, 0), 1), min(v.hi, 1)) if v.lo >= 0 else Interval(0, 1)
                     for v in map(self, e.args)]
            pick = min if e.op == "and" else max
            return Interval(pick(t.lo for t in truth), pick(t.hi for t in truth))
        if isinstance(e, shapes.Is):
            if e.name == BACKEND_SWITCH and self.op.attr(e.name) is None:
                return Interval.of(int(e.value == self.plan))
            if e.name in self.attrs:
                return Interval.of(int(_key(self.attrs[e.name]) == _key(e.value)))
            return Interval(0, 1)
        raise TypeError(f"not a shape expression: {e!r}")

    def holds(self, cond: Condition) -> bool:
        """Whether the condition can hold: its attr clauses match this combination (the backend's
        the plan), and every comparison may be true."""
        for name, value in cond.clauses:
            if name == BACKEND_SWITCH and self.op.attr(name) is None:
                if value != self.plan:
                    return False
            elif name in self.attrs and _key(self.attrs[name]) != _key(value):
                return False
        if cond.test is not None and self(cond.test).hi < 1:
            return False
        return all(self(shapes.BinOp(op, lhs, rhs)).hi >= 1 for lhs, op, rhs in cond.checks)


def _key(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _union(intervals: Iterable[Interval]) -> Interval:
    out: Interval | None = None
    for v in intervals:
        out = v if out is None else out | v
    return out if out is not None else UNKNOWN


@dataclass
class KernelSpace:
    """What one kernel of an op can be launched with: block-size classes (BLOCK_CLASSES), per grid
    dimension the classes "1" and ">1" it can take, and the specializations' dtypes."""

    op: str
    kernel: str
    blocks: set[int] = field(default_factory=set)
    grid: list[set[str]] = field(default_factory=list)
    dtypes: set[tuple[str, ...]] = field(default_factory=set)


def _switch_attrs(op: OpSpec) -> list[tuple[str, tuple[Any, ...]]]:
    """The enum and bool attrs that switch a let or guard a step, with their values."""
    names: dict[str, None] = {}
    out: list[tuple[str, tuple[Any, ...]]] = []
    for let in op.lets:
        if let.value.by is not None and let.value.by != BACKEND_SWITCH:
            names.setdefault(let.value.by)
        for e in let.value.values():  # a boolean let (a variant) that tests an attr
            names.update(dict.fromkeys(shapes.tested(e)))
    for step in op.walk_steps():
        for name in step.when.attrs():
            names.setdefault(name)
    for name in names:
        attr = op.attr(name)
        if attr is None:
            continue
        if attr.type is AttrType.BOOL:
            out.append((name, (True, False)))
        elif attr.allowed:
            out.append((name, tuple(attr.allowed)))
    return out


def _dtypes(op: OpSpec, usable: Sequence[str] | None) -> set[tuple[str, ...]]:
    assert op.kernel is not None
    free = [tv for tv in op.type_vars if tv.accumulates is None]
    out = set()
    for combo in itertools.product(*[[d for d in tv.allowed if usable is None or d in usable] for tv in free]):
        chosen = dict(zip((tv.name for tv in free), combo, strict=True))
        for tv in op.type_vars:
            if tv.accumulates is not None:
                source = chosen[tv.accumulates]
                chosen[tv.name] = DTYPE_ACCUMULATORS.get(DType(source)) or source
        out.add(tuple(chosen.get(name, name) for name in op.kernel.specialize))
    return out


def launch_space(op: OpSpec, plan: str = "cuda", usable_dtypes: Sequence[str] | None = None) -> dict[str, KernelSpace]:
    """Each kernel the op's launch plan `plan` can launch, with what it can be launched with (see the
    module docstring); {} for an op without kernels. `usable_dtypes`: leave out the others (bfloat16
    where NumPy cannot make it)."""
    if op.kernel is None:
        return {}
    space: dict[str, KernelSpace] = {}
    dtypes = _dtypes(op, usable_dtypes)
    switches = _switch_attrs(op)
    for values in itertools.product(*[vals for _, vals in switches]):
        ranges = _Ranges(op, plan, dict(zip((name for name, _ in switches), values, strict=True)))
        _visit(op, ranges, op.kernel.launch, space, dtypes)
    return space


def _visit(op: OpSpec, ranges: _Ranges, steps: Sequence[Step], space: dict[str, KernelSpace],
           dtypes: set[tuple[str, ...]]) -> None:
    for step in steps:
        if not ranges.holds(step.when):
            continue
        if isinstance(step, RepeatStep):
            count = ranges(step.count)
            if count.hi < 1:
                continue
            saved = dict(ranges.local)
            ranges.local[step.var] = Interval(0, count.hi - 1)
            for name, expr in step.lets:
                ranges.local[name] = ranges(expr)
            _visit(op, ranges, step.steps, space, dtypes)
            ranges.local = saved
            continue
        if not isinstance(step, LaunchStep):
            continue
        grid = [ranges(d) for d in step.grid]
        if any(g.hi < 1 for g in grid):
            continue  # an empty grid launches nothing
        threads = Interval.of(1)
        for d in step.block:
            v = ranges(d)
            ends = [_mul(x, y) for x in (threads.lo, threads.hi) for y in (v.lo, v.hi)]
            threads = Interval(min(ends), max(ends))
        entry = space.setdefault(step.kernel, KernelSpace(op.name, step.kernel, dtypes=set(dtypes)))
        entry.blocks |= {p for p in BLOCK_CLASSES if max(threads.lo, p // 2 + 1) <= min(threads.hi, p)}
        while len(entry.grid) < len(grid):
            entry.grid.append(set())
        for i, g in enumerate(grid):
            entry.grid[i] |= ({"1"} if g.can_be(1) else set()) | ({">1"} if g.hi > 1 else set())


def grid_class(extent: int) -> str:
    return "1" if extent <= 1 else ">1"


def coverage_gaps(spaces: Mapping[str, Mapping[str, KernelSpace]], launches: Iterable[Any],
                  misaligned: bool = True) -> list[str]:
    """What the recorded launches (codegen.runtime.launches.Launch) left unreached of each op's
    launch space, one line each: a kernel never launched, a block-size class, a grid dimension's 1
    or >1, a dtype; with `misaligned`, an op with kernels none of whose launches had an array
    argument off a 16-byte boundary. [] when everything was reached."""
    seen: dict[tuple[str, str], list[Any]] = {}
    misaligned_ops: set[str] = set()
    for launch in launches:
        seen.setdefault((launch.op, launch.kernel), []).append(launch)
        if launch.misaligned:
            misaligned_ops.add(launch.op)
    gaps = []
    for op, space in spaces.items():
        for kernel, want in space.items():
            got = seen.get((op, kernel), [])
            if not got:
                gaps.append(f"{op}: kernel {kernel} is never launched")
                continue
            blocks = want.blocks - {block_class(launch.threads) for launch in got}
            if blocks:
                gaps.append(f"{op}: kernel {kernel}: no launch with a block of class {_classes(blocks)} threads "
                            f"(class p: p/2 < threads ≤ p)")
            for i, classes in enumerate(want.grid):
                missing = classes - {grid_class(launch.grid[i]) for launch in got if i < len(launch.grid)}
                if missing:
                    gaps.append(f"{op}: kernel {kernel}: grid dimension {'xyz'[i]} is never "
                                f"{' or '.join(sorted(missing))}")
            dtypes = want.dtypes - {launch.dtypes for launch in got}
            if dtypes:
                names = ", ".join("/".join(d) for d in sorted(dtypes))
                gaps.append(f"{op}: kernel {kernel}: never specialized for {names}")
        if misaligned and space and op not in misaligned_ops:
            gaps.append(f"{op}: no launch had a misaligned array argument (a view off a 16-byte boundary)")
    return gaps


def _classes(blocks: Iterable[int]) -> str:
    return ", ".join(str(b) for b in sorted(blocks))
