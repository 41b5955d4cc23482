"""The host C++ toolchain: the compiler command ($CXX), its version and id (the compiler's part of
every cache key), the flags a module is built with (ours, the ISA's, the caller's NVRTC-style options
translated), the vector ISA choice (host_isa.py) and one compiler run."""

from __future__ import annotations

import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codegen.runtime import host_isa
from codegen.runtime.host_command import (
    BASE_FLAGS,
    EMU_DIR,
    EMU_FLAGS,
    CompilerMissing,
    compiler_command,
)
from codegen.runtime.host_command import EMU_HEADER as EMU_HEADER  # re-exported: host/__init__
from codegen.runtime.host_command import EMU_INCLUDE as EMU_INCLUDE

from .errors import HostCompileError, HostCompilerNotFound, HostIsaError
from .state import _LOCK

RUNTIME_SOURCE = EMU_DIR / "runtime.cpp"
_BASE_FLAGS = BASE_FLAGS  # (the name the backend's modules import)


_VERSIONS: dict[tuple[Any, ...], str] = {}


def _compiler_command() -> list[str]:
    try:
        return compiler_command()
    except CompilerMissing as e:
        raise HostCompilerNotFound(str(e)) from None


def compiler_version(cmd: Sequence[str] | None = None) -> str:
    """The whole output of ``$CXX --version`` (run with every word of $CXX), memoized per
    command and compiler file."""
    cmd = list(cmd) if cmd is not None else _compiler_command()
    try:
        st = os.stat(cmd[0])
        stamp: tuple[int, ...] = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev)
    except OSError:
        stamp = ()
    key = (tuple(cmd), os.path.realpath(cmd[0]), stamp)
    with _LOCK:
        if key in _VERSIONS:
            return _VERSIONS[key]
    try:
        proc = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HostCompilerNotFound(f"cannot run C++ compiler {cmd[0]}: {e}") from e
    text = "\n".join(part.strip() for part in (proc.stdout, proc.stderr) if part.strip())
    if proc.returncode != 0 or not text:
        raise HostCompilerNotFound(f"{shlex.join(cmd)} --version failed: {proc.stderr.strip()}")
    with _LOCK:
        _VERSIONS[key] = text
    return text


def compiler_id(cmd: Sequence[str] | None = None) -> str:
    """The compiler's part of every cache key: every word of the command (flags in $CXX change
    the code), the executable's resolved path, and the whole ``--version`` output (not just its
    first line: builds of one version differ in the lines below)."""
    cmd = list(cmd) if cmd is not None else _compiler_command()
    return "\n".join((shlex.join(cmd), os.path.realpath(cmd[0]), compiler_version(cmd)))


def _target(isa: str = host_isa.BASELINE) -> str:
    """The machine part of a cache key: architecture, OS and the vector ISA the code is built for."""
    return f"{platform.machine()}-{sys.platform}-{isa}"


def resolve_isa(isa: str | None = None) -> str:
    """The vector ISA modules are compiled for: `isa` (auto, baseline, x86-64-v3; None: as
    $OPGEN_HOST_ISA says) with auto resolved against this CPU (host_isa.py)."""
    try:
        return host_isa.resolve(isa)
    except ValueError as e:
        raise HostIsaError(str(e)) from None


def describe_isa(isa: str | None = None) -> str:
    """The ISA resolve_isa chooses and why, for diagnostics: `x86-64-v3 (AVX2, FMA; ...)`."""
    return host_isa.describe(resolve_isa(isa), isa)


# nvcc/NVRTC-only options that mean nothing to g++ are dropped, so callers can
# pass the same option list to both backends.
_DROP_WITH_VALUE = {"-arch", "--gpu-architecture", "-maxrregcount", "--maxrregcount", "-code",
                    "--gpu-code", "-split-compile", "--split-compile"}
_DROP = re.compile(
    r"^--?(use_fast_math|use-fast-math|lineinfo|generate-line-info|device-debug|G|rdc|"
    r"relocatable-device-code|ewp|extensible-whole-program|dopt|extra-device-vectorization|dlto|"
    r"dlink-time-opt|default-device|device-as-default-execution-space|no-source-include|restrict|"
    r"expt-relaxed-constexpr|expt-extended-lambda|extended-lambda|fmad|ftz|prec-div|prec-sqrt|"
    r"gpu-architecture|arch|maxrregcount|device-int128|optimization-info|display-error-number|"
    r"diag-error|diag-suppress|diag-warn|minimal|time|builtin-move-forward|builtin-initializer-list)"
    r"(=.*)?$")


def translate_options(options: Sequence[str]) -> list[str]:
    """NVRTC-style options -> g++ flags (-D/-U/-I/-O/-W/-f/-m/-std>=17 kept, GPU-only dropped)."""
    if isinstance(options, str):
        raise TypeError("options must be a sequence of strings, not one string")
    out: list[str] = []
    skip = False
    for opt in options:
        opt = str(opt)
        if skip:
            skip = False
            continue
        if opt in _DROP_WITH_VALUE:
            skip = True
            continue
        if _DROP.match(opt):
            continue
        m = re.match(r"^--?std=(?:c\+\+|gnu\+\+)?(\d+)$", opt)
        if m:
            if int(m.group(1)) in (17, 20, 23, 2, 26):  # c++2a/2b spelled via digits too
                out.append("-std=c++" + m.group(1))
            continue  # older standards: the emulation headers need C++17
        if opt.startswith("--define-macro="):
            opt = "-D" + opt.split("=", 1)[1]
        elif opt.startswith("--undefine-macro="):
            opt = "-U" + opt.split("=", 1)[1]
        elif opt.startswith("--include-path="):
            opt = "-I" + opt.split("=", 1)[1]
        out.append(opt)
    return out


def _flags(options: Sequence[str], isa_flags: Sequence[str] = ()) -> list[str]:
    """A module's flags: ours, the ISA's (host_isa.compile_flags), then the caller's options."""
    return [*_BASE_FLAGS, *isa_flags, *EMU_FLAGS, *translate_options(options)]


def _run_compiler(cmd: list[str], flags: list[str], src: Path, out: Path, dep: Path | None,
                  extra: Sequence[str] = ()) -> None:
    """`extra`: options that do not change the code (not in the cache key): a dump's."""
    argv = [*cmd, *flags, *extra]
    if dep is not None:
        argv += ["-MMD", "-MF", str(dep)]
    argv += ["-x", "c++", str(src), "-x", "none", "-o", str(out)]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        raise HostCompilerNotFound(f"cannot run C++ compiler {cmd[0]}: {e}") from e
    if proc.returncode != 0:
        err = proc.stderr.strip()
        if len(err) > 12000:
            err = "...\n" + err[-12000:]
        raise HostCompileError(
            f"host C++ compilation failed (exit {proc.returncode}) for {src}\n"
            f"command: {' '.join(shlex.quote(a) for a in argv)}\n{err}",
            stderr=proc.stderr, source_path=str(src), returncode=proc.returncode)
    try:
        made = out.stat().st_size > 0
    except OSError:
        made = False
    if not made:  # CXX=true, CXX=echo: "succeeds" and writes nothing
        raise HostCompilerNotFound(
            f"{_compiler_named(cmd)} exited 0 but wrote no library ({out.name}): it is not a C++ compiler that "
            f"takes g++'s options. Set CXX to g++ or clang++ (the cpu backend compiles kernels with it).")


def _compiler_named(cmd: Sequence[str]) -> str:
    """The compiler as the user chose it, for messages: `CXX='…' (/usr/bin/true)` or `the C++ compiler g++`."""
    env = os.environ.get("CXX")
    return f"CXX={env!r} ({cmd[0]})" if env else f"the C++ compiler {cmd[0]}"


def describe_compiler() -> str:
    """The C++ compiler command kernels are compiled with (HostCompilerNotFound if there is none)."""
    return shlex.join(_compiler_command())
