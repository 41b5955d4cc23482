"""Launch steps against their kernels: `opgen generate` fails with the step's `file:line` when the
device function a launch step names is missing from its kernel source, or cannot take the step's
arguments (too few or too many, a pointer where the function takes a scalar or the reverse, an
input handed to a non-const pointer, another element type), instead of the first call failing
inside a compiler's cache file.

The arguments are those of the entry points the compiler generates for the step, taken from
the lowered ABI (`codegen/lower.py`: inputs `const T*`, outputs and scratch `T*`, dims and int
attrs `long long`, activations `opgen::act::Activation{...}`), so the check sees what the C++
compiler will see. The kernel side is read by a small C++ declaration scanner (`scan`): enough of the
language to find function declarations at namespace scope and take their parameter lists apart
(`template <typename T>`, `__device__ __forceinline__`, `const T* __restrict__`, references,
arrays, default arguments, namespaces and `using` declarations); function bodies, class bodies
and initializers are skipped unread. What the scanner cannot judge (a class type it does not know,
a parameter whose type is a deduced template parameter) it accepts: the check never refuses a
kernel the compilers accept, and leaves the rest to them.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from codegen.linemarks import LineMap
from codegen.lower import EntryPoint, lower
from codegen.model import DTYPES, LaunchStep, OpSpec
from codegen.runtime.cxx import Preprocessed, Token, stream, tokenize
from codegen.runtime.cxx import match as _match
from codegen.runtime.cxx import match_angle as _match_angle
from codegen.runtime.cxx import split_params as _split_params
from codegen.yamlnodes import SpecError

# -- declarations ----------------------------------------------------------------------------------
QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class", "typename",
              "enum", "union", "register"}
BUILTIN_WORDS = {"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
                 "auto", "wchar_t", "char16_t", "char32_t"}
#: Arithmetic types (and the CUDA 16-bit floats) as the compiler converts them into each other.
ARITHMETIC = {" ".join(sorted(t.split())) for t in (
    "bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int",
    "long", "unsigned long", "long long", "unsigned long long", "float", "double", "size_t", "ptrdiff_t",
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "__half", "half", "__nv_bfloat16", "nv_bfloat16")}
#: Spellings of one type (element types are compared only between these: a typedef such as
#: int64_t differs between compilers).
_ALIASES = {"half": "__half", "nv_bfloat16": "__nv_bfloat16", "unsigned": "unsigned int", "signed": "int",
            "signed int": "int", "long int": "long", "long long int": "long long",
            "unsigned long long int": "unsigned long long", "short int": "short"}
ELEMENT_TYPES = {" ".join(sorted(t.split())) for t in DTYPES.values()}
#: Integer types of 32 bits or fewer: a dim or an unbounded int attr (long long) would be narrowed.
NARROW_INTEGERS = {" ".join(sorted(t.split())) for t in (
    "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "int8_t", "uint8_t",
    "int16_t", "uint16_t", "int32_t", "uint32_t")}
INT32_MAX = 2**31 - 1
_ATTRIBUTES = {"__launch_bounds__", "__attribute__", "__align__", "alignas", "__declspec", "__noinline__",
               "__maxnreg__"}
_FUNCTION_SPECIFIERS = {"__device__", "__host__", "__global__", "__forceinline__", "__noinline__", "inline",
                        "static", "constexpr", "extern", "__inline__", "consteval"}


def normalize_type(words: list[str]) -> str:
    """`long long int` → `long long`; `unsigned` → `unsigned int`; `half` → `__half`; sorted, so the
    order of specifiers (`long unsigned`) does not matter."""
    text = " ".join(words)
    text = _ALIASES.get(text, text)
    return " ".join(sorted(text.split()))


@dataclass(frozen=True)
class CType:
    """A parameter's or argument's type, taken apart: `const T* const* __restrict__` is base `T`,
    consts (True, True, False): the base and each pointer level (outermost last)."""

    base: str  # normalized: `long long`, `T`, `opgen::act::Activation`, `Foo<T>`
    consts: tuple[bool, ...]
    reference: str = ""  # "", "&" or "&&"
    text: str = ""  # as written

    @property
    def depth(self) -> int:
        return len(self.consts) - 1

    @property
    def arithmetic(self) -> bool:
        return self.depth == 0 and self.base in ARITHMETIC


@dataclass(frozen=True)
class Param:
    type: CType
    name: str | None
    default: bool = False
    variadic: bool = False
    generic: bool = False  # its type is a template parameter the call does not give: any argument

    def show(self) -> str:
        return "..." if self.variadic else self.type.text


@dataclass(frozen=True)
class TemplateParam:
    name: str
    default: bool
    pack: bool
    type_param: bool  # `typename T` rather than `int N`


@dataclass
class Function:
    name: str
    scope: tuple[str, ...]  # enclosing namespaces ("" for anonymous and inline ones)
    template: tuple[TemplateParam, ...] | None  # None: not a template
    params: tuple[Param, ...]
    specifiers: frozenset[str]
    line: int
    body: list[Token] = field(default_factory=list)  # definitions only
    specialization: bool = False  # `template <> ... f<float>(...)`

    @property
    def device(self) -> bool:
        return "__device__" in self.specifiers


@dataclass
class Unit:
    """What the scanner found in one source text."""

    functions: list[Function] = field(default_factory=list)
    #: namespace scope → namespaces it `using namespace`s, and names it `using ns::name`s (full path)
    using_namespaces: dict[tuple[str, ...], list[tuple[str, ...]]] = field(default_factory=dict)
    using_names: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = field(default_factory=dict)
    aggregates: set[str] = field(default_factory=set)  # class names without a constructor
    preprocessed: Preprocessed = field(default_factory=lambda: Preprocessed())
    words: set[str] = field(default_factory=set)  # identifiers at namespace scope (not in bodies)

    def named_elsewhere(self, name: str) -> bool:
        """Whether `name` occurs in a macro or at namespace scope, as in `DEFINE_KERNEL(scale)`:
        a function the scanner cannot see may be declared there."""
        return name in self.preprocessed.macro_words or name in self.words


def split_top(tokens: list[Token], sep: str = ",", angles: bool = True) -> list[list[Token]]:
    """Split at `sep` outside brackets (and, with `angles`, outside template argument lists)."""
    parts: list[list[Token]] = [[]]
    j = 0
    while j < len(tokens):
        t = tokens[j].text
        if t in ("(", "[", "{") or (t == "<" and angles):
            end = _match_angle(tokens, j) if t == "<" else _match(tokens, j, t, {"(": ")", "[": "]", "{": "}"}[t])
            parts[-1].extend(tokens[j:end])
            j = end
            continue
        if t == sep:
            parts.append([])
        else:
            parts[-1].append(tokens[j])
        j += 1
    return parts if parts != [[]] else []


def parse_type(tokens: list[Token], named: bool = True) -> tuple[CType, str | None]:
    """A declaration's type and name: `const T* __restrict__ x` → (base T, consts (True, False)), x.
    `named`: the last identifier may be the declared name (parameters; not template arguments)."""
    units: list[str] = []  # type words before the first `*`/`&`: `unsigned`, `long`, `opgen::act::Act`
    consts = [False]
    reference, name, j = "", None, 0
    text = source_text(tokens)
    while j < len(tokens):
        t = tokens[j]
        if t.text in ("const", "volatile"):
            consts[-1] = consts[-1] or t.text == "const"
        elif t.text in QUALIFIERS:
            pass
        elif t.text == "*":
            consts.append(False)
        elif t.text in ("&", "&&"):
            reference = t.text
        elif t.text == "[":  # an array parameter is a pointer
            j = _match(tokens, j, "[", "]")
            consts.append(False)
            continue
        elif t.text == "(":  # a function pointer or array reference: `(*f)(int)`, `(&v)[4]`
            inner = tokens[j + 1:_match(tokens, j) - 1]
            inner_type, name = parse_type(inner)
            consts += [False] * inner_type.depth
            reference = reference or inner_type.reference
            j = _match(tokens, j)
            if j < len(tokens) and tokens[j].text == "(":
                units, consts = ["(function)"], [False, False]
                j = _match(tokens, j)
            continue
        elif t.kind == "id" or t.text == "::":
            if len(consts) > 1 or reference:
                name = t.text  # after a `*` or `&`: the declarator
            else:
                k = j  # a qualified name with template arguments is one unit
                while k + 1 < len(tokens) and (tokens[k + 1].text in ("::", "<") or tokens[k].text == "::"):
                    k = _match_angle(tokens, k + 1) - 1 if tokens[k + 1].text == "<" else k + 1
                units.append("".join(x.text for x in tokens[j:k + 1]))
                j = k
        j += 1
    if named and name is None and len(units) > 1 and units[-1] not in BUILTIN_WORDS and "::" not in units[-1]:
        name = units.pop()
    builtin = all(u in BUILTIN_WORDS | {"half", "nv_bfloat16"} for u in units)
    base = normalize_type(units) if builtin else " ".join(units)
    return CType(base or "int", tuple(consts), reference, text), name


def source_text(tokens: list[Token]) -> str:
    """Tokens as a person writes them: `const T* __restrict__ x`, `Foo<Bar<T>>`, `opgen::act::A&`."""
    out = ""
    for t in tokens:
        tight_before = t.text in ("*", "&", "&&", ",", ")", "]", ">", "::", "[", "<")
        if out and not tight_before and not out.endswith(("(", "[", "<", "::")):
            out += " "
        out += t.text
    return out


def parse_params(tokens: list[Token]) -> tuple[Param, ...]:
    parts = _split_params(tokens)
    if len(parts) == 1 and [t.text for t in parts[0]] == ["void"]:
        return ()
    params = []
    for part in parts:
        if part and part[-1].text == "...":  # C varargs or a pack: any further arguments
            params.append(Param(CType("...", (False,), text="..."), None, variadic=True))
            continue
        pieces = split_top(part, "=")  # `T x = expr`: a default argument
        ctype, name = parse_type(pieces[0] if pieces else part)
        params.append(Param(ctype, name, default=len(pieces) > 1))
    return tuple(params)


def parse_template_params(tokens: list[Token]) -> tuple[TemplateParam, ...]:
    out = []
    for part in split_top(tokens):
        texts = [t.text for t in part]
        default = "=" in texts
        head = texts[:texts.index("=")] if default else texts
        names = [t for t in head if re.fullmatch(r"[A-Za-z_]\w*", t) and t not in BUILTIN_WORDS | QUALIFIERS]
        type_param = bool(head) and head[0] in ("typename", "class")
        out.append(TemplateParam(names[-1] if names else "", default, "..." in head, type_param))
    return tuple(out)


def scan(text: str, lines: LineMap | None = None) -> Unit:
    """The functions declared at namespace scope in a C++/CUDA source, with the namespaces and
    `using` declarations that make them visible."""
    read = stream(text)
    if lines is not None:
        read.report(lines)
    unit = Unit(preprocessed=read.preprocessed)
    tokens = read.tokens
    _scan_scope(tokens, 0, len(tokens), (), unit, read.closes)
    return unit


def _scan_scope(tokens: list[Token], i: int, end: int, scope: tuple[str, ...], unit: Unit,
                closes: dict[int, int]) -> None:
    """Declarations in tokens[i:end] at namespace `scope`. `closes`: each bracket's match in `tokens`."""
    start = counted = i  # counted: namespace-scope words before it are in unit.words
    while i < end:
        t = tokens[i].text
        if t in (";", "{"):
            unit.words.update(x.text for x in tokens[counted:i] if x.kind == "id")
            counted = closes[i] if t == "{" else i
        if t == ";":
            _declaration(tokens[start:i], None, scope, unit)
            i += 1
            start = i
        elif t == "{":
            close = closes[i]
            head = tokens[start:i]
            words = [x.text for x in head]
            if words and words[0] == "inline":
                words = words[1:]
            if words[:1] == ["namespace"]:
                names = [w for w in words[1:] if w != "::"]
                _scan_scope(tokens, i + 1, close - 1, scope + (tuple(names) or ("",)), unit, closes)
                start = i = close
            elif words[:1] == ["extern"] and len(words) == 2 and head[1].kind == "str":  # extern "C" { }
                _scan_scope(tokens, i + 1, close - 1, scope, unit, closes)
                start = i = close
            elif _declaration(head, tokens[i + 1:close - 1], scope, unit):
                start = i = close
            else:  # a class body or an initializer: part of a declaration that ends at `;`
                _class(head, tokens[i + 1:close - 1], unit)
                i = close
        elif t == "<" and i > start and tokens[i - 1].text == "template":
            i = _match_angle(tokens, i)
        elif t in ("(", "["):
            i = closes[i]
        else:
            i += 1
    unit.words.update(x.text for x in tokens[counted:end] if x.kind == "id")


def _class(head: list[Token], body: list[Token], unit: Unit) -> None:
    words = [t.text for t in head]
    kind = next((w for w in words if w in ("struct", "class", "union")), None)
    if kind is None or "=" in words:
        return
    name = words[words.index(kind) + 1] if words.index(kind) + 1 < len(words) else ""
    texts = [t.text for t in body]
    constructor = any(texts[k] == name and texts[k + 1] == "(" for k in range(len(texts) - 1))
    if name and not constructor:
        unit.aggregates.add(name)


def _declaration(head: list[Token], body: list[Token] | None, scope: tuple[str, ...], unit: Unit) -> bool:
    """Records `head` (the tokens of a declaration up to its `;` or body) if it declares a function;
    True if it does. `using` declarations at this scope are recorded too."""
    words = [t.text for t in head]
    if not words:
        return False
    if words[0] == "using":
        path = tuple(w for w in words[1:] if w not in ("::", "namespace", "typename"))
        if words[1:2] == ["namespace"]:
            unit.using_namespaces.setdefault(scope, []).append(path)
        elif "=" not in words and path:
            unit.using_names.setdefault(scope, {})[path[-1]] = path
        return False
    template: tuple[TemplateParam, ...] | None = None
    j = 0
    while j + 1 < len(head) and head[j].text == "template" and head[j + 1].text == "<":
        close = _match_angle(head, j + 1)
        template = parse_template_params(head[j + 2:close - 1])
        j = close
    specialization = template == ()  # `template <> ...`: an explicit specialization
    k = j
    while k < len(head):  # the declarator: the first `name (` that is not an attribute
        if head[k].text in _ATTRIBUTES or head[k].text in ("decltype", "sizeof", "alignof", "noexcept"):
            k = _match(head, k + 1) if k + 1 < len(head) and head[k + 1].text == "(" else k + 1
            continue
        if head[k].text == "<":
            k = _match_angle(head, k)
            continue
        if head[k].text in ("=", "struct", "class", "union", "enum", "typedef", "operator", "static_assert"):
            return False
        if head[k].kind == "id" and k + 1 < len(head) and head[k + 1].text in ("(", "<"):
            after = _match_angle(head, k + 1) if head[k + 1].text == "<" else k + 1
            if after < len(head) and head[after].text == "(" and head[k].text not in BUILTIN_WORDS:
                close = _match(head, after)
                unit.functions.append(Function(
                    name=head[k].text, scope=scope, template=template,
                    params=parse_params(head[after + 1:close - 1]),
                    specifiers=frozenset(w for w in words[j:k] if w in _FUNCTION_SPECIFIERS),
                    line=head[k].line, body=body or [], specialization=specialization or after != k + 1))
                return True
            if after == k + 1:
                k = _match(head, k + 1)
                continue
            k = after
            continue
        k += 1
    return False


def visible(unit: Unit, name: str) -> list[Function]:
    """The functions an unqualified call `name(...)` at global scope can reach: those of the global
    namespace and of anonymous or inline ones inside it, and those `using` makes visible there."""
    def transparent(scope: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
        return len(scope) >= len(prefix) and scope[:len(prefix)] == prefix and all(
            s == "" for s in scope[len(prefix):])

    prefixes = [(), *unit.using_namespaces.get((), [])]
    found = [f for f in unit.functions if f.name == name and any(transparent(f.scope, p) for p in prefixes)]
    path = unit.using_names.get((), {}).get(name)
    if path is not None:
        found += [f for f in unit.functions if f.name == name and f.scope == path[:-1]]
    return [f for f in found if not f.specialization]


# -- arguments and the matching rules ------------------------------------------------------------------
@dataclass(frozen=True)
class Arg:
    """One argument of the call in an entry point: what the spec passes, and its C type."""

    text: str  # as the call writes it
    what: str  # `input x`, `output y`, `scratch partials`, `attr alpha`, `activation act`, `m`
    type: CType | None  # None: an expression the check does not judge
    temporary: bool = False  # `Type{...}`: a prvalue
    beyond_int32: bool = False  # a size or int attr the spec lets exceed 2**31 − 1


def _beyond_int32(op: OpSpec, what: str, type_: CType) -> bool:
    """Whether a 64-bit integer argument may hold a value over 2**31 − 1: every dim (a size), and an
    int attr unless the spec bounds it below that."""
    if type_.depth or type_.base not in ("long long", "long long unsigned"):
        return False
    kind, _, name = what.partition(" ")
    if kind == "attr":
        attr = next((a for a in op.attrs if a.name == name.split(" ")[0]), None)
        bounded = attr is not None and attr.maximum is not None and attr.maximum <= INT32_MAX
        bounded |= attr is not None and attr.allowed is not None and all(
            isinstance(v, int) and abs(v) <= INT32_MAX for v in attr.allowed)
        return not bounded
    return kind == "dim" or what.startswith("the length of")


def _args(op: OpSpec, entry: EntryPoint) -> list[Arg]:
    """The arguments an entry point hands its device function, typed from the lowered ABI."""
    out = []
    for call_arg in entry.args:
        if call_arg.aggregate is not None:  # `Type{...}`: a temporary
            out.append(Arg(call_arg.text, call_arg.params[0].what(),
                           CType(call_arg.aggregate, (False,), text=call_arg.aggregate), temporary=True))
            continue
        param = call_arg.params[0]
        type_ = _decl_type(param.decl)
        what = param.what()
        out.append(Arg(param.name, what, type_, beyond_int32=_beyond_int32(op, what, type_)))
    return out


@functools.lru_cache(maxsize=1024)
def _decl_type(decl: str) -> CType:
    """The type of an ABI parameter's declaration (a few dozen distinct ones, each read once)."""
    return parse_type(tokenize(decl))[0]


def _last(name: str) -> str:
    return re.sub(r"<.*", "", name).split("::")[-1]


def mismatch(arg: Arg, param: Param, unit: Unit) -> str | None:
    """Why `arg` cannot be passed as `param` (None: it can, or the check cannot tell)."""
    a, p = arg.type, param.type
    if a is None or param.variadic:
        return None
    if param.generic:
        return "it takes a pointer there" if a.depth < p.depth else None
    pointer_wanted = p.depth > 0
    if a.depth == 0 and not arg.temporary:
        if pointer_wanted:
            return "a pointer parameter given a scalar"
        if p.reference == "&" and not p.consts[0] and p.base in ARITHMETIC and p.base != a.base:
            return f"a non-const reference to {p.base} cannot bind a {a.base}"
        if _last(p.base) in unit.aggregates and not p.arithmetic:
            return f"a {_last(p.base)} parameter given a scalar"
        if arg.beyond_int32 and p.depth == 0 and p.base in NARROW_INTEGERS:
            return (f"a 32-bit {p.base} parameter given {arg.what}, a long long that can exceed 2**31 - 1: "
                    f"declare it long long (or bound the attr with max:)")
        return None
    if arg.temporary:
        if pointer_wanted:
            return f"a pointer parameter given a {_last(a.base)} value"
        if p.reference == "&" and not p.consts[0]:
            return "a non-const reference cannot bind a temporary"
        if p.base in ARITHMETIC:
            return f"a scalar parameter given a {_last(a.base)} value"
        return None
    if not pointer_wanted:  # a tensor given to a scalar parameter
        if p.base in ARITHMETIC or _last(p.base) in unit.aggregates:
            return "a scalar parameter given a pointer"
        return None
    if p.base == "void" and p.depth == 1:
        return "an input given to a non-const void*" if any(a.consts[:-1]) and not p.consts[0] else None
    if a.depth != p.depth:
        return f"a {_stars(p.depth)} parameter given a {_stars(a.depth)}"
    if a.base in ELEMENT_TYPES and p.base in ELEMENT_TYPES and a.base != p.base:
        return f"element type {p.base}, given {a.base}"
    for level in range(a.depth):
        if a.consts[level] and not p.consts[level]:
            return ("a read-only input given to a non-const pointer: declare the parameter const"
                    if level == 0 else "a const inner pointer given to a non-const one")
    if a.depth > 1 and p.consts[0] and not a.consts[0] and not all(p.consts[1:-1]):
        return "adding const below the top pointer level needs const at every level above it"
    return None


def _stars(depth: int) -> str:
    return "pointer" if depth == 1 else "pointer to " * (depth - 1) + "pointer"


def _bind(fn: Function, targs: list[str]) -> tuple[dict[str, str], str | None]:
    """The function's template parameters bound by explicit template arguments; why not, if not."""
    tparams = fn.template or ()
    if fn.template is None and targs:
        return {}, f"{fn.name} is not a template, the step specializes it on {len(targs)} type(s)"
    packs = any(t.pack for t in tparams)
    if len(targs) > len(tparams) and not packs:
        return {}, f"{fn.name} takes {len(tparams)} template parameter(s), the step gives {len(targs)}"
    binding = {t.name: a for t, a in zip(tparams, targs, strict=False) if t.name and not t.pack}
    used = {w for p in fn.params for w in re.findall(r"\w+", p.type.text)}
    for t in tparams[len(targs):]:
        if not (t.default or t.pack or t.name in used):
            return binding, f"{fn.name}'s template parameter {t.name or '?'} is neither given nor deducible"
    return binding, None


def _substitute(param: Param, binding: dict[str, str], tparams: set[str]) -> Param:
    base = param.type.base
    if base in binding:
        bound, _ = parse_type(tokenize(binding[base]), named=False)
        ctype = dataclasses.replace(param.type, base=bound.base,
                                    consts=(param.type.consts[0] or bound.consts[0], *param.type.consts[1:]))
        return dataclasses.replace(param, type=ctype)
    if base in tparams:  # deduced from the argument
        return dataclasses.replace(param, generic=True)
    if any(w in tparams or w in binding for w in re.findall(r"\w+", base)):  # Foo<T>: not judged here
        return dataclasses.replace(param, type=dataclasses.replace(param.type, base="(dependent)"))
    return param


def check_call(fn: Function, targs: list[str], args: list[Arg], unit: Unit) -> str | None:
    """Why `fn<targs>(args)` does not compile (None: it does, as far as the check can tell)."""
    binding, why = _bind(fn, targs)
    if why:
        return why
    tparams = {t.name for t in fn.template or () if t.name}
    params = [_substitute(p, binding, tparams) for p in fn.params]
    fixed = [p for p in params if not p.variadic]
    required = sum(1 for p in fixed if not p.default)
    variadic = len(fixed) != len(params)
    if len(args) < required or (len(args) > len(fixed) and not variadic):
        takes = f"{required}" if required == len(fixed) else f"{required} to {len(fixed)}"
        takes = f"at least {required}" if variadic else takes
        return (f"{fn.name} takes {takes} argument(s) ({', '.join(p.show() for p in params) or 'none'}), "
                f"the step gives {len(args)} ({', '.join(a.text for a in args) or 'none'})")
    for k, (arg, param) in enumerate(zip(args, params, strict=False)):
        if param.variadic:
            break
        why = mismatch(arg, param, unit)
        if why:
            given = f"{arg.what} ({arg.type.text if arg.type else arg.text})"
            return f"argument {k + 1}, {given}, for parameter `{param.show()}`: {why}"
    return None


# -- per op ------------------------------------------------------------------------------------------
def _entries(op: OpSpec, step: LaunchStep, slots: int) -> Iterator[tuple[str, EntryPoint]]:
    """(specialization text, entry point) of each specialization of the step's kernel."""
    assert op.kernel is not None
    for entry in lower(op, slots).entries_of(step.kernel):
        yield ", ".join(f"{s}={d}" for s, d in zip(op.kernel.specialize, entry.dtypes, strict=True)), entry


def check_kernel(op: OpSpec, source: str, kernel_file: str, activation_slots: int = 0) -> None:
    """Raises SpecError (at the launch step's line) for the first launch step of `op` whose device
    function `source` (the rendered module holding the op's kernels) lacks or cannot call with the step's arguments, or
    that passes other arguments than an earlier step launching the same kernel (each kernel gets
    one entry point, made from its first step)."""
    assert op.kernel is not None
    lines = LineMap(kernel_file)
    unit = scan(source, lines)
    first: dict[str, LaunchStep] = {}
    for step in op.launches():
        if not isinstance(step, LaunchStep):
            continue

        def fail(message: str, step: LaunchStep = step) -> SpecError:
            return SpecError(step.loc.file, step.loc.line, f"launch step {step.kernel!r}: {message}", op.name)

        earlier = first.setdefault(step.kernel, step)
        if earlier is not step:
            if [str(a) for a in earlier.args] != [str(a) for a in step.args]:
                raise fail(f"passes ({', '.join(map(str, step.args))}), but the step at line {earlier.loc.line} "
                           f"launches {step.kernel} with ({', '.join(map(str, earlier.args))}): every launch "
                           f"of a kernel passes the same arguments (its one entry point is made from the first)")
            continue
        candidates = [f for f in visible(unit, step.kernel) if f.device]
        declared = any(f.name == step.kernel for f in unit.functions)
        if not candidates and not declared and unit.named_elsewhere(step.kernel):
            continue  # a macro may declare it: the compiler judges
        if not candidates:
            raise fail(_missing(unit, step.kernel, lines, kernel_file))
        entries = list(_entries(op, step, activation_slots))
        failures = [(spec, why) for spec, entry in entries if (why := _failure(op, entry, candidates, unit, lines))]
        if failures:  # the specialization is named when the others are fine or fail otherwise
            spec, why = failures[0]
            alike = len(failures) == len(entries) and all(w == why for _, w in failures)
            raise fail(why if alike or not spec else f"{why} (specialized {spec})")


def _failure(op: OpSpec, entry: EntryPoint, candidates: list[Function], unit: Unit, lines: LineMap) -> str | None:
    """Why no candidate takes the call of an entry point (None: one does)."""
    targs = list(entry.template_args)
    args = _args(op, entry)
    reasons = [(fn, check_call(fn, targs, args, unit)) for fn in candidates]
    if any(why is None for _, why in reasons):
        return None
    fn, why = reasons[0]
    more = f" (and {len(reasons) - 1} other overload(s))" if len(reasons) > 1 else ""
    return f"{lines(fn.line)}: {why}{more}"


def _missing(unit: Unit, name: str, lines: LineMap, kernel_file: str) -> str:
    """Why no device function `name` is callable, with what is there instead."""
    same = [f for f in unit.functions if f.name == name]
    if same:
        fn = same[0]
        if not fn.device:
            return f"{lines(fn.line)}: {name} is not a __device__ function"
        return (f"{lines(fn.line)}: {name} is declared in namespace {'::'.join(fn.scope)}, which the entry "
                f"points (in the global namespace) do not see: move it out or add `using "
                f"{'::'.join(fn.scope)}::{name};`")
    own = sorted({f.name for f in unit.functions if f.device and lines(f.line).file == kernel_file
                  and not f.scope})
    close = difflib.get_close_matches(name, own, n=1)
    hint = f" (did you mean {close[0]}?)" if close else f" (its device functions: {', '.join(own) or 'none'})"
    return f"no device function {name!r} in {kernel_file}{hint}"


def size_params(op: OpSpec, activation_slots: int = 0) -> dict[str, frozenset[int]]:
    """For each device function the op's launch steps name, the positions of its parameters that
    the ABI hands a size (a dim, a list length, an int attr that may exceed 2**31 − 1): the sources
    of the 32-bit index check (index_width.py)."""
    out: dict[str, frozenset[int]] = {}
    for step in op.launches():
        if isinstance(step, LaunchStep):
            for _, entry in _entries(op, step, activation_slots):
                found = frozenset(k for k, a in enumerate(_args(op, entry)) if a.beyond_int32)
                out[step.kernel] = out.get(step.kernel, frozenset()) | found
    return out
