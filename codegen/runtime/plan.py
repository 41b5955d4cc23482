"""An op's launch plan at run time, as data: recorded once per set of sizes and attrs, replayed.

A generated wrapper holds its plan as a `Plan` built from plain literals (`codegen/plan_data.py`
writes them from the lowered IR, `codegen/lower.py`) and calls `run_plan(backend, kernels, plan,
values, buffers)` with the values of the names the plan reads (attrs, shape symbols and lets,
dtypes: `plan.names`, in that order) and the call's buffers (`plan.slots`, in that order).

`record` walks the plan once for those values (loops unrolled, conditions decided, expressions
evaluated, scalar arguments made NumPy scalars): the result, a `Recording`, is a flat list of
launches and GEMMs whose buffer arguments are slot numbers. It depends on nothing else, so it is
kept (per plan, the last `MAX_RECORDINGS`, least recently used dropped) and replayed on a later
call with the same values and backend: one dict lookup instead of the plan's Python. A replay
binds the call's own buffers to the slots, so new inputs and outputs are always the ones used.

A launch step names its kernel and the names whose dtype values pick its entry point from
`Plan.symbols` (`("launch", kernel, picks, grid, block, shared, args, when)`).

The expression forms (the literals `plan_data.py` writes):
    int | "name" | ("neg", e) | (op, e, e) for op in + - * // % | ("min"|"max", e, ...)
    | ("ceildiv", e, e)
and conditions are tuples of tests, all of which must hold, each a condition form:
    ("backend", name) | ("attr", name, value) | (cmp, e, e) | ("and", c, c, ...) | ("or", c, c, ...)
    | ("not", c)
Evaluation is Python's integer arithmetic and `and`/`or`/`not`, as the printed loop (the fallback,
`OPGEN_PLAN=loop`) computes it. The compiler evaluates conditions with this same `evaluate` (on the
literals plan_data.py writes), so the two sides of the wall cannot disagree.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codegen.runtime.backend import Backend
from codegen.runtime.gemm import GemmSizes
from codegen.runtime.settings import NO_REPLAY, PLAN

#: Recordings kept per plan (distinct sizes/attrs/backends); the least recently used goes first.
MAX_RECORDINGS = 64

_BINARY: dict[str, Callable[[int, int], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
_CTORS: dict[str, Callable[[Any], Any]] = {}  # the scalar constructors, by their literal: NumPy's, set at first use


def _ctor(name: str) -> Callable[[Any], Any]:
    """A scalar argument's NumPy constructor (NumPy imported here, so that the compiler, which
    prints plans as C++, never loads it: `opgen check` stays light)."""
    if not _CTORS:
        import numpy as np

        _CTORS.update({"_np.int64": np.int64, "_np.int32": np.int32, "_np.float32": np.float32,
                       "_np.float64": np.float64})
    return _CTORS[name]


class PlanError(RuntimeError):
    """A plan that cannot be recorded (a generated module out of step with this runtime)."""


def evaluate(e: Any, env: dict[str, Any], backend: str = "") -> Any:
    """The value of an expression or condition literal in `env` (conditions: a bool; `backend` is
    the backend's name, for ("backend", name) tests)."""
    if isinstance(e, str):
        return env[e]
    if not isinstance(e, tuple):
        return e
    head = e[0]
    if head == "neg":
        return -evaluate(e[1], env, backend)
    if head == "min":
        return min(evaluate(a, env, backend) for a in e[1:])
    if head == "max":
        return max(evaluate(a, env, backend) for a in e[1:])
    if head == "ceildiv":
        return -(-evaluate(e[1], env, backend) // evaluate(e[2], env, backend))
    if head == "and":
        return all(evaluate(c, env, backend) for c in e[1:])
    if head == "or":
        return any(evaluate(c, env, backend) for c in e[1:])
    if head == "not":
        return not evaluate(e[1], env, backend)
    if head == "backend":
        return backend == e[1]
    if head == "attr":
        return bool(env[e[1]] == e[2])
    return _BINARY[head](evaluate(e[1], env, backend), evaluate(e[2], env, backend))


def holds(when: tuple[Any, ...], env: dict[str, Any], backend: str) -> bool:
    """Whether every test of a condition literal holds."""
    return all(evaluate(test, env, backend) for test in when)


@dataclass(frozen=True)
class Launch:
    """A recorded launch: `args` items are slot numbers (`Slot`), pointer lists (`Slots`) or
    NumPy scalars (taken as they are)."""

    symbol: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    shared: int
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Slot:
    index: int


@dataclass(frozen=True)
class Slots:
    """A list input: its elements' device pointer array, then their count."""

    index: int


#: a GEMM step's sizes: gemm.GemmSizes' fields, in their order (plan_data.py writes them; the native step
#: buffer holds as many, plan_abi.h)
GEMM_SIZES = len(GemmSizes._fields)


@dataclass(frozen=True)
class Gemm:
    a: int
    b: int
    out: int
    sizes: tuple[Any, ...]  # GEMM_SIZES of them


#: the backend that runs a loop's lanes (`lanes:` in a spec's repeat step) side by side; on others a
#: loop's steps run in order and record no Lanes (drivergen.py's recorder reads this too)
LANES_BACKEND = "cpu"
#: at most this many lanes (more: the loop records as one lane; the runtime runs lanes on its pool)
MAX_LANES = 256


@dataclass(frozen=True)
class Lanes:
    """The steps recorded after this one (up to the next Lanes, whose `count` is 0) split into `count`
    independent lanes: a GEMM step's product i and the blocks of a launch at index i of its last grid
    dimension are lane i (model.RepeatStep.lanes)."""

    count: int


@dataclass(frozen=True)
class Recording:
    steps: tuple[Launch | Gemm | Lanes, ...]
    #: the launch variant that ran (the op's `variants:`, first match wins); None for an op without any
    variant: str | None = None
    #: a backend's own form of the recording, by its key (the cpu backend's native batches)
    native: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def launches(self) -> int:
        return sum(isinstance(s, Launch) for s in self.steps)


@dataclass
class Plan:
    """A launch plan as data: its steps (the literal forms above), the names its expressions read,
    the buffer slots its steps use, and each kernel's entry points by the dtype names of their
    specialization (the lowered op's `symbols`: a launch names its kernel, never builds a symbol), and the op's
    variants and params."""

    op: str
    names: tuple[str, ...]
    slots: tuple[str, ...]
    steps: tuple[Any, ...]
    symbols: dict[str, dict[tuple[str, ...], str]]
    #: the op's launch variants in order (each a name the plan reads, exactly one true) and its
    #: tunable parameters (`params:`), for a benchmark to read rather than restate
    variants: tuple[str, ...] = ()
    params: dict[str, int] = field(default_factory=dict)
    recordings: OrderedDict[tuple[Any, ...], Recording] = field(default_factory=OrderedDict, repr=False)
    stats: dict[str, int] = field(default_factory=lambda: {"recorded": 0, "replayed": 0}, repr=False)

    def symbol(self, kernel: str, *dtypes: str) -> str:
        """The entry point of `kernel` specialized for these dtype names (the printed loop's and
        `record`'s one lookup)."""
        try:
            return self.symbols[kernel][dtypes]
        except KeyError:
            raise PlanError(f"{self.op}: kernel {kernel!r} has no entry point for dtypes {dtypes}") from None

    def record(self, backend: str, values: Sequence[Any]) -> Recording:
        """The plan walked for these values (the `names`, in order) on a backend named `backend`."""
        if len(values) != len(self.names):
            raise PlanError(f"{self.op}: the plan reads {len(self.names)} names, the call gave {len(values)}")
        env = dict(zip(self.names, values, strict=True))
        out: list[Launch | Gemm | Lanes] = []
        self._walk(self.steps, env, backend, out)
        variant = next((v for v in self.variants if env[v]), None)
        return Recording(tuple(out), variant)

    def latest(self) -> Recording | None:
        """The recording the Python path used last (a benchmark prints its `variant`); None before the
        first call. A call the op's native driver served (codegen/runtime/native_driver.py) does
        not update it: a benchmark that prints the variant runs that call with OPGEN_NATIVE=0."""
        return next(reversed(self.recordings.values()), None)

    def recording(self, backend: str, values: tuple[Any, ...]) -> Recording:
        """The recording for these values: kept, or made now (and kept)."""
        key = (backend, values)
        try:
            found = self.recordings[key]
        except KeyError:
            found = self.record(backend, values)
            self.recordings[key] = found
            self.stats["recorded"] += 1
            if len(self.recordings) > MAX_RECORDINGS:
                self.recordings.popitem(last=False)
            return found
        except TypeError:  # an unhashable value (a list attr): recorded every call
            return self.record(backend, values)
        self.recordings.move_to_end(key)
        self.stats["replayed"] += 1
        return found

    def _walk(self, steps: tuple[Any, ...], env: dict[str, Any], backend: str,
              out: list[Launch | Gemm | Lanes]) -> None:
        for step in steps:
            kind = step[0]
            if kind == "launch":
                _, kernel, picks, grid, block, shared, args, when = step
                if holds(when, env, backend):
                    out.append(Launch(self.symbol(kernel, *(env[s] for s in picks)),
                                      tuple(evaluate(d, env) for d in grid), tuple(evaluate(d, env) for d in block),
                                      evaluate(shared, env), tuple(self._args(args, env))))
            elif kind == "gemm":
                _, a, b, o, sizes, when = step
                if holds(when, env, backend):
                    out.append(Gemm(a, b, o, tuple(evaluate(s, env) for s in sizes)))
            elif kind == "repeat":
                _, var, count, lets, body, when, lanes = step
                if holds(when, env, backend):
                    n = evaluate(lanes, env) if backend == LANES_BACKEND else 0
                    split = 1 < n <= MAX_LANES
                    if split:
                        out.append(Lanes(n))
                    for i in range(evaluate(count, env)):
                        env[var] = i
                        for name, expr in lets:
                            env[name] = evaluate(expr, env)
                        self._walk(body, env, backend, out)
                    if split:
                        out.append(Lanes(0))
            else:
                raise PlanError(f"{self.op}: unknown plan step {kind!r}")

    @staticmethod
    def _args(args: tuple[Any, ...], env: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        for arg in args:
            kind = arg[0]
            if kind == "buf":
                out.append(Slot(arg[1]))
            elif kind == "ptrs":
                out.append(Slots(arg[1]))
            elif kind == "act":
                value = env[arg[1]] if arg[2] is None else env[arg[1]][evaluate(arg[2], env)]
                out.extend(value.kernel_args())
            else:  # ("scalar", ctor, name, index, double_when)
                _, ctor, name, index, double_when = arg
                value = env[name] if index is None else env[name][evaluate(index, env)]
                if double_when and "float64" in (env[s] for s in double_when):
                    ctor = "_np.float64"
                out.append(_ctor(ctor)(value))
        return out


def plan_as_data() -> bool:
    """Whether wrappers run their plan as data (the default) or their printed loop (OPGEN_PLAN=loop)."""
    return not PLAN.is_set() or PLAN.get() == "data"


def hold_if_capturing(backend: Backend, buffers: Sequence[Any]) -> None:
    """Inside a user's stream capture, the backend keeps the call's buffers (scratch, copies,
    outputs) alive: the user's graph bakes their pointers and outlives the call. Both the plan as
    data and the printed loop (OPGEN_PLAN=loop) call this before their first launch."""
    backend.hold_if_capturing(buffers)


def run_plan(backend: Backend, kernels: Any, plan: Plan, values: tuple[Any, ...], buffers: tuple[Any, ...]) -> None:
    """Run `plan` on `backend` for these values, with `buffers` bound to its slots (replayed when
    the same values ran before): by the backend's own `replay(kernels, recording, buffers)` where
    it takes the recording (the cpu backend's native batches) and nothing watches the backend's
    launches (`Backend.watched`), else launch by launch, queued as the printed loop queues them
    (the caller flushes)."""
    if NO_REPLAY.get():  # (debugging: the plan walked afresh, launch by launch)
        recording = plan.record(backend.name, values)
    else:
        recording = plan.recording(backend.name, values)
        if not backend.watched and backend.replay(kernels, recording, buffers):
            return
    backend.hold_if_capturing(buffers)
    launch, gemm = backend.launch, backend.gemm
    for step in recording.steps:
        if type(step) is Launch:
            args: list[Any] = []
            for a in step.args:
                t = type(a)
                if t is Slot:
                    args.append(buffers[a.index])
                elif t is Slots:
                    listed = buffers[a.index]
                    args += (backend.pointer_array(listed), _ctor("_np.int64")(len(listed)))
                else:
                    args.append(a)
            launch(kernels, step.symbol, step.grid, step.block, tuple(args), step.shared)
        elif type(step) is Gemm:
            gemm(buffers[step.a], buffers[step.b], buffers[step.out], *step.sizes)
        # (a Lanes mark: launch by launch, the lanes run one after the other, each step whole)
