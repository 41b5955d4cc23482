"""Translation of an op's checks and launch plan into the body of its Python wrapper.

Plain functions that return source lines; the templates only lay them out (DESIGN.md, rule 3).
Everything from a spec that lands in code is an identifier the loader validated, a number, or a
string passed through repr(), so a spec cannot inject code.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from codegen import lower, shapes
from codegen.lower import TranslationError
from codegen.model import (
    BACKEND_SWITCH,
    ActivationKind,
    ArgIndex,
    Attr,
    AttrType,
    Condition,
    GemmStep,
    Let,
    OpSpec,
    Output,
    RepeatStep,
    Switch,
    TensorArg,
    arg_name,
    assert_never,
    exhaustive,
)
from codegen.naming import dtype_local
from codegen.plan_data import plan_names

#: The annotation of an attr's parameter (an enum's: its Literal alias, enum_alias).
ATTR_PY_TYPES: dict[AttrType, str | None] = exhaustive(AttrType, "ATTR_PY_TYPES", {
    AttrType.INT: "int", AttrType.FLOAT: "float", AttrType.BOOL: "bool", AttrType.STRING: "str", AttrType.ENUM: None,
    AttrType.LIST_INT: "Sequence[int]", AttrType.TYPE: "str", AttrType.ACTIVATION: "ActivationLike",
    AttrType.LIST_ACTIVATION: "ActivationLike | Sequence[ActivationLike]",
})


def attr_annotation(op: OpSpec, attr: Attr) -> str:
    return ATTR_PY_TYPES[attr.type] or enum_alias(attr)


def activation_import(op: OpSpec) -> str:
    """The relative import of generated/activations.py from the op's module (groups may nest)."""
    return "." * (op.group.count("/") + 2) + "activations"


def enum_alias(attr: Attr) -> str:
    from codegen.naming import camel_case

    return camel_case(attr.name)


def literal(values: tuple[object, ...]) -> str:
    return "Literal[" + ", ".join(repr(v) for v in values) + "]"


def py_value(value: object) -> str:
    """A default value as Python source: repr() of validated scalars and tuples."""
    return repr(value)


def switch_attr(op: OpSpec) -> str | None:
    """The one enum or bool attr that selects input/output shapes, if any (else the one attr the
    lets switch on, if there is just one): the wrapper checks shapes in one section per value.
    Lets that switch on another attr pick their case inline."""
    shaped = [(a.shape, a.loc) for a in op.inputs if a.shape is not None] + [(o.shape, o.loc) for o in op.outputs]
    bys: set[str | None] = set()
    for sw, loc in shaped:
        if sw.by not in (None, BACKEND_SWITCH) and sw.by not in bys:
            bys.add(sw.by)
            if len(bys) > 1:  # reported at the first input or output that switches on another attr
                raise TranslationError(loc, f"shapes switch on more than one attr ({sorted(map(str, bys))})")
    if not bys:
        bys = {sw.by for sw in _switches(op) if sw.by not in (None, BACKEND_SWITCH)}
        if len(bys) > 1:
            return None
    return next(iter(bys), None)


def _section_test(attr: Attr, value: str) -> str:
    """The Python test for one case of a switch: `time_major`, `not time_major`, `mode == 'a'`."""
    if attr.type is AttrType.BOOL:
        return attr.name if value == "true" else f"not {attr.name}"
    if attr.type is AttrType.INT:
        return f"{attr.name} == {int(value)}"
    return f"{attr.name} == {value!r}"


def _switches(op: OpSpec) -> list[Switch]:
    out = [a.shape for a in op.inputs if a.shape is not None] + [o.shape for o in op.outputs]
    return out + [let.value for let in op.lets]


def _let_value(op: OpSpec, let: Let, key: str, by: str | None) -> str:
    """A let's Python expression: a let switched by the section's attr takes that case; one
    switched by another attr (or by `backend`, the backend's name) picks its case inline."""
    if let.value.by is None or let.value.by == by:
        return _py(op, let.value.case(key))
    groups: dict[str, list[str]] = {}  # cases with the same expression share one test
    for name, value in let.value.cases:
        groups.setdefault(_py(op, value), []).append(name)
    items = list(groups.items())
    text = items[-1][0]
    if len(items) == 1:
        return text
    attr = op.attr(let.value.by)
    subject = "_backend.name" if attr is None else attr.name
    for expr, names in reversed(items[:-1]):
        if attr is not None and attr.type is AttrType.BOOL:
            test = _section_test(attr, names[0])
        else:
            test = f"{subject} == {names[0]!r}" if len(names) == 1 else f"{subject} in {tuple(names)!r}"
        text = f"{expr} if {test} else {text}"
    return f"({text})"


def _attr_check(op: OpSpec, attr: Attr) -> str:
    n, q = attr.name, repr(attr.name)
    lo, hi = repr(attr.minimum), repr(attr.maximum)
    open_ends = (", above=True" if attr.minimum_exclusive else "") + (", below=True" if attr.maximum_exclusive else "")
    match attr.type:
        case AttrType.FLOAT:
            return f"{n} = _rt.check_float(_OP, {q}, {n}, {lo}, {hi}{open_ends})"
        case AttrType.INT:
            return f"{n} = _rt.check_int(_OP, {q}, {n}, {lo}, {hi}, {attr.allowed!r}{open_ends})"
        case AttrType.BOOL:
            return f"{n} = _rt.check_bool(_OP, {q}, {n})"
        case AttrType.ENUM:
            return f"{n} = _rt.check_enum(_OP, {q}, {n}, {attr.allowed!r})"
        case AttrType.STRING:
            return f"{n} = _rt.check_str(_OP, {q}, {n}, {attr.allowed!r})"
        case AttrType.LIST_INT:
            return f"{n} = _rt.check_int_list(_OP, {q}, {n}, {lo}, {hi})"
        case AttrType.ACTIVATION:
            return f"{n} = Activation.check(_OP, {q}, {n})"
        case AttrType.LIST_ACTIVATION:
            if attr.length is None:
                return f"{n} = Activation.check_list(_OP, {q}, {n})"
            length = shapes.to_text(attr.length)
            return f"{n} = Activation.check_list(_OP, {q}, {n}, {shapes.to_python(attr.length)}, {length!r})"
        case AttrType.TYPE:
            return f"{n} = _rt.check_type(_OP, {q}, {n}, {attr.allowed!r})"
        case _:
            assert_never(attr.type)


def _late_checks(op: OpSpec, ind: str) -> list[str]:
    """Checks that need the shapes and lets: list(activation) lengths, input value bounds; then the
    conversions of inputs given in an `accepts_dtypes` dtype."""
    lines = [ind + _attr_check(op, a) for a in op.attrs if a.length is not None]
    for arg in op.inputs:
        if arg.values_min is None and arg.values_max is None:
            continue
        bounds = []
        for e in (arg.values_min, arg.values_max):
            bounds += [shapes.to_python(e), repr(shapes.to_text(e))] if e is not None else ["None", "''"]
        check = "check_values_on_device(_backend, " if arg.values_on_device else "check_values("
        call = (f"_rt.{check}_OP, {arg.name!r}, {arg.name}, {bounds[0]}, {bounds[2]}, {bounds[1]}, "
                f"{bounds[3]})")
        lines += [f"{ind}if {arg.name} is not None:", f"{ind}    {call}"] if arg.optional else [ind + call]
    for arg in op.inputs:
        if arg.accepts_dtypes:
            convert = f"{arg.name} = {arg.name}.astype({arg.dtype!r}, copy=False)"
            lines += [f"{ind}if {arg.name} is not None:", f"{ind}    {convert}"] if arg.optional else [ind + convert]
    return lines


def _dtype_lines(op: OpSpec, arg: TensorArg, bound: dict[str, str], indent: str,
                 label: str | None = None) -> list[str]:
    """Checks one input's dtype; the first input of a type variable binds it."""
    n, q = arg.name, label or repr(arg.name)
    tv = op.type_var(arg.dtype)
    if tv is None:
        return [f"{indent}_rt.check_dtype(_OP, {q}, {n}, {(arg.dtype, *arg.accepts_dtypes)!r})"]
    if tv.name in bound:
        return [f"{indent}_rt.check_same_dtype(_OP, {q}, {n}, {dtype_local(tv.name)}, {tv.name!r}, "
                f"{bound[tv.name]!r})"]
    if tv.accumulates is not None:  # bound by its source: an input of this type only checks it
        source = op.type_var(tv.accumulates)
        assert source is not None
        if source.name not in bound:
            raise TranslationError(arg.loc, f"input {arg.name!r} has type {tv.name}, the accumulator of "
                                            f"{source.name}, which no earlier input binds")
        bound[tv.name] = f"the accumulator of {source.name}"
        return [f"{indent}_rt.check_same_dtype(_OP, {q}, {n}, {dtype_local(tv.name)}, {tv.name!r}, "
                f"{bound[tv.name]!r})"]
    bound[tv.name] = n
    lines = [f"{indent}{dtype_local(tv.name)} = _rt.check_dtype(_OP, {q}, {n}, {tv.allowed!r}, {tv.name!r})"]
    for derived in op.type_vars:  # accumulator type variables follow their source at once
        if derived.accumulates == tv.name:
            lines.append(f"{indent}{dtype_local(derived.name)} = _rt.ACCUMULATOR[{dtype_local(tv.name)}]")
    return lines


def _fake_used_symbols(op: OpSpec, lets: set[str]) -> set[str]:
    """used_symbols of what a fake call computes: shape checks, the output lets, output shapes."""
    kept = dataclasses.replace(
        op, lets=tuple(let for let in op.lets if let.name in lets), where=(), kernel=None,
        attrs=tuple(dataclasses.replace(a, length=None) for a in op.attrs),
        inputs=tuple(dataclasses.replace(a, values_min=None, values_max=None) for a in op.inputs))
    return used_symbols(kept)


def used_symbols(op: OpSpec) -> set[str]:
    """Symbols some later check, let, output shape, constraint or launch reads: only these are
    assigned, so generated code has no unused variables."""
    used: set[str] = set()

    def add(expr: shapes.Expr) -> None:
        used.update(shapes.symbols(expr))

    for arg in op.inputs:
        for pattern in arg.patterns():
            for dim in pattern.dims:
                if not isinstance(dim, shapes.Sym):
                    add(dim)
    for arg in op.inputs:  # every element of a list is compared against the first one's symbols
        for pattern in arg.patterns() if arg.is_list else ():
            used.update(d.name for d in pattern.dims if isinstance(d, shapes.Sym))
    seen: set[str] = set()
    for arg in op.inputs:  # a symbol that appears a second time is compared against the first
        for pattern in arg.patterns():
            names = [d.name for d in pattern.dims if isinstance(d, shapes.Sym)]
            used.update(n for n in names if n in seen)
        for pattern in arg.patterns():
            seen.update(d.name for d in pattern.dims if isinstance(d, shapes.Sym))
    for out in op.outputs if op.runtime is None else ():  # a runtime function sizes its own outputs
        for pattern in out.patterns():
            for dim in pattern.dims:
                add(dim)
    for c in op.where:
        add(c.lhs)
        add(c.rhs)
        if c.when.test is not None:
            add(c.when.test)
    for expr in [a.length for a in op.attrs] + [e for a in op.inputs for e in (a.values_min, a.values_max)]:
        if expr is not None:
            add(expr)
    for buf in op.kernel.scratch if op.kernel is not None else ():
        for dim in buf.shape.dims:
            add(dim)
    if op.variants is not None:  # the plan notes which variant ran
        used.update(op.variants.names())
    for step in op.walk_steps():
        whole = step.when.expr()
        if whole is not None:
            add(whole)
        if isinstance(step, RepeatStep):
            add(step.count)
            for _, expr in step.lets:
                add(expr)
            continue
        if isinstance(step, GemmStep):
            for expr in step.exprs():
                add(expr)
            continue
        for expr in (*step.grid, *step.block, *((step.shared_bytes,) if step.shared_bytes else ())):
            add(expr)
        for item in step.args:
            used.add(arg_name(item))
            if isinstance(item, ArgIndex):
                add(item.index)
    for let in reversed(op.lets):  # a let nothing reads is not computed, nor what only it reads
        if let.name in used:
            for value in let.value.values():
                add(value)
    return used


def group_local(name: str) -> str:
    """The wrapper's local holding a named dimension group's dims (a tuple); the group's name itself
    is the product of its dims."""
    return f"_group_{name}"


def _dim_indices(var: str, pattern: shapes.ShapePattern, axis_local: str | None) -> tuple[list[str], list[str]]:
    """Python index expressions of each fixed dim, and slice expressions of each group, in
    `var.shape`: dims before the first group count from the start, dims after the last from the
    end (`x.ndim - 1`), the dim between two groups is at the axis attr's normalised value."""
    f = len(pattern.dims)
    positions = [p for p, _ in pattern.groups]
    index = []
    for i in range(f):
        before = sum(1 for p in positions if p <= i)
        if before == 0:
            index.append(str(i))
        elif before == len(positions):
            index.append(f"{var}.ndim - {f - i}")
        else:  # between two groups: the axis
            assert axis_local is not None
            index.append(axis_local)
    spans = []
    for g, p in enumerate(positions):
        start = str(p) if g == 0 else f"{axis_local} + 1"
        stop = f"{var}.ndim - {f - p}" if g == len(positions) - 1 else str(axis_local)
        spans.append(f"{start}:{stop}")
    return index, spans


def _shape_lines(var: str, label: str, pattern: shapes.ShapePattern, bound: set[str], context: str,
                 indent: str, used: set[str], bind: bool = True, axis: str | None = None) -> list[str]:
    """Binds the symbols and groups this input introduces (when `bind`) and checks every other dim
    and group against its value. `var` is the array's Python expression, `label` the error
    message's name for it (Python source of a str), `axis` the int attr placing the dim between
    two groups."""
    dims = pattern.dims
    texts = tuple(item if isinstance(item, str) else shapes.to_text(item) for item in pattern.items())
    groups = [name for _, name in pattern.groups]

    def fail(symbols: set[str]) -> str:
        shown = sorted(s for s in symbols if s in used)  # only these are assigned
        # an expression dim shows its value too once its symbols are known: [I + H = 7, 2*H = 8]
        exprs = [d for d in dims if not isinstance(d, shapes.Sym) and shapes.symbols(d)
                 and set(shapes.symbols(d)) <= set(shown)]
        known = [f"{'*' + g!r}: {group_local(g)}" for g in groups if g and g in bound]
        values = "{" + ", ".join([f"{s!r}: {s}" for s in shown] + known +
                                 [f"{shapes.to_text(d)!r}: {shapes.to_python(d)}" for d in exprs]) + "}"
        return f"raise _rt.shape_error(_OP, {label}, {texts!r}, {var}.shape, {values}, {context!r})"

    before = {s for d in dims for s in shapes.symbols(d) if s in bound}
    rank = f"{var}.ndim < {len(dims)}" if pattern.ellipsis else f"{var}.ndim != {len(dims)}"
    lines = [f"{indent}if {rank}:", f"{indent}    {fail(before)}"]
    axis_local = None
    if len(groups) == 2 and axis is None:  # both groups bound earlier: their lengths place the dim
        assert all(g in bound for g in groups), "two dimension groups need an axis attr or bound groups"
        axis_local = f"({pattern.groups[0][0]} + len({group_local(groups[0])}))"
        lines.append(f"{indent}if {var}.ndim != {len(dims)} + len({group_local(groups[0])}) + "
                     f"len({group_local(groups[1])}):")
        lines.append(f"{indent}    {fail(before)}")
    elif len(groups) == 2:
        axis_local = f"_axis_{re.sub(r'[^A-Za-z0-9_]', '_', var)}"
        first, second = (p for p, _ in pattern.groups)
        lines.append(f"{indent}{axis_local} = _rt.normalize_axis(_OP, {axis!r}, {axis}, {label}, {var}.ndim, "
                     f"{first}, {len(dims) - second})")
    index, spans = _dim_indices(var, pattern, axis_local)
    checks = []
    for i, dim in enumerate(dims):
        if bind and isinstance(dim, shapes.Sym) and dim.name not in bound:
            if dim.name in used:
                lines.append(f"{indent}{dim.name} = {var}.shape[{index[i]}]")
            bound.add(dim.name)
        else:
            checks.append(f"{var}.shape[{index[i]}] != {shapes.to_python(dim)}")
    for name, span in zip(groups, spans, strict=True):
        if not name:
            continue
        if bind and name not in bound:
            lines.append(f"{indent}{group_local(name)} = tuple({var}.shape[{span}])")
            if name in used:
                lines.append(f"{indent}{name} = _rt.prod({group_local(name)})")
            bound.add(name)
        else:
            checks.append(f"tuple({var}.shape[{span}]) != {group_local(name)}")
    if checks:  # the message shows every binding, the new ones included
        everything = {s for d in dims for s in shapes.symbols(d)}
        lines += [f"{indent}if {' or '.join(checks)}:", f"{indent}    {fail(everything)}"]
    return lines


def output_dims(pattern: shapes.ShapePattern) -> str:
    """An output's shape as a Python list display: `[*_group_lead, D]`."""
    return ", ".join(f"*{group_local(item[1:])}" if isinstance(item, str) else shapes.to_python(item)
                     for item in pattern.items())


def _shape_section(op: OpSpec, key: str, by: str | None, indent: str, lets: set[str] | None,
                   used: set[str]) -> list[str]:
    """Shape checks, lets (those named in `lets`, when given) and output shapes for one value of
    the switching attr; only the symbols in `used` are assigned."""
    context = f"{by} {key}" if by else ""
    bound = {a.name for a in op.attrs if a.type is AttrType.INT}
    lines: list[str] = []
    for arg in sorted(op.inputs, key=lambda a: a.optional):  # optional inputs never bind symbols
        if arg.shape is None:
            continue
        pattern = arg.shape.case(key)
        if arg.optional:
            new = [s for d in pattern.dims if isinstance(d, shapes.Sym) for s in [d.name] if s not in bound]
            if new:
                raise TranslationError(arg.loc, f"optional input {arg.name!r} cannot bind symbol {new[0]!r}")
            body = _shape_lines(arg.name, repr(arg.name), pattern, bound, context, indent + "    ", used,
                                axis=arg.axis)
            lines += [f"{indent}if {arg.name} is not None:", *body]
        elif arg.is_list:
            # the first element binds the symbols; every element is then checked against them
            lines += _shape_lines(f"{arg.name}[0]", repr(f"{arg.name}[0]"), pattern, bound, context, indent, used,
                                  axis=arg.axis)
            lines += [f"{indent}for _i, _item in enumerate({arg.name}):"]
            lines += _shape_lines("_item", f"f'{arg.name}[{{_i}}]'", pattern, bound, context, indent + "    ", used,
                                  bind=False, axis=arg.axis)
        elif not arg.when.empty:  # checked, and its new symbols bound, only when the condition holds
            lines.append(f"{indent}if {_condition(op, arg.when)}:")
            lines += _shape_lines(arg.name, repr(arg.name), pattern, bound, context, indent + "    ", used,
                                  axis=arg.axis)
        else:
            lines += _shape_lines(arg.name, repr(arg.name), pattern, bound, context, indent, used, axis=arg.axis)
    for let in op.lets:
        if (let.name in used) if lets is None else (let.name in lets):
            lines.append(f"{indent}{let.name} = {_let_value(op, let, key, by)}")
    for out in op.outputs if op.runtime is None else ():
        pattern = out.shape.case(key)
        lines.append(f"{indent}_shape_{out.name} = [{output_dims(pattern)}]")
    return lines


def _tested(op: OpSpec) -> Callable[[str], str]:
    """The wrapper's local for a name a condition tests: the backend's name, a type variable's dtype
    local, an attr."""
    def local(name: str) -> str:
        if name == BACKEND_SWITCH and op.attr(name) is None:
            return "_backend.name"
        return dtype_local(name) if op.type_var(name) is not None else name

    return local


def _py(op: OpSpec, e: shapes.Expr) -> str:
    """A let's value or a condition as Python (and/or/not, tests of attrs, the backend, dtypes)."""
    return shapes.to_python(e, tested=_tested(op))


def _condition(op: OpSpec, cond: Condition) -> str:
    whole = cond.expr()
    assert whole is not None, "an empty condition is never printed"
    return _py(op, whole)


def _dtype_expr(op: OpSpec, dtype: str) -> str:
    """A dtype's Python expression: a type variable's local, a type attr's (checked) value, a name."""
    if op.type_var(dtype) is not None:
        return dtype_local(dtype)
    return dtype if op.attr(dtype) is not None else repr(dtype)


def _py_arg(op: OpSpec, arg: lower.Arg) -> str:
    """A plan argument as the wrapper passes it."""
    if isinstance(arg, lower.Buffer):
        return arg.slot
    if isinstance(arg, lower.PointerList):  # a device array of the elements' pointers, and their count
        return f"_backend.pointer_array({arg.slot}), _np.int64(len({arg.slot}))"
    if isinstance(arg, lower.ActivationArg):  # its id and parameters
        element = arg.attr if arg.index is None else f"{arg.attr}[{shapes.to_python(arg.index)}]"
        return f"*{element}.kernel_args()"
    value = arg.name if arg.index is None else f"{arg.name}[{shapes.to_python(arg.index)}]"
    if arg.double_when:
        spec = tuple(_dtype_expr(op, s) for s in arg.double_when)
        picked = f"{spec[0]} == 'float64'" if len(spec) == 1 else f"'float64' in ({', '.join(spec)},)"
        return f"(_np.float64 if {picked} else _np.float32)({value})"
    return f"{arg.ctor}({value})"


def _when(op: OpSpec, step: lower.PlanStep, call: list[str], indent: str) -> list[str]:
    if step.when.empty:
        return [indent + line for line in call]
    return [f"{indent}if {_condition(op, step.when)}:", *(f"{indent}    {line}" for line in call)]


def _plan_lines(op: OpSpec, step: lower.PlanStep, indent: str) -> list[str]:
    """One step of the lowered launch plan as the wrapper's Python."""
    if isinstance(step, lower.Repeat):
        body = [f"for {step.var} in range({shapes.to_python(step.count)}):"]
        body += [f"    {name} = {shapes.to_python(expr)}" for name, expr in step.lets]
        lines = _when(op, step, body, indent)
        inner = indent + ("        " if not step.when.empty else "    ")
        for s in step.steps:
            lines += _plan_lines(op, s, inner)
        return lines
    if isinstance(step, lower.Gemm):
        def off(e: shapes.Expr | None) -> str:
            return "0" if e is None else shapes.to_python(e)

        batch = "" if step.batch is None else (f", {shapes.to_python(step.batch)}, {off(step.a_stride)}, "
                                               f"{off(step.b_stride)}, {off(step.out_stride)}")
        return _when(op, step, [f"_backend.gemm({step.a}, {step.b}, {step.out}, {shapes.to_python(step.m)}, "
                            f"{shapes.to_python(step.n)}, {shapes.to_python(step.k)}, {step.trans_a}, {step.trans_b}, "
                            f"{step.beta}, {off(step.a_offset)}, {off(step.b_offset)}, {off(step.out_offset)}{batch})"],
                     indent)
    symbol = f"_PLAN.symbol({', '.join([repr(step.kernel), *(_dtype_expr(op, n) for n in step.specialize)])})"
    grid = ", ".join(shapes.to_python(d) for d in step.grid)
    block = ", ".join(shapes.to_python(d) for d in step.block)
    args = ", ".join(_py_arg(op, a) for a in step.args)
    shared = shapes.to_python(step.shared_bytes) if step.shared_bytes is not None else "0"
    return _when(op, step, [f"_backend.launch(_KERNELS, {symbol}, ({grid},), ({block},), ({args},), {shared})"], indent)


def run_params(op: OpSpec) -> str:
    names = [a.name for a in op.inputs] + [a.name for a in op.attrs]
    return ", ".join(["scope: Scope | str | None"] + [f"{n}: Any" for n in names])


def codegen_imports(op: OpSpec) -> list[str]:
    """The wrapper's imports of the project's own modules, sorted by module as isort does: the
    runtime API and Scope, and the kernel source or, for a runtime op, its function (a reference
    of validated identifiers, see load.RUNTIME_RE). Imports from different top-level packages are
    separate blocks (`# isort: split`): whether `codegen` or a runtime function's package is first-
    or third-party depends on the project that lints the code (opgen's own checkout, or a user's
    with opgen installed), so no one order of sections would suit both."""
    imports = [("codegen.runtime", "from codegen.runtime import api as _rt"),
               ("codegen.runtime.scope", "from codegen.runtime.scope import Scope")]
    if op.runtime is not None:
        imports.append((op.runtime.module, f"from {op.runtime.module} import {op.runtime.function} as _runtime"))
        fake = op.torch.fake
        if fake is not None:  # imported beside it (same module or not), sorted by module
            imports.append((fake.module + " ", f"from {fake.module} import {fake.function} as _fake_outputs"))
    else:
        imports.append(("codegen.runtime.kernels", "from codegen.runtime.kernels import KernelSource"))
    lines: list[str] = []
    package = None
    for module, line in sorted(imports, key=lambda item: item[0].lower()):
        top = module.split(".")[0].strip()
        if package is not None and top != package:
            lines += ["", "# isort: split"]
        lines.append(line)
        package = top
    return lines


def runtime_call(op: OpSpec) -> str:
    """The call of a runtime op's function: the op's name, the backend, then every checked input
    and attr by name; it returns the outputs in order."""
    names = [a.name for a in op.inputs] + [a.name for a in op.attrs]
    return f"_runtime(_OP, _backend{''.join(f', {n}={n}' for n in names)})"


def _output_line(op: OpSpec, out: Output) -> str:
    """An output allocated; one with `when:` only when its condition holds, else None (kernels
    then get a null pointer for it)."""
    empty = f"_backend.empty(_shape_{out.name}, {_dtype_expr(op, out.dtype)})"
    if not out.when.empty:
        empty = f"{empty} if {_condition(op, out.when)} else None"
    return f"{out.name} = {empty}"


def fake_params(op: OpSpec) -> str:
    names = [a.name for a in op.inputs] + [a.name for a in op.attrs]
    return ", ".join(["_backend: Any"] + [f"{n}: Any" for n in names])


def output_lets(op: OpSpec) -> set[str]:
    """The lets an output shape reads, directly or through other lets: all a fake call computes."""
    needed = {s for out in op.outputs for p in out.patterns() for d in p.dims for s in shapes.symbols(d)}
    for let in reversed(op.lets):
        if let.name in needed:
            needed.update(s for e in let.value.values() for s in shapes.symbols(e))
    return needed & {let.name for let in op.lets}


def run_body(op: OpSpec) -> list[str]:
    """The body of the op's `_compute(scope, *inputs, *attrs)`: check, allocate, launch, return."""
    ind = "    "
    lines = [f"{ind}_backend = _rt.backend_of(scope, _OP)", *_check_lines(op, fake=False)]
    for c in op.where:
        cond = f"not ({shapes.to_python(c.lhs)} {c.op} {shapes.to_python(c.rhs)})"
        if not c.when.empty:
            whole = c.when.expr()
            when = _condition(op, c.when)
            if isinstance(whole, shapes.Logic) and whole.op == "or":  # (or ranks below and)
                when = f"({when})"
            cond = f"{when} and {cond}"
        syms = sorted({s for e in (c.lhs, c.rhs) for s in shapes.symbols(e)})
        values = "{" + ", ".join(f"{s!r}: {s}" for s in syms) + "}"
        lines += [f"{ind}if {cond}:",
                  f"{ind}    raise _rt.constraint_error(_OP, {c.text!r}, {values}, {c.message!r})"]
    lines += _late_checks(op, ind)
    if op.runtime is not None:  # a runtime component, not a kernel: it makes the outputs
        lines.append(f"{ind}return {op.name}Outputs(*{runtime_call(op)})")
        return lines
    lines += [ind + _output_line(op, out) for out in op.outputs]
    if op.kernel is not None:
        lines += _kernel_lines(op, ind)
    names = ", ".join(o.name for o in op.outputs)
    lines.append(f"{ind}return {op.name}Outputs({names})")
    return lines


def native_call(op: OpSpec) -> list[str]:
    """The lines `_compute` runs after finding its backend, for an op with a native driver: the call
    handed to it (codegen/runtime/native_driver.py), the Python body below running only where it
    answers None. The driver's checks are this body's (codegen/drivergen_checks.py prints them)."""
    if op.runtime is not None or op.kernel is None or not op.kernel.launch:
        return []
    inputs, attrs = _native_args(op)
    return [f"    _native = _NATIVE.call(_backend, {inputs}, {attrs}, {op.name}Outputs)",
            "    if _native is not None:  # the op's native driver ran the call (its outputs made as this NamedTuple)",
            "        return _native"]


def _native_args(op: OpSpec) -> tuple[str, str]:
    """The inputs' and the attrs' tuples a native call hands the driver, as Python text."""
    def display(names: list[str]) -> str:
        return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"

    return display([a.name for a in op.inputs]), display([a.name for a in op.attrs])


def native_first(op: OpSpec) -> list[str]:
    """The lines `_run` starts with, for an op with a native driver and inputs: a call whose first
    input is a NumPy array goes to the driver before any other Python work (the torch test, the
    `_compute` frame); where the driver hands it back (an input it cannot take, a setting), the
    call goes on as before, and `_compute` asks the driver once more (a fallback's cost)."""
    if not native_call(op) or not op.inputs:
        return []
    inputs, attrs = _native_args(op)
    return [f"    if type({op.inputs[0].name}) is _np.ndarray:  # NumPy in: the op's native driver first",
            f"        _native = _NATIVE.call(_rt.backend_of(scope, _OP), {inputs}, {attrs}, {op.name}Outputs)",
            "        if _native is not None:",
            "            return _native"]


def fake_body(op: OpSpec) -> list[str]:
    """The body of `_fake(_backend, ...)` for the torch registration: the same checks of attrs,
    dtypes and shapes on fake tensors, the lets the output shapes need, the outputs allocated, and
    nothing run (where lines and value checks read sizes and data the real call checks). Sizes may
    be SymInts: min/max are the ones that compare without guards, where the body calls them."""
    ind = "    "
    body = _check_lines(op, fake=True) + [ind + _output_line(op, out) for out in op.outputs]
    body.append(f"{ind}return {op.name}Outputs({', '.join(o.name for o in op.outputs)})")
    shadows = [f"{ind}{name} = _rt.sym_{name}" for name in ("max", "min")
               if any(re.search(rf"\b{name}\(", line) for line in body)]
    return shadows + body


def _check_lines(op: OpSpec, fake: bool) -> list[str]:
    """The checks both bodies share: attrs, inputs adopted (not in a fake) and their dtypes, then
    the shapes, one section per case of the switching attr (a fake computes only the lets the
    output shapes need)."""
    ind = "    "
    lines = [ind + _attr_check(op, a) for a in op.attrs if a.length is None]
    bound_types: dict[str, str] = {}
    for arg in op.inputs:
        n = arg.name
        if arg.is_list:
            lines.append(f"{ind}{n} = [_backend.adopt(_OP, f'{n}[{{_i}}]', _v) for _i, _v in "
                         f"enumerate(_rt.check_list(_OP, {n!r}, {n}))]")
            lines.append(f"{ind}if not {n}:")
            lines.append(f"{ind}    raise ValueError(f'{{_OP}}: {n}: expected a non-empty list of arrays')")
            tv = op.type_var(arg.dtype)
            if tv is not None and tv.is_list:  # one dtype per element, each checked on its own
                bound_types[tv.name] = n
                lines.append(f"{ind}{dtype_local(tv.name)} = tuple(_rt.check_dtype(_OP, f'{n}[{{_i}}]', _item, "
                             f"{tv.allowed!r}, {tv.name!r}) for _i, _item in enumerate({n}))")
                continue
            lines += _dtype_lines(op, TensorArg(f"{n}[0]", arg.dtype, None, "", arg.loc), bound_types, ind)
            lines.append(f"{ind}for _i, _item in enumerate({n}):")
            item = TensorArg("_item", arg.dtype, None, "", arg.loc)
            lines += _dtype_lines(op, item, dict(bound_types), ind + "    ", label=f"f'{n}[{{_i}}]'")
            continue
        adopt = [] if fake else [f"{n} = _backend.adopt(_OP, {n!r}, {n})"]
        if arg.optional:
            lines.append(f"{ind}if {n} is not None:")
            lines += [f"{ind}    {line}" for line in adopt]
            lines += _dtype_lines(op, arg, dict(bound_types), ind + "    ")
        elif not arg.when.empty:  # ignored (beyond being an array) unless the condition holds
            lines += [f"{ind}{line}" for line in adopt]
            lines.append(f"{ind}if {_condition(op, arg.when)}:")
            lines += _dtype_lines(op, arg, dict(bound_types), ind + "    ")
        else:
            if arg.accepts_python_int and not fake:  # a Python int becomes a 0-d array of the input's dtype
                lines.append(f"{ind}{n} = _rt.python_int(_OP, {n!r}, {n}, {arg.dtype!r})")
            lines += [f"{ind}{line}" for line in adopt]
            lines += _dtype_lines(op, arg, bound_types, ind)
    for tv in op.type_vars:
        if tv.name not in bound_types and tv.accumulates is None:  # (an accumulator follows its source)
            if len(tv.allowed) != 1:
                raise TranslationError(tv.loc, f"type variable {tv.name} is bound by no input")
            lines.append(f"{ind}{dtype_local(tv.name)} = {tv.allowed[0]!r}")
    by = switch_attr(op)
    lets = output_lets(op) if fake else None
    used = _fake_used_symbols(op, lets) if lets is not None else used_symbols(op)
    if by is None:
        lines += _shape_section(op, "", None, ind, lets, used)
    else:
        attr = op.attr(by)
        assert attr is not None and (attr.allowed is not None or attr.type is AttrType.BOOL)
        keys = ("true", "false") if attr.type is AttrType.BOOL else tuple(str(v) for v in attr.allowed or ())
        for i, value in enumerate(keys):
            if attr.type is AttrType.BOOL and i == 1:
                lines.append(f"{ind}else:")
            else:
                lines.append(f"{ind}{'if' if i == 0 else 'elif'} {_section_test(attr, value)}:")
            lines += _shape_section(op, value, by, ind + "    ", lets, used)
        if attr.type is not AttrType.BOOL:
            lines += [f"{ind}else:", f"{ind}    raise AssertionError({by})"]
    return lines


def _kernel_lines(op: OpSpec, ind: str) -> list[str]:
    """The scratch buffers, then the launch plan: run as data, else (and printed for a reader) the
    same plan as Python."""
    assert op.kernel is not None
    lines = []
    for buf in op.kernel.scratch:
        dims = ", ".join(shapes.to_python(d) for d in buf.shape.dims)
        empty = f"_backend.empty([{dims}], {_dtype_expr(op, buf.dtype)})"
        if buf.alias is not None:  # a view of the output's leading elements when the condition holds
            view = f"_rt.alias_view(_OP, {buf.name!r}, {buf.alias}, [{dims}])"
            empty = f"{view} if {_condition(op, buf.when)} else {empty}" if not buf.when.empty else view
        lines.append(f"{ind}{buf.name} = {empty}")
    if op.kernel.launch:
        names = "".join(f"{n}, " for n in plan_names(op))
        slots = "".join(f"{s}, " for s in lower.lower(op).plan.slots)
        lines += [f"{ind}if _rt.plan_as_data():",
                  f"{ind}    _rt.run_plan(_backend, _KERNELS, _PLAN, ({names.rstrip()}), ({slots.rstrip()}))",
                  f"{ind}else:  # the same plan as Python: for a reader, and run with OPGEN_PLAN=loop",
                  f"{ind}    _rt.hold_if_capturing(_backend, ({slots.rstrip()}))"]
    for step in lower.lower(op).plan.steps:
        lines += _plan_lines(op, step, ind + "    ")
    if op.kernel.launch:  # the cpu backend queues launches: they have run when the outputs return
        lines.append(f"{ind}_backend.flush()")
    return lines


def activation_spec(kind: ActivationKind) -> str:
    """One function of the activation library as the Python source of an `ActivationSpec`."""
    params = []
    for p in kind.params:
        bounds = f", {p.minimum!r}, {p.maximum!r}" if p.minimum is not None or p.maximum is not None else ""
        params.append(f"ParamSpec({p.name!r}, {p.default!r}{bounds})")
    items = ", ".join(params) + ("," if len(params) == 1 else "")
    return f"ActivationSpec({kind.name!r}, ({items}), {kind.formula!r})"
