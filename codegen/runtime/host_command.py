"""The host C++ compiler's command and what every host build of a kernel module uses (the emulation
header and flags), with nothing but the standard library: the host backend builds with them
(host/toolchain.py), and `opgen generate`'s C++ check (codegen/cxx_check.py) runs the same compiler
on the same flags without importing the backend."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
from pathlib import Path

from codegen.runtime import diskcache

EMU_DIR = Path(__file__).resolve().parent / "emu"
EMU_INCLUDE = EMU_DIR / "include"
EMU_HEADER = EMU_DIR / "cuda_emu.h"

# -ffp-contract=off: never fuse a*b+c into an FMA, so float results round like
# NumPy's (which never fuses). The GPU does fuse by default, so GPU-vs-host
# differences of an ulp or so are expected; host-vs-NumPy ones are not.
# No -ffast-math: NaN/inf and rounding must behave as IEEE says.
# -fstack-clash-protection: big local arrays touch every page they allocate, so
# overflowing a fiber stack always hits its guard page (reported, not silent).
# -Wl,-z,defs: an unresolved symbol fails the build, not the later dlopen.
# -falign-functions/-loops=64: a kernel's hot loop otherwise moves against cache-line boundaries
# whenever unrelated code of the module grows, which changed a batch-norm kernel's speed by 20%.
BASE_FLAGS = (
    "-O2", "-std=c++17", "-shared", "-fPIC", "-pthread", "-fvisibility=hidden",
    "-ffp-contract=off", "-fstack-clash-protection", "-Wno-unknown-pragmas", "-Wl,-z,defs",
    "-falign-functions=64", "-falign-loops=64",
)

#: What a kernel module is compiled with besides BASE_FLAGS: the emulation of CUDA's device side.
EMU_FLAGS = ("-include", str(EMU_HEADER), "-I", str(EMU_INCLUDE))


#: The Python that writes into a built kernel module (its shared-memory tables: host/smem_spans.py).
_POST_BUILD = tuple(Path(__file__).resolve().parent / f for f in ("host/smem_spans.py", "elf_symbols.py"))


@functools.cache
def emu_digest() -> str:
    """Hash of every emulation header / runtime file, and of _POST_BUILD: part of every cache key of
    a host build, so that editing them invalidates the cache."""
    parts = []
    for p in sorted(EMU_DIR.rglob("*")):
        if p.is_file() and p.suffix != ".md" and "__pycache__" not in p.parts:
            parts.append(f"{p.relative_to(EMU_DIR).as_posix()}\0{diskcache.digest(p.read_bytes())}")
    parts += [f"{p.name}\0{diskcache.digest(p.read_bytes())}" for p in _POST_BUILD]
    return diskcache.digest("\n".join(parts).encode())


class CompilerMissing(Exception):
    """No usable C++ compiler: the message says what was looked for and what to do."""


def compiler_command() -> list[str]:
    """$CXX split into words as a shell would (its executable found on PATH), else g++ or c++."""
    env = os.environ.get("CXX")
    if env:
        try:
            argv = shlex.split(env)
        except ValueError as e:  # "No closing quotation", "No escaped character"
            raise CompilerMissing(
                f"CXX={env!r} cannot be split into words as a shell would ({e}): fix its quoting, e.g. "
                "CXX='g++ -O2'. The cpu backend runs $CXX to compile kernels.") from None
        exe = shutil.which(argv[0]) if argv else None
        if exe is None:
            raise CompilerMissing(
                f"CXX={env!r} is not an executable C++ compiler. The cpu backend compiles kernels "
                "with the host C++ compiler: install one (e.g. `apt-get install g++`) or fix CXX.")
        return [exe, *argv[1:]]
    for name in ("g++", "c++"):
        exe = shutil.which(name)
        if exe:
            return [exe]
    raise CompilerMissing(
        "no C++ compiler found ($CXX unset, no g++ or c++ on PATH). The cpu backend compiles "
        "kernels with the host C++ compiler: install one, e.g. `apt-get install g++`.")
