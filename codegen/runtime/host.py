"""Host (CPU) backend: run CUDA kernel sources unchanged on the CPU.

The ``.cu`` text that CuPy/NVRTC compiles for the GPU is compiled here by the
host C++ compiler with ``emu/cuda_emu.h`` force-included, loaded with ctypes and
launched through an API that mirrors CuPy's RawModule/RawKernel::

    mod = load_module(source, options=("-DN=4",), name_hint="vadd")
    fn = mod.get_function("vadd")
    fn((blocks,), (256,), (x, y, out, np.int32(n)), shared_mem=0)

Arguments: numpy arrays are passed as device pointers (their data pointer;
they must be C-contiguous) and scalars must be typed numpy scalars
(np.int32, np.float32, ...), exactly as CuPy requires. Launches are synchronous.

Environment: ``CXX`` (compiler), ``OPGEN_CACHE_DIR`` (cache root; else ``$XDG_CACHE_HOME/opgen``,
else ``~/.cache/opgen``),
``OPGEN_HOST_THREADS`` (OS threads running blocks), ``OPGEN_HOST_RANDOM_ORDER``
(seed: run threads/blocks in random order), ``OPGEN_HOST_SANITIZE=1`` (the sanitize
build: memcheck, racecheck, UB and sync checks), ``OPGEN_HOST_STACK_KB`` (fiber
stack per CUDA thread, default 64), ``OPGEN_HOST_CATCH_SIGNALS=0`` (let a
crashing kernel crash the process instead of raising HostKernelError),
``OPGEN_HOST_ISA`` (auto, baseline or x86-64-v3: the vector ISA kernels are compiled for; auto, the
default, is x86-64-v3 where the CPU has it; see host_isa.py).
See emu/README.md for the design.
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import functools
import logging
import os
import platform
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import cxx, diskcache, host_isa, manifest
from . import host_sanitize as _san
from .settings import HOST_RANDOM_ORDER, HOST_SANITIZE, HOST_STACK_KB, HOST_THREADS, raw_values
from .stats import counters

EMU_DIR = Path(__file__).resolve().with_name("emu")
EMU_INCLUDE = EMU_DIR / "include"
EMU_HEADER = EMU_DIR / "cuda_emu.h"
RUNTIME_SOURCE = EMU_DIR / "runtime.cpp"

ABI_VERSION = 2  # must equal OPGEN_EMU_ABI_VERSION in emu/opgen_emu_abi.h
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
DEFAULT_MAX_DYNAMIC_SMEM = 48 * 1024  # CUDA's limit unless the kernel opts in
MAX_SHARED_MEM = 227 * 1024  # must equal OPGEN_EMU_MAX_SMEM

# -ffp-contract=off: never fuse a*b+c into an FMA, so float results round like
# NumPy's (which never fuses). The GPU does fuse by default, so GPU-vs-host
# differences of an ulp or so are expected; host-vs-NumPy ones are not.
# No -ffast-math: NaN/inf and rounding must behave as IEEE says.
# -fstack-clash-protection: big local arrays touch every page they allocate, so
# overflowing a fiber stack always hits its guard page (reported, not silent).
# -Wl,-z,defs: an unresolved symbol fails the build, not the later dlopen.
# -falign-functions/-loops=64: a kernel's hot loop otherwise moves against cache-line boundaries
# whenever unrelated code of the module grows, which changed a batch-norm kernel's speed by 20%.
_BASE_FLAGS = (
    "-O2", "-std=c++17", "-shared", "-fPIC", "-pthread", "-fvisibility=hidden",
    "-ffp-contract=off", "-fstack-clash-protection", "-Wno-unknown-pragmas", "-Wl,-z,defs",
    "-falign-functions=64", "-falign-loops=64",
)


class HostBackendError(RuntimeError):
    """Base class of every error raised by the host backend."""


class HostCompilerNotFound(HostBackendError):
    """No usable C++ compiler for the cpu backend."""


class HostCompileError(HostBackendError):
    """The host compiler rejected a kernel source (message includes its stderr)."""

    def __init__(self, message: str, stderr: str = "", source_path: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr
        self.source_path = source_path


class HostKernelError(HostBackendError):
    """A kernel failed while running: deadlock, barrier misuse, assert/__trap, memory fault."""


class HostCacheError(HostBackendError):
    """The kernel cache folder cannot be used: not a folder, not writable, or writable by other users."""


class HostIsaError(HostBackendError, ValueError):
    """OPGEN_HOST_ISA or a backend's isa names no level, or one this CPU cannot run."""


class HostLaunchError(HostBackendError, ValueError):
    """Invalid launch configuration (grid, block, shared memory)."""


class HostArgumentError(HostBackendError, TypeError):
    """Kernel arguments do not match the kernel's parameters."""


class HostKernelNotFound(HostBackendError, KeyError):
    """get_function() was asked for a kernel the module does not define."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


stats = counters("host", ("compiles", "disk_hits", "memory_hits", "runtime_compiles"))
"""Counters for tests and diagnostics (module builds only; runtime builds apart): stats.py's "host"."""

_LOCK = threading.RLock()
_MODULES: dict[str, HostModule] = {}
_VERSIONS: dict[tuple[Any, ...], str] = {}
_RUNTIME: dict[str, Any] = {}
_EMU_DIGEST: list[str] = []
_UNSET = object()
_random_seed: Any = _UNSET
_sanitize: Any = _UNSET


# ----------------------------------------------------------------- compiler --

def _compiler_command() -> list[str]:
    env = os.environ.get("CXX")
    if env:
        try:
            argv = shlex.split(env)
        except ValueError as e:  # "No closing quotation", "No escaped character"
            raise HostCompilerNotFound(
                f"CXX={env!r} cannot be split into words as a shell would ({e}): fix its quoting, e.g. "
                "CXX='g++ -O2'. The cpu backend runs $CXX to compile kernels.") from None
        exe = shutil.which(argv[0]) if argv else None
        if exe is None:
            raise HostCompilerNotFound(
                f"CXX={env!r} is not an executable C++ compiler. The cpu backend compiles kernels "
                "with the host C++ compiler: install one (e.g. `apt-get install g++`) or fix CXX.")
        return [exe, *argv[1:]]
    for name in ("g++", "c++"):
        exe = shutil.which(name)
        if exe:
            return [exe]
    raise HostCompilerNotFound(
        "no C++ compiler found ($CXX unset, no g++ or c++ on PATH). The cpu backend compiles "
        "kernels with the host C++ compiler: install one, e.g. `apt-get install g++`.")


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


def _emu_digest() -> str:
    """Hash of every emulation header / runtime file: editing them invalidates the cache."""
    if not _EMU_DIGEST:
        parts = []
        for p in sorted(EMU_DIR.rglob("*")):
            if p.is_file() and p.suffix != ".md" and "__pycache__" not in p.parts:
                parts.append(f"{p.relative_to(EMU_DIR).as_posix()}\0{diskcache.digest(p.read_bytes())}")
        _EMU_DIGEST.append(diskcache.digest("\n".join(parts).encode()))
    return _EMU_DIGEST[0]


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
    return [*_BASE_FLAGS, *isa_flags, "-include", str(EMU_HEADER), "-I", str(EMU_INCLUDE),
            *translate_options(options)]


def _run_compiler(cmd: list[str], flags: list[str], src: Path, out: Path, dep: Path | None) -> None:
    argv = [*cmd, *flags]
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
            stderr=proc.stderr, source_path=str(src))
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


# ------------------------------------------------------------- source scan --

@dataclass(frozen=True)
class KernelSig:
    name: str
    param_names: tuple[str, ...]
    max_threads: int  # from __launch_bounds__, else 1024


def scan_kernels(source: str, options: Sequence[str] = ()) -> list[KernelSig]:
    """Kernels declared ``extern "C" __global__ void NAME(`` (``__launch_bounds__`` allowed around),
    read as the compiler reads them (codegen.runtime.cxx): a kernel in a branch of ``#if``/``#ifdef``
    known to be off is not one, and object-like macros (the source's and ``-D`` options') are
    expanded, in the kernels and in their launch bounds. A kernel that a function-like macro
    declares is not listed."""
    return list(_scan(source, _option_macros(options))[0])


def scan_extern_shared(source: str, options: Sequence[str] = ()) -> list[str]:
    """Names declared ``extern __shared__ T name[];`` (dynamic shared memory), read as scan_kernels reads."""
    return list(_scan(source, _option_macros(options))[1])


def _option_macros(options: Sequence[str]) -> tuple[tuple[str, str | None], ...]:
    """The ``-D NAME[=VALUE]`` / ``-U NAME`` of a module's options, in order (None: undefined)."""
    flags = translate_options(options)
    out: list[tuple[str, str | None]] = []
    for i, flag in enumerate(flags):
        if flag in ("-D", "-U") and i + 1 < len(flags):
            flag += flags[i + 1]
        if flag.startswith("-D") and len(flag) > 2:
            name, _, value = flag[2:].partition("=")
            out.append((name, value if "=" in flag else "1"))
        elif flag.startswith("-U") and len(flag) > 2:
            out.append((flag[2:], None))
    return tuple(out)


def _entry_points(source: str, options: Sequence[str]) -> tuple[tuple[KernelSig, ...], tuple[str, ...]]:
    """The kernels and extern shared arrays of a source: from its manifest where it carries one to
    believe (a generated module: manifest.py; its entry points lie outside any #if, so options do
    not change them), else scanned as the compiler reads the source."""
    stated = manifest.read(source)
    if stated is None:
        return _scan(source, _option_macros(options))
    return tuple(KernelSig(k.name, k.param_names, k.max_threads) for k in stated.kernels), stated.shared


@functools.lru_cache(maxsize=64)
def _scan(source: str, defines: tuple[tuple[str, str | None], ...]) -> tuple[tuple[KernelSig, ...], tuple[str, ...]]:
    """The kernels and extern shared arrays of a source, from one tokenization (cached: the cpu
    backend loads each source once per process, the tests many times)."""
    pp = cxx.Preprocessed()
    for name, value in defines:
        if value is None:
            pp.macros.pop(name, None)
            pp.undefined.add(name)
        else:
            pp.macros[name] = value
            pp.undefined.discard(name)
    tokens = cxx.tokenize(source, pp=pp)
    return tuple(_kernels(tokens)), tuple(_extern_shared(tokens))


def _kernels(tokens: list[cxx.Token]) -> list[KernelSig]:
    found: dict[str, KernelSig] = {}
    for i, t in enumerate(tokens[:-1]):
        if t.text == "extern" and tokens[i + 1].text == '"C"':
            sig = _kernel_at(tokens, i + 2)
            if sig is not None and (sig.name not in found or len(sig.param_names) > len(found[sig.name].param_names)):
                found[sig.name] = sig
    return list(found.values())


def _kernel_at(tokens: list[cxx.Token], j: int) -> KernelSig | None:
    """The kernel whose declaration continues at tokens[j] (just past ``extern "C"``), if it is one."""
    is_global, bound = False, MAX_THREADS_PER_BLOCK
    while j < len(tokens) and tokens[j].kind == "id":
        word = tokens[j].text
        j += 1
        if j < len(tokens) and tokens[j].text == "(":  # __launch_bounds__(...), __attribute__((...))
            end = cxx.match(tokens, j)
            if word == "__launch_bounds__":
                bound = _launch_bound(tokens[j + 1:end - 1])
            j = end
        elif word == "void":
            break
        is_global = is_global or word == "__global__"
    else:
        return None
    if j + 1 < len(tokens) and tokens[j].text == "__launch_bounds__" and tokens[j + 1].text == "(":
        end = cxx.match(tokens, j + 1)
        bound = _launch_bound(tokens[j + 2:end - 1])
        j = end
    if not is_global or j + 1 >= len(tokens) or tokens[j].kind != "id" or tokens[j + 1].text != "(":
        return None
    end = cxx.match(tokens, j + 1)
    params = [p for p in cxx.split_params(tokens[j + 2:end - 1]) if [t.text for t in p] != ["void"]]
    return KernelSig(tokens[j].text, tuple(_param_name(p) for p in params), bound)


def _param_name(param: list[cxx.Token]) -> str:
    """The last name outside brackets: ``x`` of ``const float* __restrict__ x``, of ``float x[4]``."""
    names, depth = [], 0
    for t in param:
        depth += {"[": 1, "]": -1}.get(t.text, 0)
        if t.kind == "id" and depth == 0:
            names.append(t.text)
    return names[-1] if names else "?"


def _launch_bound(args: list[cxx.Token]) -> int:
    """The maximum block size ``__launch_bounds__(args)`` sets: its first argument, an integer
    expression over literals and the source's macros. One the scanner cannot evaluate (a constexpr
    variable, a macro from an included header) falls back to CUDA's limit, 1024: the emulation then
    accepts up to 1024 threads where the GPU, which knows the real bound, may refuse fewer."""
    first = cxx.split_params(args)[:1]
    value = cxx.evaluate([t.text for t in first[0]]) if first else None
    return value if value is not None and 0 < value <= MAX_THREADS_PER_BLOCK else MAX_THREADS_PER_BLOCK


def _extern_shared(tokens: list[cxx.Token]) -> list[str]:
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


def _glue(kernels: Sequence[KernelSig], shared: Sequence[str]) -> str:
    lines = ["", "// ---- opgen host glue (generated by codegen/runtime/host.py) ----",
             '#include "opgen_emu_glue.h"']
    if shared:
        lines.append("OPGEN_DYN_SMEM_BUFFER()")
        lines += [f"OPGEN_DYN_SMEM_ALIAS({n})" for n in shared]
    else:
        lines.append("OPGEN_NO_DYN_SMEM()")
    lines += [f"OPGEN_KERNEL({k.name})" for k in kernels]
    lines.append("OPGEN_MODULE_EXPORTS()")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------ cache + load --

def _host_dir() -> Path:
    return diskcache.cache_root() / "host"


def cache_dir() -> Path:
    """Where the host-compiled modules are cached (under diskcache.cache_root())."""
    return _host_dir()


def describe_compiler() -> str:
    """The C++ compiler command kernels are compiled with (HostCompilerNotFound if there is none)."""
    return shlex.join(_compiler_command())


def load_runtime() -> bool:
    """Build or load the emulation runtime (every module needs it); True when it was compiled now."""
    before = stats["runtime_compiles"]
    _runtime_api()
    return stats["runtime_compiles"] > before


def _deps_unchanged(meta: dict[str, Any]) -> bool:
    """True if every header the build read is unchanged; a malformed field is a miss (rebuilt)."""
    deps = meta.get("deps", [])
    if not isinstance(deps, list):
        return False
    for item in deps:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) for v in item)):
            return False
        try:
            if diskcache.digest(Path(item[0]).read_bytes()) != item[1]:
                return False
        except (OSError, ValueError):  # (ValueError: a NUL in the path)
            return False
    return True


def _read_deps(dep_file: Path, source: Path) -> list[list[str]]:
    """User headers the build read (from -MMD), minus the source and our own headers."""
    try:
        text = dep_file.read_text().replace("\\\n", " ")
    except OSError:
        return []
    deps = []
    for tok in text.split(":", 1)[-1].split():
        p = Path(tok).resolve()
        if p == source.resolve() or EMU_DIR in p.parents:
            continue
        try:
            deps.append([str(p), diskcache.digest(p.read_bytes())])
        except OSError:
            pass
    return deps


def _dlopen(path: Path) -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError:
        return None


def _load_cached(so_path: Path, runtime: bool) -> ctypes.CDLL | None:
    """The cached library at `so_path` if it is intact, current and loads; else None."""
    try:
        entry = diskcache.get(so_path)  # refuses a folder others can write; ignores such entries
    except diskcache.UnsafeCacheError as e:
        raise HostCacheError(str(e)) from e
    if entry is not None and _deps_unchanged(entry.meta):
        lib = _dlopen(so_path)
        if lib is not None:
            if not runtime:
                stats["disk_hits"] += 1
            return lib
        diskcache.remove(so_path)  # checksum fine yet unloadable: drop it
    return None


LOG = logging.getLogger("opgen")
"""opgen's runtime logger: one WARNING record per process and backend when kernels are first compiled
(a first call then takes seconds; later calls and processes load them from the disk cache). Silence
it with ``logging.getLogger("opgen").setLevel(logging.ERROR)``."""

_ANNOUNCED: set[str] = set()
_ANNOUNCE_LOCK = threading.Lock()


def announce_compile(backend: str, what: str, cache: Path) -> None:
    """Say, once per process and backend ("cpu", "cuda"), that kernels are being compiled."""
    with _ANNOUNCE_LOCK:
        if backend in _ANNOUNCED:
            return
        _ANNOUNCED.add(backend)
    LOG.warning("opgen: compiling kernel modules for the %s backend, starting with %s: a first call can take "
                "seconds; they are cached in %s, so later calls and processes load them. `opgen warmup --device "
                "%s` compiles every op ahead of time; logging.getLogger('opgen').setLevel(logging.ERROR) silences "
                "this message.", backend, what, cache, backend)


# A full disk, or a folder in an entry's place, costs the cache, not the kernel: it is built in a
# private temporary folder instead (warned once per cause), removed when the process exits.
_DISK_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_DISK_FULL_TEXT = ("No space left on device", "Disk quota exceeded")
_PRIVATE_DIRS: list[str] = []
_PRIVATE_WARNED: set[str] = set()


def _build_or_load(stem: str, tu: str, cmd: list[str], flags: list[str], *,
                   runtime: bool) -> tuple[ctypes.CDLL, Path, Path]:
    """``<stem>.so`` from the disk cache if intact, else compiled (once, when several processes want
    it at the same time: the entry's lock); returns the library, its path and its source's path."""
    folder = _host_dir()
    so_path = folder / f"{stem}.so"
    src_path = folder / (f"{stem}.cpp" if runtime else f"{stem}.cu")
    lib = _load_cached(so_path, runtime)
    if lib is not None:
        return lib, so_path, src_path
    try:
        diskcache.ensure_dir(folder)
    except (OSError, diskcache.UnsafeCacheError) as e:
        raise HostCacheError(str(e)) from e
    with diskcache.entry_lock(so_path):
        lib = _load_cached(so_path, runtime)  # built by another process while this one waited
        if lib is not None:
            return lib, so_path, src_path
        announce_compile("cpu", "the emulation runtime" if runtime else stem.rsplit("-", 1)[0], folder)
        blocker = diskcache.blocking_folder(so_path) or diskcache.blocking_folder(src_path)
        if blocker is not None:
            why, fix = (f"{blocker} is a folder where a cache entry should be",
                        f"Remove it (rm -r {shlex.quote(str(blocker))}); the entry is rebuilt on the next run.")
        else:
            try:
                return _build_in_cache(stem, tu, cmd, flags, runtime, so_path, src_path), so_path, src_path
            except OSError as e:
                if e.errno not in _DISK_FULL:
                    raise
                why = str(e)
            except HostCompileError as e:
                if not any(text in e.stderr for text in _DISK_FULL_TEXT):
                    raise
                why = next(text for text in _DISK_FULL_TEXT if text in e.stderr).lower()
            fix = f"Free space there, or set {diskcache.CACHE_ENV} to a folder on another disk."
    return _build_private(stem, tu, cmd, flags, runtime, folder, why, fix)


def _build_in_cache(stem: str, tu: str, cmd: list[str], flags: list[str], runtime: bool, so_path: Path,
                    src_path: Path) -> ctypes.CDLL:
    """Compile into the cache (missing, corrupt or stale: rebuilt and overwritten) and load it."""
    folder = so_path.parent
    diskcache.write_atomic(src_path, tu.encode())
    with tempfile.TemporaryDirectory(dir=folder, prefix=f".{stem}.") as tmp:
        out = Path(tmp) / "out.so"
        dep = Path(tmp) / "out.d"
        stats["runtime_compiles" if runtime else "compiles"] += 1
        _run_compiler(cmd, flags, src_path, out, dep)
        data = out.read_bytes()
        deps = _read_deps(dep, src_path)
    diskcache.put(so_path, data, {"deps": deps, "compiler": shlex.join(cmd), "flags": flags})
    lib = _dlopen(so_path)
    if lib is None:  # another process replaced or removed it meanwhile: load a private copy
        fd, private = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".so")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            lib = _dlopen(Path(private))
        finally:
            os.unlink(private)  # the mapping stays valid
        if lib is None:
            raise HostBackendError(f"freshly built {so_path} cannot be loaded")
    return lib


def _build_private(stem: str, tu: str, cmd: list[str], flags: list[str], runtime: bool, folder: Path, why: str,
                   fix: str) -> tuple[ctypes.CDLL, Path, Path]:
    """Compile outside the cache, into a temporary folder of this process (the cache cannot take the
    entry): the kernel runs, and every process compiles it again until the cause is fixed (warned)."""
    try:
        tmp = Path(tempfile.mkdtemp(prefix="opgen-host-"))
    except OSError as e:
        raise HostCacheError(
            f"cannot compile {stem}: the kernel cache at {folder} cannot take it ({why}), and no temporary "
            f"folder can be made either ({e}). {fix}") from e
    if not _PRIVATE_DIRS:
        atexit.register(_remove_private_dirs)
    _PRIVATE_DIRS.append(str(tmp))
    if why not in _PRIVATE_WARNED:
        _PRIVATE_WARNED.add(why)
        warnings.warn(f"opgen: cannot use the kernel cache at {folder} ({diskcache.describe_root()}): {why}. "
                      f"Compiling {stem} outside the cache instead, in {tmp}: every process compiles it again "
                      f"until this is fixed. {fix}", RuntimeWarning, stacklevel=4)
    so_path = tmp / f"{stem}.so"
    src_path = tmp / (f"{stem}.cpp" if runtime else f"{stem}.cu")
    try:
        src_path.write_bytes(tu.encode())
    except OSError as e:
        raise HostCacheError(f"cannot compile {stem}: the kernel cache at {folder} cannot take it ({why}), nor "
                             f"can the temporary folder {tmp} ({e}). {fix}") from e
    stats["runtime_compiles" if runtime else "compiles"] += 1
    _run_compiler(cmd, flags, src_path, so_path, None)
    lib = _dlopen(so_path)
    if lib is None:
        raise HostBackendError(f"freshly built {so_path} cannot be loaded")
    return lib, so_path, src_path


def _remove_private_dirs() -> None:
    for folder in _PRIVATE_DIRS:
        shutil.rmtree(folder, ignore_errors=True)


def _runtime_api() -> int:
    """Address of the runtime's opgen_rt_api table (runtime built/loaded once per process)."""
    with _LOCK:
        if "api" in _RUNTIME:
            return _RUNTIME["api"]
        cmd = _compiler_command()
        flags = [*_BASE_FLAGS, "-I", str(EMU_DIR)]
        src = RUNTIME_SOURCE.read_text() + "\n// emu " + _emu_digest() + "\n"
        key = diskcache.cache_key(src, flags, compiler_id(cmd), _target())
        lib, _, _ = _build_or_load(f"opgen-emu-rt-{key[:32]}", src, cmd, flags, runtime=True)
        lib.opgen_rt_get_api.restype = ctypes.c_void_p
        lib.opgen_rt_get_api.argtypes = []
        _RUNTIME["lib"] = lib
        _RUNTIME["api"] = lib.opgen_rt_get_api()
        return _RUNTIME["api"]


def load_module(source: str, options: Sequence[str] = (), name_hint: str = "module", *,
                sanitize: bool = False, isa: str | None = None) -> HostModule:
    """Compile ``source`` for the host (or load it from the cache) and return the module.

    ``sanitize``: the sanitize build (see set_sanitize). A plain module launched while sanitizing
    is enabled runs its sanitize twin instead, so callers never need to ask for it.
    ``isa``: the vector ISA to compile for (auto, baseline, x86-64-v3; None: $OPGEN_HOST_ISA, read
    at each call); both builds of one source can be loaded side by side (their keys differ)."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    cmd = _compiler_command()
    version = compiler_id(cmd)
    kernels, shared = _entry_points(source, options)
    tu = source + ("" if source.endswith("\n") else "\n") + _glue(kernels, shared)
    chosen = resolve_isa(isa)
    flags = [*_flags(options, host_isa.compile_flags(chosen, cmd)), *(_san.FLAGS if sanitize else ())]
    key = diskcache.cache_key(tu + "\n// emu " + _emu_digest() + "\n", flags, version, _target(chosen))
    with _LOCK:
        mod = _MODULES.get(key)
        if mod is not None:
            stats["memory_hits"] += 1
            return mod
        api = _runtime_api()
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name_hint)[:48] or "module"
        stem = f"{safe}-{key[:32]}"
        lib, so_path, src_path = _build_or_load(stem, tu, cmd, flags, runtime=False)
        mod = HostModule(lib, api, list(kernels), so_path, src_path, sanitized=sanitize, isa=chosen)
        mod.origin = (source, tuple(options), name_hint)
        _MODULES[key] = mod
        return mod


def clear_memory_cache() -> None:
    """Forget modules loaded in this process (the disk cache is untouched)."""
    with _LOCK:
        _MODULES.clear()


def RawKernel(code: str, name: str, options: Sequence[str] = ()) -> HostFunction:
    """CuPy-style shortcut: ``RawKernel(code, name)(grid, block, args)``."""
    return load_module(code, options, name_hint=name).get_function(name)


# --------------------------------------------------------------- execution --

def set_random_order(seed: int | None) -> None:
    """Run threads and blocks in a seeded random order (None: in order). Overrides the env var."""
    global _random_seed
    if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
        raise TypeError("seed must be an int or None")
    _random_seed = None if seed is None else int(seed)


def set_sanitize(on: bool | None) -> None:
    """Run every kernel launch through the sanitize build (None: as $OPGEN_HOST_SANITIZE says).

    Out-of-bounds accesses to any launch buffer or shared memory, data races between threads not
    ordered by a barrier or warp sync, uninitialised shared memory, signed overflow, bad shifts,
    misaligned accesses and warp/barrier misuse then raise HostKernelError naming kernel, block,
    thread and the source line. Slow (every access is checked); one OS thread per launch."""
    global _sanitize
    if on is not None and not isinstance(on, bool):
        raise TypeError("set_sanitize expects True, False or None")
    _sanitize = _UNSET if on is None else on


def sanitize_enabled() -> bool:
    """set_sanitize's setting, else $OPGEN_HOST_SANITIZE (1/true/yes/on: enabled)."""
    if _sanitize is not _UNSET:
        return bool(_sanitize)
    return bool(HOST_SANITIZE.get())


def random_order() -> int | None:
    """The active random-order seed: set_random_order's, else $OPGEN_HOST_RANDOM_ORDER, else None."""
    if _random_seed is not _UNSET:
        return _random_seed
    seed: int | None = HOST_RANDOM_ORDER.get()
    return seed


def _launch_settings() -> tuple[int, int | None, int]:
    """What the environment says of every launch: OS threads, the random-order seed, fiber stack
    bytes. Remembered by the raw values (read on every batch, so read as cheaply as they can be)."""
    raw = (_random_seed, *_launch_values())
    settings = _SETTINGS_SEEN.get(raw)
    if settings is not None:
        return settings
    settings = (HOST_THREADS.get(), random_order(), HOST_STACK_KB.get() * 1024)
    if len(_SETTINGS_SEEN) < 64:
        _SETTINGS_SEEN[raw] = settings
    return settings


_SETTINGS_SEEN: dict[tuple[Any, ...], tuple[int, int | None, int]] = {}
_launch_values = raw_values(HOST_THREADS, HOST_RANDOM_ORDER, HOST_STACK_KB)


class _LaunchCfg(ctypes.Structure):  # mirrors opgen_launch_cfg
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shmem", ctypes.c_uint64),
                ("nworkers", ctypes.c_int32), ("random_order", ctypes.c_int32), ("seed", ctypes.c_uint64),
                ("stack_size", ctypes.c_uint64), ("sanitize", ctypes.c_int32), ("nbuffers", ctypes.c_int32),
                ("buffers", ctypes.POINTER(_san.SanRange)), ("nvars", ctypes.c_int32), ("pad_", ctypes.c_int32),
                ("vars", ctypes.POINTER(_san.SanRange))]


# Parameter kinds reported by the module (OPGEN_P_* in opgen_emu_glue.h).
_P_POINTER, _P_FLOAT, _P_SINT, _P_UINT, _P_BOOL, _P_OTHER, _P_HALF, _P_BF16 = range(1, 9)


def _describe(kind: int, size: int) -> str:
    return {
        _P_POINTER: "pointer", _P_FLOAT: f"float{size * 8}", _P_SINT: f"int{size * 8}",
        _P_UINT: f"uint{size * 8}", _P_BOOL: "bool", _P_HALF: "__half", _P_BF16: "__nv_bfloat16",
    }.get(kind, f"{size}-byte struct")


def _scalar_matches(kind: int, size: int, dtype: np.dtype) -> bool:
    if dtype.itemsize != size:
        return False
    if kind == _P_FLOAT:
        return dtype.kind == "f"
    if kind in (_P_SINT, _P_UINT):
        return dtype.kind in "iu"  # signedness may differ, width may not
    if kind == _P_BOOL:
        return dtype.kind == "b"
    if kind == _P_HALF:
        return dtype == np.float16
    if kind == _P_BF16:
        return dtype.name == "bfloat16" or dtype == np.uint16  # raw bits
    return True  # struct: any numpy scalar/record of the same size


def _dims(what: str, value: Any, limits: tuple[int, int, int]) -> tuple[int, int, int]:
    # launches repeat the same few shapes: remember the checked ones (tuples of ints are hashable)
    # only plain ints are remembered: 32.0 == 32 as a dict key, but is not a valid dimension
    plain = type(value) is int or (type(value) is tuple and all(type(v) is int for v in value))
    key = (what, value)
    if plain and key in _DIMS_SEEN:
        return _DIMS_SEEN[key]
    dims = _check_dims(what, value, limits)
    if plain and len(_DIMS_SEEN) < 4096:
        _DIMS_SEEN[key] = dims
    return dims


_DIMS_SEEN: dict[tuple[str, Any], tuple[int, int, int]] = {}


def _check_dims(what: str, value: Any, limits: tuple[int, int, int]) -> tuple[int, int, int]:
    items = (value,) if isinstance(value, (int, np.integer)) else value
    if isinstance(items, (tuple, list)) and 1 <= len(items) <= 3 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        dims = [int(v) for v in items] + [1] * (3 - len(items))
    else:
        raise HostLaunchError(f"{what} must be an int or a tuple of 1-3 ints, got {value!r}")
    for axis, (d, lim) in enumerate(zip(dims, limits, strict=True)):
        if not 1 <= d <= lim:
            raise HostLaunchError(
                f"{what}[{axis}] = {d} is out of CUDA's range [1, {lim}] (got {what}={value!r})")
    return dims[0], dims[1], dims[2]


_STRUCT_CODES = {(_P_POINTER, 8): "Q", (_P_FLOAT, 4): "f", (_P_FLOAT, 8): "d", (_P_BOOL, 1): "?",
                 (_P_SINT, 1): "B", (_P_SINT, 2): "H", (_P_SINT, 4): "I", (_P_SINT, 8): "Q",
                 (_P_UINT, 1): "B", (_P_UINT, 2): "H", (_P_UINT, 4): "I", (_P_UINT, 8): "Q"}


@dataclass
class _FastPacker:
    """Packs the common argument kinds with one struct.pack_into into a reused buffer whose slot
    addresses never change; anything unusual goes to the checked slow path."""

    layout: struct.Struct
    kinds: tuple[tuple[int, int], ...]
    buf: Any
    ptrs: Any


def _fast_packer(params: list[tuple[int, int]], offsets: list[int], nbytes: int) -> _FastPacker | None:
    if not all((kind, size) in _STRUCT_CODES for kind, size in params):
        return None
    fmt, pos = "<", 0
    for (kind, size), offset in zip(params, offsets, strict=True):
        fmt += "x" * (offset - pos) + _STRUCT_CODES[(kind, size)]
        pos = offset + size
    buf = ctypes.create_string_buffer(nbytes)
    ptrs = (ctypes.c_void_p * max(len(params), 1))()
    for i, offset in enumerate(offsets):
        ptrs[i] = ctypes.addressof(buf) + offset
    return _FastPacker(struct.Struct(fmt), tuple(params), buf, ptrs)


_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}


@dataclass
class _BatchPacker:
    """A batch record (opgen_batch_record) for one tuple of argument types. By object (CPython):
    the record holds the tuple's address and the runtime reads each item, an array's data pointer
    and flags, a scalar's value (its place checked on the first arguments); else by value: one
    16-byte slot per argument follows, struct packing the scalars, Python reading the pointers."""

    record: struct.Struct
    by_object: bool
    arrays: tuple[int, ...]  # positions of the array arguments
    nulls: tuple[int, ...]  # positions of None (a null pointer)
    masks: tuple[int, int, int]  # opgen_batch_record.objects, .scalars, .nulls (0 when by value)


def _batch_packer(params: list[tuple[int, int]], args: tuple[Any, ...]) -> _BatchPacker | None:
    """The packer for arguments of these types, or None where the checked path must see them."""
    if len(args) != len(params) or len(params) > 256:  # (OPGEN_BATCH_MAX_ARGS)
        return None
    offset = _OBJECT_LAYOUT[1] if len(params) <= 64 else 0  # (the masks have 64 bits)
    codes: list[str] = []
    arrays: list[int] = []
    nulls: list[int] = []
    scalars = 0
    for i, ((kind, size), arg) in enumerate(zip(params, args, strict=True)):
        t = type(arg)
        if kind == _P_POINTER:
            if t is not np.ndarray and arg is not None:
                return None
            (arrays if arg is not None else nulls).append(i)
            codes.append("Q")
        elif (kind, size) in _STRUCT_CODES and issubclass(t, np.generic) and not issubclass(t, np.void):
            dtype = np.dtype(t)
            if not _scalar_matches(kind, size, dtype):
                return None
            scalars |= 1 << i
            # by value, signedness as the value has it (a kernel's int64 takes a uint64 scalar's bits too)
            codes.append(_INT_CODES[size] if dtype.kind == "i" else _INT_CODES[size].upper() if dtype.kind == "u"
                         else _STRUCT_CODES[(kind, size)])
            if offset and not (t.__basicsize__ >= offset + 8 and ctypes.string_at(id(arg) + offset, size) == (
                    arg.tobytes())):  # the value right after the object header, as the runtime reads it
                offset = 0
        else:
            return None
    head = "<QQI4xQQQQ"
    if offset:
        masks = (sum(1 << i for i in arrays), scalars, sum(1 << i for i in nulls))
        return _BatchPacker(struct.Struct(head), True, tuple(arrays), tuple(nulls), masks)
    fmt = head + "".join(code + "x" * (16 - struct.calcsize("<" + code)) for code in codes)
    return _BatchPacker(struct.Struct(fmt), False, tuple(arrays), tuple(nulls), (0, 0, 0))


def _object_layout() -> tuple[int, int, int]:
    """Where CPython keeps a tuple's items, and a NumPy array its data pointer (the first field of
    PyArrayObject, after the object header: where NumPy scalars keep their value too) and flags,
    found on probes; zeros where not found (another Python, a debug build). A batch hands the
    argument tuple to the runtime, which reads pointers, values and C-contiguity there: of
    Python's work per launch, reading a pointer (ctypes' from_buffer) and flags took the most."""
    if platform.python_implementation() != "CPython":  # (where id() is the object's address)
        return 0, 0, 0
    base = np.zeros((3, 4), np.float32)
    readonly = base.copy()
    readonly.flags.writeable = False
    probes: tuple[np.ndarray, ...] = (base, base[:, ::2], np.asfortranarray(base), readonly, np.empty(0, np.int8))
    items = next((at for at in range(8, 64, 8)
                  if all(ctypes.c_void_p.from_address(id(probes) + at + 8 * k).value == id(p)
                         for k, p in enumerate(probes))), 0)
    for data in (16, 32):
        if all(ctypes.c_void_p.from_address(id(p) + data).value == p.__array_interface__["data"][0] for p in probes):
            for flags in range(data + 8, data + 96, 4):
                if items and all(ctypes.c_int.from_address(id(p) + flags).value == p.flags.num for p in probes):
                    return items, data, flags
    return 0, 0, 0


_OBJECT_LAYOUT = _object_layout()
_SKIPPED = 1 << 63  # run_batch stopped before a launch with an array that is not C-contiguous


def _fast_values(kinds: tuple[tuple[int, int], ...], args: Any) -> list[Any] | None:
    """The raw values of `args` for the fast packer, or None if any needs the checked path."""
    values: list[Any] = []
    for arg, (kind, size) in zip(args, kinds, strict=True):
        if kind == _P_POINTER:
            if arg is None:
                values.append(0)
            elif type(arg) is np.ndarray:
                try:  # a writable C-contiguous buffer's address: 4x cheaper than __array_interface__
                    values.append(ctypes.addressof(ctypes.c_byte.from_buffer(arg)))  # type: ignore[arg-type]
                except (TypeError, ValueError):  # read-only, empty, or not C-contiguous
                    face = arg.__array_interface__  # one lookup: 'strides' is None iff C-contiguous
                    if face["strides"] is not None:
                        return None
                    values.append(face["data"][0])
            else:
                return None
        elif isinstance(arg, np.generic) and _scalar_matches(kind, size, arg.dtype):
            if kind == _P_FLOAT or kind == _P_BOOL:
                values.append(arg.item())
            else:  # two's complement bits of the right width, whatever the signedness
                values.append(int(arg) & ((1 << (8 * size)) - 1))
        else:
            return None
    return values


class HostFunction:
    """One kernel of a HostModule; call it like a CuPy RawKernel."""

    def __init__(self, module: HostModule, sig: KernelSig, launch: Any, params: list[tuple[int, int]]):
        self.module = module
        self.name = sig.name
        self.params = params  # (kind, size) per parameter, from the compiled signature
        self.param_names = sig.param_names if len(sig.param_names) == len(params) else tuple(
            f"#{i}" for i in range(len(params)))
        self.max_threads_per_block = min(sig.max_threads, MAX_THREADS_PER_BLOCK)
        self.shared_size_bytes = module.static_smem
        self._max_dyn = min(DEFAULT_MAX_DYNAMIC_SMEM, MAX_SHARED_MEM - self.shared_size_bytes)
        self._launch = launch
        # each argument's slot in the packed buffer: 16-byte aligned, at least 8 bytes
        self._offsets: list[int] = []
        total = 0
        for _, size in params:
            self._offsets.append(total)
            total += (max(size, 8) + 15) // 16 * 16
        self._arg_bytes = max(total, 16)
        self._fast = _fast_packer(params, self._offsets, self._arg_bytes)
        self._lock = threading.Lock()  # guards the reused argument buffer of the fast path
        self._cfgs: dict[tuple[Any, ...], _LaunchCfg] = {}
        self._sanitized_build = module.sanitized
        self._launch_addr: int = ctypes.cast(launch, ctypes.c_void_p).value or 0
        # a batch's launch shapes already checked: (grid, block, shared_mem, settings) -> cfg
        self._batch_cfgs: dict[tuple[Any, ...], tuple[_LaunchCfg, int]] = {}
        self._batch_packers: dict[tuple[type, ...], _BatchPacker | None] = {}

    @property
    def num_params(self) -> int:
        return len(self.params)

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        """Like CUDA/CuPy: 48 KiB unless raised (up to 227 KiB minus static shared memory)."""
        return self._max_dyn

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        limit = MAX_SHARED_MEM - self.shared_size_bytes
        if not 0 <= int(value) <= limit:
            raise HostLaunchError(
                f"max_dynamic_shared_size_bytes must be in [0, {limit}] for kernel '{self.name}'")
        self._max_dyn = int(value)

    def __repr__(self) -> str:
        return f"<HostFunction {self.name}({', '.join(self.param_names)})>"

    def _param(self, i: int) -> str:
        kind, size = self.params[i]
        return f"kernel '{self.name}' parameter {i} '{self.param_names[i]}' ({_describe(kind, size)})"

    def _pack(self, args: Any) -> tuple[Any, Any, list[Any]]:
        # The hot path of every launch: messages are only built when an argument is wrong.
        if not isinstance(args, (tuple, list)):
            raise HostArgumentError(f"kernel '{self.name}': args must be a tuple, got {type(args).__name__}")
        if len(args) != len(self.params):
            raise HostArgumentError(
                f"kernel '{self.name}' takes {len(self.params)} argument(s) ({', '.join(self.param_names)}), "
                f"got {len(args)}")
        buf = ctypes.create_string_buffer(self._arg_bytes)
        base = ctypes.addressof(buf)
        ptrs = (ctypes.c_void_p * max(len(self.params), 1))()
        for i, (arg, (kind, size), offset) in enumerate(zip(args, self.params, self._offsets, strict=True)):
            if kind == _P_POINTER:
                if arg is None:  # a null pointer (an absent optional input)
                    raw = b"\0" * 8
                elif not isinstance(arg, np.ndarray):
                    raise HostArgumentError(f"{self._param(i)} expects a numpy array or None, got {type(arg).__name__}")
                elif not arg.flags.c_contiguous:
                    raise HostArgumentError(
                        f"{self._param(i)}: array is not C-contiguous (shape {arg.shape}, strides {arg.strides}); "
                        "pass np.ascontiguousarray(a)")
                else:
                    raw = arg.__array_interface__["data"][0].to_bytes(8, sys.byteorder)
            else:
                if isinstance(arg, np.ndarray):
                    raise HostArgumentError(f"{self._param(i)} is a scalar, got an array of shape {arg.shape}")
                if not isinstance(arg, (np.generic, np.void)):
                    hint = "np.int32(x)" if kind in (_P_SINT, _P_UINT) else "np.float32(x)"
                    raise HostArgumentError(
                        f"{self._param(i)}: got Python {type(arg).__name__} {arg!r}; kernel scalars must be "
                        f"typed NumPy scalars such as {hint} (as with CuPy)")
                if not _scalar_matches(kind, size, arg.dtype):
                    raise HostArgumentError(f"{self._param(i)} does not accept a NumPy {arg.dtype} scalar")
                raw = arg.tobytes()
            ctypes.memmove(base + offset, raw, len(raw))
            ptrs[i] = base + offset
        return buf, ptrs, list(args)

    def __call__(self, grid: Any, block: Any, args: Any, shared_mem: int = 0, stream: Any = None) -> None:
        """Launch synchronously. ``stream`` is accepted for CuPy compatibility and ignored."""
        if _sanitize is not False and (_sanitize is True or HOST_SANITIZE.is_set()) and (
                not self._sanitized_build and sanitize_enabled()):  # the common case costs three tests
            return self._sanitized()(grid, block, args, shared_mem, stream)
        cfg = self._checked_cfg(grid, block, shared_mem, _launch_settings())
        if self._sanitized_build:
            return self._launch_sanitized(cfg, args)
        err = ctypes.create_string_buffer(1024)
        fast = self._fast
        values = _fast_values(fast.kinds, args) if fast is not None and isinstance(args, (tuple, list)) and len(
            args) == len(fast.kinds) else None
        if fast is not None and values is not None:
            with self._lock:
                fast.layout.pack_into(fast.buf, 0, *values)
                rc = self._launch(ctypes.byref(cfg), fast.ptrs, err, len(err))
        else:
            buf, ptrs, keep = self._pack(args)  # checks every argument, with clear errors
            rc = self._launch(ctypes.byref(cfg), ptrs, err, len(err))
            del buf, keep  # the kernel has finished with the arguments
        if rc != 0:
            raise HostKernelError(err.value.decode("utf-8", "replace") or f"kernel '{self.name}' failed")

    def _batch_packer(self, types: tuple[type, ...], args: tuple[Any, ...]) -> _BatchPacker | None:
        """The LaunchQueue packer for arguments of these types (None: such launches run on their own:
        the sanitize build, arguments the checked path must see), made once."""
        packer = None if self._sanitized_build else _batch_packer(self.params, args)
        if len(self._batch_packers) < 64:
            self._batch_packers[types] = packer
        return packer

    def _batch_cfg(self, key: tuple[Any, ...]) -> tuple[_LaunchCfg, int]:
        """A LaunchQueue key's configuration (grid, block, shared_mem, settings), checked as a launch
        of its own checks it (the same errors), and its address."""
        cfg = self._checked_cfg(*key)
        made = (cfg, ctypes.addressof(cfg))
        if type(key[2]) is int and len(self._batch_cfgs) < 256:
            self._batch_cfgs[key] = made
        return made

    def _checked_cfg(self, grid: Any, block: Any, shared_mem: Any, settings: tuple[int, int | None, int]) -> _LaunchCfg:
        """The launch configuration, every dimension and size checked (settings: _launch_settings())."""
        g = _dims("grid", grid, MAX_GRID_DIM)
        b = _dims("block", block, MAX_BLOCK_DIM)
        nthreads = b[0] * b[1] * b[2]
        if nthreads > self.max_threads_per_block:
            bounded = self.max_threads_per_block < MAX_THREADS_PER_BLOCK
            why = "__launch_bounds__" if bounded else "CUDA's limit"
            raise HostLaunchError(f"kernel '{self.name}': block {b} has {nthreads} threads, more than "
                                  f"{self.max_threads_per_block} ({why})")
        if not isinstance(shared_mem, (int, np.integer)) or isinstance(shared_mem, bool) or shared_mem < 0:
            raise HostLaunchError(f"shared_mem must be a non-negative int, got {shared_mem!r}")
        if shared_mem > self._max_dyn:
            raise HostLaunchError(
                f"kernel '{self.name}': shared_mem={int(shared_mem)} bytes exceeds the "
                f"{self._max_dyn}-byte limit (CUDA allows 48 KiB unless max_dynamic_shared_size_bytes "
                f"is raised, at most {MAX_SHARED_MEM - self.shared_size_bytes} here)")
        nblocks = g[0] * g[1] * g[2]
        threads, seed, stack = settings
        return self._cfg(g, b, int(shared_mem), max(1, min(threads, nblocks, 256)), seed, stack)

    def _sanitized(self) -> HostFunction:
        """This kernel in the module's sanitize build (compiled on first use)."""
        twin = self.module.sanitized_twin().get_function(self.name)
        twin.shared_size_bytes = self.shared_size_bytes  # the twin's own count includes its padding
        twin._max_dyn = self._max_dyn
        return twin

    def _launch_sanitized(self, base: _LaunchCfg, args: Any) -> None:
        buf, ptrs, keep = self._pack(args)  # every argument checked
        pointers = [i for i, (kind, _) in enumerate(self.params) if kind == _P_POINTER]
        table, count = _san.buffers(self.param_names, pointers, keep)
        cfg = _LaunchCfg.from_buffer_copy(base)
        cfg.sanitize, cfg.nbuffers, cfg.buffers = 1, count, table
        shared = self.module.shared_vars
        assert shared is not None  # a sanitize build has them
        cfg.nvars, cfg.vars = shared.count, shared.table
        err = ctypes.create_string_buffer(4096)
        rc = self._launch(ctypes.byref(cfg), ptrs, err, len(err))
        del buf, keep
        if rc != 0:
            module = self.module
            message = err.value.decode("utf-8", "replace") or f"kernel '{self.name}' failed"
            source, _, hint = module.origin
            raise HostKernelError(_san.explain(message, module.path, module.source_path, source, f"{hint}.cu"))

    def _cfg(self, g: tuple[int, int, int], b: tuple[int, int, int], shmem: int, workers: int, seed: int | None,
             stack: int) -> _LaunchCfg:
        key = (g, b, shmem, workers, seed, stack)
        cfg = self._cfgs.get(key)
        if cfg is None:
            cfg = _LaunchCfg()
            cfg.grid[:] = g
            cfg.block[:] = b
            cfg.shmem = shmem
            cfg.nworkers = workers
            cfg.random_order = 0 if seed is None else 1
            cfg.seed = 0 if seed is None else seed & 0xFFFFFFFFFFFFFFFF
            cfg.stack_size = stack
            if len(self._cfgs) < 256:
                self._cfgs[key] = cfg
        return cfg


class HostModule:
    """A compiled module; mirrors cupy.RawModule (get_function)."""

    def __init__(self, lib: ctypes.CDLL, api: int, kernels: list[KernelSig], path: Path, source_path: Path, *,
                 sanitized: bool = False, isa: str = host_isa.BASELINE):
        self._lib = lib
        self.path = path
        self.source_path = source_path
        self.isa = isa  # the vector ISA it was compiled for (host_isa.py)
        self.origin: tuple[str, tuple[str, ...], str] = ("", (), "module")  # load_module's arguments
        self.sanitized = sanitized
        # sanitize builds: the static __shared__ variables, from the library's symbols
        self.shared_vars = _san.SharedVars(path) if sanitized else None
        self._twin: HostModule | None = None
        init = lib.opgen_module_init
        init.argtypes = [ctypes.c_void_p]
        init.restype = ctypes.c_int
        if init(api) != ABI_VERSION:
            raise HostBackendError(f"{path}: module/runtime ABI mismatch (rebuild: clear the cache)")
        static = lib.opgen_module_static_smem
        static.restype = ctypes.c_uint64
        self.static_smem = int(static())
        self._functions: dict[str, HostFunction] = {}
        for sig in kernels:
            info = getattr(lib, f"opgen_params_{sig.name}")
            info.argtypes = [ctypes.POINTER(ctypes.c_uint), ctypes.c_int]
            info.restype = ctypes.c_int
            out = (ctypes.c_uint * 256)()
            n = info(out, 256)
            if n > 256:
                out = (ctypes.c_uint * n)()
                info(out, n)
            params = [(int(v) >> 24, int(v) & 0xFFFFFF) for v in out[:n]]
            launch = getattr(lib, f"opgen_launch_{sig.name}")
            launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
            launch.restype = ctypes.c_int
            self._functions[sig.name] = HostFunction(self, sig, launch, params)

    @property
    def kernel_names(self) -> list[str]:
        return list(self._functions)

    def sanitized_twin(self) -> HostModule:
        """The same source and options in the sanitize build."""
        if self.sanitized:
            return self
        if self._twin is None:
            source, options, hint = self.origin
            self._twin = load_module(source, options, hint, sanitize=True, isa=self.isa)
        return self._twin

    def get_function(self, name: str) -> HostFunction:
        try:
            return self._functions[name]
        except KeyError:
            found = ", ".join(sorted(self._functions)) or "none"
            raise HostKernelNotFound(
                f"kernel '{name}' not found in module {self.path.name}; kernels found: {found} "
                '(only `extern "C" __global__ void NAME(...)` definitions are exported)') from None


class LaunchQueue:
    """Launches waiting to run, in order, in one call into the runtime (opgen_rt_run_batch): a
    small launch then costs a few microseconds of Python and no ctypes call of its own. Used by
    one thread (CpuBackend keeps one per thread). Whoever reads or writes the launches' buffers on
    the host calls flush() first; the queue holds the arrays until then."""

    def __init__(self) -> None:
        self._records: list[bytes] = []
        self._keep: list[tuple[Any, ...]] = []  # (fn, args, cfg, grid, block, shared_mem) of each record
        self._settings: tuple[int, int | None, int] | None = None
        self._err = ctypes.create_string_buffer(1024)

    def __len__(self) -> int:
        return len(self._records)

    def add(self, fn: HostFunction, grid: tuple[Any, ...], block: tuple[Any, ...], args: Any,
            shared_mem: Any = 0) -> bool:
        """Queue the launch; False where it must run on its own (fn(...), after a flush): the
        sanitize build, arguments the fast path does not take (the checked path names what is
        wrong), dimensions not plain ints. Raises what the launch would for a bad configuration.
        The hot path of every cpu launch: one struct.pack of the record (opgen_batch_record)."""
        if _sanitize is not False and (_sanitize is True or HOST_SANITIZE.is_set()) and (
                sanitize_enabled()):  # the sanitize build checks each launch's buffers: one at a time
            return False
        if type(args) is not tuple:
            return False
        types = tuple(map(type, args))
        try:
            packer = fn._batch_packers[types]
        except KeyError:
            packer = fn._batch_packer(types, args)
        if packer is None:
            return False
        for v in grid:  # (32.0 == 32 as a key, but is no dimension)
            if type(v) is not int:
                return False
        for v in block:
            if type(v) is not int:
                return False
        settings = self._settings or _launch_settings()  # read once a batch (no change inside a wrapper)
        key = (grid, block, shared_mem, settings)
        made = fn._batch_cfgs.get(key)
        if made is None or type(shared_mem) is not int:
            made = fn._batch_cfg(key)
        if packer.by_object:  # the runtime reads the arguments from the tuple (which _keep keeps alive)
            record = packer.record.pack(fn._launch_addr, made[1], len(args), id(args), *packer.masks)
        else:
            values = list(args)
            for i in packer.arrays:
                arg = args[i]
                if not arg.flags.c_contiguous:
                    return False
                try:  # a writable buffer's address: 4x cheaper than __array_interface__
                    values[i] = ctypes.addressof(ctypes.c_byte.from_buffer(arg))
                except (TypeError, ValueError):  # read-only or empty
                    values[i] = arg.__array_interface__["data"][0]
            for i in packer.nulls:
                values[i] = 0
            record = packer.record.pack(fn._launch_addr, made[1], len(values), 0, 0, 0, 0, *values)
        self._records.append(record)
        self._keep.append((fn, args, made[0], grid, block, shared_mem))
        self._settings = settings
        return True

    def flush(self) -> None:
        """Run the queued launches in order; the first that fails raises its HostKernelError (the
        same message as a launch of its own) and the later ones do not run."""
        records = self._records
        if not records:
            return
        keep = self._keep
        self._records, self._keep, self._settings = [], [], None
        run = _RUNTIME.get("run_batch")
        if run is None:
            _runtime_api()  # (loaded with the first module; here for safety)
            run = _RUNTIME["lib"].opgen_rt_run_batch
            run.argtypes = [ctypes.c_char_p, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
            run.restype = ctypes.c_uint64
            layout = _RUNTIME["lib"].opgen_rt_set_object_layout
            layout.argtypes = [ctypes.c_uint64] * 3
            layout(*_object_layout())  # (not _OBJECT_LAYOUT, which tests set to zeros: by value)
            _RUNTIME["run_batch"] = run
        err, blob, start = self._err, b"".join(records), 0
        while True:
            done = run(blob, len(records) - start, err, len(err))
            if done == len(records) - start:
                return
            at = start + (done & ~_SKIPPED)
            fn = keep[at][0]
            if not done & _SKIPPED:
                raise HostKernelError(err.value.decode("utf-8", "replace") or f"kernel '{fn.name}' failed")
            _, args, _, grid, block, shared_mem = keep[at]  # an array not C-contiguous: the checked
            fn(grid, block, args, shared_mem=shared_mem)  # path names it (and raises), then the rest
            start = at + 1
            blob = b"".join(records[start:])
