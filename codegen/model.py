"""The op model: frozen dataclasses that a spec parses into (see docs/specs.md).

Everything downstream (render, the CLI, docs) reads only these objects, never raw YAML. Each
object keeps the `Loc` it came from so that later checks can still report `file:line`.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, NoReturn
from typing import TypeVar as _TypeVar

from codegen.naming import snake_case
from codegen.runtime.dtypes import ACCUMULATOR as ACCUMULATOR  # re-exported: the loader and pygen read it here
from codegen.runtime.line_map import SourceLine as Loc  # a spec's `file:line`: the runtime's, one class
from codegen.shapes import BinOp, Expr, Is, Logic, ShapePattern, shape_to_text, symbols, tested, to_text

if sys.version_info >= (3, 11):
    from enum import StrEnum
    from typing import assert_never as assert_never  # re-exported: the attr-type dispatchers end in it
else:  # Python 3.10 (requires-python): StrEnum's behaviour and assert_never, written out
    class StrEnum(str, enum.Enum):
        __str__ = str.__str__
        __format__ = str.__format__

    def assert_never(value: NoReturn) -> NoReturn:
        raise AssertionError(f"unhandled value: {value!r}")


def _str_repr(self: str) -> str:
    """A member's repr is its value's (`'float16'`): generated code writes dtypes and attr types
    with `!r`, and must read the same as when they were plain strings."""
    return str.__repr__(self)


class DType(StrEnum):
    """A dtype a spec may name. A str: `dtype == "float16"`, f-strings and dict lookups by name work."""

    FLOAT16 = "float16"
    BFLOAT16 = "bfloat16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    INT8 = "int8"
    UINT8 = "uint8"
    INT32 = "int32"
    UINT32 = "uint32"
    INT64 = "int64"
    UINT64 = "uint64"
    BOOL = "bool"

    __repr__ = _str_repr


class AttrType(StrEnum):
    """An attr's `type:`. `activation` and `list(activation)` take functions of the activation
    library (specs/_vocab/activations.yaml)."""

    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STRING = "string"
    ENUM = "enum"
    LIST_INT = "list(int)"
    TYPE = "type"
    ACTIVATION = "activation"
    LIST_ACTIVATION = "list(activation)"

    __repr__ = _str_repr


# Target tables: one entry per member (tests/test_model_types.py checks that each is exhaustive), so a
# new dtype or attr type cannot be half supported.

#: The C type a kernel sees for each dtype.
DTYPES: dict[DType, str] = {
    DType.FLOAT16: "__half",
    DType.BFLOAT16: "__nv_bfloat16",
    DType.FLOAT32: "float",
    DType.FLOAT64: "double",
    DType.INT8: "signed char",
    DType.UINT8: "unsigned char",
    DType.INT32: "int",
    DType.UINT32: "unsigned int",
    DType.INT64: "long long",
    DType.UINT64: "unsigned long long",
    DType.BOOL: "bool",
}

#: Each dtype's kind: "float", "int" (signed or not) or "bool".
DTYPE_KINDS: dict[DType, str] = {
    DType.FLOAT16: "float", DType.BFLOAT16: "float", DType.FLOAT32: "float", DType.FLOAT64: "float",
    DType.INT8: "int", DType.UINT8: "int", DType.INT32: "int", DType.UINT32: "int", DType.INT64: "int",
    DType.UINT64: "int", DType.BOOL: "bool",
}

#: The dtype reductions over each dtype accumulate in (the runtime's ACCUMULATOR, typed and
#: exhaustive): None for the dtypes that have none (an accumulator type variable needs float types).
DTYPE_ACCUMULATORS: dict[DType, DType | None] = {d: DType(ACCUMULATOR[d]) if d in ACCUMULATOR else None
                                                 for d in DType}

FLOAT_DTYPES = tuple(d for d in DType if DTYPE_KINDS[d] == "float")
INT_DTYPES = tuple(d for d in DType if DTYPE_KINDS[d] == "int")
#: The dtypes an input's `values: {on_device: true}` check takes (codegen/runtime/device_value_checks.py
#: has a kernel for each; tests/test_device_value_checks.py checks the two lists agree).
ON_DEVICE_VALUE_DTYPES = (DType.INT32, DType.INT64, DType.UINT32)

ATTR_TYPES = tuple(AttrType)

_E = _TypeVar("_E", bound=enum.Enum)
_V = _TypeVar("_V")


def exhaustive(keys: type[_E], name: str, table: dict[_E, _V]) -> dict[_E, _V]:
    """`table`, checked at import to have an entry for every member of `keys`: a member added to
    the enum without one fails on import, naming the table and the member. (Dispatch written as a
    `match` ends in `assert_never`, which mypy checks the same way.)"""
    missing = [str(m.value) for m in keys if m not in table]
    if missing:
        raise TypeError(f"{name}: no entry for {keys.__name__} {', '.join(missing)}")
    return table

#: The C type of an attr passed to a kernel as a scalar; None: not passed as one (an activation
#: passes its id and parameters, a list attr one element at a time).
ATTR_C_TYPES: dict[AttrType, str | None] = exhaustive(AttrType, "ATTR_C_TYPES", {
    AttrType.INT: "long long", AttrType.FLOAT: "float", AttrType.BOOL: "int", AttrType.STRING: None,
    AttrType.ENUM: None, AttrType.LIST_INT: None, AttrType.TYPE: None, AttrType.ACTIVATION: None,
    AttrType.LIST_ACTIVATION: None,
})

#: The NumPy constructor a wrapper converts a scalar kernel argument with (None as in ATTR_C_TYPES).
ATTR_PY_CTORS: dict[AttrType, str | None] = exhaustive(AttrType, "ATTR_PY_CTORS", {
    AttrType.INT: "_np.int64", AttrType.FLOAT: "_np.float32", AttrType.BOOL: "_np.int32", AttrType.STRING: None,
    AttrType.ENUM: None, AttrType.LIST_INT: None, AttrType.TYPE: None, AttrType.ACTIVATION: None,
    AttrType.LIST_ACTIVATION: None,
})

#: The type of the attr's argument in a torch op schema.
ATTR_TORCH_TYPES: dict[AttrType, str] = exhaustive(AttrType, "ATTR_TORCH_TYPES", {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool", AttrType.STRING: "str",
    AttrType.ENUM: "str", AttrType.LIST_INT: "int[]", AttrType.TYPE: "str", AttrType.ACTIVATION: "str",
    AttrType.LIST_ACTIVATION: "str[]",
})


@dataclass(frozen=True)
class ActivationValue:
    """An activation attr's default: a function of the library and the parameters the spec set.
    Its repr is the Python source of the value (a plain name when no parameter is set)."""

    name: str
    params: tuple[tuple[str, float], ...] = ()

    def __repr__(self) -> str:
        if not self.params:
            return repr(self.name)
        return f"Activation.{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params)})"


Scalar = int | float | bool | str
AttrValue = Scalar | tuple[int, ...] | ActivationValue | tuple[ActivationValue, ...]


#: `by: backend` switches a let (launch sizes, say) on the backend that runs the op.
BACKEND_SWITCH = "backend"
BACKENDS = ("cpu", "cuda")


_Case = _TypeVar("_Case", covariant=True)  # a Switch[ShapePattern] is a Switch[object]


@dataclass(frozen=True)
class Switch(Generic[_Case]):
    """A value chosen by an enum attr: `{by: data_format, NHWC: ..., NCHW: ...}`; a shape is a
    `Switch[ShapePattern]`, a let a `Switch[Expr]`.

    A plain (unswitched) value is a Switch with `by=None` and one case keyed "".
    """

    by: str | None
    cases: tuple[tuple[str, _Case], ...]

    def only(self) -> _Case:
        assert self.by is None
        return self.cases[0][1]

    def get(self, key: str) -> _Case:
        for k, v in self.cases:
            if k == key:
                return v
        raise KeyError(key)

    def case(self, key: str) -> _Case:
        """The value for `key`: its case, or the only value of a plain switch (whatever the key)."""
        return self.only() if self.by is None else self.get(key)

    def values(self) -> tuple[_Case, ...]:
        """Every case's value, in case order."""
        return tuple(v for _, v in self.cases)


def switch_text(sw: Switch[_Case], show: Callable[[_Case], str] = str) -> str:
    """Human text of a switch, as in reference pages: `[N, H, W, C] (NHWC) · [N, C, H, W] (NCHW)`."""
    if sw.by is None:
        return show(sw.only())
    def label(k: str) -> str:  # a bool attr's cases read as `time_major true`
        return f"{sw.by} {k}" if k in ("true", "false") else k

    return " · ".join(f"{show(v)} ({label(k)})" for k, v in sw.cases)


def pattern_switch_text(sw: Switch[ShapePattern]) -> str:
    return switch_text(sw, shape_to_text)


def expr_switch_text(sw: Switch[Expr]) -> str:
    return switch_text(sw, to_text)


@dataclass(frozen=True)
class TypeVar:
    name: str
    allowed: tuple[DType, ...]
    doc: str
    loc: Loc
    is_list: bool = False  # a list of dtypes, one per element of a list input (TensorFlow's list(type))
    accumulates: str | None = None  # `{accumulates: T}`: the accumulator dtype of T (ACCUMULATOR)


@dataclass(frozen=True)
class TensorArg:
    """An input: `dtype` is a dtype or a type variable's name."""

    name: str
    dtype: DType | str
    shape: Switch[ShapePattern] | None  # None: any shape
    doc: str
    loc: Loc
    optional: bool = False
    is_list: bool = False
    accepts_python_int: bool = False  # scalar int inputs (num_layers, ...) may be plain ints
    accepts_dtypes: tuple[DType, ...] = ()  # further dtypes accepted, converted to `dtype` after the checks
    values_min: Expr | None = None  # `values: {min, max}`: every element checked on the host
    values_max: Expr | None = None
    values_on_device: bool = False  # `values: {on_device: true}`: the cuda backend checks on the device, later
    when: Condition = field(default_factory=lambda: Condition())  # checked (and binding) only when it holds
    axis: str | None = None  # the int attr placing the dim between two groups: [*outer, N, *inner]

    def patterns(self) -> tuple[ShapePattern, ...]:
        """The shape's patterns, one per case (none when any shape goes)."""
        return self.shape.values() if self.shape is not None else ()


@dataclass(frozen=True)
class Attr:
    name: str
    type: AttrType
    doc: str
    loc: Loc
    default: AttrValue | None = None
    has_default: bool = False
    allowed: tuple[Scalar, ...] | None = None  # enum values, or allowed values of int/string/type
    minimum: float | None = None
    maximum: float | None = None
    length: Expr | None = None  # list(activation): the number of functions (a single one is repeated)
    minimum_exclusive: bool = False  # `above:` rather than `min:`: the value must exceed the bound
    maximum_exclusive: bool = False  # `below:` rather than `max:`

    def bounds_text(self, le: str = "<=", ge: str = ">=") -> str:
        """`>= 0`, `> 0, < 1`, ...: the attr's bounds as docs show them ("" when unbounded)."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.minimum_exclusive else ge} {self.minimum}")
        if self.maximum is not None:
            parts.append(f"{'<' if self.maximum_exclusive else le} {self.maximum}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Output:
    name: str
    dtype: DType | str  # a dtype, a type variable's name or a type attr's name
    shape: Switch[ShapePattern]  # no ellipsis, except for a runtime op's outputs
    doc: str
    loc: Loc
    is_list: bool = False  # a list of tensors (runtime ops only)
    when: Condition = field(default_factory=lambda: Condition())  # computed only when it holds, else None

    def patterns(self) -> tuple[ShapePattern, ...]:
        """The shape's patterns, one per case."""
        return self.shape.values()


@dataclass(frozen=True)
class Condition:
    """A `when:`: everything listed must hold. The canonical form is one condition text (`test`,
    typed by codegen/conditions.py: comparisons, and/or/not, `rnn_mode == lstm`, `backend == cuda`,
    `T == float64`, bool attrs, boolean lets, variant names); `when: {is_training: true}` (attr
    values, `clauses`) and a plain comparison of bound symbols (`"l > 0"`, `checks`), alone or in a
    list, are its spellings, kept as they are so that existing plans print as before. `expr()`
    gives the whole as one condition."""

    clauses: tuple[tuple[str, Scalar], ...] = ()
    checks: tuple[tuple[Expr, str, Expr], ...] = ()  # lhs, comparison, rhs
    test: Expr | None = None

    def text(self) -> str:
        parts = [f"{a} = {v!r}" for a, v in self.clauses]
        parts += [f"{to_text(lhs)} {op} {to_text(rhs)}" for lhs, op, rhs in self.checks]
        parts += [to_text(self.test)] if self.test is not None else []
        return ", ".join(parts)

    @property
    def empty(self) -> bool:
        return not (self.clauses or self.checks or self.test is not None)

    def parts(self) -> tuple[Expr, ...]:
        """Each listed test as a condition expression, in the order the literal and the loop test them."""
        return (*(Is(a, v) for a, v in self.clauses), *(BinOp(op, lhs, rhs) for lhs, op, rhs in self.checks),
                *(() if self.test is None else (self.test,)))

    def expr(self) -> Expr | None:
        """The whole condition in the canonical form (None: always holds)."""
        parts = self.parts()
        return None if not parts else parts[0] if len(parts) == 1 else Logic("and", parts)

    def attrs(self) -> tuple[str, ...]:
        """The attrs (and `backend`) the condition tests by value."""
        names = dict.fromkeys(a for a, _ in self.clauses)
        names.update(dict.fromkeys(tested(self.test) if self.test is not None else ()))
        return tuple(names)


@dataclass(frozen=True)
class Constraint:
    """A `where:` line: `lhs op rhs` over shape symbols and int attrs."""

    lhs: Expr
    op: str
    rhs: Expr
    text: str
    message: str
    when: Condition
    loc: Loc


@dataclass(frozen=True)
class Let:
    """A named dimension expression computed once shapes are bound (kernel arguments, shapes); a
    condition makes a boolean let (0/1 where an int is needed). `origin` marks the lets the loader
    derives from `params:` ("param") and `variants:` ("variant"): the spec writes those there."""

    name: str
    value: Switch[Expr]
    loc: Loc
    origin: str = ""


@dataclass(frozen=True)
class Param:
    """A tunable integer constant (`params: {fused_max_depth: {value: 128, doc: ...}}`): a symbol of
    the op's expressions like a let, shown on the reference page and kept in the generated plan."""

    name: str
    value: int
    doc: str
    loc: Loc  # where its value is written: a family's param that a member overrides, the override's line
    #: a family param this op sets its own value of (`param_overrides:`): the family's value; else None
    family_value: int | None = None


@dataclass(frozen=True)
class Variant:
    """One named launch variant: it runs when `when` holds and no earlier variant's does."""

    name: str
    when: Condition
    doc: str
    loc: Loc


@dataclass(frozen=True)
class Variants:
    """`variants:`: named, ordered, first match wins; `otherwise` runs when none matches. Each name
    is a boolean of the op's conditions and expressions, exactly one true (codegen/variants.py)."""

    cases: tuple[Variant, ...]
    otherwise: str
    loc: Loc

    def names(self) -> tuple[str, ...]:
        return (*(v.name for v in self.cases), self.otherwise)


#: A declaration a family file can hold for its members (OpSpec.own tells the op's own ones apart).
_Declared = _TypeVar("_Declared", TypeVar, Attr, Param, Let)


@dataclass(frozen=True)
class ArgIndex:
    """A launch argument that is one element of a list attr: `activations[d]`."""

    name: str
    index: Expr

    def __str__(self) -> str:
        return f"{self.name}[{to_text(self.index)}]"


def arg_name(arg: str | ArgIndex) -> str:
    """The tensor, attr or symbol a launch argument names."""
    return arg.name if isinstance(arg, ArgIndex) else arg


@dataclass(frozen=True)
class LaunchStep:
    """One kernel launch of an op's launch plan."""

    kernel: str  # the device function template in the kernel source
    grid: tuple[Expr, ...]
    block: tuple[Expr, ...]
    args: tuple[str | ArgIndex, ...]  # tensor names, attr names, let/shape symbols, list attr elements
    when: Condition
    loc: Loc
    shared_bytes: Expr | None = None


@dataclass(frozen=True)
class GemmStep:
    """A matrix product of the launch plan, run by the backend's GEMM (cuBLAS, NumPy):
    out[m, n] = op(a)·op(b) (+ out when beta is 1) over flat row-major buffers at element offsets;
    a is [m, k] ([k, m] with trans_a), b is [k, n] ([n, k] with trans_b). With `batch` (a strided
    batch), `batch` such products in one call, product i at each offset plus i times its stride
    (one cuBLAS call, one graph node, on a GPU; a loop on the cpu)."""

    a: str
    b: str
    out: str
    m: Expr
    n: Expr
    k: Expr
    when: Condition
    loc: Loc
    trans_a: bool = False
    trans_b: bool = False
    beta: int = 0
    a_offset: Expr | None = None
    b_offset: Expr | None = None
    out_offset: Expr | None = None
    batch: Expr | None = None  # None: one product
    a_stride: Expr | None = None
    b_stride: Expr | None = None
    out_stride: Expr | None = None

    def exprs(self) -> tuple[Expr, ...]:
        optional = (self.a_offset, self.b_offset, self.out_offset, self.batch, self.a_stride, self.b_stride,
                    self.out_stride)
        return (self.m, self.n, self.k, *(e for e in optional if e is not None))

    def text(self) -> str:
        a = f"{self.a}ᵀ" if self.trans_a else self.a
        b = f"{self.b}ᵀ" if self.trans_b else self.b
        m, n, k = to_text(self.m), to_text(self.n), to_text(self.k)
        batch = "" if self.batch is None else f", batch={to_text(self.batch)}"
        return f"{self.out} {'+=' if self.beta else '='} {a}·{b} (m={m}, n={n}, k={k}{batch})"


@dataclass(frozen=True)
class RepeatStep:
    """A loop of the launch plan: `steps` run `count` times with `var` = 0, 1, ..., count − 1, and
    `lets` recomputed (in order) at the start of each iteration. The loop variable and the lets are
    symbols of the steps inside: usable in their expressions and as kernel arguments."""

    var: str
    count: Expr
    lets: tuple[tuple[str, Expr], ...]
    steps: tuple[LaunchStep | GemmStep | RepeatStep, ...]
    when: Condition
    loc: Loc
    #: `lanes: n`: the loop's work splits into n independent lanes, which the cpu backend runs side by
    #: side with no hand-over between steps (a GEMM step's product i and the launches' blocks at index
    #: i of their last grid dimension are lane i; each lane reads only its own lane's writes, until the
    #: loop ends); None: one lane
    lanes: Expr | None = None

    def symbols(self) -> tuple[str, ...]:
        return (self.var, *(name for name, _ in self.lets))

    def text(self) -> str:
        lets = "".join(f"; {name} = {to_text(e)}" for name, e in self.lets)
        lanes = "" if self.lanes is None else f" ({to_text(self.lanes)} lanes)"
        return f"for {self.var} in 0 … {to_text(self.count)} − 1{lets}{lanes}"


Step = LaunchStep | GemmStep | RepeatStep


def walk_steps(steps: tuple[Step, ...]) -> Iterator[Step]:
    """Every step of a launch plan in order, loops included, each loop before its body."""
    for step in steps:
        yield step
        if isinstance(step, RepeatStep):
            yield from walk_steps(step.steps)


def launches(steps: tuple[Step, ...]) -> Iterator[LaunchStep | GemmStep]:
    """Every kernel launch and GEMM of a launch plan, loops flattened, in order."""
    return (step for step in walk_steps(steps) if not isinstance(step, RepeatStep))


@dataclass(frozen=True)
class Scratch:
    """A temporary buffer the launch plan passes between kernels (per-block partial sums, ...)."""

    name: str
    dtype: DType | str
    shape: ShapePattern
    loc: Loc
    alias: str | None = None  # an output this buffer is a view of (its leading elements) when `when` holds
    when: Condition = field(default_factory=lambda: Condition())

    def patterns(self) -> tuple[ShapePattern, ...]:
        return (self.shape,)


@dataclass(frozen=True)
class KernelSpec:
    source: str  # path under templates/kernels/
    specialize: tuple[str, ...]  # type variables that instantiate the kernel templates
    launch: tuple[Step, ...]
    loc: Loc
    scratch: tuple[Scratch, ...] = ()

    def launches(self) -> list[LaunchStep | GemmStep]:
        return list(launches(self.launch))


@dataclass(frozen=True)
class RuntimeRef:
    """`runtime: package.module:function`: the op is a runtime component, not a kernel. The wrapper
    checks attrs and inputs as usual, then returns `function(op_name, backend, **inputs_and_attrs)`."""

    module: str
    function: str
    loc: Loc

    def text(self) -> str:
        return f"{self.module}:{self.function}"


@dataclass(frozen=True)
class GradHelper:
    """Gradients the gradient op leaves to its callers (GRUBlockCell's weights), computed by a
    function of forward tensors and gradient-op outputs: `function(*args)` returns one gradient
    per name of `grads`, in order."""

    function: RuntimeRef
    args: tuple[str, ...]
    grads: tuple[str, ...]


@dataclass(frozen=True)
class Autograd:
    """A forward op's `autograd:` key: how its backward calls the gradient op (`gradient:`).

    `call` feeds each gradient-op input from a forward input or output (`x`) or from the incoming
    gradient of a forward output (`grad(y)`); `attrs` feeds gradient-op attrs from forward attrs
    (by default, every attr of the same name); `grads` names, per forward input, the gradient-op
    output that is its gradient. Forward inputs in neither `grads` nor the helper's get no
    gradient; forward outputs not in `outputs` are marked non-differentiable. `requires` lists
    attr values without which there is no backward (CudnnRNNV3 needs is_training)."""

    outputs: tuple[str, ...]
    call: tuple[tuple[str, str], ...]
    attrs: tuple[tuple[str, str], ...]
    grads: tuple[tuple[str, str], ...]
    loc: Loc
    helper: GradHelper | None = None
    requires: Condition = Condition()
    #: line of each sub-key (outputs, call, attrs, grads, helper), so errors point at it
    lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)

    def line(self, key: str) -> int:
        return self.lines.get(key, self.loc.line)

    @staticmethod
    def grad_of(source: str) -> str | None:
        """`grad(y)` → "y"; a plain tensor name → None."""
        return source[5:-1] if source.startswith("grad(") and source.endswith(")") else None

    @staticmethod
    def needs_grad_of(source: str) -> str | None:
        """An `attrs:` source `needs_grad(x)` (whether forward input x needs a gradient) → "x"; an
        attr name → None."""
        return source[11:-1] if source.startswith("needs_grad(") and source.endswith(")") else None

    def saved(self, forward_tensors: Collection[str]) -> tuple[str, ...]:
        """The forward tensors the backward reads, in first-use order (ctx.save_for_backward):
        those `call` and the helper name."""
        names: list[str] = []
        sources = [src for _, src in self.call] + list(self.helper.args if self.helper else ())
        for name in sources:
            if name in forward_tensors and name not in names:
                names.append(name)
        return tuple(names)


@dataclass(frozen=True)
class TorchSpec:
    """The `torch:` key: whether the op is registered as torch.ops.opgen.<name> (`false` with a
    reason: runtime ops whose results depend on other threads), and for a runtime op, the function
    computing its fake (meta) outputs from its inputs and attrs."""

    register: bool = True
    reason: str = ""
    fake: RuntimeRef | None = None


@dataclass(frozen=True)
class OpSpec:
    name: str
    summary: str
    description: str
    group: str  # folder under specs/ (nn, rnn, batching, ...)
    source: str  # spec path relative to the specs root, for headers and errors
    loc: Loc
    type_vars: tuple[TypeVar, ...] = ()
    inputs: tuple[TensorArg, ...] = ()
    attrs: tuple[Attr, ...] = ()
    outputs: tuple[Output, ...] = ()
    where: tuple[Constraint, ...] = ()
    lets: tuple[Let, ...] = ()  # declared, then those params and variants derive, in dependency order
    params: tuple[Param, ...] = ()
    variants: Variants | None = None
    kernel: KernelSpec | None = None
    runtime: RuntimeRef | None = None  # an op implemented by a runtime function instead of a kernel
    deprecated: str | None = None
    gradient: str | None = None  # the op computing this op's gradient
    gradient_of: str | None = None  # the op this op is the gradient of
    examples: tuple[str, ...] = field(default=())
    autograd: Autograd | None = None
    torch: TorchSpec = TorchSpec()
    #: line of the `gradient` / `gradient_of` key, so a dangling link is reported where it is
    link_lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)
    #: the spec's `function_name:` (RoPE → rope rather than ro_pe); None: the name in snake_case
    function_name: str | None = None
    #: the function name is the earlier snake-case rule's, which the spec file is still named by
    #: (function_name is set to it; naming.earlier_rule_warning says what keeps it)
    earlier_rule: bool = field(default=False, compare=False, hash=False)
    #: the spec's `family:`, whose file declares what the op shares with the family's other members
    family: str | None = None
    #: the spec's `reference:`, the float64 reference `opgen verify` compares the op's outputs with
    reference: RuntimeRef | None = None

    @property
    def snake_name(self) -> str:
        """The op's Python function, module, spec file and torch op name: `function_name:` if the spec
        gives one, else the name in snake_case (FusedBatchNormV3 → fused_batch_norm_v3)."""
        return self.function_name or snake_case(self.name)

    def own(self, items: tuple[_Declared, ...]) -> tuple[_Declared, ...]:
        """Those of `items` (its type vars, attrs, params or lets) that the op's own spec file declares
        (a family param it overrides included): the others come from its family's file."""
        return tuple(item for item in items if item.loc.file == self.loc.file)

    def family_file(self) -> str | None:
        """The family file (as errors name it) whose declarations the op shares; None without one."""
        declared: tuple[TypeVar | Attr | Param | Let, ...] = (*self.type_vars, *self.attrs, *self.params, *self.lets)
        return next((item.loc.file for item in declared if item.loc.file != self.loc.file), None)

    def type_var(self, name: str) -> TypeVar | None:
        return next((t for t in self.type_vars if t.name == name), None)

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.attrs if a.name == name), None)

    @property
    def required_attrs(self) -> tuple[Attr, ...]:
        return tuple(a for a in self.attrs if not a.has_default)

    @property
    def optional_attrs(self) -> tuple[Attr, ...]:
        return tuple(a for a in self.attrs if a.has_default)

    # -- traversals: the walks every pass needs, written once ------------------------------
    def tensors(self) -> tuple[TensorArg | Output | Scratch, ...]:
        """Every tensor of the op: inputs, outputs, then the kernel's scratch buffers."""
        return (*self.inputs, *self.outputs, *(self.kernel.scratch if self.kernel is not None else ()))

    def tensor(self, name: str) -> TensorArg | Output | Scratch | None:
        return next((t for t in self.tensors() if t.name == name), None)

    def input_symbols(self, groups: bool = True) -> set[str]:
        """The symbols the input shapes bind (with `groups`, their named dimension groups too)."""
        return shape_symbols(self.inputs, groups)

    @property
    def has_launch_plan(self) -> bool:
        """Whether a kernel launch plan implements the op (a runtime op, Batch and the like: no), so
        it has a native driver (codegen/drivergen_checks.py) and a C++ torch kernel."""
        return self.runtime is None and self.kernel is not None and bool(self.kernel.launch)

    def walk_steps(self) -> Iterator[Step]:
        """Every step of the launch plan, loops included, each loop before its body (none without a kernel)."""
        return walk_steps(self.kernel.launch if self.kernel is not None else ())

    def launches(self) -> list[LaunchStep | GemmStep]:
        """Every kernel launch and GEMM of the launch plan, loops flattened, in order."""
        return list(launches(self.kernel.launch if self.kernel is not None else ()))


def shape_symbols(tensors: Iterable[TensorArg | Output | Scratch], groups: bool = True,
                  dims: bool = True) -> set[str]:
    """The symbols the tensors' shapes use: (with `dims`) their dims' symbols and (with `groups`)
    their named dimension groups, each the product of its dims in expressions."""
    bound: set[str] = set()
    for tensor in tensors:
        for pattern in tensor.patterns():
            for dim in pattern.dims if dims else ():
                bound.update(symbols(dim))
            if groups:
                bound.update(pattern.group_names())
    return bound


def is_pattern_switch(sw: Switch[object]) -> bool:
    return all(isinstance(v, ShapePattern) for _, v in sw.cases)


# -- the activation library (specs/_vocab/activations.yaml) ------------------------------------------
@dataclass(frozen=True)
class ActivationParam:
    name: str
    default: float
    doc: str
    loc: Loc
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class ActivationKind:
    """One function of the activation library: its id in the kernels is its index."""

    name: str
    id: int
    params: tuple[ActivationParam, ...]
    formula: str  # for people: reference pages and docstrings
    c_expr: str  # a validated C expression in float over x and the params
    loc: Loc

    def signature(self) -> str:
        """`leaky_relu(alpha=0.01)`, as reference pages show it."""
        return f"{self.name}({', '.join(f'{p.name}={p.default!r}' for p in self.params)})"


@dataclass(frozen=True)
class ActivationLibrary:
    """The activations of a spec folder's `_vocab/activations.yaml` (empty when it has none)."""

    kinds: tuple[ActivationKind, ...] = ()
    source: str = ""  # the vocab file as messages and headers name it

    def get(self, name: str) -> ActivationKind | None:
        return next((k for k in self.kinds if k.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds)

    @property
    def slots(self) -> int:
        """Parameters a kernel receives per activation: the most any function has."""
        return max((len(k.params) for k in self.kinds), default=0)
