"""Names a spec may not give what becomes a kernel parameter: C++'s keywords and the names the
kernels' headers define. Every input, output, attr, symbol, let and loop variable of a spec may be
passed to a kernel, where it is the name of a parameter of the generated entry point
(`extern "C" __global__ void Op__step__T(const T* x, long long N, ...)`): a C++ keyword there does
not compile, and a macro of the headers every kernel includes (`INFINITY`, `threadIdx` in opgen's
emulation, `M_PI`, `INT32_MAX`) is replaced by its text, so the op would fail at its first call.

The macros are those of the headers every kernel sees (math.h, stdint.h, stdio.h, stdlib.h,
string.h, time.h through CUDA's and opgen's cuda_fp16.h, cuda_bf16.h and the emulation's
cuda_emu.h) and of those kernels commonly add (math_constants.h, float.h, limits.h):
tests/test_spec_limits.py checks the list against the preprocessor's.
"""

from __future__ import annotations

import re

#: C++20's keywords and alternative tokens.
CXX_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t
    class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
    decltype default delete do double dynamic_cast else enum explicit export extern false float for friend
    goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
    protected public register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename union
    unsigned using virtual void volatile wchar_t while xor xor_eq
""".split())

#: The variables CUDA gives every kernel (macros in opgen's emulation).
CUDA_BUILTINS = frozenset({"gridDim", "blockDim", "blockIdx", "threadIdx", "warpSize"})

#: Lower-case names the headers define as macros, and `opgen`, the namespace of the kernels'
#: helpers (an entry point passes an activation as `opgen::act::Activation{...}`).
HEADER_NAMES = frozenset({
    "assert", "alloca", "offsetof", "errno", "stdin", "stdout", "stderr", "math_errhandling", "issubnormal",
    "issignaling", "iszero", "iscanonical", "strdupa", "strndupa", "opgen",
})

#: Families of upper-case macros (and the few lower-case byte-order ones) the headers define.
_MACROS = re.compile("|".join((
    r"(CUDART|OPGEN)_\w+",  # CUDA's math constants (math_constants.h, cuda_fp16.h); opgen's emulation
    r"M_(E|LOG2E|LOG10E|LN2|LN10|PI|PI_2|PI_4|1_PI|2_PI|2_SQRTPI|SQRT2|SQRT1_2)(f|l|f\d+x?)?",  # math.h
    r"HUGE_VAL\w*|S?NAN[FL]?\w*|INFINITY|MAXFLOAT|FP_[A-Z0-9_]+|MATH_ERR[A-Z]+",  # math.h
    r"U?INT(8|16|32|64|MAX|PTR|_FAST(8|16|32|64)|_LEAST(8|16|32|64))_(MAX|MIN|WIDTH|C)",  # stdint.h
    r"(SIZE|PTRDIFF|SIG_ATOMIC|WCHAR|WINT)_(MAX|MIN|WIDTH)",  # stdint.h
    r"(FLT|DBL|LDBL)\w*|DECIMAL_DIG",  # float.h
    r"(CHAR|SCHAR|UCHAR|SHRT|USHRT|INT|UINT|LONG|ULONG|LLONG|ULLONG|MB_LEN|WORD|SSIZE)_(MAX|MIN|BIT|WIDTH)",
    r"(CLOCK|ADJ|MOD|STA)_[A-Z_]+|CLOCKS_PER_SEC|TIMER_ABSTIME|TIME_UTC",  # time.h
    r"SEEK_(SET|CUR|END|DATA|HOLE)|FD_(CLR|ISSET|SET|SETSIZE|ZERO)|NFDBITS|RENAME_(EXCHANGE|NOREPLACE|WHITEOUT)",
    r"L_(tmpnam|ctermid|cuserid)|P_tmpdir|BUFSIZ|EOF|NULL|FILENAME_MAX|FOPEN_MAX|TMP_MAX|RAND_MAX|MB_CUR_MAX",
    r"EXIT_(SUCCESS|FAILURE)|(BIG|LITTLE|PDP)_ENDIAN|BYTE_ORDER",
    r"W(CONTINUED|EXITED|EXITSTATUS|IFCONTINUED|IFEXITED|IFSIGNALED|IFSTOPPED|NOHANG|NOWAIT|STOPPED|STOPSIG|"
    r"TERMSIG|UNTRACED|COREDUMP)",
    r"(be|le)(16|32|64)toh|hto(be|le)(16|32|64)",  # endian.h
    r"(U?LONG_LONG|BOOL)_(MAX|MIN|WIDTH)|NZERO|PIPE_BUF|MAX_(CANON|INPUT)|RE_DUP_MAX|PTHREAD_[A-Z_]+",  # limits.h
    r"(AIO_PRIO_DELTA|BC_BASE|BC_DIM|BC_SCALE|BC_STRING|CHARCLASS_NAME|COLL_WEIGHTS|DELAYTIMER|EXPR_NEST|HOST_NAME|"
    r"IOV|LINE|LOGIN_NAME|MQ_PRIO|NAME|NGROUPS|NL_ARG|NL_LANG|NL_MSG|NL_N|NL_SET|NL_TEXT|PATH|RTSIG|SEM_VALUE|"
    r"TTY_NAME|XATTR_LIST|XATTR_NAME|XATTR_SIZE)_?MAX",  # limits.h (POSIX)
)))


def cxx_taken(name: str) -> str | None:
    """Why `name` cannot be a kernel parameter (as the end of "name 'x' is ..."), None when it can."""
    if name in CXX_KEYWORDS:
        return "a C++ keyword"
    if name in CUDA_BUILTINS:
        return "a CUDA built-in variable of every C++ kernel"
    if name == "opgen":
        return "the C++ namespace of the kernels' helpers"
    if name in HEADER_NAMES or _MACROS.fullmatch(name):
        return "a macro of the C++ headers every kernel includes"
    return None
