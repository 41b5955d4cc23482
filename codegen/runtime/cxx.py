"""A C++ tokenizer with a small preprocessor, shared by the compiler's kernel checks
(codegen.kernel_check, codegen.index_width) and the host backend's kernel scan (host.scan_kernels),
which read a rendered kernel through `stream`: one tokenization for all of them. It imports nothing
from the compiler: the runtime must not import the compiler.

What the preprocessor does: comments and directives leave the token stream; object-like macros
(`#define LB 128`) are expanded; `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` choose branches by
evaluating integer expressions (`defined X`, `defined(X)`, C operators) over the macros the text
defines (and `#undef`s). What it does not do: `#include` (the included text is not read),
function-like macros (recorded, not expanded), and the macros a compiler predefines. A condition
that uses a name the text does not define is *unknown*, and every branch of an unknown conditional
is read: the scanner never drops code the compiler might compile, at the cost of sometimes reading
a branch it would not.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from codegen.runtime.stats import counters

# Blanks before a token are skipped within its match (half the matches otherwise), and a newline
# takes the blank lines and indentation after it; `ws` is what is left: a line continuation, or
# blanks at the end of the text.
TOKEN = re.compile(
    r"""[ \t\r\f\v]*(?:(?P<nl>\n[ \t\r\f\v\n]*)
    |(?P<ws>[ \t\r\f\v]+|\\\n)
    |(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    |(?P<pp>\#(?:[^\n\\]|\\.|\\\n)*)
    |(?P<str>(?:u8|[uUL])?R"(?P<delim>[^(\s]{0,16})\(.*?\)(?P=delim)"|(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?)
    |(?P<chr>(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
    |(?P<num>\.?\d(?:[\w.']|[eEpP][+-])*)
    |(?P<id>[A-Za-z_]\w*)
    |(?P<punct>::|->|\.\.\.|&&|\|\||[<>=!]=|.))""",
    re.VERBOSE | re.DOTALL,
)


class Token(NamedTuple):  # a tuple: half the cost of a frozen dataclass, and there are many
    kind: str  # id, num, str, chr, punct
    text: str
    line: int  # physical line in the scanned text, 1-based


class LineSink(Protocol):
    """Where tokenize reports each directive (codegen.linemarks.LineMap reads the `#line`s)."""

    def add(self, physical: int, text: str) -> None: ...


@dataclass
class Preprocessed:
    """What tokenize saw of the preprocessor: object-like macros (expanded in the tokens), every
    word a macro's replacement uses (a function a macro defines is not judged), and the names
    `#undef`ined (known to be undefined, unlike a name never mentioned)."""

    macros: dict[str, str] = field(default_factory=dict)
    macro_words: set[str] = field(default_factory=set)
    function_macros: set[str] = field(default_factory=set)
    undefined: set[str] = field(default_factory=set)


_DIRECTIVE = re.compile(r"#\s*(\w*)\s*(.*)", re.DOTALL)
_DEFINE = re.compile(r"(\w+)(\()?(.*)", re.DOTALL)
_EXPANSION_DEPTH = 8
_ONE_LINE = frozenset({"id", "num", "chr", "punct"})  # token kinds that never span lines
_UNKNOWN = "<unknown>"  # stands for `defined X` of a name the text neither defines nor #undefs


@dataclass
class _Conditional:
    """One open #if: whether its current branch is read (True, False, None: unknown, read), and
    whether an earlier branch was taken (None: maybe)."""

    branch: bool | None
    taken: bool | None


#: Characters tokenize read (a macro's body and a declaration's type count too): a test holds a
#: check of kernels to reading each kernel once (stream shares one tokenization among the analyses).
stats = counters("cxx", ("tokenized_chars",))


def tokenize(text: str, lines: LineSink | None = None, pp: Preprocessed | None = None) -> list[Token]:
    """C++ tokens of `text` without comments and preprocessor directives (each reported to
    `lines`); object-like macros expanded, the branches of conditionals known to be false left
    out. Only what declarations need is told apart: `>>` is two tokens, so template argument lists
    close alike nested or not."""
    stats["tokenized_chars"] += len(text)
    pp = pp if pp is not None else Preprocessed()
    out: list[Token] = []
    line = 1
    stack: list[_Conditional] = []
    reading = True
    new = tuple.__new__  # Token(...) without NamedTuple's Python-level __new__: the bulk of the calls
    for m in TOKEN.finditer(text):
        kind: str = m.lastgroup  # type: ignore[assignment]  # every alternative is a named group
        if kind in _ONE_LINE:  # the bulk: no newline inside, nothing else to do
            if reading:
                out.append(new(Token, (kind, m.group(kind), line)))
            continue
        value = m.group(kind)
        if kind == "pp":
            if lines is not None:
                lines.add(line, value)
            _directive(value.replace("\\\n", " "), pp, stack)
            reading = _reading(stack)
        elif kind == "str" and reading:
            out.append(Token(kind, value, line))
        line += value.count("\n")
    return expand(out, pp.macros) if pp.macros else out


@dataclass(frozen=True)
class Stream:
    """One tokenization of a source, shared by every analysis that reads it: the tokens, what the
    preprocessor saw, and each directive (physical line, text) for a LineMap. Read-only."""

    tokens: list[Token]
    preprocessed: Preprocessed
    directives: tuple[tuple[int, str], ...]

    @functools.cached_property
    def closes(self) -> dict[int, int]:
        """For each `(`, `[` and `{`, the index just past its closing bracket, as `match` finds it."""
        return closes(self.tokens)

    def report(self, lines: LineSink) -> None:
        """Each directive to `lines`, as tokenize would have."""
        for physical, text in self.directives:
            lines.add(physical, text)


class _Directives(list[tuple[int, str]]):
    def add(self, physical: int, text: str) -> None:
        self.append((physical, text))


@functools.lru_cache(maxsize=8)  # a kernel is read by its analyses one after the other
def stream(text: str) -> Stream:
    """`text` tokenized with no macros defined beforehand, once for all its readers (cached)."""
    directives = _Directives()
    pp = Preprocessed()
    return Stream(tokenize(text, directives, pp), pp, tuple(directives))


def extern_shared(tokens: list[Token]) -> list[str]:
    """Names declared `extern __shared__ T name[];` (dynamic shared memory), in order: the host
    backend aliases them to its buffer, and a generated module's manifest lists them."""
    names: list[str] = []
    start = 0  # the first token of the current statement
    for i, t in enumerate(tokens):
        if t.text == "__shared__":
            end = next((j for j in range(i, len(tokens)) if tokens[j].text in (";", "{", "}")), len(tokens))
            stmt = [x.text for x in tokens[start:end + 1]]
            if (stmt[-1:] == [";"] and len(stmt) >= 5 and stmt[stmt[0] == "static"] == "extern"
                    and stmt[-3:-1] == ["[", "]"] and tokens[end - 3].kind == "id" and stmt[-4] not in names):
                names.append(stmt[-4])
        elif t.text in (";", "{", "}"):
            start = i + 1
    return names


def _reading(stack: list[_Conditional]) -> bool:
    return all(c.branch is not False for c in stack)


def _directive(text: str, pp: Preprocessed, stack: list[_Conditional]) -> None:
    m = _DIRECTIVE.match(text)
    if m is None:
        return
    word, rest = m.group(1), _strip_comments(m.group(2)).strip()
    if word in ("if", "ifdef", "ifndef"):
        if not _reading(stack):
            stack.append(_Conditional(False, True))  # nested in a dead branch: all of it is dead
            return
        known = _condition(word, rest, pp)
        stack.append(_Conditional(known, known))
    elif word in ("elif", "else") and stack:
        c = stack[-1]
        now = True if word == "else" else _condition("if", rest, pp)
        c.branch = False if c.taken else (now if c.taken is False else (None if now is not False else False))
        c.taken = True if c.taken or now else (False if c.taken is False and now is False else None)
    elif word == "endif" and stack:
        stack.pop()
    elif not _reading(stack):
        return
    elif word == "define":
        d = _DEFINE.match(rest)
        if d is None:
            return
        name, params, body = d.groups()
        pp.macro_words |= {t.text for t in tokenize(body) if t.kind == "id"}
        pp.undefined.discard(name)
        if params is None:
            pp.macros[name] = body.strip()
        else:
            pp.function_macros.add(name)
    elif word == "undef" and rest:
        name = rest.split()[0]
        pp.macros.pop(name, None)
        pp.function_macros.discard(name)
        pp.undefined.add(name)


def _strip_comments(text: str) -> str:
    return "".join(m.group() if m.lastgroup != "comment" else " " for m in TOKEN.finditer(text))


def _condition(word: str, rest: str, pp: Preprocessed) -> bool | None:
    if word in ("ifdef", "ifndef"):
        name = rest.split()[0] if rest else ""
        defined = _defined(name, pp)
        return defined if word == "ifdef" or defined is None else not defined
    value = evaluate([t.text for t in tokenize(rest)], pp, conditional=True)
    return None if value is None else value != 0


def _defined(name: str, pp: Preprocessed) -> bool | None:
    if name in pp.macros or name in pp.function_macros:
        return True
    return False if name in pp.undefined else None


def expand(tokens: list[Token], macros: dict[str, str], depth: int = _EXPANSION_DEPTH) -> list[Token]:
    """Object-like macros replaced by their tokens (a macro is not expanded inside itself)."""
    out: list[Token] = []
    for t in tokens:
        if t.kind == "id" and t.text in macros and depth > 0:
            inner = [Token(x.kind, x.text, t.line) for x in tokenize(macros[t.text])]
            out += expand(inner, {k: v for k, v in macros.items() if k != t.text}, depth - 1)
        else:
            out.append(t)
    return out


# -- brackets and parameter lists -----------------------------------------------------------------
def closes(tokens: list[Token]) -> dict[int, int]:
    """`match` of every `(`, `[` and `{` at once (each kind counted alone, as match counts it): one
    pass instead of one walk per bracket, which for nested bodies walks the same tokens again."""
    out: dict[int, int] = {}
    open_at: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    opener = {")": "(", "]": "[", "}": "{"}
    for k, t in enumerate(tokens):
        text = t.text
        if text in open_at:
            open_at[text].append(k)
        elif text in opener and open_at[opener[text]]:
            out[open_at[opener[text]].pop()] = k + 1
    for unclosed in open_at.values():
        out.update(dict.fromkeys(unclosed, len(tokens)))
    return out


def match(tokens: list[Token], i: int, open_: str = "(", close: str = ")") -> int:
    """Index just past the bracket that closes tokens[i] (an opening `open_`)."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j].text
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return j + 1
        elif open_ == "<" and t in (";", "{", "}"):  # a `<` that was a comparison after all
            return j
    return len(tokens)


def match_angle(tokens: list[Token], i: int) -> int:
    """Past the `>` closing the template argument list opening at tokens[i] (`<`); parentheses and
    brackets inside are skipped whole, so `(a > b)` does not close it."""
    depth, j = 0, i
    while j < len(tokens):
        t = tokens[j].text
        if t in ("(", "["):
            j = match(tokens, j, t, ")" if t == "(" else "]")
            continue
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return j + 1
        elif t in (";", "{", "}"):
            return j
        j += 1
    return j


def split_params(tokens: list[Token]) -> list[list[Token]]:
    """A parameter list split at its commas. A `<` opens template arguments only before a default
    value: in `int k = N < 3 ? 1 : 2` it compares."""
    parts: list[list[Token]] = [[]]
    j, in_default = 0, False
    while j < len(tokens):
        t = tokens[j].text
        if t in ("(", "[", "{") or (t == "<" and not in_default):
            end = match_angle(tokens, j) if t == "<" else match(tokens, j, t, {"(": ")", "[": "]", "{": "}"}[t])
            parts[-1].extend(tokens[j:end])
            j = end
            continue
        if t == ",":
            parts.append([])
            in_default = False
        else:
            in_default = in_default or t == "="
            parts[-1].append(tokens[j])
        j += 1
    return parts if parts != [[]] else []


# -- integer constant expressions ------------------------------------------------------------------
_INTEGER = re.compile(r"(0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*)([uUlLzZ]*)")
_BINARY: list[tuple[str, ...]] = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
                                  ("<<", ">>"), ("+", "-"), ("*", "/", "%")]


def evaluate(texts: list[str], pp: Preprocessed | None = None, *, conditional: bool = False) -> int | None:
    """The value of an integer constant expression given as token texts, or None when it uses a
    name `pp` does not define (or is not one the scanner can read). `conditional`: as in `#if`
    (`defined` is an operator; `true`/`false` are 1/0)."""
    pp = pp if pp is not None else Preprocessed()
    words = _resolve_defined(texts, pp) if conditional else list(texts)
    tokens = [t.text for t in expand([Token("id" if re.fullmatch(r"[A-Za-z_]\w*", w) else "punct", w, 0)
                                      for w in words], pp.macros)]
    parser = _Parser(_join_shifts(tokens), conditional)
    try:
        value = parser.ternary()
    except _Unreadable:
        return None
    return value if parser.at_end() else None


def _resolve_defined(texts: list[str], pp: Preprocessed) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(texts):
        if texts[i] == "defined":
            parens = i + 1 < len(texts) and texts[i + 1] == "("
            name = texts[i + 2] if parens and i + 2 < len(texts) else (texts[i + 1] if i + 1 < len(texts) else "")
            known = _defined(name, pp)
            out.append(_UNKNOWN if known is None else str(int(known)))
            i += 4 if parens else 2
        else:
            out.append(texts[i])
            i += 1
    return out


def _join_shifts(tokens: list[str]) -> list[str]:
    """`<` `<` → `<<` (the tokenizer splits `>>` for templates; `< <` is no expression anyway)."""
    out: list[str] = []
    for t in tokens:
        if out and t in ("<", ">") and out[-1] == t:
            out[-1] = t + t
        else:
            out.append(t)
    return out


class _Unreadable(Exception):
    """Not an expression the scanner evaluates."""


class _Parser:
    """Precedence climbing over C's integer operators; None stands for an unknown value."""

    def __init__(self, tokens: list[str], conditional: bool) -> None:
        self.tokens = tokens
        self.i = 0
        self.conditional = conditional

    def at_end(self) -> bool:
        return self.i == len(self.tokens)

    def _peek(self) -> str:
        return self.tokens[self.i] if self.i < len(self.tokens) else ""

    def _take(self, expected: str) -> None:
        if self._peek() != expected:
            raise _Unreadable(expected)
        self.i += 1

    def ternary(self) -> int | None:
        cond = self.binary(0)
        if self._peek() != "?":
            return cond
        self.i += 1
        a = self.ternary()
        self._take(":")
        b = self.ternary()
        if cond is None:
            return a if a == b else None
        return a if cond else b

    def binary(self, level: int) -> int | None:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self._peek() in _BINARY[level]:
            op = self._peek()
            self.i += 1
            left = _apply(op, left, self.binary(level + 1))
        return left

    def unary(self) -> int | None:
        t = self._peek()
        if t in ("!", "~", "-", "+"):
            self.i += 1
            v = self.unary()
            if v is None:
                return None
            return {"!": int(not v), "~": ~v, "-": -v, "+": v}[t]
        if t == "(":
            self.i += 1
            v = self.ternary()
            self._take(")")
            return v
        self.i += 1
        m = _INTEGER.fullmatch(t)
        if m is not None:
            digits = m.group(1).replace("'", "")
            base = 8 if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit() else 0
            return int(digits, base)
        if t == _UNKNOWN:
            return None
        if self.conditional and t in ("true", "false"):
            return int(t == "true")
        if re.fullmatch(r"[A-Za-z_]\w*", t):
            return None  # a name the text does not define
        raise _Unreadable(t)


def _apply(op: str, a: int | None, b: int | None) -> int | None:
    if op == "&&":
        return 0 if a == 0 or b == 0 else (None if a is None or b is None else 1)
    if op == "||":
        return 1 if (a not in (0, None)) or (b not in (0, None)) else (None if a is None or b is None else 0)
    if a is None or b is None:
        return None
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return q if op == "/" else a - q * b
    return {
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: int(a == b),
        "!=": lambda: int(a != b), "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b), "<<": lambda: a << b if b >= 0 else 0, ">>": lambda: a >> b if b >= 0 else 0,
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
    }[op]()
