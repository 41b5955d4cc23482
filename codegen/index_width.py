"""32-bit index arithmetic over sizes that can exceed 2**31 − 1: `opgen generate` refuses a kernel
whose device code puts a size, or an index derived from one, into a 32-bit integer it does not fit.

The launch arguments of sizes (dims, list lengths, unbounded int attrs) are `long long`, and a
tensor of 2**31 elements is 8 GiB of float32: within reach of any data-center GPU. A kernel that
copies such a value into an `int`, compares an `int` loop counter against it, casts it to `int`, or
computes a grid index as `blockIdx.x * blockDim.x` (an unsigned 32-bit product that wraps at 2**32
threads) works on every test and fails on the large input. kernel_check refuses a size passed to a
32-bit parameter; this module reads the bodies.

It follows values, not spellings (codegen/index_values.py: ranges). The sources are the 64-bit
integer parameters that hold sizes (of the kernel's device function, those the ABI passes a dim, a
list length or an unbounded int attr; of any other function or lambda, every one, since its callers
are not read), 64-bit class members, the thread and block built-ins, and loop counters bounded by
any of these. A value computed from a source by arithmetic or assignment keeps its range; a mask or
a right shift bounds it (`i & 0xffffffffll` fits `unsigned`, `i >> 32` fits `int`); a bit pattern
derived from no source (`__double_as_longlong(v)`) is not followed. Each declaration has its C++
scope: a block, a `for` statement (its counter ends with it), a function or lambda body. Refused,
when the value is a source's and its range does not fit the 32-bit (or narrower) type it meets:

* a declaration initialised from it (`int n32 = n`);
* a variable assigned it (`i = n`, `i += stride`);
* a cast to the type (`static_cast<int>(n)`, `(int)n`, `int(n)`);
* a `for` whose counter of the type is compared against it (`for (int i = 0; i < n; ++i)`);
* a product computed in 32 bits that wraps (`blockIdx.x * blockDim.x`: widen one side first).

A value that is bounded by what the code cannot show (a lane count, a rule of the launch plan) says
why on its line, with the comment `// int32 ok: <why>`, and is not judged. Calls return the range of
the sources they are given (`min` and `max` their own); members and elements read from memory are
not followed. Like kernel_check, it reads what it can and never refuses a kernel for a construct it
does not understand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce

from codegen import index_values as iv
from codegen.index_values import Val
from codegen.linemarks import LineMap
from codegen.model import OpSpec
from codegen.runtime.cxx import Token, match_angle, split_params, stream
from codegen.yamlnodes import SpecError

#: The marker that exempts a line, with the reason after it.
EXEMPT = "int32 ok:"

_QUALIFIERS = {"const", "volatile", "static", "constexpr", "register", "__restrict__", "__restrict", "inline",
               "__shared__", "__constant__", "__device__", "__host__", "__forceinline__", "extern", "mutable",
               "thread_local", "typename"}
_ATTRIBUTES = {"__launch_bounds__", "__attribute__", "__align__", "alignas", "__declspec", "decltype", "noexcept",
               "__maxnreg__", "sizeof"}
_KEYWORDS = {"return", "else", "case", "goto", "new", "delete", "throw", "sizeof", "alignof", "do", "if", "for",
             "while", "switch", "break", "continue", "default", "using", "typedef", "template", "operator",
             "static_assert", "asm", "__asm__", "struct", "class", "union", "enum", "namespace", "true", "false",
             "nullptr", "this", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "public", "private",
             "protected", "co_return", "auto"} | iv.INTEGER_WORDS
#: The built-ins' ranges under CUDA's launch limits (x up to 2**31 - 1 blocks, 1024 threads a block).
_BUILTINS = {("threadIdx", "x"): (0, 1023), ("threadIdx", "y"): (0, 1023), ("threadIdx", "z"): (0, 63),
             ("blockDim", "x"): (1, 1024), ("blockDim", "y"): (1, 1024), ("blockDim", "z"): (1, 64),
             ("blockIdx", "x"): (0, 2**31 - 2), ("blockIdx", "y"): (0, 65534), ("blockIdx", "z"): (0, 65534),
             ("gridDim", "x"): (1, 2**31 - 1), ("gridDim", "y"): (1, 65535), ("gridDim", "z"): (1, 65535)}
_BUILTIN_NAMES = {name for name, _ in _BUILTINS}
_SMALL_RESULTS = {"__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll"}  # at most 64
_PREC = {",": 1, "=": 2, "+=": 2, "-=": 2, "*=": 2, "/=": 2, "%=": 2, "&=": 2, "|=": 2, "^=": 2, "<<=": 2,
         ">>=": 2, "?": 3, "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9, "<": 10, ">": 10, "<=": 10,
         ">=": 10, "<<": 11, ">>": 11, "+": 12, "-": 12, "*": 13, "/": 13, "%": 13}
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}
_GROWING = {"=", "+=", "-=", "*=", "<<=", "|=", "^="}  # assignments that can widen a value
_BOOL = Val(0, 1, False)
#: The value of a pointer expression (`x + i`): not an integer, and pointer arithmetic stays one.
_ADDRESS = Val(0, 0, False, bits=0)


@dataclass(frozen=True)
class Finding:
    line: int  # physical line of the rendered text
    message: str


@dataclass
class _Var:
    kind: str  # "int", "pointer", or "other" (a float, a class, an array): declared, so it shadows
    bits: int = 0
    unsigned: bool = False
    val: Val | None = None

    def value(self) -> Val | None:
        return self.val if self.kind == "int" else _ADDRESS if self.kind == "pointer" else None


def _pairs(texts: list[str]) -> list[int]:
    """For each opening bracket, the index of its closing one (len(texts) when unclosed)."""
    pair = [0] * len(texts)
    stack: list[int] = []
    closers = {")": "(", "]": "[", "}": "{"}
    for k, t in enumerate(texts):
        if t in ("(", "[", "{"):
            pair[k] = len(texts)
            stack.append(k)
        elif t in closers and stack and texts[stack[-1]] == closers[t]:
            pair[stack.pop()] = k
    return pair


def _literal(text: str) -> Val | None:
    """An integer literal's value and type (None: a floating literal)."""
    digits = text.rstrip("uUlLzZ").replace("'", "")
    suffix = text[len(text.rstrip("uUlLzZ")):].lower()
    try:
        value = int(digits, 0) if not (digits.startswith("0") and digits.isdigit()) else int(digits, 8)
    except ValueError:
        return None
    bits = 64 if "l" in suffix or value > 0xFFFFFFFF else 32
    unsigned = "u" in suffix or (bits == 32 and value > 0x7FFFFFFF and not digits.isdigit())
    return iv.constant(value, bits, unsigned)


class _Walker:
    """One pass over a kernel's tokens: namespace scope for declarations, statements and
    expressions inside bodies, with the scopes of C++."""

    def __init__(self, tokens: list[Token], sources: dict[str, frozenset[int]] | None) -> None:
        last = tokens[-1].line if tokens else 1
        self.t = tokens + [Token("eof", "", last)] * 4  # lookahead never runs off the end
        self.texts = [t.text for t in self.t]
        self.pair = _pairs(self.texts)
        self.sources = sources
        self.scopes: list[dict[str, _Var]] = [{}]
        self.found: list[Finding] = []
        self.quiet = 0  # > 0: judging a loop bound again, neither reporting nor assigning

    # -- scopes and findings ------------------------------------------------------------------------
    def lookup(self, name: str) -> _Var | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def report(self, at: int, message: str) -> None:
        if not self.quiet:
            self.found.append(Finding(self.t[at].line, message))

    def narrowed(self, v: Val, bits: int, unsigned: bool, at: int, message: Callable[[], str]) -> Val:
        """v in a `bits`-wide integer: a finding when a source's value does not fit, after which
        it is not followed further (one finding a cause; `// int32 ok:` says it fits)."""
        if v.tracked and not iv.fits(v, bits, unsigned):
            self.report(at, message())
            v = dataclasses.replace(v, tracked=False)
        return iv.convert(v, bits, unsigned)

    def show(self, a: int, b: int) -> str:
        return _show(self.t[a:b])

    def close(self, k: int, end: int) -> int:
        return min(self.pair[k], end)

    def stop(self, i: int, end: int, stops: set[str]) -> int:
        """The first token in stops at bracket depth 0 from i (end if none)."""
        while i < end:
            t = self.texts[i]
            if t in stops:
                return i
            i = self.close(i, end) + 1 if t in ("(", "[", "{") else i + 1
        return end

    def angle(self, i: int, end: int) -> int | None:
        """Past the `>` closing the template argument list at i, or None if `<` compares."""
        j = match_angle(self.t, i)
        if j > end or self.texts[j - 1] != ">" or any(t in ("&&", "||", "?") for t in self.texts[i:j]):
            return None
        return j

    # -- namespace and class scope ------------------------------------------------------------------
    def namespace(self, i: int, end: int) -> None:
        start = i
        while i < end:
            t = self.texts[i]
            if t == ";":
                self.member(start, i)
                start = i = i + 1
            elif t == "{":
                close = self.close(i, end)
                head = self.texts[start:i]
                declarator = self.declarator(start, i)
                if "namespace" in head or (head[:1] == ["extern"] and len(head) == 2):
                    self.namespace(i + 1, close)
                    start = close + 1
                elif "enum" in head or "=" in head or (declarator is None and not (
                        {"struct", "class", "union"} & set(head))):
                    pass  # an initializer or an enum: up to its `;`
                elif declarator is None:
                    self.scopes.append({})
                    self.namespace(i + 1, close)
                    self.scopes.pop()
                else:
                    self.function(declarator[0], declarator[1], i)
                    start = close + 1
                i = close + 1
            elif t == "<" and i and self.texts[i - 1] == "template":
                i = self.angle(i, end) or i + 1
            elif t in ("(", "["):
                i = self.close(i, end) + 1
            else:
                i += 1

    def declarator(self, i: int, end: int) -> tuple[int, int] | None:
        """(name, its parameters' `(`) of the function a declaration head declares, or None."""
        while i < end:
            t = self.texts[i]
            if t == "template" and self.texts[i + 1] == "<":
                i = self.angle(i + 1, end) or end
            elif t in _ATTRIBUTES and self.texts[i + 1] == "(":
                i = self.close(i + 1, end) + 1
            elif t == "=":
                return None
            elif t == "operator":
                k = i + 3 if self.texts[i + 1:i + 3] == ["(", ")"] else self.stop(i + 1, end, {"("})
                return (i, k) if k < end and self.texts[k] == "(" else None
            elif self.t[i].kind == "id" and self.texts[i + 1] == "(" and t not in _KEYWORDS:
                return i, i + 1
            elif t == "(":
                i = self.close(i, end) + 1
            else:
                i += 1
        return None

    def member(self, start: int, end: int) -> None:
        """A declaration ending in `;` at namespace or class scope: constants and members."""
        if start < end and self.declarator(start, end) is None and self.is_declaration(start):
            self.declaration(start, end, members=True)

    def function(self, name_at: int, open_: int, body: int) -> None:
        sizes = self.sources.get(self.texts[name_at]) if self.sources is not None else None
        params = self.params(open_ + 1, self.pair[open_], sizes)
        depth = len(self.scopes)
        try:
            self.block(body, params)
        except (IndexError, RecursionError):  # a construct this reader does not follow: not judged
            del self.scopes[depth:]

    def params(self, i: int, end: int, sizes: frozenset[int] | None = None) -> dict[str, _Var]:
        """A parameter list's names; a 64-bit integer one is a source unless `sizes` (the ABI's
        size positions) leaves it out."""
        out: dict[str, _Var] = {}
        for k, part in enumerate(split_params(self.t[i:end])):
            texts = [t.text for t in part]
            texts = texts[:texts.index("=")] if "=" in texts else texts
            ids = [t for t in texts if t[:1].isalpha() or t[:1] == "_"]
            if len(ids) < 2 or ids[-1] in _KEYWORDS | _QUALIFIERS:
                continue
            typed = iv.integer_type(ids[:-1])
            if "*" in texts or "[" in texts:
                out[ids[-1]] = _Var("pointer")
            elif typed is not None:
                bits, unsigned = typed
                source = bits == 64 and (sizes is None or k in sizes)
                out[ids[-1]] = _Var("int", bits, unsigned, iv.source(bits, unsigned) if source else None)
            else:
                out[ids[-1]] = _Var("other")
        return out

    # -- statements ---------------------------------------------------------------------------------
    def block(self, i: int, names: dict[str, _Var] | None = None) -> int:
        close = self.pair[i]
        self.scopes.append(dict(names or {}))
        j = i + 1
        while j < close and j < len(self.texts) - 4:
            j = self.statement(j, close)
        self.scopes.pop()
        return close + 1

    def statement(self, i: int, end: int) -> int:
        """Walks the statement at i; returns the index past it."""
        if i >= end:
            return end
        t, nxt = self.texts[i], self.texts[i + 1]
        if t == "{":
            return self.block(i)
        if t == ";":
            return i + 1
        if t == "for" and nxt == "(":
            return self.for_statement(i, end)
        if t in ("if", "while", "switch"):
            open_ = i + 2 if nxt == "constexpr" else i + 1
            if self.texts[open_] != "(":
                return i + 1
            self.scopes.append({})
            close = self.close(open_, end)
            self.condition(open_ + 1, close)
            j = self.statement(close + 1, end)
            if t == "if" and j < end and self.texts[j] == "else":
                j = self.statement(j + 1, end)
            self.scopes.pop()
            return j
        if t in ("do", "else"):
            return self.statement(i + 1, end)
        if t == "default" or (self.t[i].kind == "id" and nxt == ":" and t not in _KEYWORDS):
            return i + 2  # a label
        if t in ("case", "public", "private", "protected"):
            return self.stop(i, end, {":"}) + 1
        if t in ("break", "continue", "goto", "using", "typedef", "static_assert", "asm", "__asm__", "template"):
            return self.stop(i, end, {";"}) + 1
        if t == "return":
            e = self.stop(i + 1, end, {";"})
            self.expression(i + 1, e)
            return e + 1
        e = self.stop(i, end, {";"})
        if t in ("struct", "class", "union", "enum"):
            body = self.stop(i, e, {"{"})
            if body < e and t != "enum":
                self.scopes.append({})
                self.namespace(body + 1, self.close(body, e))
                self.scopes.pop()
            rest = self.close(body, e) + 1 if body < e else e
            for k in range(rest, e):
                if self.t[k].kind == "id":
                    self.scopes[-1][self.texts[k]] = _Var("other")
        elif self.is_declaration(i):
            self.declaration(i, e)
        else:
            self.expression(i, e)
        return e + 1

    def condition(self, i: int, end: int) -> None:
        if self.is_declaration(i):
            self.declaration(i, end)
        else:
            self.expression(i, end)

    def for_statement(self, i: int, end: int) -> int:
        open_ = i + 1
        close = self.close(open_, end)
        self.scopes.append({})  # the counter's scope: the for statement
        first = self.stop(open_ + 1, close, {";"})
        if first == close:  # `for (auto x : range)`
            colon = self.stop(open_ + 1, close, {":"})
            self.declaration(open_ + 1, colon)
            self.expression(colon + 1, close)
        else:
            second = self.stop(first + 1, close, {";"})
            if self.is_declaration(open_ + 1):
                names = self.declaration(open_ + 1, first)
            else:
                self.expression(open_ + 1, first)
                names = [self.texts[open_ + 1]] if self.texts[open_ + 2] == "=" else []
            counter = self.lookup(names[0]) if names else None
            start = counter.val if counter is not None else None  # before the step widens it
            self.expression(first + 1, second)
            bounds = self.bounds(names[0], first + 1, second) if counter and counter.kind == "int" else []
            self.expression(second + 1, close)
            if counter is not None and counter.kind == "int" and bounds:
                assert names
                wrong = [b for b in bounds if b.tracked and not iv.fits(b, counter.bits, counter.unsigned)]
                counted = reduce(iv.hull, bounds, start)  # a counter bounded by a source is one
                counted = counted and dataclasses.replace(counted, tracked=any(b.tracked for b in bounds))
                if wrong:
                    self.report(open_, f"the {counter.bits}-bit loop counter {names[0]} is compared against a "
                                       f"{wrong[0].bits}-bit bound: `{self.show(first + 1, second)}`")
                    counted = counted and dataclasses.replace(counted, tracked=False)
                counter.val = iv.convert(counted, counter.bits, counter.unsigned) if counted else None
        j = self.statement(close + 1, end)
        self.scopes.pop()
        return j

    def bounds(self, counter: str, i: int, end: int) -> list[Val]:
        """The values a loop condition compares its counter against (`i < n && i < m`: n and m)."""
        out = []
        while i < end:
            e = self.stop(i, end, {"&&", "||"})
            ops = [k for k in range(i, e) if self.texts[k] in _COMPARISONS and self.stop(i, e, {self.texts[k]}) == k
                   and self.texts[k + 1] not in ("<", ">") and self.texts[k - 1] not in ("<", ">")]
            if ops:
                sides = [(i, ops[0]), (ops[0] + 1, e)]
                holding = [counter in self.texts[a:b] for a, b in sides]
                if holding.count(True) == 1:
                    a, b = sides[holding.index(False)]
                    self.quiet += 1
                    v = self.expression(a, b)
                    self.quiet -= 1
                    if v is not None and v is not _ADDRESS:
                        out.append(v)
            i = e + 1
        return out

    # -- declarations -------------------------------------------------------------------------------
    def is_declaration(self, i: int) -> bool:
        """Whether the statement at i declares (a type, then a name)."""
        while self.texts[i] in _QUALIFIERS:
            i += 1
        t = self.texts[i]
        if t in iv.INTEGER_WORDS or t == "auto":
            return self.texts[i + 1] not in ("(", "{")  # `int(x)` is a cast
        if self.t[i].kind != "id" or t in _KEYWORDS or t in _BUILTIN_NAMES or self.lookup(t) is not None:
            return False
        k = self.type_name(i, len(self.texts))
        while self.texts[k] in ("*", "&", "&&", "const", "__restrict__", "volatile"):
            k += 1
        return (self.t[k].kind == "id" and self.texts[k] not in _KEYWORDS
                and self.texts[k + 1] in ("=", ";", ",", "{", "(", "[", ")", ":"))

    def type_name(self, i: int, end: int) -> int:
        """Past a class type's name at i: `opgen::Foo<T>::type`."""
        while i < end:
            i += 1
            if self.texts[i] == "<":
                i = self.angle(i, end) or i
            if self.texts[i] != "::":
                return i
            i += 1
        return i

    def declaration(self, i: int, end: int, members: bool = False) -> list[str]:
        """Declares the names of a declaration over [i, end), judging integer initializers; returns
        the names. `members`: a class member without initializer is a source if 64-bit."""
        words = []
        while i < end and (self.texts[i] in _QUALIFIERS | iv.INTEGER_WORDS or self.texts[i] == "auto"):
            words.append(self.texts[i])
            i += 1
        typed = iv.integer_type(words)
        if typed is None and "auto" not in words:
            i = self.type_name(i, end)
        names: list[str] = []
        while i < end:
            pointer = False
            while self.texts[i] in ("*", "&", "&&", "const", "__restrict__", "volatile"):
                pointer |= self.texts[i] == "*"
                i += 1
            if i >= end or self.t[i].kind != "id":
                self.expression(i, end)
                return names
            name_at, name = i, self.texts[i]
            i += 1
            while i < end and self.texts[i] == "[":
                self.expression(i + 1, self.close(i, end))
                i, pointer = self.close(i, end) + 1, True
            init, span = None, (i, i)
            if i < end and self.texts[i] == "=":
                init, _, j = self.binary(i + 1, end, 2)
                span, i = (i + 1, j), j
            elif i < end and self.texts[i] in ("(", "{"):
                close = self.close(i, end)
                values = self.arguments(i + 1, close)
                init = values[0] if len(values) == 1 else None
                span, i = (i + 1, close), close + 1
            names.append(name)
            self.scopes[-1][name] = self.variable(words, typed, pointer, init, name_at, span, members)
            i = self.stop(i, end, {","}) + 1
        return names

    def variable(self, words: list[str], typed: tuple[int, bool] | None, pointer: bool, init: Val | None,
                 name_at: int, span: tuple[int, int], member: bool) -> _Var:
        if pointer:
            return _Var("pointer")
        if init is _ADDRESS:
            return _Var("pointer" if "auto" in words else "other")
        if typed is None:
            return _Var("int", init.bits, init.unsigned, init) if "auto" in words and init else _Var("other")
        bits, unsigned = typed
        if init is None:
            return _Var("int", bits, unsigned, iv.source(bits, unsigned) if member and bits == 64 else None)
        shown = " ".join(w for w in words if w not in _QUALIFIERS)
        def message() -> str:
            return (f"the {bits}-bit {shown} {self.texts[name_at]} is initialised from a {init.bits}-bit value: "
                    f"`{self.show(*span)}`")

        return _Var("int", bits, unsigned, self.narrowed(init, bits, unsigned, name_at, message))

    # -- expressions --------------------------------------------------------------------------------
    def expression(self, i: int, end: int) -> Val | None:
        """Walks the expression over [i, end) (skipping what it cannot read); its value."""
        v = None
        while i < end:
            v, _, j = self.binary(i, end, 1)
            i = j if j > i else i + 1
            if i < end and self.texts[i] not in _PREC:
                i += 1
        return v

    def arguments(self, i: int, end: int) -> list[Val | None]:
        out = []
        while i < end:
            v, _, j = self.binary(i, end, 2)
            out.append(v)
            i = self.stop(max(j, i + 1), end, {","}) + 1
        return out

    def operator(self, i: int) -> tuple[str, int]:
        """The operator at i and its token count (`>>`, `+=`, `<<=`: the tokenizer splits them)."""
        a, b = self.texts[i], self.texts[i + 1]
        if a in ("+", "-") and b == a:
            return a + b, 2
        if (a, b) in (("<", "<"), (">", ">"), ("<", "<="), (">", ">=")):
            return a + b, 2
        if a in ("+", "-", "*", "/", "%", "&", "|", "^") and b == "=":
            return a + b, 2
        return a, 1

    def binary(self, i: int, end: int, floor: int) -> tuple[Val | None, str | None, int]:
        """(value, the variable if the expression is just its name, index past it) of the
        expression at i whose operators bind at least as tightly as `floor`."""
        val, name, j = self.unary(i, end)
        while j < end:
            op, width = self.operator(j)
            prec = _PREC.get(op)
            if prec is None or prec < floor or op == ",":
                break
            if op == "?":
                colon, depth = j + 1, 0
                while colon < end and (self.texts[colon] != ":" or depth):
                    depth += {"?": 1, ":": -1}.get(self.texts[colon], 0)
                    colon = self.close(colon, end) + 1 if self.texts[colon] in ("(", "[", "{") else colon + 1
                middle = self.expression(j + 1, colon)
                other, _, k = self.binary(colon + 1, end, 2)
                val, name, j = self.choose(i, j, middle, other, colon, k), None, k
                continue
            rhs, _, k = self.binary(j + width, end, prec if prec == 2 else prec + 1)
            if prec == 2:
                val = self.assign(name, op, rhs, i, k)
            elif op in _COMPARISONS or op in ("&&", "||"):
                val = _BOOL
            else:
                val = self.arithmetic(op, val, rhs, i, j, k)
            name, j = None, k
        return val, name, j

    def choose(self, i: int, q: int, a: Val | None, b: Val | None, colon: int, k: int) -> Val | None:
        """`c ? a : b`: either branch; `x < y ? x : y` (or >) is the smaller (larger) of the two."""
        a, b = (None if v is _ADDRESS else v for v in (a, b))
        ops = [m for m in range(i, q) if self.texts[m] in ("<", "<=", ">", ">=") and self.stop(i, q, {self.texts[m]})
               == m]
        if ops and a is not None and b is not None:
            left, right = self.texts[i:ops[0]], self.texts[ops[0] + 1:q]
            branches = self.texts[q + 1:colon], self.texts[colon + 1:k]
            if (left, right) in (branches, branches[::-1]):
                smaller = (self.texts[ops[0]] in ("<", "<=")) == ((left, right) == branches)
                pick = min if smaller else max
                bits = max(a.bits, b.bits)
                return Val(pick(a.lo, b.lo), pick(a.hi, b.hi), a.tracked or b.tracked, bits,
                           a.unsigned if a.bits == bits else b.unsigned)
        return iv.hull(a, b)

    def arithmetic(self, op: str, a: Val | None, b: Val | None, i: int, at: int, k: int) -> Val | None:
        if a is _ADDRESS or b is _ADDRESS:
            return _ADDRESS if op in ("+", "-") and not (a is _ADDRESS and b is _ADDRESS) else None
        v, wraps = iv.binary(op, a, b)
        if wraps and v is not None:
            kind = "product" if op == "*" else "shift"
            self.report(i, f"`{self.show(i, k)}` is {'an unsigned' if v.unsigned else 'a'} 32-bit {kind} (it wraps "
                           f"past 2**32 threads): widen one side first, `static_cast<long long>({self.show(i, at)}) "
                           f"{op} ...`")
            return dataclasses.replace(v, tracked=False)
        return v

    def assign(self, name: str | None, op: str, rhs: Val | None, i: int, k: int) -> Val | None:
        var = self.lookup(name) if name else None
        if var is None or var.kind != "int":
            return rhs
        rhs = None if rhs is _ADDRESS else rhs
        if rhs is not None and op in _GROWING:
            given = rhs.bits

            def message() -> str:
                return f"the {var.bits}-bit variable {name} is assigned a {given}-bit value: `{self.show(i, k)}`"

            rhs = self.narrowed(rhs, var.bits, var.unsigned, i, message)
        if self.quiet or (rhs is None and op == "="):
            return var.val
        if op == "=":
            assert rhs is not None
            var.val = iv.hull(var.val, iv.convert(rhs, var.bits, var.unsigned))
        elif op in _GROWING and ((rhs is not None and rhs.tracked) or (var.val is not None and var.val.tracked)):
            lo, hi = iv.type_range(var.bits, var.unsigned)
            var.val = Val(lo, hi, True, var.bits, var.unsigned)
        return var.val

    def unary(self, i: int, end: int) -> tuple[Val | None, str | None, int]:
        t, kind = self.texts[i], self.t[i].kind
        if i >= end:
            return None, None, end
        if t in ("-", "+", "!", "~", "*", "&"):
            op, width = self.operator(i)
            v, _, j = self.unary(i + width, end)
            if v is None or v is _ADDRESS or op in ("*", "&", "++", "--"):
                return (_ADDRESS if op == "&" else None if op == "*" else v), None, j
            if op == "!":
                return _BOOL, None, j
            lo, hi = (-v.hi, -v.lo) if op == "-" else (-v.hi - 1, -v.lo - 1) if op == "~" else (v.lo, v.hi)
            return Val(lo, hi, v.tracked, v.bits, v.unsigned), None, j
        if t == "(":
            close = self.close(i, end)
            cast = self.c_cast(i, close, end)
            if cast is not None:
                v, _, j = self.unary(close + 1, end)
                return self.cast(cast, v, i, j), None, j
            v = self.expression(i + 1, close)
            return self.postfix(v, None, close + 1, end, None)
        if t in ("sizeof", "alignof", "__alignof__"):
            j = self.close(i + 1, end) + 1 if self.texts[i + 1] == "(" else self.unary(i + 1, end)[2]
            return None, None, j
        if t.endswith("_cast") and self.texts[i + 1] == "<":
            gt = self.angle(i + 1, end)
            if gt is None or self.texts[gt] != "(":
                return None, None, i + 1
            close = self.close(gt, end)
            v = self.expression(gt + 1, close)
            v = self.cast(self.texts[i + 2:gt - 1], v, i, close + 1) if t == "static_cast" else None
            return self.postfix(v, None, close + 1, end, None)
        if t == "[":
            return None, None, self.lambda_(i, end)
        if t == "{":
            self.arguments(i + 1, self.close(i, end))
            return None, None, self.close(i, end) + 1
        if kind == "num":
            return self.postfix(_literal(t), None, i + 1, end, None)
        if t in ("true", "false"):
            return _BOOL, None, i + 1
        if t in _BUILTIN_NAMES and self.texts[i + 1] == "." and (t, self.texts[i + 2]) in _BUILTINS:
            lo, hi = _BUILTINS[(t, self.texts[i + 2])]
            return self.postfix(Val(lo, hi, True, 32, True), None, i + 3, end, None)
        if t in iv.INTEGER_WORDS:  # a functional cast: `int(x)`, `unsigned{x}`
            k = i
            while self.texts[k] in iv.INTEGER_WORDS:
                k += 1
            if self.texts[k] not in ("(", "{"):
                return None, None, k
            close = self.close(k, end)
            v = self.expression(k + 1, close)
            return self.cast(self.texts[i:k], v, i, close + 1), None, close + 1
        if t == "::":
            return self.unary(i + 1, end)
        if kind != "id":
            return None, None, i + 1
        j = i
        while self.texts[j + 1] == "::" and self.t[j + 2].kind == "id":
            j += 2
        var = self.lookup(t) if j == i else None
        if var is None and self.texts[j + 1] == "<":  # template arguments: `f<T>(x)`, `Foo<T>::x`
            gt = self.angle(j + 1, end)
            if gt is not None and self.texts[gt] in ("(", "{", "::"):
                j = gt - 1
        return self.postfix(var.value() if var else None, t if var else None, j + 1, end, self.texts[j])

    def postfix(self, v: Val | None, name: str | None, j: int, end: int,
                callee: str | None) -> tuple[Val | None, str | None, int]:
        while j < end:
            t = self.texts[j]
            if t == "(" or (t == "{" and callee is not None):
                close = self.close(j, end)
                v, name, callee, j = self.call(callee, self.arguments(j + 1, close)), None, None, close + 1
            elif t == "[":
                self.expression(j + 1, self.close(j, end))
                v, name, callee, j = None, None, None, self.close(j, end) + 1
            elif t in (".", "->"):
                k = j + 2 if self.texts[j + 1] == "template" else j + 1
                v, name, callee, j = None, None, self.texts[k], k + 1
                if self.texts[j] == "<" and (gt := self.angle(j, end)) is not None and self.texts[gt] == "(":
                    j = gt
            elif t in ("+", "-") and self.texts[j + 1] == t and self.t[j + 2].kind != "id":
                name, j = None, j + 2  # x++ (its value before: the same range)
            else:
                break
        return v, name, j

    def call(self, callee: str | None, args: list[Val | None]) -> Val | None:
        """A call's value: the range of the sources it is given (an index helper returns an index);
        `min` and `max` their own; a bit pattern of no source is not followed."""
        values = [a for a in args if a is not None and a is not _ADDRESS]
        if callee in _SMALL_RESULTS:
            return Val(0, 64, False)
        if callee in ("min", "max") and len(values) == len(args) == 2:
            a, b = values
            pick = min if callee == "min" else max
            bits = max(a.bits, b.bits)
            return Val(pick(a.lo, b.lo), pick(a.hi, b.hi), a.tracked or b.tracked, bits, a.unsigned or b.unsigned)
        tracked = [a for a in values if a.tracked]
        return reduce(iv.hull, tracked) if tracked else None  # type: ignore[arg-type]

    def c_cast(self, i: int, close: int, end: int) -> list[str] | None:
        """The type words of a C-style cast `(T)x` at i, or None (a parenthesized expression)."""
        inner = self.texts[i + 1:close]
        if not inner or self.t[i + 1].kind != "id":
            return None
        if all(w in iv.INTEGER_WORDS | _QUALIFIERS | {"*", "&"} for w in inner):
            return inner
        if self.lookup(inner[0]) is not None or inner[0] in _KEYWORDS | _BUILTIN_NAMES:
            return None
        if self.type_name(i + 1, close) < close and not set(self.texts[self.type_name(i + 1, close):close]) <= {
                "*", "&", "const"}:
            return None
        after = self.t[close + 1] if close + 1 < end else None
        starts = after is not None and (after.kind in ("id", "num", "chr") or after.text in ("(", "~", "!"))
        return inner if starts else None

    def cast(self, words: list[str], v: Val | None, i: int, j: int) -> Val | None:
        typed = iv.integer_type([w for w in words if w not in _QUALIFIERS])
        if "*" in words:
            return _ADDRESS
        if typed is None or v is None or v is _ADDRESS:
            return None
        bits, unsigned = typed
        return self.narrowed(v, bits, unsigned, i, lambda: f"a cast to a {bits}-bit integer of a {v.bits}-bit value: "
                                                           f"`{self.show(i, j)}`")

    def lambda_(self, i: int, end: int) -> int:
        """Walks a lambda (its parameters are sources as any function's); past it."""
        j = self.close(i, end) + 1
        params: dict[str, _Var] = {}
        if self.texts[j] == "(":
            params = self.params(j + 1, self.close(j, end))
            j = self.close(j, end) + 1
        while j < end and self.texts[j] != "{":
            j = self.close(j, end) + 1 if self.texts[j] in ("(", "[") else j + 1
        return self.block(j, params) if j < end else j


def scan(text: str, sources: dict[str, frozenset[int]] | None = None) -> list[Finding]:
    """Every 32-bit index finding in a kernel's rendered text (lines of `text`), in order, one a
    line. `sources`: for a device function by name, the positions of its parameters that hold sizes
    (every other function's 64-bit integer parameters are taken for sizes)."""
    physical = text.splitlines()
    walker = _Walker(stream(text).tokens, sources)
    walker.namespace(0, len(walker.t) - 4)
    findings, seen = [], set()
    for f in sorted(walker.found, key=lambda f: f.line):
        if f.line not in seen and not (0 < f.line <= len(physical) and EXEMPT in physical[f.line - 1]):
            seen.add(f.line)
            findings.append(f)
    return findings


def _is_cast_close(tokens: list[Token], k: int) -> bool:
    """Whether tokens[k] is the `)` of a C-style cast to an integer type, `(int)`."""
    j = k - 1
    while j >= 0 and tokens[j].kind == "id" and tokens[j].text in iv.INTEGER_WORDS | _QUALIFIERS:
        j -= 1
    return j < k - 1 and j >= 0 and tokens[j].text == "("


def _show(tokens: list[Token]) -> str:
    """Tokens as source text, spaced as people write it."""
    out = ""
    for k, t in enumerate(tokens):
        before = tokens[k - 1] if k else None
        out += ("" if before is None or _tight(tokens, k, before, t) else " ") + t.text
    return out


def _tight(tokens: list[Token], k: int, before: Token, t: Token) -> bool:
    """Whether tokens[k] is written against the token before it."""
    if before.text in ("(", "[", ".", "->", "::", "!", "~") or t.text in (")", "]", ",", ";", ".", "->", "::"):
        return True
    if t.text in ("(", "[") and (before.kind == "id" or before.text in (">", ")", "]")):
        return True
    if t.text in ("=", "<=", ">=") and before.text in ("+", "-", "*", "/", "%", "&", "|", "^", "<", ">"):
        return True
    if t.text == before.text and t.text in ("<", ">", "+", "-"):
        return True  # <<, >>, ++, --
    opens_cast = t.text == "<" and before.text.endswith("_cast")
    in_cast = before.text == "<" and k >= 2 and tokens[k - 2].text.endswith("_cast")
    closes_cast = t.text == ">" and k >= 3 and tokens[k - 3].text.endswith("_cast")
    if opens_cast or in_cast or closes_cast:
        return True
    return before.text == ")" and _is_cast_close(tokens, k - 1)


def check(op: OpSpec, text: str, sizes: dict[str, frozenset[int]] | None = None) -> None:
    """Raises SpecError at the kernel template's file:line for the first finding in `text` (a
    rendered module, whose `#line` directives name the template lines). `sizes`: as scan's `sources`
    (kernel_check.size_params gives them from the ABI)."""
    findings = scan(text, sizes)
    if not findings:
        return
    lines = LineMap("", text)
    first = findings[0]
    where = lines(first.line)
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    raise SpecError(where.file, where.line,
                    f"{first.message}{more}: a size can exceed 2**31 - 1, so index and count with long long "
                    f"(or say why the value fits on its line: `// {EXEMPT} <why>`)", op.name)
