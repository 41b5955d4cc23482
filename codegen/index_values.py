"""Integer value ranges for the 32-bit index check (codegen/index_width.py): what an expression of a
kernel can hold, as an interval, and whether it came from a source (a 64-bit size parameter, a
thread or block built-in, or a loop counter bounded by one).

A value the check knows nothing about is None: a bit pattern (`__double_as_longlong(v)`), a float,
an element read from memory. In arithmetic beside a known value it is neutral (the known operand's
range carries through), so a source's range is followed through the code without guessing at the
rest: the check refuses only what it can show, a source's value that does not fit the type it
meets.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Integer type words by (bits, unsigned); `long` is 64-bit on every platform CUDA runs on.
_TYPE_WORDS: dict[str, tuple[int, bool]] = {
    "char": (8, False), "short": (16, False), "int": (32, False), "long": (64, False), "signed": (32, False),
    "unsigned": (32, True), "int8_t": (8, False), "uint8_t": (8, True), "int16_t": (16, False),
    "uint16_t": (16, True), "int32_t": (32, False), "uint32_t": (32, True), "int64_t": (64, False),
    "uint64_t": (64, True), "size_t": (64, True), "ptrdiff_t": (64, False), "intptr_t": (64, False),
    "uintptr_t": (64, True)}
INTEGER_WORDS = frozenset(_TYPE_WORDS)


@dataclass(frozen=True)
class Val:
    """What an integer expression can hold: lo..hi (inclusive), whether it derives from a source,
    and its C type (bits, signedness) as the usual arithmetic conversions make it."""

    lo: int
    hi: int
    tracked: bool
    bits: int = 32
    unsigned: bool = False


def integer_type(words: list[str]) -> tuple[int, bool] | None:
    """(bits, unsigned) of an integer type's words (`unsigned long long`, `int64_t`), or None."""
    found = [_TYPE_WORDS[w] for w in words if w in _TYPE_WORDS]
    if not found:
        return None
    bits = 8 if "char" in words else 16 if "short" in words else max(b for b, _ in found)
    return bits, any(u for _, u in found)


def type_range(bits: int, unsigned: bool) -> tuple[int, int]:
    return (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def fits(v: Val, bits: int, unsigned: bool) -> bool:
    """Whether v fits a `bits`-wide integer. Only width is judged: a small negative value in an
    unsigned type is a sign question, not a truncated index."""
    lo, hi = type_range(bits, unsigned)
    return v.hi <= hi and v.lo >= min(lo, -(1 << (bits - 1)))


def source(bits: int, unsigned: bool) -> Val:
    """A size, count or index parameter: any count a type of that width can hold (from 0)."""
    return Val(0, type_range(bits, unsigned)[1], True, bits, unsigned)


def constant(value: int, bits: int = 32, unsigned: bool = False) -> Val:
    return Val(value, value, False, bits, unsigned)


def convert(v: Val, bits: int, unsigned: bool) -> Val:
    """v converted to a type: kept if it fits, else any value of the type (in 32 bits or fewer it
    wrapped: a range that says nothing of the source any more, so no longer followed)."""
    if fits(v, bits, unsigned):
        return Val(v.lo, v.hi, v.tracked, bits, unsigned)
    return Val(*type_range(bits, unsigned), v.tracked and bits == 64, bits, unsigned)  # (64 bits: a loose bound)


def hull(a: Val | None, b: Val | None) -> Val | None:
    """Either value (a variable assigned twice, the branches of `?:`)."""
    if a is None or b is None:
        return a or b
    bits = max(a.bits, b.bits)
    return Val(min(a.lo, b.lo), max(a.hi, b.hi), a.tracked or b.tracked, bits,
               a.unsigned if a.bits == bits else b.unsigned)


def _promoted(a: Val, b: Val) -> tuple[int, bool]:
    """The type of a binary arithmetic result (usual arithmetic conversions, int at least)."""
    bits = max(a.bits, b.bits, 32)
    return bits, (a.unsigned and a.bits == bits) or (b.unsigned and b.bits == bits)


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _corners(a: Val, b: Val, f) -> tuple[int, int]:
    values = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return min(values), max(values)


def _exact(op: str, a: Val, b: Val) -> tuple[int, int] | None:
    """The exact range of `a op b` (not yet wrapped to its type), or None for the type's range."""
    if op == "+":
        return a.lo + b.lo, a.hi + b.hi
    if op == "-":
        return a.lo - b.hi, a.hi - b.lo
    if op == "*":
        return _corners(a, b, lambda x, y: x * y)
    if op == "/":
        if b.lo > 0 or b.hi < 0:
            return _corners(a, b, _trunc_div)
        m = max(abs(a.lo), abs(a.hi))
        return (0 if a.lo >= 0 else -m), m
    if op == "%":
        m = max(abs(a.lo), abs(a.hi))
        if b.lo > 0 or b.hi < 0:
            m = min(m, max(abs(b.lo), abs(b.hi)) - 1)
        return (0 if a.lo >= 0 else -m), m
    if op in ("<<", ">>") and 0 <= b.lo and b.hi < 64:
        shift = (lambda x, s: x << s) if op == "<<" else (lambda x, s: x >> s)
        return _corners(a, b, shift)
    if op == ">>":
        return min(a.lo, 0), max(a.hi, 0)
    if op == "&":
        masks = [v.hi for v in (a, b) if v.lo >= 0]
        return (0, min(masks)) if masks else None
    if op in ("|", "^") and a.lo >= 0 and b.lo >= 0:
        return 0, (1 << max(a.hi.bit_length(), b.hi.bit_length())) - 1
    return None


def binary(op: str, a: Val | None, b: Val | None) -> tuple[Val | None, bool]:
    """The value of `a op b` for an arithmetic or bitwise operator, and whether it is computed in
    32 bits (or fewer) from two sources and wraps there (`blockIdx.x * blockDim.x`)."""
    if a is None or b is None:
        known = a or b
        if known is None or (op in ("<<", ">>") and a is None) or (op == "/" and a is None):
            return None, False
        if op == "%" and a is None:
            m = max(abs(known.lo), abs(known.hi))
            return Val(-m, m, known.tracked, known.bits, known.unsigned), False
        if op not in ("<<", ">>", "/", "%"):
            return known, False  # an unknown operand is neutral: the known one's range carries
        b = Val(0, 63, False) if op in ("<<", ">>") else Val(-(1 << 62), 1 << 62, False)
        v, _ = binary(op, known, b)
        return v, False
    bits, unsigned = _promoted(a, b)
    exact = _exact(op, a, b)
    tracked = a.tracked or b.tracked
    if exact is None:
        lo, hi = type_range(bits, unsigned)
        return Val(lo, hi, tracked, bits, unsigned), False
    v = Val(exact[0], exact[1], tracked, bits, unsigned)
    # both from sources (a constant factor is a hash's or a stride's, and its wrap is meant)
    wraps = bits <= 32 and a.tracked and b.tracked and op in ("*", "<<") and not fits(v, bits, True)
    return convert(v, bits, unsigned), wraps
