"""The vector ISA the cpu backend compiles kernels for.

x86-64-v3 (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE: 256-bit vectors) where the CPU has every part
of it, else the compiler's default target ("baseline": SSE2 on x86-64). A named level, never
`-march=native`: a kernel cache in a home directory shared by several machines must hold builds
that each of them can run, and the level is part of every cache key. `OPGEN_HOST_ISA=baseline`
forces the baseline (for comparing builds, or a CPU this check misjudges); `x86-64-v3` asks for
the level and fails, naming what is missing, where the CPU lacks it (its kernels would die of
SIGILL); `auto` (or unset) chooses.

FMA does not change results: host/toolchain.py compiles with -ffp-contract=off, so `a*b+c` is still two
roundings (as NumPy computes it); only kernels that call fmaf() fuse, on either build.
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from collections.abc import Sequence

from codegen.runtime.settings import HOST_ISA

ISA_ENV = HOST_ISA.name
AUTO = "auto"
BASELINE = "baseline"
X86_64_V3 = "x86-64-v3"
CHOICES = (AUTO, BASELINE, X86_64_V3)

# x86-64-v3 as the psABI defines it (v1 and v2 included), by the names /proc/cpuinfo gives them:
# "pni" is SSE3, "abm" LZCNT, "lahf_lm" LAHF/SAHF. Linux lists avx only where the kernel saves the
# AVX state (XSAVE enabled), so a listed avx is usable.
_V3_CPU_FLAGS = ("cx16", "lahf_lm", "popcnt", "pni", "ssse3", "sse4_1", "sse4_2",
                 "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave")
# the same level spelled flag by flag, for a compiler older than GCC 11 / Clang 12
_V3_EXPLICIT = ("-mcx16", "-msahf", "-mpopcnt", "-msse3", "-mssse3", "-msse4.1", "-msse4.2",
                "-mavx", "-mavx2", "-mbmi", "-mbmi2", "-mf16c", "-mfma", "-mlzcnt", "-mmovbe", "-mxsave")
_X86_64 = ("x86_64", "amd64")


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str] | None:
    """The first processor's feature flags from /proc/cpuinfo (`cpuinfo`: its text, for tests);
    None where there is no such file (not Linux) or no flags line."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                cpuinfo = f.read()
        except OSError:
            return None
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "flags":
            return frozenset(value.split())
    return None


def missing_v3(flags: frozenset[str] | None, machine: str | None = None) -> tuple[str, ...]:
    """What this CPU lacks of x86-64-v3 (empty: it has all of it); ("x86-64",) off x86-64 and
    ("/proc/cpuinfo",) where the flags cannot be read (then the level is not assumed)."""
    machine = (machine or platform.machine()).lower()
    if machine not in _X86_64:
        return ("x86-64",)
    if flags is None:
        return ("/proc/cpuinfo",)
    return tuple(f for f in _V3_CPU_FLAGS if f not in flags)


@functools.cache
def host_missing_v3() -> tuple[str, ...]:
    """missing_v3 of this machine (read once a process)."""
    return missing_v3(cpu_flags())


def requested() -> str:
    """$OPGEN_HOST_ISA as one of CHOICES (unset or empty: auto); ValueError names a bad value."""
    value = HOST_ISA.raw().strip().lower() or AUTO
    if value not in CHOICES:
        raise ValueError(f"{ISA_ENV}={HOST_ISA.raw()!r}: expected one of {', '.join(CHOICES)} "
                         f"(auto: {X86_64_V3} where the CPU has it, else the compiler's default target)")
    return value


def resolve(isa: str | None = None) -> str:
    """The level kernels are compiled for: `isa` (None: $OPGEN_HOST_ISA) with auto resolved against
    this CPU. Asking for x86-64-v3 on a CPU without it is a ValueError naming what it lacks."""
    choice = requested() if isa is None else isa
    if choice not in CHOICES:
        raise ValueError(f"cpu backend isa: expected one of {', '.join(CHOICES)}, got {choice!r}")
    if choice == BASELINE:
        return BASELINE
    missing = host_missing_v3()
    if choice == X86_64_V3 and missing:
        raise ValueError(f"cpu backend isa {X86_64_V3} ({ISA_ENV} or the backend's isa): this CPU cannot run it, "
                         f"it lacks {', '.join(missing)}; use {AUTO} or {BASELINE}")
    return BASELINE if missing else X86_64_V3


def describe(isa: str, asked: str | None = None) -> str:
    """`isa` (resolve's result for `asked`; None: $OPGEN_HOST_ISA) and why it was chosen, for
    diagnostics (opgen warmup)."""
    if isa == X86_64_V3:
        return f"{X86_64_V3} (AVX2, FMA; {ISA_ENV}=baseline forces the compiler's default target)"
    if asked == BASELINE:
        return "baseline (the compiler's default target, as asked)"
    if asked is None and requested() == BASELINE:
        return f"baseline (the compiler's default target: {ISA_ENV}=baseline)"
    missing = host_missing_v3()
    why = ("not an x86-64 CPU" if missing == ("x86-64",) else "no /proc/cpuinfo to read the CPU's features"
           if missing == ("/proc/cpuinfo",) else f"the CPU lacks {', '.join(missing)} of {X86_64_V3}")
    return f"baseline (the compiler's default target: {why})"


def compile_flags(isa: str, compiler: Sequence[str]) -> tuple[str, ...]:
    """The compiler flags of `isa` for this compiler: -march=x86-64-v3 where it takes the name, else
    the level flag by flag; nothing for the baseline."""
    if isa == BASELINE:
        return ()
    return ("-march=x86-64-v3",) if _takes_level_name(tuple(compiler)) else _V3_EXPLICIT


@functools.cache
def _takes_level_name(compiler: tuple[str, ...]) -> bool:
    """Whether the compiler accepts -march=x86-64-v3 (GCC 11, Clang 12 and later): one preprocessor
    run of an empty file, once per compiler command and process."""
    argv = [*compiler, "-march=x86-64-v3", "-x", "c++", "-E", os.devnull, "-o", os.devnull]
    try:
        return subprocess.run(argv, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
