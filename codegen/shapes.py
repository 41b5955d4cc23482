"""Shape expressions: the little language op specs use for tensor dimensions.

A dimension is an integer literal, a symbol, or integer arithmetic over them::

    [N, H, W, C]    [T, B, D*H]    [I + H, 2*H]    [ceildiv(N, 4)]    [B, ...]

Operators are ``+ - * // %`` with Python semantics (floor division, Python modulo),
unary minus and parentheses; the functions are ``min``/``max`` (two or more
arguments) and ``ceildiv(a, b)``. Grammar (all binary operators left-associative)::

    expr  := term (('+' | '-') term)*
    term  := unary (('*' | '//' | '%') unary)*
    unary := '-' unary | atom
    atom  := INT | IDENT | IDENT '(' expr (',' expr)* ')' | '(' expr ')'

A condition (`parse_condition`: a `when:`, a let's value) also has ``and``, ``or`` and ``not``,
ranked below the comparisons as in Python (or < and < not < comparison < arithmetic)::

    cond  := conj ('or' conj)*
    conj  := neg ('and' neg)*
    neg   := 'not' neg | expr [('==' | '!=' | '<' | ...) expr]

The parser knows no types: codegen/conditions.py types a condition against its op (an enum attr
compared with a bare value becomes an `Is`, `and` of two ints is refused, ...).

Expressions are frozen dataclasses, so they hash, compare structurally and can be
used as dict keys. Nothing here calls ``eval``: parsing, evaluation and printing
are all done by hand.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeAlias

__all__ = [
    "FUNCTIONS",
    "BinOp",
    "Call",
    "Expr",
    "Is",
    "Logic",
    "Neg",
    "Not",
    "Num",
    "ShapeEvalError",
    "ShapePattern",
    "ShapeSyntaxError",
    "Sym",
    "depth",
    "evaluate",
    "parse",
    "parse_condition",
    "parse_dim",
    "parse_shape",
    "shape_to_text",
    "symbols",
    "to_c",
    "to_python",
    "to_text",
]

FUNCTIONS: frozenset[str] = frozenset({"min", "max", "ceildiv"})
LOGIC_WORDS: frozenset[str] = frozenset({"and", "or", "not"})  # reserved: never a symbol
_ARITY = {"min": 2, "max": 2, "ceildiv": 2}  # minimum argument counts; ceildiv is also the maximum
_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
COMPARISON_OPS = ("==", "!=", "<=", ">=", "<", ">")  # 1 when true, 0 when false (as in C)
#: How deep an expression may nest (each operator, unary minus, parenthesis and call is a level):
#: the parser, the printers and the evaluators recurse once per level.
MAX_DEPTH = 100
#: The largest integer literal: dimensions and the kernels' arithmetic are int64 (`long long`).
MAX_INT = 2**63 - 1
_SYMBOL_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ShapeSyntaxError(ValueError):
    """A shape or dimension text that does not parse; ``column`` is 1-based within ``text``."""

    def __init__(self, message: str, column: int, text: str) -> None:
        shown = text if len(text) <= 120 else text[:100] + f"... ({len(text)} characters)"
        super().__init__(f"{message} at column {column}: {shown!r}")
        self.message = message
        self.column = column
        self.text = text


class ShapeEvalError(ValueError):
    """Evaluation failed: unbound symbols (listed in ``unbound``) or division/modulo by zero."""

    def __init__(self, message: str, unbound: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.unbound = unbound


# --- expression tree ------------------------------------------------------------------------------
# Constructors validate, so every Expr that exists is one the parser could have produced
# (up to Neg(Num) vs. a negative literal, which the language does not have).


@dataclass(frozen=True)
class Num:
    value: int

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < 0:
            raise ValueError(f"Num needs a non-negative int, got {self.value!r}")


@dataclass(frozen=True)
class Sym:
    name: str

    def __post_init__(self) -> None:
        if (not isinstance(self.name, str) or not _SYMBOL_RE.fullmatch(self.name) or self.name in FUNCTIONS
                or self.name in LOGIC_WORDS):
            raise ValueError(f"invalid symbol name {self.name!r}")


@dataclass(frozen=True)
class Neg:
    operand: Expr


@dataclass(frozen=True)
class BinOp:
    op: str
    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        if self.op not in _BINOPS:
            raise ValueError(f"unknown operator {self.op!r}")


@dataclass(frozen=True)
class Call:
    fn: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))  # a list would make the node unhashable
        if self.fn not in FUNCTIONS:
            raise ValueError(f"unknown function {self.fn!r}")
        if len(self.args) < _ARITY[self.fn] or (self.fn == "ceildiv" and len(self.args) != 2):
            raise ValueError(f"wrong number of arguments for {self.fn}: {len(self.args)}")


@dataclass(frozen=True)
class Logic:
    """`a and b and ...` / `a or b or ...` (two or more operands)."""

    op: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        if self.op not in ("and", "or") or len(self.args) < 2:
            raise ValueError(f"bad logic node {self.op!r} with {len(self.args)} operands")


@dataclass(frozen=True)
class Not:
    operand: Expr


@dataclass(frozen=True)
class Is:
    """A typed test of a non-int name: an enum/string/bool attr, `backend` or a type variable has
    `value` (`rnn_mode == lstm`, `backend == cuda`, `T == float64`, a bare bool attr). Written by
    codegen/conditions.py, never by the parser (which reads `lstm` as a symbol)."""

    name: str
    value: str | bool | int | float


Expr: TypeAlias = Num | Sym | Neg | BinOp | Call | Logic | Not | Is


# --- tokenizer ------------------------------------------------------------------------------------

# Multi-character operators come first so '//' is not read as two '/'. '/' and '**' are tokenized
# only so that the parser can reject them with a helpful message.
_TOKEN_RE = re.compile(
    r"\s*(?:(?P<int>[0-9]+)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\.\.\.|//|\*\*|==|!=|<=|>=|[-+*/%(),\[\]<>]))"
)


@dataclass(frozen=True)
class _Token:
    kind: str  # "int", "ident", "op" or "end"
    text: str
    column: int  # 1-based


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while True:
        m = _TOKEN_RE.match(text, pos)
        if m is None or m.lastgroup is None:
            rest = text[pos:].lstrip()
            column = len(text) - len(rest) + 1
            if not rest:
                tokens.append(_Token("end", "", column))
                return tokens
            hint = " (dimensions are integers)" if rest[0] == "." else ""
            raise ShapeSyntaxError(f"unexpected character {rest[0]!r}{hint}", column, text)
        kind = m.lastgroup
        tok = _Token(kind, m.group(kind), m.start(kind) + 1)
        if tok.text == "/":
            raise ShapeSyntaxError("'/' is not supported; use '//' for floor division", tok.column, text)
        if tok.text == "**":
            raise ShapeSyntaxError("'**' (power) is not supported", tok.column, text)
        tokens.append(tok)
        pos = m.end()


# --- parser ---------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, logic: bool = False) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0
        self.depth = 0  # parentheses, calls and unary minus around the token being read
        self.logic = logic  # and/or/not read (a condition), else refused

    def at_word(self, word: str) -> bool:
        tok = self.tokens[self.pos]
        return tok.kind == "ident" and tok.text == word

    def enter(self, tok: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(f"expression nested deeper than {MAX_DEPTH} levels", tok.column)

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def at(self, op: str) -> bool:
        tok = self.tokens[self.pos]
        return tok.kind == "op" and tok.text == op

    def take(self) -> _Token:
        tok = self.tokens[self.pos]
        if tok.kind != "end":  # "end" is sticky so look-ahead never runs off the list
            self.pos += 1
        return tok

    def fail(self, message: str, column: int) -> NoReturn:
        raise ShapeSyntaxError(message, column, self.text)

    def fail_at(self, tok: _Token, expected: str) -> NoReturn:
        got = "end of input" if tok.kind == "end" else repr(tok.text)
        self.fail(f"expected {expected}, got {got}", tok.column)

    def close(self, opener: _Token, closer: str, expected: str) -> None:
        """Consume ``closer``; point at the opener when the input just stops, as that is the bug."""
        tok = self.take()
        if tok.kind == "op" and tok.text == closer:
            return
        if tok.kind == "end":
            self.fail(f"unclosed {opener.text!r}", opener.column)
        self.fail_at(tok, expected)

    def expr(self) -> Expr:
        """A condition (with `logic`) or a comparison; checked for depth at the outermost level."""
        start = self.peek()
        out = self.disjunction() if self.logic else self.comparison()
        if self.depth == 0 and depth(out) > MAX_DEPTH:
            self.fail(f"expression nested deeper than {MAX_DEPTH} levels (operators count)", start.column)
        return out

    def disjunction(self) -> Expr:
        args = [self.conjunction()]
        while self.at_word("or"):
            self.take()
            args.append(self.conjunction())
        return args[0] if len(args) == 1 else Logic("or", tuple(args))

    def conjunction(self) -> Expr:
        args = [self.negation()]
        while self.at_word("and"):
            self.take()
            args.append(self.negation())
        return args[0] if len(args) == 1 else Logic("and", tuple(args))

    def negation(self) -> Expr:
        if self.at_word("not"):
            self.enter(self.take())
            operand = self.negation()
            self.depth -= 1
            return Not(operand)
        return self.comparison()

    def comparison(self) -> Expr:
        """A sum, or one comparison of two sums (1 or 0; `a < b < c` is refused: Python and C read it
        differently). A long chain of operators nests as deep as parentheses do (see expr)."""
        left = self.sum()
        if any(self.at(op) for op in COMPARISON_OPS):
            op = self.take().text
            left = BinOp(op, left, self.sum())
            if any(self.at(op) for op in COMPARISON_OPS):
                self.fail("comparisons do not chain: parenthesise one", self.peek().column)
        return left

    def sum(self) -> Expr:
        left = self.term()
        while self.at("+") or self.at("-"):
            op = self.take().text
            left = BinOp(op, left, self.term())
        return left

    def term(self) -> Expr:
        left = self.unary()
        while self.at("*") or self.at("//") or self.at("%"):
            op = self.take().text
            left = BinOp(op, left, self.unary())
        return left

    def unary(self) -> Expr:
        if self.at("-"):
            self.enter(self.take())
            operand = self.unary()
            self.depth -= 1
            return Neg(operand)
        return self.atom()

    def atom(self) -> Expr:
        tok = self.take()
        if tok.kind == "int":
            digits = tok.text.lstrip("0")
            if len(digits) > 19 or (len(digits) == 19 and int(digits) > MAX_INT):  # (no int() of a huge text)
                self.fail(f"{tok.text[:30]}{'...' if len(tok.text) > 30 else ''} is outside int64 (at most "
                          f"2**63 - 1)", tok.column)
            return Num(int(tok.text))
        if tok.kind == "ident":
            if self.at("("):
                return self.call(tok)
            if tok.text in FUNCTIONS:
                self.fail(f"{tok.text!r} is a function; call it as {tok.text}(...)", tok.column)
            if tok.text in LOGIC_WORDS:
                where = "here" if self.logic else "outside a condition (a when:, a let)"
                self.fail(f"{tok.text!r} is a condition operator: not allowed {where}", tok.column)
            return Sym(tok.text)
        if tok.kind == "op" and tok.text == "(":
            self.enter(tok)
            inner = self.expr()
            self.close(tok, ")", "an operator or ')'")
            self.depth -= 1
            return inner
        self.fail_at(tok, "a number, a symbol or '('")

    def call(self, name: _Token) -> Expr:
        if name.text not in FUNCTIONS:
            known = ", ".join(sorted(FUNCTIONS))
            self.fail(f"unknown function {name.text!r} (known: {known})", name.column)
        opener = self.take()
        self.enter(opener)
        args = [] if self.at(")") else [self.expr()]
        while args and self.at(","):
            self.take()
            args.append(self.expr())
        self.close(opener, ")", "an operator, ',' or ')'")
        self.depth -= 1
        n = len(args)
        if name.text == "ceildiv" and n != 2:
            self.fail(f"ceildiv() takes exactly 2 arguments, got {n}", name.column)
        if n < _ARITY[name.text]:
            self.fail(f"{name.text}() takes at least {_ARITY[name.text]} arguments, got {n}", name.column)
        return Call(name.text, tuple(args))

    def end(self, expected: str) -> None:
        tok = self.peek()
        if tok.kind == "end":
            return
        if tok.kind == "op" and tok.text in ")]":
            self.fail(f"unmatched {tok.text!r}", tok.column)
        if tok.kind == "ident" and tok.text in LOGIC_WORDS and not self.logic:
            self.fail(f"{tok.text!r} is a condition operator: not allowed outside a condition (a when:, a let)",
                      tok.column)
        self.fail_at(tok, expected)


def parse(text: str) -> Expr:
    """Parse one dimension expression; the whole string must be consumed."""
    if not isinstance(text, str):
        raise TypeError(f"parse() needs a str, got {type(text).__name__}")
    p = _Parser(text)
    if p.peek().kind == "end":
        p.fail("empty dimension expression", 1)
    e = p.expr()
    p.end("an operator or end of input")
    return e


def parse_condition(text: str) -> Expr:
    """Parse a condition or a let's value: an expression that may also use and/or/not (untyped)."""
    if not isinstance(text, str):
        raise TypeError(f"parse_condition() needs a str, got {type(text).__name__}")
    p = _Parser(text, logic=True)
    if p.peek().kind == "end":
        p.fail("empty condition", 1)
    e = p.expr()
    p.end("an operator, and, or, or end of input")
    return e


def parse_dim(value: int | str) -> Expr:
    """Parse one dimension as YAML gives it: a non-negative int or an expression string."""
    # bool is an int subclass, but `shape: [yes, N]` is certainly a spec mistake.
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        kind = type(value).__name__
        raise ShapeSyntaxError(f"a dimension must be an int or a string, not {kind}", 1, repr(value))
    if isinstance(value, int):
        if value < 0:
            raise ShapeSyntaxError("a dimension must be non-negative", 1, repr(value))
        if value > MAX_INT:
            raise ShapeSyntaxError("a dimension is outside int64 (at most 2**63 - 1)", 1, f"{value:.3e}")
        return Num(value)
    return parse(value)


# --- comparisons ----------------------------------------------------------------------------------
# `where:` lines and launch steps' `when:` comparisons are read here, one way for both.


class ComparisonError(ValueError):
    """A text that parses but is not one comparison. `reason`: "none" (it compares nothing),
    "partial" (a comparison inside a larger expression) or "chained" (`1 < N < 3`)."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(f"{text!r}: {reason}")
        self.reason = reason
        self.text = text


def compares(e: Expr) -> bool:
    """Whether the expression holds a comparison anywhere."""
    if isinstance(e, BinOp):
        return e.op in COMPARISON_OPS or compares(e.left) or compares(e.right)
    if isinstance(e, Neg):
        return compares(e.operand)
    if isinstance(e, (Call, Logic)):
        return any(compares(a) for a in e.args)
    if isinstance(e, Not):
        return compares(e.operand)
    return isinstance(e, Is)


def parse_comparison(text: str) -> tuple[Expr, str, Expr]:
    """`"lhs op rhs"`: one comparison of two expressions that compare nothing. A chain (`1 < N < 3`,
    or `(1 < N) < 3`) reads as two comparisons in Python, where conditions run, and as one of a 0/1
    in the shape language, so it is refused. Raises ComparisonError, or ShapeSyntaxError (the
    chain's message starts "comparisons do not chain") for a text that does not parse."""
    if not any(op in text for op in COMPARISON_OPS):
        raise ComparisonError("none", text)
    expr = parse(text)
    if not (isinstance(expr, BinOp) and expr.op in COMPARISON_OPS):
        raise ComparisonError("partial" if compares(expr) else "none", text)
    if compares(expr.left) or compares(expr.right):
        raise ComparisonError("chained", text)
    return expr.left, expr.op, expr.right


# --- printing -------------------------------------------------------------------------------------
# One precedence-driven printer serves the three output languages; subclasses only change how
# leaves, operators and calls look. Python and C both rank unary minus above * // %, like the
# shape language, so the same parenthesisation rules are correct for all three.

_PREC = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2, **{op: 0 for op in COMPARISON_OPS}, "or": -3, "and": -2}
_NOT = -1
_UNARY = 3
_ATOM = 4


class _Printer:
    def num(self, value: int) -> str:
        return str(value)

    def sym(self, name: str) -> str:
        return name

    def op(self, op: str) -> str:
        return f" {op} " if op in ("+", "-", *COMPARISON_OPS) else op

    def call(self, fn: str, args: tuple[Expr, ...]) -> str:
        return f"{fn}({', '.join(self.text(a) for a in args)})"

    def text(self, e: Expr) -> str:
        return self.render(e)[0]

    def logic(self, op: str) -> str:
        return f" {op} "

    def negate(self, inner: str) -> str:
        return f"not {inner}"

    def is_(self, name: str, value: str | bool | int | float) -> tuple[str, int]:
        if value is True:
            return self.sym(name), _ATOM
        if value is False:
            return self.negate(self.sym(name)), _NOT
        return f"{self.sym(name)} == {value}", 0

    def render(self, e: Expr) -> tuple[str, int]:
        """Return the text of ``e`` and the precedence of its outermost construct."""
        if isinstance(e, Num):
            return self.num(e.value), _ATOM
        if isinstance(e, Sym):
            return self.sym(e.name), _ATOM
        if isinstance(e, Call):
            return self.call(e.fn, e.args), _ATOM
        if isinstance(e, Is):
            return self.is_(e.name, e.value)
        if isinstance(e, Logic):  # a nested `and` in an `and` keeps its parentheses (the tree round-trips)
            prec = _PREC[e.op]
            parts = [(t if p > prec else f"({t})") for t, p in map(self.render, e.args)]
            return self.logic(e.op).join(parts), prec
        if isinstance(e, Not):
            inner, prec = self.render(e.operand)
            return self.negate(inner if prec >= _NOT else f"({inner})"), _NOT
        if isinstance(e, Neg):
            inner, prec = self.render(e.operand)
            # "-(-a)" rather than "--a": clearer, and "--" is the decrement operator in C.
            if prec < _UNARY or inner.startswith("-"):
                inner = f"({inner})"
            return f"-{inner}", _UNARY
        if isinstance(e, BinOp):
            prec = _PREC[e.op]
            left, lprec = self.render(e.left)
            right, rprec = self.render(e.right)
            if lprec < prec or (lprec == prec == 0):  # a comparison never chains
                left = f"({left})"
            if rprec <= prec:  # left-associative: an equal-precedence right operand needs parens
                right = f"({right})"
            return f"{left}{self.op(e.op)}{right}", prec
        raise TypeError(f"not a shape expression: {e!r}")


def _wrap(source: str) -> str:
    """Parenthesise a caller-supplied name unless it is a plain identifier."""
    return source if source.isidentifier() else f"({source})"


class _PythonPrinter(_Printer):
    def __init__(self, name: Callable[[str], str], tested: Callable[[str], str] | None = None) -> None:
        self.name = name
        self.tested = tested or name

    def is_(self, name: str, value: str | bool | int | float) -> tuple[str, int]:
        source = self.tested(name)  # an attribute (`_backend.name`) needs no parentheses
        subject = source if all(p.isidentifier() for p in source.split(".")) else f"({source})"
        if value is True:
            return subject, _ATOM
        if value is False:
            return f"not {subject}", _NOT
        return f"{subject} == {value!r}", 0

    def sym(self, name: str) -> str:
        return _wrap(self.name(name))

    def call(self, fn: str, args: tuple[Expr, ...]) -> str:
        if fn == "ceildiv":  # -((-a)//b) is exact ceiling division for any signs
            a, b = args
            return f"({self.text(Neg(BinOp('//', Neg(a), b)))})"
        return super().call(fn, args)  # Python's own min/max


class _CPrinter(_Printer):
    def __init__(self, name: Callable[[str], str]) -> None:
        self.name = name

    def num(self, value: int) -> str:
        return f"{value}LL"

    def sym(self, name: str) -> str:
        # Cast every symbol so products of `int` parameters cannot overflow in 32 bits.
        return f"(long long){_wrap(self.name(name))}"

    def op(self, op: str) -> str:
        return f" {'/' if op == '//' else op} "

    def logic(self, op: str) -> str:
        return " && " if op == "and" else " || "

    def negate(self, inner: str) -> str:
        return f"!{inner}"

    def is_(self, name: str, value: str | bool | int | float) -> tuple[str, int]:
        raise TypeError(f"{name} == {value}: a test of an attr's value or the backend has no C form")

    def render(self, e: Expr) -> tuple[str, int]:
        if isinstance(e, (Logic, Not)):  # C ranks && above ||: each parenthesised
            return f"({super().render(e)[0]})", _ATOM
        if isinstance(e, BinOp) and e.op in COMPARISON_OPS:  # C ranks < above ==: always parenthesised
            left, right = self.text(e.left), self.text(e.right)
            return f"({left} {e.op} {right})", _ATOM
        return super().render(e)

    def call(self, fn: str, args: tuple[Expr, ...]) -> str:
        if fn == "ceildiv":  # (a + b - 1) / b, with b - 1 folded when b is a literal
            a, b = args
            if isinstance(b, Num) and b.value >= 1:
                top: Expr = BinOp("+", a, Num(b.value - 1))
            else:
                top = BinOp("-", BinOp("+", a, b), Num(1))
            return f"({self.text(BinOp('//', top, b))})"
        # min/max as nested conditionals: operands are repeated, which is fine for shape-sized input.
        cmp = "<" if fn == "min" else ">"
        acc = self.text(args[0])
        for arg in args[1:]:
            x = self.text(arg)
            acc = f"({acc} {cmp} {x} ? {acc} : {x})"
        return acc


def to_text(e: Expr) -> str:
    """Canonical text with minimal parentheses: ``"I + H"``, ``"2*H"``, ``"ceildiv(N, 4)"``, ``"-(a + b)"``.

    ``parse(to_text(e)) == e`` for every tree.
    """
    return _Printer().text(e)


def to_python(e: Expr, name: Callable[[str], str] = lambda s: s, tested: Callable[[str], str] | None = None) -> str:
    """Python source computing ``e`` with int arithmetic; ``name`` maps each symbol to source and
    ``tested`` (default: ``name``) each name an `Is` tests (an attr, the backend, a type variable).

    A mapped name that is not a plain identifier is parenthesised. ``ceildiv(a, b)`` becomes
    ``-((-a)//b)``; ``min``/``max`` use the builtins.
    """
    return _PythonPrinter(name, tested).text(e)


def to_c(e: Expr, name: Callable[[str], str] = lambda s: s) -> str:
    """A C/C++ expression computing ``e`` in ``long long``; ``name`` maps each symbol to source.

    Symbols are cast to ``long long`` and literals are written ``5LL``. ``min``/``max`` become
    conditionals and ``ceildiv(a, b)`` becomes ``(a + b - 1) / b``, so no helper function is needed
    and the result can be dropped into any kernel. ``//`` and ``%`` are emitted as C's ``/`` and
    ``%``, which truncate toward zero: the result is exact when the operands of every division,
    modulo and ceildiv are non-negative (divisors positive), which holds for tensor dimensions.
    """
    return _CPrinter(name).text(e)


# --- evaluation -----------------------------------------------------------------------------------


def _children(e: Expr) -> Iterator[Expr]:
    if isinstance(e, Neg):
        yield e.operand
    elif isinstance(e, BinOp):
        yield e.left
        yield e.right
    elif isinstance(e, (Call, Logic)):
        yield from e.args
    elif isinstance(e, Not):
        yield e.operand


def depth(e: Expr) -> int:
    """How deep the tree nests (a leaf is 1), found without recursion: the parser refuses more than
    MAX_DEPTH, so that everything else may recurse."""
    deepest, stack = 0, [(e, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in _children(node))
    return deepest


def symbols(e: Expr) -> tuple[str, ...]:
    """Symbol names in first-appearance (left-to-right) order, without duplicates (an `Is` names an
    attr, the backend or a type variable, not a symbol: see tested)."""
    seen: dict[str, None] = {}  # dicts keep insertion order

    def walk(x: Expr) -> None:
        if isinstance(x, Sym):
            seen.setdefault(x.name)
        for child in _children(x):
            walk(child)

    walk(e)
    return tuple(seen)


def tested(e: Expr) -> tuple[str, ...]:
    """The names `Is` nodes test (attrs, `backend`, type variables), without duplicates."""
    seen: dict[str, None] = {}
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Is):
            seen.setdefault(x.name)
        stack.extend(_children(x))
    return tuple(seen)


def evaluate(e: Expr, env: Mapping[str, int]) -> int:
    """Value of ``e`` with Python int semantics; ``ceildiv(a, b) == -((-a) // b)``.

    Raises ShapeEvalError listing every unbound symbol, or on division/modulo by zero.
    """
    missing = tuple(s for s in symbols(e) if s not in env)
    if missing:
        raise ShapeEvalError(f"unbound symbol(s) {', '.join(missing)} in {to_text(e)!r}", missing)
    return _eval(e, env)


def _eval(e: Expr, env: Mapping[str, int]) -> int:
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Sym):
        return operator.index(env[e.name])  # accepts numpy ints, refuses floats
    if isinstance(e, Neg):
        return -_eval(e.operand, env)
    if isinstance(e, (Not, Logic, Is)):  # one evaluator of conditions: the runtime's
        raise TypeError(f"{to_text(e)!r} is a condition: evaluate its plan literal (runtime/plan.py)")
    if isinstance(e, BinOp):
        a, b = _eval(e.left, env), _eval(e.right, env)
        if b == 0 and e.op in ("//", "%"):
            what = "division" if e.op == "//" else "modulo"
            raise ShapeEvalError(f"{what} by zero in {to_text(e)!r}")
        return int(_BINOPS[e.op](a, b))
    if isinstance(e, Call):
        values = [_eval(a, env) for a in e.args]
        if e.fn == "min":
            return min(values)
        if e.fn == "max":
            return max(values)
        a, b = values
        if b == 0:
            raise ShapeEvalError(f"division by zero in {to_text(e)!r}")
        return -(-a // b)
    raise TypeError(f"not a shape expression: {e!r}")


# --- whole shapes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapePattern:
    """A tensor shape: fixed dims (``dims``, in order) and up to two dimension groups, each zero or
    more dims: ``...`` (anonymous) or ``*name`` (named; an output may reuse it, and ``name`` is the
    product of its dims in expressions). ``groups`` holds (position, name) per group, position
    counting the fixed dims before it, name "" for ``...``: ``[*lead, D]`` is dims (D,), groups
    ((0, "lead"),). Two groups need an axis attr to place the fixed dim between them
    (``[*outer, N, *inner]``, the input's ``axis:`` key)."""

    dims: tuple[Expr, ...]
    ellipsis: bool = False  # a group is present (for ShapePattern(dims, True): "..." after the dims)
    groups: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "dims", tuple(self.dims))
        if self.ellipsis and not self.groups:
            object.__setattr__(self, "groups", ((len(self.dims), ""),))
        object.__setattr__(self, "groups", tuple(self.groups))
        object.__setattr__(self, "ellipsis", bool(self.groups))

    def rank_text(self) -> str:
        """The accepted rank as text: ``"4"``, or ``">= 1"`` for ``[B, ...]``."""
        return f">= {len(self.dims)}" if self.ellipsis else str(len(self.dims))

    def items(self) -> list[Expr | str]:
        """Dims and groups in order; a group as its text (``"..."`` or ``"*lead"``)."""
        out: list[Expr | str] = []
        groups = list(self.groups)
        for i in range(len(self.dims) + 1):
            while groups and groups[0][0] == i:
                name = groups.pop(0)[1]
                out.append(f"*{name}" if name else "...")
            if i < len(self.dims):
                out.append(self.dims[i])
        return out

    def group_names(self) -> tuple[str, ...]:
        return tuple(name for _, name in self.groups if name)


def parse_shape(value: str | list[Any] | tuple[Any, ...]) -> ShapePattern:
    """Parse ``"[N, H, W, C]"``, ``"[]"``, ``"[B, ...]"``, ``"[*lead, D]"`` or a YAML list like
    ``["N", 3, "2*H", "..."]``.

    A shape has at most two groups (``...`` or ``*name``), never side by side. Syntax errors carry
    a column within the shape text (for a list, within the text ``shape_to_text`` would print
    for it).
    """
    if isinstance(value, str):
        return _parse_shape_text(value)
    if isinstance(value, (list, tuple)):
        return _parse_shape_list(value)
    raise ShapeSyntaxError(f"a shape must be a string like '[N, H]' or a list, not {type(value).__name__}",
                           1, repr(value))


def _parse_shape_text(text: str) -> ShapePattern:
    p = _Parser(text)
    opener = p.take()
    if not (opener.kind == "op" and opener.text == "["):
        p.fail_at(opener, "'[' (shapes are written like [N, H, W])")
    dims: list[Expr] = []
    groups: list[tuple[int, str]] = []
    names: set[str] = set()
    if not p.at("]"):
        while True:
            if p.at("...") or p.at("*"):
                mark = p.take()
                name = ""
                if mark.text == "*":
                    tok = p.take()
                    if tok.kind != "ident" or tok.text in FUNCTIONS:
                        p.fail_at(tok, "a group name after '*' (like *lead)")
                    name = tok.text
                    if name in names:
                        p.fail(f"group *{name} appears twice", tok.column)
                    names.add(name)
                if groups and groups[-1][0] == len(dims) and not (name and groups[-1][1]):
                    p.fail("'...' beside another group cannot be told apart from it", mark.column)
                if len(groups) == 2:
                    p.fail("a shape has at most two dimension groups", mark.column)
                groups.append((len(dims), name))
            else:
                dims.append(p.expr())
            if not p.at(","):
                break
            p.take()
    p.close(opener, "]", "an operator, ',' or ']'")
    p.end("end of input after ']'")
    return ShapePattern(tuple(dims), groups=tuple(groups))


def _parse_shape_list(items: Sequence[Any]) -> ShapePattern:  # YAML scalars, or ... itself
    """Each item checked as a dimension (parse_dim rejects bools, floats, negative numbers) or a
    group; then the whole as text, so columns mean the same thing whichever YAML form the spec
    used."""
    parts = ["..." if item is Ellipsis else item if isinstance(item, str) else repr(item) for item in items]
    text = "[" + ", ".join(parts) + "]"
    column = 2
    for i, item in enumerate(items):
        if not (item is Ellipsis or (isinstance(item, str) and item.strip()[:1] in (".", "*"))):
            try:
                parse_dim(item)
            except ShapeSyntaxError as err:
                raise ShapeSyntaxError(err.message, column + err.column - 1, text) from None
        column += len(parts[i]) + 2
    return _parse_shape_text(text)


def shape_to_text(p: ShapePattern) -> str:
    """``"[N, H, W, C]"``, ``"[B, ...]"``, ``"[*lead, D]"``, ``"[...]"`` or ``"[]"``."""
    return "[" + ", ".join(item if isinstance(item, str) else to_text(item) for item in p.items()) + "]"
