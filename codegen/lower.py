"""OpSpec → the op's typed IR: its kernel ABI and its launch plan, as data.

The only place that decides how a spec becomes kernel calls:

- **entry points** (`EntryPoint`): one `extern "C" __global__` function per kernel and dtype
  specialization, with typed parameters (`Param`: name, role, C type, the Python constructor
  the wrapper passes it through, the spec name it carries) and the arguments it hands the device
  function (`CallArg`);
- **the launch plan** (`Plan`): `Launch | Gemm | Repeat` steps whose arguments are symbolic buffer
  slots and scalar expressions over the spec's symbols.

The Python emitter (pygen: the wrapper's plan and the C entry points), the manifest, kernel_check
and the run-time plan (codegen/plan_data.py) all read this; none of them re-parses printed text.

The ABI rules: inputs are `const T*`, outputs and scratch `T*`, dims and int attrs `long long`,
float attrs `float` (`double` in a specialization with a float64 type: a device function that
declares the parameter `T` or `opgen::acc_t<T>` gets it unrounded), bools `int`; an activation
(an `activation` attr or an element of a `list(activation)` attr) is `int NAME_id` and
`activation_slots` floats `NAME_p0, ...`, handed to the device function as one
`opgen::act::Activation`; a list input is `const T* const*` and its `long long NAME_count`.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from codegen import shapes
from codegen.model import (
    ACCUMULATOR,
    ATTR_C_TYPES,
    ATTR_PY_CTORS,
    DTYPES,
    ArgIndex,
    Attr,
    AttrType,
    Condition,
    DType,
    GemmStep,
    LaunchStep,
    Loc,
    OpSpec,
    Output,
    RepeatStep,
    Step,
    TensorArg,
    arg_name,
)
from codegen.naming import kernel_symbol
from codegen.shapes import Expr

#: A shape symbol or let as a kernel argument: its C type and the NumPy scalar type the wrapper
#: passes it as (an attr's are model.ATTR_C_TYPES / ATTR_PY_CTORS; each pair must agree in size:
#: the host backend checks, NVRTC trusts).
DIM_C_TYPE, DIM_PY_CTOR = "long long", "_np.int64"


class TranslationError(ValueError):
    """A spec the loader accepted that cannot be translated, found while lowering or rendering;
    `loc` is the construct's place in the spec, which render_all reports (as a SpecError)."""

    def __init__(self, loc: Loc, message: str):
        self.loc, self.message = loc, message
        super().__init__(f"{loc}: {message}")


class Role(enum.StrEnum):
    """What an entry point's parameter carries."""

    INPUT = "input"
    INPUT_LIST = "input list"  # a device array of the list's element pointers
    LIST_COUNT = "list count"  # ... and their number
    OUTPUT = "output"
    SCRATCH = "scratch"
    ATTR = "attr"
    LIST_ELEMENT = "list element"  # one element of a list(int) attr
    ACTIVATION_ID = "activation id"
    ACTIVATION_PARAM = "activation param"
    DIM = "dim"  # a shape symbol or let


@dataclass(frozen=True)
class Param:
    """One parameter of an entry point."""

    name: str  # as the C entry point declares it
    role: Role
    ctype: str  # `const float* __restrict__`, `long long`, `double`
    py_ctor: str | None  # the wrapper's NumPy scalar constructor; None for a pointer
    spec_name: str  # the tensor, attr or symbol of the spec it carries

    @property
    def decl(self) -> str:
        return f"{self.ctype} {self.name}"

    @property
    def pointer(self) -> bool:
        return self.py_ctor is None

    def what(self) -> str:
        """How an error message names it: `input x`, `attr acts (element 1)`, `dim N`."""
        if self.role in (Role.INPUT, Role.INPUT_LIST, Role.OUTPUT, Role.SCRATCH, Role.ATTR):
            return f"{self.role.value.split()[0]} {self.spec_name}"
        if self.role == Role.LIST_COUNT:
            return f"the length of list input {self.spec_name}"
        if self.role == Role.LIST_ELEMENT:
            return f"attr {self.spec_name} (element {self.name.rpartition('_')[2] or 0})"
        if self.role in (Role.ACTIVATION_ID, Role.ACTIVATION_PARAM):
            return f"activation {self.spec_name}"
        return f"dim {self.spec_name}"


@dataclass(frozen=True)
class CallArg:
    """One argument an entry point hands its device function: a parameter as it is, or an
    aggregate built from several (`opgen::act::Activation{act_id, act_p0, ...}`)."""

    params: tuple[Param, ...]
    aggregate: str | None = None  # the C++ type built from `params` (a temporary), else one param

    @property
    def text(self) -> str:
        if self.aggregate is None:
            return self.params[0].name
        return f"{self.aggregate}{{{', '.join(p.name for p in self.params)}}}"


@dataclass(frozen=True)
class EntryPoint:
    """An `extern "C" __global__` function: one kernel of the op in one dtype specialization."""

    symbol: str
    kernel: str  # the device function template it calls
    template_args: tuple[str, ...]  # C types (`float`, `__half`), one per `specialize` entry
    dtypes: tuple[str, ...]  # the same as dtype names (`float32`)
    params: tuple[Param, ...]
    args: tuple[CallArg, ...]
    launch_bounds: int | None  # `__launch_bounds__`: the plans' largest block where it caps registers, a constant block
    #   (printed as bounds_attribute says)
    step: LaunchStep  # the first launch step of the kernel (whose arguments made the entry point)
    cpu_only: bool = False  # only the cpu plan launches it: left out of the module as NVRTC compiles it

    @property
    def call(self) -> str:
        return f"{self.kernel}<{', '.join(self.template_args)}>" if self.template_args else self.kernel

    @property
    def bounds_attribute(self) -> str:
        """What precedes the symbol in its definition: `__launch_bounds__(N, 1) ` above
        UNCAPPED_THREADS and for float64, `__launch_bounds__(N) ` for another constant block, else
        nothing. (N, 1): one block of N threads must fit (64 registers a thread at N = 1,024), nothing
        more. With N alone NVRTC 13.0 for sm_100 aims at 3 blocks of 256 (80 registers) or more and
        spilled Softmax's rows and the float64 persistent RNN layer (48 B; its doubles take two
        registers each); the other constant blocks keep N, the bound their speed was measured with."""
        if not self.launch_bounds:
            return ""
        if self.launch_bounds > UNCAPPED_THREADS or "float64" in self.dtypes:
            return f"__launch_bounds__({self.launch_bounds}, 1) "
        return f"__launch_bounds__({self.launch_bounds}) "


# -- the launch plan -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Buffer:
    """A tensor argument: the call's buffer `slot` (an input, output or scratch buffer)."""

    slot: str


@dataclass(frozen=True)
class PointerList:
    """A list input: a device array of its elements' pointers, then their count."""

    slot: str


@dataclass(frozen=True)
class Scalar:
    """A scalar argument: `name` (an attr or a symbol; with `index`, one element of a list(int)
    attr) made a NumPy scalar of `ctor`; `double_when`: the type variables or type attrs whose
    float64 specialization takes a float attr as a double (unrounded)."""

    name: str
    ctor: str
    index: Expr | None = None
    double_when: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActivationArg:
    """An activation attr (`index` None) or one element of a list(activation) attr: its id and
    parameters, as the activation object's kernel_args() gives them."""

    attr: str
    index: Expr | None = None


Arg = Buffer | PointerList | Scalar | ActivationArg


@dataclass(frozen=True)
class Launch:
    kernel: str
    specialize: tuple[str, ...]  # type variables / type attrs whose dtype names pick the entry point (`symbols`)
    grid: tuple[Expr, ...]
    block: tuple[Expr, ...]
    shared_bytes: Expr | None
    args: tuple[Arg, ...]
    when: Condition
    loc: Loc


#: A GEMM step lowers to itself: its operands are already buffer slots and shape expressions.
Gemm = GemmStep


@dataclass(frozen=True)
class Repeat:
    var: str
    count: Expr
    lets: tuple[tuple[str, Expr], ...]
    steps: tuple[PlanStep, ...]
    when: Condition
    loc: Loc
    lanes: Expr | None = None  # (model.RepeatStep.lanes)


PlanStep = Launch | Gemm | Repeat


@dataclass(frozen=True)
class Plan:
    steps: tuple[PlanStep, ...]
    slots: tuple[str, ...]  # every buffer a step reads or writes, in the order of first use


@dataclass(frozen=True)
class LoweredOp:
    op: OpSpec
    entry_points: tuple[EntryPoint, ...]
    plan: Plan

    def entries_of(self, kernel: str) -> tuple[EntryPoint, ...]:
        return tuple(e for e in self.entry_points if e.kernel == kernel)

    @property
    def symbols(self) -> dict[str, dict[tuple[str, ...], str]]:
        """Each kernel's entry point by the dtype names of its specialization (a launch's
        `specialize` values, in order): what the plan and the printed loop launch."""
        table: dict[str, dict[tuple[str, ...], str]] = {}
        for e in self.entry_points:
            table.setdefault(e.kernel, {})[e.dtypes] = e.symbol
        return table


@functools.lru_cache(maxsize=512)
def lower(op: OpSpec, activation_slots: int = 0) -> LoweredOp:
    """The op's IR (an op with a kernel: a runtime op has neither entry points nor a plan)."""
    assert op.kernel is not None
    return LoweredOp(op, tuple(_entry_points(op, activation_slots)), _plan(op))


# -- entry points ----------------------------------------------------------------------------------------
def specializations(op: OpSpec) -> list[tuple[str, ...]]:
    """Every dtype combination the op's kernels are instantiated for, in `specialize` order: one
    entry point per kernel and combination (`naming.kernel_symbol`)."""
    assert op.kernel is not None
    combos: list[tuple[str, ...]] = [()]
    for name in op.kernel.specialize:  # a type variable's dtypes, or a type attr's allowed ones
        tv, attr = op.type_var(name), op.attr(name)
        allowed = tv.allowed if tv is not None else attr.allowed if attr is not None else None
        assert allowed is not None
        combos = [(*c, str(d)) for c in combos for d in allowed]
    return combos


def has_float64_specialization(op: OpSpec) -> bool:
    """Whether some specialization of the op's kernels is float64: its entry points take float attrs
    as `double`, so the wrapper passes them as np.float64 there."""
    return op.kernel is not None and any("float64" in combo for combo in specializations(op))


def _entry_points(op: OpSpec, activation_slots: int) -> list[EntryPoint]:
    assert op.kernel is not None
    spec = op.kernel.specialize
    combos = specializations(op)
    seen: set[str] = set()
    out: list[EntryPoint] = []
    blocks = largest_blocks(op)
    bounds = {k: max(blocks["cuda"].get(k, 0), blocks["cpu"].get(k, 0)) for k in {**blocks["cuda"], **blocks["cpu"]}}
    bounds = {k: n for k, n in bounds.items() if n > UNCAPPED_THREADS}
    for step in op.launches():
        if isinstance(step, GemmStep) or step.kernel in seen:
            continue
        seen.add(step.kernel)
        for combo in combos:
            binding = dict(zip(spec, combo, strict=True))
            args = _call_args(op, step, binding, activation_slots)
            params = tuple(p for a in args for p in a.params)
            targs = tuple(DTYPES[DType(d)] for d in combo)
            out.append(EntryPoint(kernel_symbol(op.name, step.kernel, combo), step.kernel, targs, combo, params,
                                  tuple(args), bounds.get(step.kernel, _const_threads(step)), step,
                                  step.kernel in blocks["cpu"] and step.kernel not in blocks["cuda"]))
    return out


#: A block of up to 256 threads fits an SM at any register count a thread can have (255): a bound
#: there caps nothing, and NVRTC for sm_100 took one as an occupancy target and spilled (12.9 and
#: 13.0: gru_step float64, GRUBlockCell's gates), so the plans' blocks up to this size set none (a
#: constant block keeps its own, as before).
UNCAPPED_THREADS = 256


def largest_blocks(op: OpSpec) -> dict[str, dict[str, int]]:
    """Plan ("cuda", "cpu") → each kernel it can launch → the largest block-size class it can launch
    it with (codegen.launch_space: a power of two at or above any block the expression yields).

    Where the larger of the two is above UNCAPPED_THREADS it is the entry point's `__launch_bounds__`
    (entrygen): NVRTC then caps the kernel's registers so that such a block fits an SM (64 a thread
    at 1,024 threads) instead of the launch failing at run time, and the host emulation, which
    refuses a larger block as the driver does, accepts every block of either plan. A kernel only the
    cpu plan launches is `cpu_only`."""
    from codegen.launch_space import launch_space

    return {plan: {kernel: max(space.blocks) for kernel, space in launch_space(op, plan).items() if space.blocks}
            for plan in ("cuda", "cpu")}


def _const_threads(step: LaunchStep) -> int | None:
    """A constant block's threads (its bound as before: NVRTC's register choices for these kernels
    were measured with it), else None."""
    try:
        total = 1
        for d in step.block:
            total *= shapes.evaluate(d, {})
        return total
    except shapes.ShapeEvalError:
        return None


def _call_args(op: OpSpec, step: LaunchStep, binding: dict[str, str], activation_slots: int) -> list[CallArg]:
    out: list[CallArg] = []
    repeats: dict[str, int] = {}  # elements of one list attr: activations, activations_1, ...
    for item in step.args:
        spec_name = arg = arg_name(item)
        attr = op.attr(arg)
        if attr is not None and (attr.type is AttrType.ACTIVATION or isinstance(item, ArgIndex)):
            k = repeats[arg] = repeats.get(arg, -1) + 1
            arg = f"{arg}_{k}" if k else arg
        if attr is not None and attr.type in (AttrType.ACTIVATION, AttrType.LIST_ACTIVATION):
            fields = [Param(f"{arg}_id", Role.ACTIVATION_ID, "int", "_np.int32", spec_name)]
            fields += [Param(f"{arg}_p{i}", Role.ACTIVATION_PARAM, "float", "_np.float32", spec_name)
                       for i in range(activation_slots)]
            out.append(CallArg(tuple(fields), "opgen::act::Activation"))
        elif attr is not None and isinstance(item, ArgIndex):  # an element of a list(int) attr
            out.append(CallArg((Param(arg, Role.LIST_ELEMENT, "long long", "_np.int64", spec_name),)))
        else:
            out.append(CallArg((_param(op, arg, binding),)))
            if any(a.name == arg and a.is_list for a in op.inputs):
                out.append(CallArg((Param(f"{arg}_count", Role.LIST_COUNT, "long long", "_np.int64", arg),)))
    return out


def _param(op: OpSpec, name: str, binding: dict[str, str]) -> Param:
    attr = op.attr(name)
    if attr is not None:
        c_type, py_ctor = ATTR_C_TYPES[attr.type], ATTR_PY_CTORS[attr.type]
        if c_type is None or py_ctor is None:
            raise TranslationError(attr.loc, f"attr {name!r} of type {attr.type} cannot be a kernel argument")
        if attr.type is AttrType.FLOAT and "float64" in binding.values():  # a float64 specialization's: no rounding
            return Param(name, Role.ATTR, "double", "_np.float64", name)
        return Param(name, Role.ATTR, c_type, py_ctor, name)
    tensor = op.tensor(name)
    if tensor is None:
        return Param(name, Role.DIM, DIM_C_TYPE, DIM_PY_CTOR, name)
    dtype = binding.get(tensor.dtype)
    listed = isinstance(tensor, TensorArg) and tensor.is_list
    pointer = "* const* __restrict__" if listed else "* __restrict__"
    tv = op.type_var(tensor.dtype)
    if dtype is None and tv is not None and tv.accumulates in binding:  # follows its specialized source
        dtype = ACCUMULATOR[binding[tv.accumulates]]
    if dtype is None:
        if tv is not None and len(tv.allowed) != 1:
            raise TranslationError(tensor.loc, f"{name!r} has type {tv.name}, which the kernel does not "
                                               f"specialize")
        dtype = tv.allowed[0] if tv is not None else tensor.dtype
    role = Role.INPUT if isinstance(tensor, TensorArg) else Role.OUTPUT if isinstance(tensor, Output) else Role.SCRATCH
    const = "const " if role == Role.INPUT else ""
    return Param(name, Role.INPUT_LIST if listed else role, f"{const}{DTYPES[DType(dtype)]}{pointer}", None, name)


# -- the plan --------------------------------------------------------------------------------------------
def _plan(op: OpSpec) -> Plan:
    assert op.kernel is not None
    steps = tuple(_step(op, s) for s in op.kernel.launch)
    slots: dict[str, None] = {}
    for step in walk(steps):
        if isinstance(step, Gemm):
            slots.update(dict.fromkeys((step.a, step.b, step.out)))
        elif isinstance(step, Launch):
            slots.update(dict.fromkeys(a.slot for a in step.args if isinstance(a, Buffer | PointerList)))
    return Plan(steps, tuple(slots))


def walk(steps: tuple[PlanStep, ...]) -> list[PlanStep]:
    """Every step of a plan in order, each loop before its body."""
    out: list[PlanStep] = []
    for step in steps:
        out.append(step)
        if isinstance(step, Repeat):
            out += walk(step.steps)
    return out


def _step(op: OpSpec, step: Step) -> PlanStep:
    if isinstance(step, RepeatStep):
        return Repeat(step.var, step.count, step.lets, tuple(_step(op, s) for s in step.steps), step.when, step.loc,
                      step.lanes)
    if isinstance(step, GemmStep):
        return step
    assert op.kernel is not None
    return Launch(step.kernel, op.kernel.specialize, step.grid, step.block, step.shared_bytes,
                  tuple(_arg(op, a) for a in step.args), step.when, step.loc)


def _arg(op: OpSpec, arg: str | ArgIndex) -> Arg:
    if isinstance(arg, ArgIndex):  # one element of a list attr
        indexed = op.attr(arg.name)
        if indexed is not None and indexed.type is AttrType.LIST_ACTIVATION:
            return ActivationArg(arg.name, arg.index)
        return Scalar(arg.name, DIM_PY_CTOR, arg.index)  # (a list(int) element: int64, as an int attr)
    if any(a.name == arg and a.is_list for a in op.inputs):
        return PointerList(arg)
    attr = op.attr(arg)
    if attr is not None and attr.type is AttrType.ACTIVATION:
        return ActivationArg(arg)
    if attr is not None and attr.type is AttrType.FLOAT and has_float64_specialization(op):
        assert op.kernel is not None
        return Scalar(arg, _py_ctor(attr), double_when=op.kernel.specialize)
    if attr is not None:
        return Scalar(arg, _py_ctor(attr))
    if op.tensor(arg) is not None:
        return Buffer(arg)
    return Scalar(arg, DIM_PY_CTOR)


def _py_ctor(attr: Attr) -> str:
    ctor = ATTR_PY_CTORS[attr.type]
    if ctor is None:
        raise TranslationError(attr.loc, f"attr {attr.name!r} of type {attr.type} cannot be a kernel argument")
    return ctor
