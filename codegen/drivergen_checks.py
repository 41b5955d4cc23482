"""The generated driver's front half (issue 32): per op `Op`, C++ that runs every check of its Python
wrapper's `_compute` in the same order, with the same error kind and words, then its lets, output
shapes, outputs and scratch (from the caller's allocator), and calls the plan's runtime
(codegen/runtime/native/run_plan.h) with the plan's values and slots:

    int opgen_shapes_Op(opgen_call* call);  // the checks and the outputs' dtypes and shapes
    int opgen_call_Op(opgen_call* call);    // and the outputs, the scratch, the plan run

(codegen/runtime/native/driver.h documents both). The check program is the one codegen/pygen.py
prints: `pygen.run_body(op)`, read back with `ast` and printed statement by statement in C++ over
the runtime of codegen/runtime/native/checks.h. So the two cannot drift apart: a new check pygen
prints is a new statement here, and a form this printer does not know is refused when the unit is
printed, naming the op and the statement.

A value is checks.h's dynamic `V` unless its type is known where it is printed: an int (a constant,
a dim, a rank, arithmetic on ints) is a plain int64_t, a comparison a bool, and a local is one of
those where everything assigned to it is (infer_types); the rest (a str, a float, a tensor, Python's
`or` picking either operand) stays a V. The typed forms are checks.h's own operations on int64s, so
values, errors and fallbacks are the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from codegen import drivergen, pygen
from codegen.model import OpSpec
from codegen.runtime.kernels import c_name
from codegen.runtime.plan import Plan

_ARITH = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv", ast.Mod: "mod"}
_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ATTR_CHECKS = {"check_bool", "check_int", "check_float", "check_enum", "check_str", "check_type", "check_int_list"}


def numeric(t: str) -> bool:
    """A type C++ computes with as Python does with ints (a bool is an int there; "?": not known yet)."""
    return t in ("int", "bool", "?")


def joined(result: str, *types: str) -> str:
    """An operation's type: `result`, or "?" while an operand's type is not known yet."""
    return "?" if "?" in types else result


def as_v(code: str, t: str) -> str:
    """A typed value as a V (for checks.h's functions, messages and tables)."""
    return {"int": f"integer({code})", "bool": f"boolean({code})"}.get(t, code)


def truth_of(code: str, t: str) -> str:
    """Python's truth of a value, as a C++ bool."""
    return {"int": f"({code} != 0)", "bool": code}.get(t, f"truth({code})")


def local_type(types: Iterable[str]) -> str:
    """A local's C++ type from the types of what is assigned to it: one type, or V."""
    known = set(types) - {"?"}
    return known.pop() if len(known) == 1 else ("?" if not known else "V")


class DriverError(ValueError):
    """A statement of the wrapper's `_compute` this printer has no C++ for."""


def c_string(text: str) -> str:
    """A C string literal of `text`'s UTF-8 bytes (non-ASCII and controls as octal escapes)."""
    out = []
    for byte in text.encode():
        ch = chr(byte)
        if ch in '"\\?' or not 0x20 <= byte < 0x7f:
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def has_driver(op: OpSpec) -> bool:
    """Ops with a kernel launch plan get a driver (runtime ops, Batch and the like, do not)."""
    return op.has_launch_plan


class _Printer:
    """One op's `_compute` statements as C++ lines."""

    def __init__(self, op: OpSpec, plan: Plan):
        self.op, self.plan = op, plan
        self.inputs = {a.name: k for k, a in enumerate(op.inputs)}
        self.attrs = {a.name: k for k, a in enumerate(op.attrs)}
        self.outputs = {o.name: k for k, o in enumerate(op.outputs)}
        self.lines: list[str] = []
        self.locals: set[str] = set()
        self.shapes: set[str] = set()
        self.outputs_left = len(op.outputs)
        self.statement = ""
        self.types: dict[str, str] = {}  # the plain locals' types (drivergen's inference: infer_types)
        self.assigned: dict[str, list[str]] = {}  # per plain local, the types of what is assigned to it
        self.unknown = "V"  # a plain local's type where `types` has none ("?" while inferring)

    def fail(self, node: ast.AST, why: str) -> DriverError:
        return DriverError(f"{self.op.name}: no native form for {ast.unparse(node)!r} ({why}) in `{self.statement}`")

    # names
    def plain(self, name: str) -> bool:
        """A local of `_compute`'s own (not an input, an attr, a shape being built or a module name)."""
        return not (name in self.inputs or name in self.attrs or name.startswith("_shape_")
                    or name in ("_OP", "_backend", "_rt"))

    def assign(self, name: str, code: str, t: str) -> str:
        """`name = value` as C++ (a typed value wrapped where the local is a V), the type recorded."""
        if not self.plain(name):
            return f"{self.local(name)} = {as_v(code, t)};"
        self.assigned.setdefault(name, []).append(t)
        declared = self.types.get(name, self.unknown)
        return f"{self.local(name)} = {code if declared == t else as_v(code, t)};"

    def local(self, name: str) -> str:
        if name.startswith("_shape_"):
            self.shapes.add(name)
        elif name not in self.inputs and name not in self.attrs:
            self.locals.add(name)
        return f"v_{name}"

    # expressions: (C++, its type): "int" (int64_t), "bool" (bool) where the value's type is known
    # from the statement alone (an int constant, a dim, arithmetic of ints, a comparison), else "V"
    # (opgen_checks::V, checks.h's dynamic value); "?" only while the locals' types are inferred.
    def ex(self, e: ast.expr) -> str:
        """`e` as a V (a typed value wrapped)."""
        return as_v(*self.tx(e))

    def tx(self, e: ast.expr) -> tuple[str, str]:
        match e:
            case ast.Constant(value=bool(b)):
                return ("true" if b else "false"), "bool"
            case ast.Constant(value=int(i)):
                if not -2**63 < i < 2**63:
                    raise self.fail(e, "an int beyond int64")
                return f"{i}LL", "int"
            case ast.Name(id=name) if self.plain(name):
                return self.local(name), self.types.get(name, self.unknown)
            case ast.BinOp(op=op) if type(op) in _ARITH:
                (x, tx), (y, ty) = self.tx(e.left), self.tx(e.right)
                if numeric(tx) and numeric(ty):
                    return f"{_ARITH[type(op)]}_i({x}, {y})", joined("int", tx, ty)
                return f"{_ARITH[type(op)]}({as_v(x, tx)}, {as_v(y, ty)})", joined("V", tx, ty)
            case ast.UnaryOp(op=ast.USub()):
                a, ta = self.tx(e.operand)
                return (f"neg_i({a})", ta if ta == "?" else "int") if numeric(ta) else (f"neg({as_v(a, ta)})", "V")
            case ast.UnaryOp(op=ast.Not()):
                a, ta = self.tx(e.operand)
                return f"!{truth_of(a, ta)}", "bool"
            case ast.BoolOp():
                return self.bool_op(e.op, e.values)
            case ast.Compare(ops=[op], comparators=[right]):
                return self.compare(op, e.left, right)
            case ast.IfExp():
                (x, tx), (y, ty) = self.tx(e.body), self.tx(e.orelse)
                test = truth_of(*self.tx(e.test))
                if tx == ty or "?" in (tx, ty):
                    return f"({test} ? {x} : {y})", joined(tx, tx, ty)
                return f"({test} ? {as_v(x, tx)} : {as_v(y, ty)})", "V"
            case ast.Attribute(attr="ndim"):
                return f"ndim_i({self.ex(e.value)})", "int"
            case ast.Subscript(value=ast.Attribute(attr="shape", value=whose), slice=index) \
                    if not isinstance(index, ast.Slice):
                k, tk = self.tx(index)
                if tk == "int":
                    return f"dim_i({self.ex(whose)}, {k})", "int"
                return f"dim({self.ex(whose)}, {as_v(k, tk)}).i", "int"  # (an int, or it raised)
            case ast.Call(func=ast.Name(id="min" | "max" as which), args=args) if len(args) > 1:
                typed = [self.tx(a) for a in args]
                if all(t in ("int", "?") for _, t in typed):  # (a bool among ints: min's pick shows as one)
                    out = typed[0][0]
                    for a, _ in typed[1:]:
                        out = f"{which}_i({out}, {a})"
                    return out, joined("int", *(t for _, t in typed))
            case ast.Call(func=ast.Name(id="len"), args=[arg]):
                return f"len({self.ex(arg)}).i", "int"
            case ast.Call(func=ast.Attribute(value=ast.Name(id="_rt"), attr="prod"), args=[arg]):
                return f"prod({self.ex(arg)}).i", "int"
            case ast.Call(func=ast.Attribute(value=ast.Name(id="_rt"), attr="python_int"), args=args):
                return self.tx(args[2])  # a Python int never reaches a driver: the front-end falls back
        return self.vex(e), "V"

    def vex(self, e: ast.expr) -> str:
        """The forms whose value is a V."""
        match e:
            case ast.Constant(value=float(x)):
                return f"real({drivergen.c_double(x)})"
            case ast.Constant(value=str(s)):
                return f"lit({c_string(s)})"
            case ast.Constant(value=None):
                return "none()"
            case ast.Name(id=name) if name not in ("_OP", "_backend", "_rt"):
                return self.local(name)
            case ast.Attribute(value=ast.Name(id="_backend"), attr="name"):
                return "backend_name(call)"
            case ast.Attribute(attr="shape"):
                return f"shape({self.ex(e.value)})"
            case ast.Subscript(value=ast.Attribute(value=ast.Name(id="_rt"), attr="ACCUMULATOR")):
                return f"accumulator({self.ex(e.slice)})"
            case ast.Subscript(value=ast.Name(), slice=index) if not isinstance(index, ast.Slice):
                return f"item({self.ex(e.value)}, {self.ex(index)})"
            case ast.Call(func=ast.Name(id="tuple"), args=[ast.Subscript(
                    value=ast.Attribute(attr="shape", value=whose), slice=ast.Slice(lower=lo, upper=hi))]):
                start, stop = self.ex(lo or ast.Constant(0)), self.ex(hi or ast.Constant(0))
                return f"dims_slice({self.ex(whose)}, {start}, {stop})"
            case ast.Call(func=ast.Name(id="min" | "max" as which), args=[a, b]):  # (two: checks.h's inline form)
                return f"{which}_of({self.ex(a)}, {self.ex(b)})"
            case ast.Call(func=ast.Name(id="min" | "max" as which), args=args) if len(args) > 1:
                return f"{which}_of({{{', '.join(self.ex(a) for a in args)}}})"
            case ast.Call():
                return self.call(e)
        raise self.fail(e, "an expression form")

    def bool_op(self, op: ast.boolop, values: Sequence[ast.expr]) -> tuple[str, str]:
        """Python's and/or: the deciding operand itself (not a bool), the rest not evaluated; of
        bools, C++'s && and || (the same value, the same short circuit)."""
        typed = [self.tx(v) for v in values]
        if all(t in ("bool", "?") for _, t in typed):
            joiner = " && " if isinstance(op, ast.And) else " || "
            return "(" + joiner.join(a for a, _ in typed) + ")", joined("bool", *(t for _, t in typed))
        return self.v_bool_op(op, [as_v(*t) for t in typed]), joined("V", *(t for _, t in typed))

    def v_bool_op(self, op: ast.boolop, values: Sequence[str]) -> str:
        if len(values) == 1:
            return values[0]
        test = "!truth(t)" if isinstance(op, ast.And) else "truth(t)"
        rest = self.v_bool_op(op, values[1:])
        return f"[&]() -> V {{ V t = {values[0]}; if ({test}) return t; return {rest}; }}()"

    def compare(self, op: ast.cmpop, left: ast.expr, right: ast.expr) -> tuple[str, str]:
        """A comparison: a bool (two numbers compared as C++ does Python's ints, exactly)."""
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            a, ta = self.tx(left)
            if ta in ("int", "bool"):  # (never None; evaluated all the same)
                return f"((void)({a}), {'false' if isinstance(op, ast.Is) else 'true'})", "bool"
            return f"({as_v(a, ta)}.kind {'==' if isinstance(op, ast.Is) else '!='} K_NONE)", "bool"
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Tuple):
            found = f"contains({self.ex(left)}, {{{', '.join(self.ex(x) for x in right.elts)}}})"
            return (found if isinstance(op, ast.In) else f"!{found}"), "bool"
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(left, ast.Attribute) and left.attr == "name" \
                and isinstance(left.value, ast.Name) and left.value.id == "_backend" \
                and isinstance(right, ast.Constant) and isinstance(right.value, str):
            # `_backend.name == 'cuda'`: the call's device (backend_name's two names; any other: never)
            cuda = "(call->device == OPGEN_DEV_CUDA)"
            test = {"cuda": cuda, "cpu": cuda.replace("==", "!=")}.get(right.value, "false")
            return (test if isinstance(op, ast.Eq) else f"!({test})"), "bool"
        (a, ta), (b, tb) = self.tx(left), self.tx(right)
        sign = {ast.Eq: "==", ast.NotEq: "!=", **_ORDER}.get(type(op))
        if sign is None:
            raise self.fail(op, "a comparison")
        if numeric(ta) and numeric(tb):
            return f"({a} {sign} {b})", "bool"
        if isinstance(op, (ast.Eq, ast.NotEq)):
            return f"{'' if isinstance(op, ast.Eq) else '!'}equal({as_v(a, ta)}, {as_v(b, tb)})", "bool"
        return f"(compare({as_v(a, ta)}, {as_v(b, tb)}) {sign} 0)", "bool"

    def text(self, e: ast.expr) -> str:
        """A label or message as C++: a str constant as a string literal (checks.h's functions take a
        label as a string_view, a message as a std::string), an f-string as a std::string built."""
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return c_string(e.value)
        if isinstance(e, ast.JoinedStr):
            parts = []
            for part in e.values:
                if isinstance(part, ast.Constant):
                    parts.append(f"std::string({self.cs(part)})")
                elif isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None:
                    is_op = isinstance(part.value, ast.Name) and part.value.id == "_OP"
                    parts.append("std::string(OP)" if is_op else f"str({self.ex(part.value)})")
                else:
                    raise self.fail(e, "an f-string form")
            return "(" + " + ".join(parts or ["std::string()"]) + ")"
        raise self.fail(e, "a label")

    def const(self, e: ast.expr) -> object:
        if not isinstance(e, ast.Constant):
            raise self.fail(e, "a constant expected")
        return e.value

    def cs(self, e: ast.expr) -> str:
        """A str constant as a C string literal."""
        value = self.const(e)
        if not isinstance(value, str):
            raise self.fail(e, "a string expected")
        return c_string(value)

    def elts(self, e: ast.expr) -> list[ast.expr]:
        if not isinstance(e, ast.Tuple):
            raise self.fail(e, "a tuple expected")
        return e.elts

    def cflag(self, keywords: dict[str | None, ast.expr], name: str) -> str:
        return "true" if name in keywords and self.const(keywords[name]) else "false"

    def bound(self, e: ast.expr) -> str:
        value = self.const(e)
        if value is None:
            return "no_bound()"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(e, "a numeric bound")
        if isinstance(value, int):
            return f"Bound{{true, true, {value}LL, 0.0, {c_string(str(value))}}}"
        return f"Bound{{true, false, 0, {drivergen.c_double(value)}, {c_string(str(value))}}}"

    def allowed(self, e: ast.expr) -> str:
        if isinstance(e, ast.Constant) and e.value is None:
            return "{}"
        if not isinstance(e, ast.Tuple):
            raise self.fail(e, "a tuple of allowed values")
        return "{" + ", ".join(self.ex(x) for x in e.elts) + "}"

    def call(self, e: ast.Call) -> str:
        """The runtime calls of `_compute` that yield a value."""
        func, args = e.func, e.args
        kw = {k.arg: k.value for k in e.keywords}
        name = func.attr if isinstance(func, ast.Attribute) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if owner == "_rt" and name in _ATTR_CHECKS:
            label, value = self.cs(args[1]), self.ex(args[2])
            if name == "check_bool":
                return f"check_bool(OP, {label}, {value})"
            ends = f", {self.cflag(kw, 'above')}, {self.cflag(kw, 'below')}"
            if name == "check_int":
                return (f"check_int(OP, {label}, {value}, {self.bound(args[3])}, {self.bound(args[4])}, "
                        f"{self.allowed(args[5])}{ends})")
            if name == "check_float":
                return f"check_float(OP, {label}, {value}, {self.bound(args[3])}, {self.bound(args[4])}{ends})"
            if name == "check_int_list":
                return f"check_int_list(OP, {label}, {value}, {self.bound(args[3])}, {self.bound(args[4])})"
            return f"{name}(OP, {label}, {value}, {self.allowed(args[3])})"
        if owner == "Activation" and name == "check":
            return f"check_activation(OP, {self.cs(args[1])}, {self.ex(args[2])})"
        if owner == "Activation" and name == "check_list":
            length = ("true, " + self.ex(args[3])) if len(args) > 3 else "false, none()"
            return f"check_activation_list(frame, OP, {self.cs(args[1])}, {self.ex(args[2])}, {length})"
        if owner == "_rt" and name == "check_dtype":
            type_var = self.cs(args[4]) if len(args) > 4 else "nullptr"
            allowed = "{" + ", ".join(self.cs(x) for x in self.elts(args[3])) + "}"
            return f"check_dtype(OP, {self.text(args[1])}, {self.ex(args[2])}, {allowed}, {type_var})"
        if owner == "_rt" and name == "normalize_axis":
            attr, rest = self.cs(args[1]), ", ".join(str(self.const(a)) for a in args[5:])
            return f"normalize_axis(OP, {attr}, {self.ex(args[2])}, {self.text(args[3])}, {self.ex(args[4])}, {rest})"
        if owner == "_backend" and name == "adopt":
            return f"adopt(call, OP, {self.text(args[1])}, {self.ex(args[2])})"
        if owner == "_rt" and name == "python_int":  # a Python int never reaches a driver: the front-end falls back
            return self.ex(args[2])
        if name == "astype" and isinstance(func, ast.Attribute):
            arg = func.value.id if isinstance(func.value, ast.Name) else ""
            return f"as_dtype({self.ex(func.value)}, {self.cs(args[0])}, {c_string(arg)})"
        if owner == "_backend" and name == "empty":
            return f"scratch(call, frame, {self.shape(args[0])}, {self.ex(args[1])})"
        if owner == "_rt" and name == "alias_view":
            return f"alias_view(frame, OP, {self.cs(args[1])}, {self.ex(args[2])}, {self.shape(args[3])})"
        raise self.fail(e, "a call")

    def shape(self, e: ast.expr) -> str:
        """A shape argument: a `_shape_x` local or a list display (`[*_group_lead, D]`)."""
        if isinstance(e, ast.Name) and e.id.startswith("_shape_"):
            return self.local(e.id)
        if isinstance(e, ast.List):
            typed = [self.tx(x.value) if isinstance(x, ast.Starred) else self.tx(x) for x in e.elts]
            if all(t in ("int", "?") for _, t in typed) and not any(isinstance(x, ast.Starred) for x in e.elts):
                return "Shape{" + ", ".join(a for a, _ in typed) + "}"  # (checks.h's Shape of int64s)
            return "Shape{" + ", ".join(as_v(*x) for x in typed) + "}"
        raise self.fail(e, "a shape")

    # statements
    def body(self, stmts: Iterable[ast.stmt], ind: str) -> bool:
        """Prints `stmts`; False once the wrapper's run is over (the plan called, or a return)."""
        for s in stmts:
            self.statement = ast.unparse(s).split("\n")[0]
            if not self.stmt(s, ind):
                return False
        return True

    def stmt(self, s: ast.stmt, ind: str) -> bool:
        emit = self.lines.append
        match s:
            case ast.Assign(targets=[ast.Name(id="_backend")]):
                pass
            case ast.Assign(targets=[ast.Name(id=name)], value=value) if name.startswith("_shape_"):
                emit(f"{ind}{self.local(name)} = {self.shape(value)};")
            case ast.Assign(targets=[ast.Name(id=name)], value=ast.Call(
                    func=ast.Attribute(value=ast.Name(id="_backend"), attr="empty"), args=[shape, dtype])) \
                    if name in self.outputs:
                emit(f"{ind}{self.local(name)} = output(call, OP, {c_string(name)}, {self.outputs[name]}, run, "
                     f"{self.shape(shape)}, {self.ex(dtype)});")
                self.outputs_left -= 1
                if self.outputs_left == 0:  # opgen_shapes_Op ends here: nothing allocated, nothing run
                    emit(f"{ind}if (!run) return;")
            case ast.Assign(targets=[ast.Name(id=name)]) if name in self.outputs:
                raise self.fail(s, "an output made otherwise than by _backend.empty (a `when:` output: driver.h "
                                   "has no absent output yet)")
            case ast.Assign(targets=[ast.Name(id=name)], value=ast.ListComp(generators=[ast.comprehension(
                    iter=ast.Call(func=ast.Name(id="enumerate"), args=[ast.Call(
                        func=ast.Attribute(value=ast.Name(id="_rt"), attr="check_list"), args=[_, arg, value])]))])):
                # [_backend.adopt(_OP, f'x[{_i}]', _v) for _i, _v in enumerate(_rt.check_list(_OP, 'x', x))]
                emit(f"{ind}{self.local(name)} = adopt_list(call, OP, {self.cs(arg)}, "
                     f"check_list(OP, {self.cs(arg)}, {self.ex(value)}));")
            case ast.Assign(targets=[ast.Name(id=name)], value=value):
                emit(f"{ind}{self.assign(name, *self.tx(value))}")
            case ast.If(test=ast.Call(func=ast.Attribute(value=ast.Name(id="_rt"), attr="plan_as_data")), body=[run]):
                self.run_plan(run, ind)
                return False
            case ast.If(test=test, body=then, orelse=orelse):
                emit(f"{ind}if ({truth_of(*self.tx(test))}) {{")
                self.body(then, ind + "  ")
                if orelse:
                    emit(f"{ind}}} else {{")
                    self.body(orelse, ind + "  ")
                emit(f"{ind}}}")
            case ast.For(target=ast.Tuple(elts=[ast.Name(id=index), ast.Name(id=item)]),
                         iter=ast.Call(func=ast.Name(id="enumerate"), args=[seq]), body=loop):
                emit(f"{ind}{{ V seq = {self.ex(seq)};")
                emit(f"{ind}  for (int64_t k = 0; k < seq.i; ++k) {{")
                at = self.assign(index, "integer(k)", "V")
                emit(f"{ind}    {at} {self.assign(item, 'item(seq, integer(k))', 'V')}")
                self.body(loop, ind + "    ")
                emit(f"{ind}  }}")
                emit(f"{ind}}}")
            case ast.Raise(exc=ast.Call() as exc):
                emit(f"{ind}{self.raise_(exc)};")
            case ast.Expr(value=ast.Call(func=ast.Attribute(value=ast.Name(id="_backend"), attr="flush"))):
                return False
            case ast.Expr(value=ast.Call(func=ast.Attribute(value=ast.Name(id="_rt"),
                                                            attr="check_values" | "check_values_on_device" as which),
                                         args=args)):
                on_device = which == "check_values_on_device"
                args = args[1:] if on_device else args  # (the backend)
                emit(f"{ind}check_values(call, frame, {'true' if on_device else 'false'}, OP, {self.cs(args[1])}, "
                     f"{self.ex(args[2])}, {self.ex(args[3])}, {self.ex(args[4])}, {self.cs(args[5])}, "
                     f"{self.cs(args[6])});")
            case ast.Expr(value=ast.Call(func=ast.Attribute(value=ast.Name(id="_rt"), attr="check_same_dtype"),
                                         args=args)):
                emit(f"{ind}check_same_dtype(OP, {self.text(args[1])}, {self.ex(args[2])}, {self.ex(args[3])}, "
                     f"{self.cs(args[4])}, {self.cs(args[5])});")
            case ast.Expr(value=ast.Call() as call):
                emit(f"{ind}{self.call(call)};")
            case ast.Return():
                return False
            case _:
                raise self.fail(s, "a statement form")
        return True

    def raise_(self, exc: ast.Call) -> str:
        func, args = exc.func, exc.args
        if isinstance(func, ast.Attribute) and func.attr == "shape_error":
            pattern = "{" + ", ".join(self.cs(d) for d in self.elts(args[2])) + "}"
            return (f"shape_error(OP, {self.text(args[1])}, {pattern}, {self.ex(args[3])}, {self.bindings(args[4])}, "
                    f"{self.cs(args[5])})")
        if isinstance(func, ast.Attribute) and func.attr == "constraint_error":
            return (f"constraint_error(OP, {self.cs(args[1])}, {self.bindings(args[2])}, "
                    f"{self.cs(args[3])})")
        kinds = {"ValueError": "OPGEN_ERR_VALUE", "TypeError": "OPGEN_ERR_TYPE"}
        if isinstance(func, ast.Name) and func.id in kinds:
            return f"raise({kinds[func.id]}, {self.text(args[0])})"
        if isinstance(func, ast.Name) and func.id == "AssertionError":  # after an enum's check: never reached
            return f"raise(OPGEN_ERR_RUNTIME, std::string(OP) + {c_string(': no shape section for this value')})"
        raise self.fail(exc, "an error form")

    def bindings(self, e: ast.expr) -> str:
        if not isinstance(e, ast.Dict):
            raise self.fail(e, "a dict of bindings")
        items = [f"Binding{{{self.cs(k or e)}, {self.ex(v)}}}" for k, v in zip(e.keys, e.values, strict=True)]
        return "{" + ", ".join(items) + "}"

    def run_plan(self, run: ast.stmt, ind: str) -> None:
        """`_rt.run_plan(_backend, _KERNELS, _PLAN, (names...), (slots...))`: the PlanCall."""
        if not (isinstance(run, ast.Expr) and isinstance(run.value, ast.Call) and len(run.value.args) == 5):
            raise self.fail(run, "the plan's call")
        names, slots = run.value.args[3], run.value.args[4]
        assert isinstance(names, ast.Tuple) and isinstance(slots, ast.Tuple)
        emit = self.lines.append
        strings, symbols = drivergen.plan_tables(self.plan)
        emit(f"{ind}static const char* const strings[] = {{{', '.join(map(c_string, strings)) or 'nullptr'}}};")
        emit(f"{ind}static const char* const symbols[] = {{{', '.join(map(c_string, symbols)) or 'nullptr'}}};")
        values = ", ".join(plan_value(*self.tx(n), len(strings)) for n in names.elts)
        emit(f"{ind}opgen_plan_value values[{max(len(names.elts), 1)}] = {{{values}}};")
        emit(f"{ind}opgen_native::Slot slots[{max(len(slots.elts), 1)}] = "
             f"{{{', '.join(f'plan_slot(frame, {self.ex(s)})' for s in slots.elts)}}};")
        emit(f"{ind}int rc = opgen_native::run_plan(call, opgen_native::PlanCall{{OP, "
             f"opgen_plan::opgen_plan_{c_name(self.op.name)}, symbols, {len(symbols)}, values, {len(names.elts)}, "
             f"slots, {len(slots.elts)}, frame.value_checks.data(), (int64_t)frame.value_checks.size()}});")
        emit(f"{ind}if (rc != OPGEN_OK) raise(rc, call->err);")


def plan_value(code: str, t: str, nstrings: int) -> str:
    """A plan value: an int or a bool as it is (plan_int), a V through plan_value."""
    if t in ("int", "bool"):
        return f"plan_int({code})"
    return f"plan_value(frame, {code}, strings, {nstrings})"


def infer_types(op: OpSpec, plan: Plan, body: list[ast.stmt]) -> dict[str, str]:
    """The plain locals' C++ types: printed over and over, each local's type the join of what is
    assigned to it (from "?", not known, up to V) until none changes; a local still unknown then
    (assigned only from itself) is a V, and the rest inferred again from there."""
    types: dict[str, str] = {}
    for unknown in ("?", "V"):
        for _ in range(100):  # (each round moves a local up from "?" or to V: a few rounds)
            p = _Printer(op, plan)
            p.types, p.unknown = dict(types), unknown
            p.body(body, "")
            found = {name: local_type(ts) for name, ts in p.assigned.items()}
            if found == types:
                break
            types = found
        else:
            raise DriverError(f"{op.name}: its locals' types did not settle")
        types = {name: "V" if t == "?" else t for name, t in types.items()}
    return types


def driver_source(op: OpSpec, plan: Plan) -> str:
    """The C++ of one op's driver (after unit_prelude() and its recorder in a translation unit)."""
    if not has_driver(op):
        raise DriverError(f"{op.name}: no kernel launch plan, so no native driver")
    tree = ast.parse("def _compute():\n" + "\n".join(pygen.run_body(op)))
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    p = _Printer(op, plan)
    p.types = infer_types(op, plan, fn.body)
    p.body(fn.body, "  ")
    name = c_name(op.name)
    head = [f"  V {p.local(a.name)} = input_value(call, {k});" for k, a in enumerate(op.inputs)]
    head += [f"  V {p.local(a.name)} = attr_value(call->attrs[{k}]);" for k, a in enumerate(op.attrs)]
    declared = {"int": "int64_t {} = 0;", "bool": "bool {} = false;"}
    head += ["  " + declared.get(p.types.get(n, "V"), "V {};").format(f"v_{n}") for n in sorted(p.locals)]
    head += [f"  Shape v_{n};" for n in sorted(p.shapes)]
    takes = c_string(f": the driver takes {len(op.inputs)} inputs and {len(op.attrs)} attrs, the call gave ")
    arity = (f"  if (call->ninputs != {len(op.inputs)} || call->nattrs != {len(op.attrs)}) "
             f"raise(OPGEN_ERR_RUNTIME, std::string(OP) + {takes} + std::to_string(call->ninputs) + "
             f"{c_string(' and ')} + std::to_string(call->nattrs));")
    return "\n".join([
        f"// {op.name}: its wrapper's _compute in C++ (codegen/drivergen_checks.py)",
        f"static void opgen_drive_{name}(opgen_call* call, bool run) {{",
        "  using namespace opgen_checks;",
        f"  static const char OP[] = {c_string(op.name)};",
        "  Frame frame;",
        arity,
        f"  call->noutputs = {len(op.outputs)};",
        *head, *p.lines, "}", "",
        f"OPGEN_DRIVER_API int opgen_shapes_{name}(opgen_call* call) {{",
        f"  return opgen_checks::guarded(call, {c_string(op.name)}, [&] {{ opgen_drive_{name}(call, false); }});",
        "}", "",
        f"OPGEN_DRIVER_API int opgen_call_{name}(opgen_call* call) {{",
        f"  return opgen_checks::guarded(call, {c_string(op.name)}, [&] {{ opgen_drive_{name}(call, true); }});",
        "}", ""])
