"""The shared part of the spec parser: its state, error and reading helpers, attr values,
expressions and shapes, `when:` conditions and symbol binding. load_launch.py (the kernel and its
launch plan) and load.py (the op) build on it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from codegen import conditions, naming, shapes
from codegen.model import (
    BACKEND_SWITCH,
    BACKENDS,
    DTYPES,
    ActivationLibrary,
    Attr,
    AttrType,
    Condition,
    Constraint,
    DType,
    Let,
    Loc,
    Output,
    Param,
    RuntimeRef,
    Scratch,
    Switch,
    TensorArg,
    TypeVar,
    Variants,
    assert_never,
    shape_symbols,
)
from codegen.yamlnodes import MapReader, Node, SpecError, describe, plain

ARG_NAME_RE = naming.ARG_NAME_RE
KERNEL_NAME_RE = naming.KERNEL_NAME_RE
SOURCE_RE = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*\.cu$")
INDEXED_ARG_RE = re.compile(r"^([a-z][a-z0-9_]*)\[(.+)\]$")
COMPARISONS = shapes.COMPARISON_OPS
#: Strings that land in generated code as text are kept to one line and printable characters.
MAX_TEXT = 20000
#: An int attr's values: TensorFlow's `int` and the torch schema's (int64), the kernels' `long long`.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class ParserBase:
    """State and primitives of one spec's parser (see load.py's _SpecParser)."""

    # what the op-level parser has read so far (set in load.py's parse, in this order)
    runtime: RuntimeRef | None
    type_vars: tuple[TypeVar, ...]
    attrs: tuple[Attr, ...]
    named_shapes: dict[str, Switch]
    inputs: tuple[TensorArg, ...]
    conditional_symbols: dict[str, Condition]
    outputs: tuple[Output, ...]
    lets: tuple[Let, ...]
    where_constraints: tuple[Constraint, ...]
    scratch: tuple[Scratch, ...]
    params: tuple[Param, ...]
    variants: Variants | None
    flags: set[str]  # the names that are booleans (0/1 as ints): boolean lets and variants
    loop_symbols: list[str]  # the enclosing repeat steps' variables and lets, while a launch plan is read

    def __init__(self, file: str, group: str, rel: str, activations: ActivationLibrary | None = None):
        self.file, self.group, self.rel = file, group, rel
        self.activations = activations or ActivationLibrary()
        self.op: str | None = None
        self.flags: set[str] = set()

    # -- helpers ---------------------------------------------------------------------------
    def error(self, line: int, message: str) -> SpecError:
        return SpecError(self.file, line, message, self.op)

    def error_at(self, loc: Loc, message: str) -> SpecError:
        """An error at a declaration's place, which may be in the op's family file."""
        return SpecError(loc.file, loc.line, message, self.op)

    @contextmanager
    def reading(self, file: str) -> Iterator[None]:
        """Read what follows as part of `file` (a family file: the declarations its members share),
        so that its locations and errors name that file."""
        own, self.file = self.file, file
        try:
            yield
        finally:
            self.file = own

    def reader(self, node: Node, what: str) -> MapReader:
        return MapReader(node, self.file, what, self.op)

    def loc(self, node: Node) -> Loc:
        return Loc(self.file, node.line)

    def text(self, node: Node | None, what: str, required: bool = False, one_line: bool = False) -> str:
        if node is None:
            if required:
                raise self.error(1, f"{what}: missing")
            return ""
        if not isinstance(node.value, str):
            raise self.error(node.line, f"{what}: expected a string, got {describe(node.value)}")
        value = node.value.strip()
        if required and not value:
            raise self.error(node.line, f"{what}: must not be empty")
        if len(value) > MAX_TEXT:
            raise self.error(node.line, f"{what}: longer than {MAX_TEXT} characters")
        if one_line and "\n" in value:
            raise self.error(node.line, f"{what}: must be a single line")
        bad = [c for c in value if ord(c) < 32 and c not in "\n\t"]
        if bad:
            raise self.error(node.line, f"{what}: contains control character {bad[0]!r}")
        return value

    def checked_name(self, check: Callable[..., str], line: int, what: str, *args: Any) -> str:
        """`check(*args)`, a rule of codegen/naming.py, its InvalidName as this spec's error at `line`."""
        try:
            return check(*args)
        except naming.InvalidName as exc:
            raise self.error(line, f"{what}: {exc}") from None

    def identifier(self, node: Node | None, what: str, pattern: re.Pattern[str], line: int) -> str:
        if node is None:
            raise self.error(line, f"{what}: missing name")
        return self.checked_name(naming.check_identifier, node.line, what, node.value, pattern)

    def _check_cxx_name(self, name: str, line: int, what: str) -> None:
        self.checked_name(naming.check_kernel_parameter, line, what, name)

    def seq(self, node: Node | None, what: str) -> list[Node]:
        if node is None:
            return []
        if not isinstance(node.value, list):
            raise self.error(node.line, f"{what}: expected a list, got {describe(node.value)}")
        return node.value

    # -- attr values -----------------------------------------------------------------------
    def _bound(self, node: Node | None, kind: AttrType, what: str) -> float | None:
        if node is None:
            return None
        if kind not in (AttrType.INT, AttrType.FLOAT, AttrType.LIST_INT):
            raise self.error(node.line, f"{what}: min/max only apply to int, float and list(int) attrs")
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)) or not _finite(node.value):
            raise self.error(node.line, f"{what}: bound {_short(node.value)} is not a finite number")
        if kind is not AttrType.FLOAT and not INT64_MIN <= node.value <= INT64_MAX:
            raise self.error(node.line, f"{what}: bound {_short(node.value)} is outside int64 (-2**63 to 2**63 - 1)")
        return node.value

    def _attr_scalar(self, node: Node, kind: AttrType, what: str) -> Any:
        value = node.value
        match kind:
            case AttrType.INT:
                ok = isinstance(value, int) and not isinstance(value, bool)
            case AttrType.FLOAT:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)
            case AttrType.BOOL:
                ok = isinstance(value, bool)
            case AttrType.STRING | AttrType.ENUM:
                ok = isinstance(value, str)
            case AttrType.TYPE:
                ok = isinstance(value, str) and value in DTYPES
            case AttrType.LIST_INT | AttrType.ACTIVATION | AttrType.LIST_ACTIVATION:  # (their items, their readers)
                raise AssertionError(f"{what}: a {kind} is not one scalar")
            case _:
                assert_never(kind)
        if not ok:
            shown = f"int {_short(value)}" if type(value) is int else describe(value)
            raise self.error(node.line, f"{what}: {shown} is not a valid {kind}")
        if kind is AttrType.INT and not INT64_MIN <= value <= INT64_MAX:
            raise self.error(node.line, f"{what}: {_short(value)} is outside int64 (-2**63 to 2**63 - 1)")
        if kind is AttrType.TYPE:
            return DType(value)
        return float(value) if kind is AttrType.FLOAT else value

    def _attr_value(self, node: Node, kind: AttrType, what: str, role: str) -> Any:
        if kind is AttrType.LIST_INT:
            items = self.seq(node, f"{what}: {role}")
            return tuple(self._attr_scalar(n, AttrType.INT, f"{what}: {role}") for n in items)
        if kind is AttrType.STRING:
            return self.text(node, f"{what}: {role}", one_line=True)
        return self._attr_scalar(node, kind, f"{what}: {role}")

    def _check_attr_value(self, value: Any, line: int, allowed: tuple[Any, ...] | None,
                          minimum: float | None, maximum: float | None, what: str, role: str) -> None:
        values = value if isinstance(value, tuple) else (value,)
        for v in values:
            if allowed is not None and v not in allowed:
                raise self.error(line, f"{what}: {role} {v!r} is not one of {list(allowed)}")
            if minimum is not None and v < minimum:
                raise self.error(line, f"{what}: {role} {v!r} is below the minimum {minimum}")
            if maximum is not None and v > maximum:
                raise self.error(line, f"{what}: {role} {v!r} is above the maximum {maximum}")

    # -- expressions, shapes, dtypes -------------------------------------------------------
    def _expr(self, node: Node, what: str) -> shapes.Expr:
        try:
            return shapes.parse_dim(node.value)
        except (shapes.ShapeSyntaxError, ValueError, TypeError) as exc:
            raise self.error(node.line, f"{what}: bad expression {node.value!r}: {exc}") from None

    def _let_value(self, node: Node, what: str) -> shapes.Expr:
        """A let's value: an int expression, or a condition (a boolean let)."""
        return self._typed(node, what, condition=False)

    def _pattern(self, node: Node, what: str) -> shapes.ShapePattern:
        value = node.value
        if isinstance(value, list):
            value = plain(node)
        elif isinstance(value, str) and value in self.named_shapes:
            raise self.error(node.line, f"{what}: a named shape cannot be used inside 'by'")
        if not isinstance(value, (str, list)):
            raise self.error(node.line, f"{what}: expected a shape like [N, H, W, C], got {describe(value)}")
        try:
            return shapes.parse_shape(value)
        except (shapes.ShapeSyntaxError, ValueError, TypeError) as exc:
            raise self.error(node.line, f"{what}: bad shape {value!r}: {exc}") from None

    def _dtype_ref(self, node: Node | None, what: str, line: int) -> DType | str:
        """A tensor's `dtype:`: a dtype, or the name of a type variable."""
        if node is None:
            raise self.error(line, f"{what}: missing 'dtype'")
        value = node.value
        if value in DTYPES:
            return DType(value)
        if any(t.name == value for t in self.type_vars):
            return str(value)
        known = [t.name for t in self.type_vars] + list(DTYPES)
        raise self.error(node.line, f"{what}: dtype {value!r} is neither a type variable nor a dtype "
                                    f"(known: {', '.join(known)})")

    def _flag(self, node: Node | None, what: str) -> bool:
        if node is None:
            return False
        if not isinstance(node.value, bool):
            raise self.error(node.line, f"{what}: expected true or false, got {describe(node.value)}")
        return node.value

    # -- conditions (`when:`) --------------------------------------------------------------
    def _condition(self, node: Node | None, what: str, checks: bool = False) -> Condition:
        """`when:`: a mapping of attr values; where `checks` (launch steps, variants, where: lines)
        also a condition text (`"l > 0 and not fused"`, codegen/conditions.py) or a list of texts
        and mappings, all of which must hold."""
        if node is None:
            return Condition()
        if checks and isinstance(node.value, (str, list)):
            items = node.value if isinstance(node.value, list) else [node]
            if not items:
                raise self.error(node.line, f"{what}: 'when' is an empty list")
            parts = [self._condition(n, what, checks=True) for n in items if not isinstance(n.value, str)]
            texts = [self._condition_text(n, f"{what}: when") for n in items if isinstance(n.value, str)]
            compared = tuple(t for t in texts if isinstance(t, tuple))
            tests = tuple(t for p in parts if p.test is not None for t in (p.test,))
            tests += tuple(t for t in texts if not isinstance(t, tuple))
            test = None if not tests else tests[0] if len(tests) == 1 else shapes.Logic("and", tests)
            return Condition(tuple(c for p in parts for c in p.clauses),
                             tuple(c for p in parts for c in p.checks) + compared, test)
        if not isinstance(node.value, dict) or not node.value:
            extra = " or conditions like \"l > 0\"" if checks else ""
            raise self.error(node.line, f"{what}: 'when' must map attr names to values{extra}, "
                                        f"got {describe(node.value)}")
        clauses = []
        for name, value_node in node.value.items():
            if checks and name == BACKEND_SWITCH and not any(a.name == name for a in self.attrs):
                if value_node.value not in BACKENDS:  # a launch step for one backend's plan only
                    raise self.error(value_node.line, f"{what}: when backend: expected one of "
                                                      f"{', '.join(BACKENDS)}, got {describe(value_node.value)}")
                clauses.append((name, str(value_node.value)))
                continue
            attr = next((a for a in self.attrs if a.name == name), None)
            if attr is None or attr.type not in (AttrType.BOOL, AttrType.ENUM, AttrType.INT, AttrType.STRING):
                raise self.error(value_node.line, f"{what}: when: {name!r} is not a bool, enum, int or string attr")
            value = self._attr_scalar(value_node, attr.type, f"{what}: when {name}")
            self._check_attr_value(value, value_node.line, attr.allowed, None, None, f"{what}: when {name}", "value")
            clauses.append((name, value))
        return Condition(tuple(clauses))

    def _condition_text(self, node: Node, what: str) -> tuple[shapes.Expr, str, shapes.Expr] | shapes.Expr:
        """A condition text, typed; one comparison of ints (`"l > 0"`) as its (lhs, op, rhs)."""
        expr = self._typed(node, what, condition=True)
        self._require_bound(expr, self._launch_symbols(floats=True), what, self.loc(node))
        if isinstance(expr, shapes.BinOp) and not (shapes.compares(expr.left) or shapes.compares(expr.right)):
            return expr.left, expr.op, expr.right
        return expr

    def _typed(self, node: Node, what: str, condition: bool) -> shapes.Expr:
        """A condition (or, not `condition`, a let's value) parsed and typed; its refusals as this
        spec's errors, at the node's line."""
        text = node.value
        try:
            parsed = shapes.parse_condition(text) if isinstance(text, str) else shapes.parse_dim(text)
        except shapes.ShapeSyntaxError as exc:
            if exc.message.startswith("comparisons do not chain"):
                raise self.error(node.line, f"{what}: {text!r}: comparisons do not chain: write \"1 < N and "
                                            f"N < 3\"") from None
            raise self.error(node.line, f"{what}: bad expression {text!r}: {exc}") from None
        except (ValueError, TypeError) as exc:
            raise self.error(node.line, f"{what}: bad expression {text!r}: {exc}") from None
        try:
            if condition:
                return conditions.condition(parsed, self._condition_names())
            return conditions.typed(parsed, self._condition_names())[0]
        except conditions.ConditionTypeError as exc:
            message = str(exc).removeprefix(f"{text!r}: ")  # (the whole text is the part refused)
            raise self.error(node.line, f"{what}: {text!r}: {message}") from None

    def _condition_names(self) -> dict[str, conditions.Named]:
        """What each name the op declares is to a condition (codegen/conditions.py)."""
        names = {f: conditions.Named(conditions.FLAG) for f in getattr(self, "flags", ())}
        if not any(a.name == BACKEND_SWITCH for a in self.attrs):
            names[BACKEND_SWITCH] = conditions.Named("value", "backend name", BACKENDS)
        for t in self.type_vars:
            names[t.name] = conditions.Named("value", "type variable", tuple(str(d) for d in t.allowed))
        for a in self.attrs:
            if a.type is AttrType.BOOL:
                names[a.name] = conditions.Named("bool")
            elif a.type in (AttrType.ENUM, AttrType.STRING, AttrType.TYPE):
                allowed = tuple(str(v) for v in a.allowed) if a.allowed is not None else None
                if a.type is AttrType.TYPE and allowed is None:
                    allowed = tuple(str(d) for d in DTYPES)
                names[a.name] = conditions.Named("value", f"{a.type} attr", allowed)
        return names

    def _comparison_parts(self, node: Node, what: str) -> tuple[shapes.Expr, str, shapes.Expr]:
        """`"lhs op rhs"` (shapes.parse_comparison), its refusals as this spec's errors."""
        text = str(node.value)
        chained = f"{what}: {text!r}: comparisons do not chain: give each its own item (\"1 < N\", \"N < 3\")"
        try:
            return shapes.parse_comparison(text)
        except shapes.ComparisonError as exc:
            if exc.reason == "chained":
                raise self.error(node.line, chained) from None
            if exc.reason == "partial":
                raise self.error(node.line, f"{what}: {text!r}: a comparison must be the whole condition") from None
            raise self.error(node.line, f"{what}: {text!r} has no comparison ({' '.join(COMPARISONS)})") from None
        except shapes.ShapeSyntaxError as exc:
            if exc.message.startswith("comparisons do not chain"):
                raise self.error(node.line, chained) from None
            raise self.error(node.line, f"{what}: bad expression {text!r}: {exc}") from None
        except (ValueError, TypeError) as exc:
            raise self.error(node.line, f"{what}: bad expression {text!r}: {exc}") from None

    # -- symbol binding --------------------------------------------------------------------
    def _check_symbol_name(self, name: str, line: int, what: str) -> None:
        """Symbols and lets become locals of the generated wrapper: they must not shadow its
        arguments, its own names or Python's."""
        self.checked_name(naming.check_symbol_name, line, what, name)
        taken = [a.name for a in self.inputs] + [o.name for o in getattr(self, "outputs", ())]
        taken += [a.name for a in self.attrs if a.type is not AttrType.INT]
        if name in taken:
            raise self.error(line, f"{what}: symbol {name!r} is also an input, output or non-int attr")

    def _input_symbols(self, groups: bool = True) -> set[str]:
        """The symbols input shapes bind: their dims' symbols and (with `groups`) their named
        dimension groups, each the product of its dims in expressions."""
        return shape_symbols(self.inputs, groups)

    def _launch_names(self) -> set[str]:
        names = {a.name for a in self.inputs} | {o.name for o in self.outputs}
        names |= {a.name for a in self.attrs} | {let.name for let in self.lets} | self._input_symbols()
        return names | {x.name for x in self.scratch} | set(self.loop_symbols)

    def _launch_symbols(self, floats: bool = False) -> set[str]:
        """The symbols a launch step's expressions may use: input shape symbols, int attrs, lets and
        the enclosing loops' variables and lets; with `floats`, float attrs too (a step's `when:`
        comparisons run in Python: `when: "dropout > 0"`)."""
        bound = self._input_symbols() | {a.name for a in self.attrs if a.type is AttrType.INT or
                                         (floats and a.type is AttrType.FLOAT)}
        return bound | {let.name for let in self.lets} | set(getattr(self, "loop_symbols", ())) | self.flags

    def _bound_expr(self, node: Node, what: str, floats: bool = False) -> shapes.Expr:
        expr = self._expr(node, what)
        self._require_bound(expr, self._launch_symbols(floats), what, self.loc(node))
        return expr

    def _require_bound(self, expr: shapes.Expr, bound: set[str], what: str, loc: Loc) -> None:
        free = [s for s in shapes.symbols(expr) if s not in bound]
        if free:
            kind = next((a.type for a in self.attrs if a.name == free[0]), None)
            extra = (f" (a {kind} attr: only int attrs size things; float attrs may appear in where: and in a "
                     f"launch step's when: comparisons)" if kind else "")
            raise self.error_at(loc, f"{what}: symbol {free[0]!r} is not bound by any input shape, "
                                       f"int attr, earlier let or enclosing repeat{extra}")


def _finite(value: int | float) -> bool:
    """Whether a YAML number is a finite float (an int too large for a float is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _short(value: Any) -> str:
    """A number as an error message shows it (a 400-digit int by its first digits)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:12]}... ({len(text.lstrip('-'))} digits)"
