"""32-bit index arithmetic over sizes that can exceed 2**31 − 1: `opgen generate` refuses a kernel
whose device code indexes or counts with a 32-bit integer where a 64-bit value flows into it.

The launch arguments of sizes (dims, list lengths, unbounded int attrs) are `long long`, and a
tensor of 2**31 elements is 8 GiB of float32: within reach of any data-center GPU. A kernel that
copies such a value into an `int`, compares an `int` loop counter against it, casts it to `int`, or
computes a grid index as `blockIdx.x * blockDim.x` (an unsigned 32-bit product that wraps at 2**32
threads) works on every test and fails on the large input. kernel_check refuses a size passed to a
32-bit parameter; this module reads the bodies.

What it reads: the rendered kernel's tokens (codegen.runtime.cxx.tokenize: comments and directives gone,
`#if 0` left out), with the declared width of every integer variable by brace scope (function and
lambda parameters belong to the body that follows). A variable is 64-bit when declared `long`,
`long long`, `int64_t`, `uint64_t`, `size_t` or `ptrdiff_t` (or `auto` from a 64-bit expression);
an expression is 64-bit when it names one, or holds a `LL` literal or a 64-bit cast. Refused:

* a 32-bit declaration initialised from a 64-bit expression (`int i = n - 1`);
* a 32-bit variable assigned one (`i = n`, `i += stride`);
* a cast to a 32-bit type of a 64-bit expression (`static_cast<int>(n)`, `(int)n`);
* a `for` whose 32-bit counter is compared against a 64-bit expression (`for (int i = 0; i < n; ++i)`);
* a product of two of `blockIdx`, `blockDim` and `gridDim` with neither side widened first.

A value that is bounded by construction (a lane count, `n % 32`) says why on its line, with the
comment `// int32 ok: <why>`, and is not judged. Member accesses and calls are not typed: `a.n`
and `f(n)` count only through the names in their arguments. Like kernel_check, it reads what it
can and never refuses a kernel for a construct it does not understand.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen.linemarks import LineMap
from codegen.model import OpSpec
from codegen.runtime.cxx import Token, tokenize
from codegen.yamlnodes import SpecError

#: The marker that exempts a line, with the reason after it.
EXEMPT = "int32 ok:"

_WIDE_WORDS = {"int64_t", "uint64_t", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t"}
_NARROW_WORDS = {"int", "unsigned", "short", "char", "int32_t", "uint32_t", "int16_t", "uint16_t", "int8_t",
                 "uint8_t", "signed"}
_QUALIFIERS = {"const", "volatile", "static", "constexpr", "register", "__restrict__", "inline"}
_TYPE_WORDS = _WIDE_WORDS | _NARROW_WORDS | {"long", "auto"}
_BUILTIN_INDICES = {"blockIdx", "blockDim", "gridDim"}


@dataclass(frozen=True)
class Finding:
    line: int  # physical line of the rendered text
    message: str


def _width(words: list[str]) -> str | None:
    """'wide', 'narrow', 'auto', or None (not an integer type) for a declaration's type words."""
    if any(w in _WIDE_WORDS for w in words) or words.count("long") >= 1:
        return "wide"
    if "auto" in words:
        return "auto"
    if any(w in _NARROW_WORDS for w in words):
        return "narrow"
    return None


class _Scopes:
    """Declared integer widths by brace scope; parameters wait for the body that follows them."""

    def __init__(self) -> None:
        self.stack: list[dict[str, bool]] = [{}]
        self.pending: dict[str, bool] = {}

    def declare(self, name: str, wide: bool, parameter: bool) -> None:
        (self.pending if parameter else self.stack[-1])[name] = wide

    def open(self) -> None:
        self.stack.append(self.pending)
        self.pending = {}

    def close(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()

    def wide(self, name: str) -> bool | None:
        for scope in reversed(self.stack):
            if name in scope:
                return scope[name]
        return None


def _end_of_expression(tokens: list[Token], i: int, stops: frozenset[str] = frozenset({",", ";"})) -> int:
    """The index of the token that ends the expression starting at i (a stop at depth 0, or a closing
    bracket that the expression did not open)."""
    depth = 0
    while i < len(tokens):
        t = tokens[i].text
        if t in "([{":
            depth += 1
        elif t in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and t in stops:
            return i
        i += 1
    return i


_COMPARISONS = {"<", ">", "<=", ">=", "==", "!=", "&&", "||"}


def _is_wide(tokens: list[Token], scopes: _Scopes) -> bool:
    """Whether an expression computes a 64-bit value: it names a 64-bit variable, or holds a `LL`
    literal or a 64-bit cast. A comparison's value is a bool (`k += row < end`), so a conditional
    is judged by its branches; a cast to a 32-bit type is left to the cast rule."""
    top = [k for k, t in enumerate(tokens) if t.text in _COMPARISONS | {"?"} and _depth(tokens, k) == 0]
    question = next((k for k in top if tokens[k].text == "?"), None)
    if question is not None:
        tokens = tokens[question + 1:]
    elif top:
        return False
    k = 0
    while k < len(tokens):
        t = tokens[k]
        cast = _narrow_cast(tokens, k)
        if cast is not None:
            k = cast[2]
            continue
        before = tokens[k - 1].text if k else ""
        if t.kind == "id" and before not in (".", "->", "::") and scopes.wide(t.text):
            return True
        if t.kind == "num" and t.text.lower().rstrip("u").endswith("ll"):
            return True
        if t.text == "long" and k + 1 < len(tokens) and tokens[k + 1].text == "long":
            return True  # static_cast<long long>(...), (long long)...
        if t.text in _WIDE_WORDS:
            return True
        k += 1
    return False


def _depth(tokens: list[Token], k: int) -> int:
    """The bracket depth of tokens[k] within the expression."""
    depth = 0
    for t in tokens[:k]:
        depth += t.text in ("(", "[", "{")
        depth -= t.text in (")", "]", "}")
    return depth


def _narrow_cast(tokens: list[Token], i: int) -> tuple[int, int, int] | None:
    """(start, end) of the operand of a cast to a 32-bit integer type at i and the end of the whole
    cast (all exclusive), or None."""
    if tokens[i].text == "static_cast" and i + 1 < len(tokens) and tokens[i + 1].text == "<":
        close = next((k for k in range(i + 2, len(tokens)) if tokens[k].text == ">"), None)
        if close is None or close + 1 >= len(tokens) or tokens[close + 1].text != "(":
            return None
        words = [t.text for t in tokens[i + 2:close] if t.text not in _QUALIFIERS]
        if words and _width(words) == "narrow" and "*" not in words:
            end = _end_of_expression(tokens, close + 2)
            return close + 2, end, end + 1
        return None
    if tokens[i].text == "(":
        k = i + 1
        while k < len(tokens) and tokens[k].kind == "id" and tokens[k].text in _TYPE_WORDS | _QUALIFIERS:
            k += 1
        words = [t.text for t in tokens[i + 1:k] if t.text not in _QUALIFIERS]
        if k == i + 1 or k >= len(tokens) or tokens[k].text != ")" or _width(words) != "narrow":
            return None
        before = tokens[i - 1] if i else None
        if before is not None and (before.kind == "id" or before.text in (")", "]")):
            return None  # a call's or a declarator's parentheses, not a cast
        operand = k + 1
        if operand < len(tokens) and tokens[operand].text == "(":
            end = _end_of_expression(tokens, operand + 1) + 1
            return operand, end, end
        end = operand
        while end < len(tokens) and (tokens[end].kind in ("id", "num") or tokens[end].text in (".", "->", "::")):
            end += 1
        return operand, end, end
    return None


def _unwidened_product(tokens: list[Token], i: int) -> bool:
    """`blockIdx.x * blockDim.x` (any two of blockIdx, blockDim, gridDim): a 32-bit product."""
    if i + 6 >= len(tokens) or tokens[i].text not in _BUILTIN_INDICES:
        return False
    if i and tokens[i - 1].text in ("(", "<") and i >= 2 and tokens[i - 2].text in ("static_cast", "long"):
        return False
    texts = [t.text for t in tokens[i:i + 7]]
    return (texts[1] == "." and texts[3] == "*" and texts[4] in _BUILTIN_INDICES and texts[5] == "."
            and texts[3 - 1] in ("x", "y", "z"))


def scan(text: str) -> list[Finding]:
    """Every 32-bit index finding in a kernel's rendered text (lines of `text`), in order."""
    physical = text.splitlines()
    tokens = tokenize(text, LineMap(""))
    scopes = _Scopes()
    findings: list[Finding] = []
    paren_depth = 0
    declarators: set[int] = set()  # token indices of declared names (their `=` is not an assignment)
    params_at: list[bool] = []  # per open paren: whether declarations inside it are parameters
    i = 0

    def exempt(line: int) -> bool:
        return 0 < line <= len(physical) and EXEMPT in physical[line - 1]

    def find(line: int, message: str) -> None:
        if not exempt(line):
            findings.append(Finding(line, message))

    while i < len(tokens):
        tok = tokens[i]
        t = tok.text
        if t == "{":
            scopes.open()
        elif t == "}":
            scopes.close()
        elif t == "(":
            before = tokens[i - 1].text if i else ""
            params_at.append(before not in ("for", "if", "while", "switch", "return", "sizeof"))
            paren_depth += 1
        elif t == ")":
            paren_depth = max(0, paren_depth - 1)
            if params_at:
                params_at.pop()
        elif t == ";":
            scopes.pending = {}
        if t == "for" and i + 1 < len(tokens) and tokens[i + 1].text == "(":
            _check_for(tokens, i + 1, scopes, find)
        cast = _narrow_cast(tokens, i)
        if cast is not None and _is_wide(tokens[cast[0]:cast[1]], scopes):
            find(tok.line, f"a cast to a 32-bit integer of a 64-bit value: `{_show(tokens[i:cast[2]])}`")
        if _unwidened_product(tokens, i):
            find(tok.line, f"`{_show(tokens[i:i + 7])}` is an unsigned 32-bit product (it wraps past 2**32 "
                           f"threads): widen one side first, `static_cast<long long>({tokens[i].text}.x) * ...`")
        declarators |= _declaration(tokens, i, scopes, bool(params_at and params_at[-1]), find)
        rhs = _assigned_from(tokens, i)
        if rhs is not None and i not in declarators and scopes.wide(t) is False:
            end = _end_of_expression(tokens, rhs)
            if _is_wide(tokens[rhs:end], scopes):
                find(tok.line, f"the 32-bit variable {t} is assigned a 64-bit value: `{_show(tokens[i:end])}`")
        i += 1
    return findings


def _assigned_from(tokens: list[Token], i: int) -> int | None:
    """Where the right-hand side starts when tokens[i] is a plain name assigned (`=`, `+=`, `-=`,
    `*=`), else None."""
    if tokens[i].kind != "id" or (i and tokens[i - 1].text in (".", "->", "::")):
        return None
    nxt = [t.text for t in tokens[i + 1:i + 3]]
    if nxt[:1] == ["="]:
        return i + 2
    if len(nxt) == 2 and nxt[0] in ("+", "-", "*") and nxt[1] == "=":
        return i + 3
    return None


def _declaration(tokens: list[Token], i: int, scopes: _Scopes, parameter: bool, find) -> set[int]:
    """Reads an integer declaration starting at i (its declarators), recording widths and judging
    initializers; returns the token indices of the names it declared (the scan goes on through the
    initializers, which may hold lambdas and casts of their own)."""
    names: set[int] = set()
    if i and tokens[i - 1].kind == "id" and tokens[i - 1].text not in _QUALIFIERS:
        return names  # inside a longer type or expression
    k, words = i, []
    while k < len(tokens) and tokens[k].kind == "id" and tokens[k].text in _TYPE_WORDS | _QUALIFIERS:
        words.append(tokens[k].text)
        k += 1
    kind = _width([w for w in words if w not in _QUALIFIERS])
    if kind is None:
        return names
    while True:
        while k < len(tokens) and tokens[k].text in ("&", "&&", "__restrict__", "const"):
            k += 1
        if k >= len(tokens) or tokens[k].text == "*" or tokens[k].kind != "id":
            return names  # a pointer (not an index) or a cast
        name, line = tokens[k].text, tokens[k].line
        names.add(k)
        k += 1
        init_start = None
        if k < len(tokens) and tokens[k].text in ("=", "{", "("):
            init_start = k + 1
            k = _end_of_expression(tokens, init_start, frozenset({",", ";"}) if tokens[k].text == "=" else frozenset())
            if tokens[init_start - 1].text in ("{", "(") and k < len(tokens):
                k += 1
        initializer = tokens[init_start:k] if init_start is not None else []
        wide = kind == "wide" or (kind == "auto" and _is_wide(initializer, scopes))
        scopes.declare(name, wide, parameter)
        if kind == "narrow" and initializer and _is_wide(initializer, scopes):
            find(line, f"the 32-bit {' '.join(w for w in words if w not in _QUALIFIERS)} {name} is initialised "
                       f"from a 64-bit value: `{_show(initializer)}`")
        if k < len(tokens) and tokens[k].text == "," and not parameter:
            k += 1
            continue
        return names


def _check_for(tokens: list[Token], open_: int, scopes: _Scopes, find) -> None:
    """A `for (init; condition; step)` whose 32-bit counter is compared against a 64-bit bound."""
    first = _end_of_expression(tokens, open_ + 1, frozenset({";"}))
    second = _end_of_expression(tokens, first + 1, frozenset({";"}))
    words = []
    k = open_ + 1
    while k < first and tokens[k].kind == "id" and tokens[k].text in _TYPE_WORDS | _QUALIFIERS:
        words.append(tokens[k].text)
        k += 1
    if _width([w for w in words if w not in _QUALIFIERS]) != "narrow" or k >= first:
        return
    counter = tokens[k].text
    condition = tokens[first + 1:second]
    cuts = [-1] + [k for k, t in enumerate(condition) if t.text in _COMPARISONS and _depth(condition, k) == 0]
    sides = [condition[a + 1:b] for a, b in zip(cuts, [*cuts[1:], len(condition)], strict=True)]
    if any(t.text == counter for t in condition) and any(_is_wide(side, scopes) for side in sides):
        find(tokens[open_].line, f"the 32-bit loop counter {counter} is compared against a 64-bit bound: "
                                 f"`{_show(condition)}`")


def _is_cast_close(tokens: list[Token], k: int) -> bool:
    """Whether tokens[k] is the `)` of a C-style cast to an integer type, `(int)`."""
    j = k - 1
    while j >= 0 and tokens[j].kind == "id" and tokens[j].text in _TYPE_WORDS | _QUALIFIERS:
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
    if t.text == "=" and before.text in ("+", "-", "*"):
        return True
    opens_cast = t.text == "<" and before.text == "static_cast"
    in_cast = before.text == "<" and k >= 2 and tokens[k - 2].text == "static_cast"
    closes_cast = t.text == ">" and k >= 3 and tokens[k - 3].text == "static_cast"
    if opens_cast or in_cast or closes_cast:
        return True
    return before.text == ")" and _is_cast_close(tokens, k - 1)


def check(op: OpSpec, text: str) -> None:
    """Raises SpecError at the kernel template's file:line for the first finding in `text` (the op's
    rendered .cu, whose `#line` directives name the template lines)."""
    findings = scan(text)
    if not findings:
        return
    lines = LineMap("", text)
    first = findings[0]
    where = lines(first.line)
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    raise SpecError(where.file, where.line,
                    f"{first.message}{more}: a size can exceed 2**31 - 1, so index and count with long long "
                    f"(or say why the value fits on its line: `// {EXEMPT} <why>`)", op.name)
