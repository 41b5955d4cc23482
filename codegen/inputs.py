"""Random valid inputs for an op, derived from its spec: the cases scripts/gpu_parity.py (and the
sanitizer run, and the tests that reuse its cases) run for an op without a hand-written builder.

    from codegen.inputs import derive_cases
    cases = derive_cases(op_spec, np.random.default_rng(0), activations=spec_set.activations.names)
    for case in cases:
        out = my_op(*case.args, **case.kwargs, scope="cpu")   # every case passes the wrapper's checks
        case.expect                                          # {output: (shape, dtype)} it must return

What a case satisfies, all read from the spec (`OpSpec`, codegen/model.py):

- every case of the attr that switches the shapes (`{by: data_format, ...}`; pygen.switch_attr);
- small random sizes for every shape symbol and named dimension group, rejection-sampled until the
  `where:` constraints hold (an equality `A == expr` with A a shape symbol is solved for A first,
  so `params_len == params_size` needs no luck); lets are evaluated as the wrapper does, for both
  backends; `values: {min, max}` bounds; int attrs used in shapes within their min/max;
- every allowed dtype of each type variable (float16/bfloat16/float32/float64 data as finite
  standard normals; bfloat16 only where ml_dtypes is installed), `type` attrs, `accepts_dtypes`
  and `accepts_python_int` inputs, list inputs (1 to 3 arrays), optional inputs with and without,
  `when:` inputs (an empty array when the condition does not hold), enum/bool/int/float/list
  attrs (defaults, and other values within bounds), axis attrs (positive and negative);
- edge cases where the spec allows them: one case with every free size 1 ("ones") and one with a
  0-sized dimension ("empty").

Runtime ops (`runtime:` specs: Batch, the CudnnRNN params ops) are not derived: their inputs
carry meaning the spec does not declare (ids, indices, layouts). `NotDerivable` says why an op has
no derived cases; so does a spec whose constraints no small sizes satisfy.

Overriding per op: a hand-written builder wins. In scripts/gpu_parity.py,

    @builder("MyOp")
    def _my_op(rng: np.random.Generator) -> list[Case]:
        return [Case("label", (x, y), {"attr": 1})]

for an op whose inputs need semantics the spec cannot state (statistics computed from the data,
a params buffer laid out for the attrs, values that must make sense together). `shape_env`
(`bind_shapes`) is the one place where sizes are chosen: extend it for new shape features.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from codegen import shapes
from codegen.model import (
    ACCUMULATOR,
    BACKEND_SWITCH,
    BACKENDS,
    DTYPES,
    FLOAT_DTYPES,
    Attr,
    AttrType,
    Condition,
    OpSpec,
    Switch,
    TensorArg,
    assert_never,
)
from codegen.plan_data import condition_literal, expression_literal
from codegen.runtime import plan as plan_runtime
from codegen.shapes import ShapePattern

__all__ = ["Binding", "Case", "NotDerivable", "bind_shapes", "derive_cases"]

#: tries per case before giving up: half with the coverage choices fixed, half with all choices random
ATTEMPTS = 400
#: random sizes of free shape symbols and of group dims: 1 .. MAX_SIZE
MAX_SIZE = 5
_FLOATS = FLOAT_DTYPES


class Case(NamedTuple):
    """One call of an op: `op(*args, **kwargs)`. `fresh`: outputs that differ between two calls by
    design (Batch's new ids), not compared; `expect`: each output's (shape, dtype name), None for
    an output not computed in this case (its `when:` does not hold); derived cases only."""

    label: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    fresh: tuple[str, ...] = ()
    expect: Mapping[str, tuple[tuple[int, ...], str | None] | None] | None = None


class NotDerivable(Exception):
    """No valid case can be derived from the op's spec; `reason` says why."""

    def __init__(self, op: str, reason: str) -> None:
        super().__init__(f"{op}: no derived input cases: {reason}")
        self.op = op
        self.reason = reason


class _Reject(Exception):
    """One sampled choice is not valid (the reason is counted; the most frequent one is reported)."""


@dataclass
class Binding:
    """The sizes of one case: `env` maps shape symbols, int attrs and named groups (the product of
    their dims) to ints; `groups` holds each named group's dims; `shapes` each input's shape;
    `axes` the values chosen for axis attrs."""

    env: dict[str, Any]  # ints; float attrs are floats
    groups: dict[str, tuple[int, ...]] = field(default_factory=dict)
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    axes: dict[str, int] = field(default_factory=dict)


# ---------------------------------------------------------------------------------- expressions --

def _attr_key(attr: Attr | None, value: Any) -> str:
    """A switch case's key for an attr value: "true"/"false" for bools, else the value's text."""
    if attr is not None and attr.type is AttrType.BOOL:
        return "true" if value else "false"
    return str(value)


def _pick(op: OpSpec, sw: Switch[shapes.Expr], attrs: Mapping[str, Any], backend: str) -> Any:
    """The case of a switch (shape, let) that these attrs and this backend select."""
    if sw.by is None:
        return sw.only()
    if sw.by == BACKEND_SWITCH:
        return sw.get(backend)
    return sw.get(_attr_key(op.attr(sw.by), attrs[sw.by]))


def _attrs_hold(cond: Condition, attrs: Mapping[str, Any]) -> bool:
    """Whether a `when:` that tests attr values only holds (by the runtime's evaluator)."""
    return plan_runtime.holds(condition_literal(cond), dict(attrs), "")


class _Resolver:
    """Evaluates expressions over bound symbols, computing lets (as the wrapper does) on demand."""

    def __init__(self, op: OpSpec, attrs: Mapping[str, Any], env: Mapping[str, Any], backend: str) -> None:
        self.op, self.attrs, self.backend = op, attrs, backend
        self.env = dict(env)
        self.lets = {let.name: let for let in op.lets}

    def __call__(self, expr: shapes.Expr) -> Any:
        """The value of an expression or condition, by the runtime's evaluator (runtime/plan.py) on
        its plan literal: the compiler computes what the plan would."""
        for name in shapes.symbols(expr):
            if name not in self.env:
                let = self.lets.get(name)
                if let is None:
                    raise _Reject(f"symbol {name} is bound by no input of this case")
                self.env[name] = self(_pick(self.op, let.value, self.attrs, self.backend))
        try:
            return plan_runtime.evaluate(expression_literal(expr), {**self.attrs, **self.env}, self.backend)
        except ZeroDivisionError:
            raise _Reject(f"division by zero in {shapes.to_text(expr)}") from None
        except KeyError as exc:
            raise _Reject(f"{exc.args[0]} is not known here (in {shapes.to_text(expr)})") from None

    def holds(self, cond: Condition) -> bool:
        """Whether a `when:` of an input or constraint holds."""
        whole = cond.expr()
        return whole is None or bool(self(whole))


def _deps(op: OpSpec, expr: shapes.Expr, attrs: Mapping[str, Any], derived: Mapping[str, shapes.Expr]) -> set[str]:
    """Every symbol `expr` reads, through lets (every backend's case) and derived symbols."""
    lets = {let.name: let for let in op.lets}
    seen: set[str] = set()
    todo = list(shapes.symbols(expr))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in lets:
            sw = lets[name].value
            exprs = [_pick(op, sw, attrs, b) for b in BACKENDS] if sw.by == BACKEND_SWITCH \
                else [_pick(op, sw, attrs, "cpu")]
            todo += [s for e in exprs for s in shapes.symbols(e)]
        elif name in derived:
            todo += list(shapes.symbols(derived[name]))
    return seen


# --------------------------------------------------------------------------------------- shapes --

def _patterns(op: OpSpec, key: str) -> dict[str, ShapePattern]:
    """Each input's shape pattern in this case of the switch (inputs of any shape left out)."""
    out = {}
    for arg in op.inputs:
        if arg.shape is not None:
            out[arg.name] = arg.shape.case(key)
    return out


def _free_symbols(op: OpSpec, patterns: Mapping[str, ShapePattern], attrs: Mapping[str, Any]) -> list[str]:
    """The shape symbols the inputs bind (not attrs, not lets, not groups), in first-use order."""
    taken = set(attrs) | {let.name for let in op.lets}
    names: dict[str, None] = {}
    for pattern in patterns.values():
        for dim in pattern.dims:
            for name in shapes.symbols(dim):
                if name not in taken:
                    names.setdefault(name)
    return list(names)


def _derivations(op: OpSpec, attrs: Mapping[str, Any], free: Sequence[str]) -> dict[str, shapes.Expr]:
    """Shape symbols that an equality constraint `A == expr` (whose `when` holds) fixes: A is
    computed from expr rather than sampled, when expr does not read A."""
    derived: dict[str, shapes.Expr] = {}
    for c in op.where:
        if c.op != "==" or c.when.checks or c.when.test is not None or not _attrs_hold(c.when, attrs):
            continue
        for side, other in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            if isinstance(side, shapes.Sym) and side.name in free and side.name not in derived \
                    and side.name not in _deps(op, other, attrs, derived):
                derived[side.name] = other
                break
    return derived


def _group_dims(rng: np.random.Generator, mode: str, zero: bool) -> tuple[int, ...]:
    rank = int(rng.integers(1 if zero else 0, 3))
    if mode == "ones":
        return (1,) * rank
    dims = [int(rng.integers(1, MAX_SIZE)) for _ in range(rank)]
    if zero:
        dims[int(rng.integers(rank))] = 0
    return tuple(dims)


def bind_shapes(op: OpSpec, key: str, attrs: Mapping[str, Any], rng: np.random.Generator, mode: str = "random",
                zero: str | None = None) -> Binding:
    """The sizes of one case (the one function that chooses them; extend it for new shape
    features). `key`: the case of the shape switch; `attrs`: every attr's value; `mode`: "random"
    (sizes 1..MAX_SIZE), "ones" (every free size 1) or "empty" (the symbol, group or anonymous
    group `zero` — "...x" for input x's — 0-sized). Raises _Reject when a derived size is
    negative or an axis attr cannot place every input's dim; the constraints are checked later."""
    patterns = _patterns(op, key)
    free = _free_symbols(op, patterns, attrs)
    derived = _derivations(op, attrs, free)
    env: dict[str, Any] = {a.name: attrs[a.name] for a in op.attrs  # attrs expressions may read
                           if a.type in (AttrType.INT, AttrType.FLOAT) and isinstance(attrs.get(a.name), (int, float))}
    for name in free:
        if name not in derived:
            env[name] = 0 if name == zero else 1 if mode == "ones" else int(rng.integers(1, MAX_SIZE + 1))
    binding = Binding(env)
    for pattern in patterns.values():
        for _, group in pattern.groups:
            if group and group not in binding.groups:
                binding.groups[group] = _group_dims(rng, mode, group == zero)
                env[group] = math.prod(binding.groups[group])
    pending = dict(derived)
    while pending:  # derived symbols may read other derived ones: compute each once its inputs are
        progress = False
        for name, expr in list(pending.items()):
            if set(_deps(op, expr, attrs, {})) & set(pending):
                continue
            value = _Resolver(op, attrs, env, "cpu")(expr)
            if value < 0:
                raise _Reject(f"{name} = {shapes.to_text(expr)} is negative")
            env[name] = value
            del pending[name]
            progress = True
        if not progress:
            raise _Reject(f"the equalities fixing {', '.join(pending)} depend on each other")
    resolve = _Resolver(op, attrs, env, "cpu")
    for arg in op.inputs:
        if arg.name not in patterns:
            continue
        pattern = patterns[arg.name]
        dims: list[int] = []
        seen_groups, split = 0, None  # with two groups: the index of the dim between them (the axis)
        for item in pattern.items():
            if isinstance(item, str):
                seen_groups += 1
                dims += binding.groups[item[1:]] if item.startswith("*") else \
                    _group_dims(rng, mode, zero == "..." + arg.name)
                continue
            if seen_groups == 1 and len(pattern.groups) == 2:
                split = len(dims)
            value = resolve(item)
            if value < 0:
                raise _Reject(f"{arg.name}: dim {shapes.to_text(item)} = {value} is negative")
            dims.append(value)
        if split is not None and arg.axis is not None:
            binding.axes[arg.axis] = env[arg.axis] = _axis_value(rng, arg, split, len(dims),
                                                                 binding.axes.get(arg.axis))
        binding.shapes[arg.name] = tuple(dims)
    return binding


def _axis_value(rng: np.random.Generator, arg: TensorArg, index: int, ndim: int, chosen: int | None) -> int:
    """The axis attr's value that places `arg`'s dim between its two groups at `index` (positive
    or negative, at random), or a check that an earlier input's choice does."""
    if chosen is None:
        return index if rng.random() < 0.5 else index - ndim
    if (chosen if chosen >= 0 else chosen + ndim) != index:
        raise _Reject(f"axis attr {arg.axis} = {chosen} cannot place {arg.name}'s dim at {index}")
    return chosen


def _check(op: OpSpec, attrs: Mapping[str, Any], binding: Binding) -> None:
    """Every `where:` constraint whose condition holds, under both backends' lets."""
    for backend in BACKENDS:
        resolve = _Resolver(op, attrs, binding.env, backend)
        for c in op.where:
            if resolve.holds(c.when) and not resolve(shapes.BinOp(c.op, c.lhs, c.rhs)):
                raise _Reject(f"where {c.text!r} ({c.message})" if c.message else f"where {c.text!r}")


# ---------------------------------------------------------------------------------------- attrs --

def _usable_dtypes(allowed: Sequence[str]) -> list[str]:
    """Allowed dtypes that NumPy can make here (bfloat16 needs ml_dtypes); all when none can."""
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        usable = [d for d in allowed if d != "bfloat16"]
        return usable or list(allowed)
    return list(allowed)


def _numpy_dtype(name: str) -> Any:
    from codegen.runtime.cpu import numpy_dtype

    return numpy_dtype(name)


def _int_range(attr: Attr) -> tuple[int, int]:
    """Small values an int attr may take: from its minimum (0 without one) up to 4 more."""
    lo = 0 if attr.minimum is None else math.floor(attr.minimum) + 1 if attr.minimum_exclusive \
        else math.ceil(attr.minimum)
    hi = lo + 4 if attr.maximum is None else math.ceil(attr.maximum) - 1 if attr.maximum_exclusive \
        else math.floor(attr.maximum)
    return lo, min(hi, lo + 4)


def _attr_value(attr: Attr, rng: np.random.Generator, turn: int, activations: Sequence[str]) -> Any:
    """A valid value of `attr`, the `turn`-th of its choices for enums, bools and types (so that
    consecutive cases cover them all), otherwise random within its bounds."""
    if attr.allowed:  # enum, and the allowed values of int, string and type attrs
        return attr.allowed[turn % len(attr.allowed)]
    match attr.type:
        case AttrType.BOOL:
            return turn % 2 == 0
        case AttrType.INT:
            lo, hi = _int_range(attr)
            return int(rng.integers(lo, hi + 1))
        case AttrType.FLOAT:
            low, high = attr.minimum, attr.maximum
            u = float(rng.uniform(0.05, 0.95))  # inside the bounds: exclusive bounds are valid too
            if low is not None and high is not None:
                return low + (high - low) * u
            if low is not None:
                return low + 2 * u
            return (high if high is not None else 1.0) - 2 * u
        case AttrType.LIST_INT:
            lo, hi = _int_range(attr)
            return [int(v) for v in rng.integers(lo, hi + 1, int(rng.integers(1, 4)))]
        case AttrType.TYPE:
            return _FLOATS[turn % len(_FLOATS)]
        case AttrType.ACTIVATION if activations:
            return activations[turn % len(activations)]
        case AttrType.ACTIVATION | AttrType.LIST_ACTIVATION | AttrType.STRING | AttrType.ENUM:
            return attr.default if attr.has_default else "opgen"  # strings without allowed values
        case _:
            assert_never(attr.type)


def _attr_values(op: OpSpec, rng: np.random.Generator, turn: int, by: str | None, key: str,
                 activations: Sequence[str]) -> tuple[dict[str, Any], set[str]]:
    """Every attr's value (defaults included) and the names passed explicitly."""
    axes = {arg.axis for arg in op.inputs if arg.axis is not None}
    values: dict[str, Any] = {}
    given: set[str] = set()
    for i, attr in enumerate(op.attrs):
        if attr.name == by:
            values[attr.name] = (key == "true" if attr.type is AttrType.BOOL
                                 else int(key) if attr.type is AttrType.INT else key)
            given.add(attr.name)
            continue
        if attr.name in axes or attr.type is AttrType.LIST_ACTIVATION:  # chosen with the sizes
            values[attr.name] = attr.default
            continue
        use_default = attr.has_default and (turn + i) % 3 == 0
        value = attr.default if use_default else _attr_value(attr, rng, turn + i, activations)
        if attr.type is AttrType.TYPE and not attr.allowed:
            value = _FLOATS[(turn + i) % len(_FLOATS)]
        values[attr.name] = value
        if not use_default or not rng.integers(2):
            given.add(attr.name)
    return values, given


def _activation_lists(op: OpSpec, rng: np.random.Generator, attrs: dict[str, Any], given: set[str],
                      binding: Binding, activations: Sequence[str]) -> None:
    """list(activation) attrs: `length` names (as many as the spec's length says), or one name."""
    resolve = _Resolver(op, attrs, binding.env, "cpu")
    for attr in op.attrs:
        if attr.type is not AttrType.LIST_ACTIVATION or not activations or not rng.integers(3):
            continue
        count = resolve(attr.length) if attr.length is not None else int(rng.integers(1, 3))
        names = [activations[int(rng.integers(len(activations)))] for _ in range(max(count, 1))]
        attrs[attr.name] = names if count != 1 or rng.integers(2) else names[0]
        given.add(attr.name)


# ----------------------------------------------------------------------------------------- data --

def _array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, lo: int | None, hi: int | None) -> Any:
    """Random data: standard normals for float dtypes (within [lo, hi] when bounded), small ints
    for integer dtypes (0..4 unless bounded), coin flips for bool."""
    np_dtype = _numpy_dtype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in _FLOATS:
        if lo is not None or hi is not None:
            low = lo if lo is not None else hi - 4 if hi is not None else 0  # (one of them is given)
            high = hi if hi is not None else low + 4
            return rng.uniform(low, high, shape).astype(np_dtype)
        return rng.standard_normal(shape).astype(np_dtype)
    info = np.iinfo(np_dtype)
    low = max(lo if lo is not None else (0 if hi is None else hi - 4), int(info.min))
    high = min(hi if hi is not None else low + 4, int(info.max))
    if low > high:
        if math.prod(shape):
            raise _Reject(f"no value in [{lo}, {hi}]")
        high = low
    return rng.integers(low, high + 1, shape).astype(np_dtype)


def _input_dtype(op: OpSpec, arg: TensorArg, dtypes: Mapping[str, str], turn: int) -> str:
    if op.type_var(arg.dtype) is not None:
        return dtypes[arg.dtype]
    choices = (arg.dtype, *arg.accepts_dtypes)
    return choices[turn % len(choices)]


def _inputs(op: OpSpec, rng: np.random.Generator, attrs: Mapping[str, Any], binding: Binding,
            dtypes: Mapping[str, str], turn: int, with_optional: bool) -> tuple[list[Any], list[str]]:
    """The inputs in spec order (None for an absent optional one), and notes for the label."""
    resolve = _Resolver(op, attrs, binding.env, "cpu")
    args: list[Any] = []
    notes: list[str] = []
    for i, arg in enumerate(op.inputs):
        dtype = _input_dtype(op, arg, dtypes, turn + i)
        if arg.optional and not with_optional:
            args.append(None)
            continue
        if not resolve.holds(arg.when):  # not checked: any array
            args.append(np.zeros(0, _numpy_dtype(dtype)))
            continue
        shape = binding.shapes.get(arg.name)
        if shape is None:  # any shape
            shape = tuple(int(d) for d in rng.integers(1, MAX_SIZE, int(rng.integers(0, 3))))
        lo = resolve(arg.values_min) if arg.values_min is not None else None
        hi = resolve(arg.values_max) if arg.values_max is not None else None
        if arg.is_list:
            tv = op.type_var(arg.dtype)
            count = int(rng.integers(1, 4))
            kinds = [dtype] + [str(rng.choice(_usable_dtypes(tv.allowed))) if tv is not None and tv.is_list
                               else dtype for _ in range(count - 1)]
            args.append([_array(rng, shape, kind, lo, hi) for kind in kinds])
            notes.append(f"{arg.name}×{count}")
            continue
        if arg.accepts_python_int and shape == () and rng.integers(2):
            args.append(int(_array(rng, shape, dtype, lo if lo is not None else 1, hi)))
            notes.append(f"{arg.name}:int")
            continue
        args.append(_array(rng, shape, dtype, lo, hi))
        if dtype != arg.dtype and op.type_var(arg.dtype) is None:
            notes.append(f"{arg.name}:{dtype}")
        if arg.optional:
            notes.append(f"+{arg.name}")
    return args, notes


def _expected(op: OpSpec, attrs: Mapping[str, Any], binding: Binding, key: str,
              dtypes: Mapping[str, str]) -> dict[str, tuple[tuple[int, ...], str | None] | None]:
    """Each output's shape and dtype name (dtype None where it is not a type variable, a `type`
    attr or a plain dtype); None for an output whose `when:` does not hold (the op returns None)."""
    resolve = _Resolver(op, attrs, binding.env, "cpu")
    out: dict[str, tuple[tuple[int, ...], str | None] | None] = {}
    for o in op.outputs:
        if not resolve.holds(o.when):
            out[o.name] = None
            continue
        pattern = o.shape.case(key)
        dims: list[int] = []
        for item in pattern.items():
            if isinstance(item, str):
                dims += binding.groups[item[1:]]
            else:
                dims.append(resolve(item))
        if any(d < 0 for d in dims):
            raise _Reject(f"output {o.name}: shape {dims} has a negative dim")
        attr = op.attr(o.dtype)
        dtype = dtypes.get(o.dtype) \
            or (str(attrs[o.dtype]) if attr is not None and attr.type is AttrType.TYPE else None) \
            or (o.dtype if o.dtype in DTYPES else None)
        out[o.name] = (tuple(dims), dtype)
    return out


# ---------------------------------------------------------------------------------------- cases --

def _switch_keys(op: OpSpec) -> tuple[str | None, tuple[str, ...]]:
    """The attr that switches shapes (pygen.switch_attr: the wrapper's sections) and its cases."""
    from codegen.pygen import switch_attr

    by = switch_attr(op)
    attr = op.attr(by) if by is not None else None
    if attr is None:
        return None, ("",)
    return by, ("true", "false") if attr.type is AttrType.BOOL else tuple(str(v) for v in attr.allowed or ())


def _zero_candidates(op: OpSpec, key: str, attrs: Mapping[str, Any]) -> list[str]:
    """What an "empty" case may make 0-sized: free shape symbols (not those an equality fixes),
    int attrs used as dims whose bounds allow 0, named groups, and anonymous groups ("...x" for
    input x's)."""
    patterns = _patterns(op, key)
    free = _free_symbols(op, patterns, attrs)
    derived = _derivations(op, attrs, free)
    names = [s for s in free if s not in derived]
    names += [a.name for a in _dim_attrs(op, patterns) if _int_range(a)[0] <= 0]
    for arg, pattern in patterns.items():
        names += [group or "..." + arg for _, group in pattern.groups if (group or "..." + arg) not in names]
    return names


def _dim_attrs(op: OpSpec, patterns: Mapping[str, ShapePattern]) -> list[Attr]:
    """The int attrs that input shapes use as dims (ScaledSum's `[B, width]`)."""
    used = {s for p in patterns.values() for d in p.dims for s in shapes.symbols(d)}
    return [a for a in op.attrs if a.type is AttrType.INT and a.name in used]


def _one_case(op: OpSpec, rng: np.random.Generator, turn: int, by: str | None, key: str, mode: str,
              activations: Sequence[str], failures: Counter[str]) -> Case | None:
    """A valid case in this switch case and mode; None when ATTEMPTS tries find none (the
    reasons counted in `failures`)."""
    dim_attrs = _dim_attrs(op, _patterns(op, key))
    for attempt in range(ATTEMPTS):
        # first half: the coverage choices of this turn; then everything random
        spin = turn if attempt < ATTEMPTS // 2 else int(rng.integers(1 << 16))
        attrs, given = _attr_values(op, rng, spin, by, key, activations)
        dtypes = _dtypes(op, spin)
        zero = None
        if mode == "ones":  # int attrs used as dims are sizes too
            attrs.update({a.name: min(max(1, _int_range(a)[0]), _int_range(a)[1]) for a in dim_attrs})
        elif mode == "empty":
            candidates = _zero_candidates(op, key, attrs)
            if not candidates:
                return None
            zero = candidates[int(rng.integers(len(candidates)))]
            if op.attr(zero) is not None:
                attrs[zero] = 0
                given.add(zero)
        try:
            binding = bind_shapes(op, key, attrs, rng, mode, zero)
            attrs.update(binding.axes)
            given.update(binding.axes)
            _check(op, attrs, binding)
            _activation_lists(op, rng, attrs, given, binding, activations)
            with_optional = turn % 2 == 0 if mode == "random" else bool(rng.integers(2))
            args, notes = _inputs(op, rng, attrs, binding, dtypes, spin, with_optional)
            if mode == "empty" and not any(0 in s for s in binding.shapes.values()):
                raise _Reject("no input is 0-sized")
            expect = _expected(op, attrs, binding, key, dtypes)
        except _Reject as exc:
            failures[str(exc)] += 1
            continue
        sizes = [f"{k}={v}" for k, v in binding.env.items() if op.attr(k) is None]
        sizes += [f"*{g}={list(d)}" for g, d in binding.groups.items()]
        label = " ".join(part for part in (
            f"derived {mode}", f"{by}={key}" if by else "", *(f"{k}={v}" for k, v in dtypes.items()),
            *sizes, *notes) if part)
        kwargs = {a.name: attrs[a.name] for a in op.attrs if a.name in given}
        return Case(label, tuple(args), kwargs, expect=expect)
    return None


def _dtypes(op: OpSpec, turn: int) -> dict[str, str]:
    """Each type variable's dtype: the `turn`-th allowed one (consecutive turns cover them all);
    an accumulator type variable's from the one it accumulates."""
    out: dict[str, str] = {}
    for i, tv in enumerate(op.type_vars):
        if tv.accumulates is None:
            choices = _usable_dtypes(tv.allowed)
            out[tv.name] = choices[(turn + i) % len(choices)]
    for tv in op.type_vars:
        if tv.accumulates is not None:
            out[tv.name] = ACCUMULATOR[out[tv.accumulates]]
    return out


def derive_cases(op: OpSpec, rng: np.random.Generator, activations: Sequence[str] = (),
                 per_key: int = 2) -> list[Case]:
    """Random valid cases of `op`: per case of its shape switch, `per_key` random ones, one with
    every free size 1 and one with a 0-sized dim (each where the spec allows it), and more random
    ones until every allowed dtype of each type variable appeared. `activations`: the names of the
    activation library (SpecSet.activations.names), for activation attrs. Raises NotDerivable for
    runtime ops and for specs whose constraints no sampled sizes satisfied."""
    if op.runtime is not None:
        raise NotDerivable(op.name, f"a runtime op ({op.runtime.text()}): its inputs carry meaning the spec "
                                    f"does not declare; write a builder for it")
    by, keys = _switch_keys(op)
    schedule = [(key, mode) for key in keys for mode in ["random"] * per_key + ["ones", "empty"]]
    widest = max((len(_usable_dtypes(tv.allowed)) for tv in op.type_vars if tv.accumulates is None), default=1)
    schedule += [(keys[i % len(keys)], "random") for i in range(max(0, widest - per_key * len(keys)))]
    cases: list[Case] = []
    failures: Counter[str] = Counter()
    for turn, (key, mode) in enumerate(schedule):
        case = _one_case(op, rng, turn, by, key, mode, activations, failures)
        if case is not None:
            cases.append(case)
        elif mode == "random":
            reason, count = failures.most_common(1)[0] if failures else ("no tries", 0)
            where = f" with {by} {key}" if by else ""
            raise NotDerivable(op.name, f"no sampled sizes{where} satisfied the spec in {ATTEMPTS} tries; "
                                        f"most often: {reason} ({count} times)")
    return cases
