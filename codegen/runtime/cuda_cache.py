"""NVRTC compilation and the on-disk module cache of the cuda backend. Needs no GPU.

Everything here works on a machine with CuPy's NVRTC but no GPU (the compile-only tests run it in
CI); loading the compiled module into a CUDA context is codegen.runtime.cuda's job.

* The generated ``.cu`` is compiled by NVRTC (through CuPy's binding, ``cupy.cuda.nvrtc``) with
  ``-std=c++17``, ``--gpu-architecture=sm_XX`` (the device's arch, so NVRTC emits a cubin: SASS
  needs no JIT and runs on any driver of the same CUDA major version), and the include folders CuPy
  itself gives NVRTC (``cupy._core.core.assemble_cupy_compiler_options``: CuPy's headers, CCCL and
  the CUDA toolkit's ``include``, where ``cuda_fp16.h`` and ``cuda_bf16.h`` live).
* ``cuda_cache_key`` is the one place that decides what makes two builds identical: the rendered
  source, the complete option list (include folders included), the compiler id (NVRTC version and
  a digest of the fp16/bf16 headers the build includes) and the target arch, all through
  ``diskcache.cache_key``.
* Entries live under ``diskcache.cache_root() / "cuda"`` as ``<key>.cubin`` with diskcache's
  checksummed sidecar, through the artifact lifecycle both backends share
  (``codegen/runtime/artifacts.py``): writes are atomic; a missing, truncated or corrupt entry is a
  miss and is rebuilt, never a crash; a miss is compiled under the entry's lock, so processes that
  want the same module at once compile it once; the first compile of a process is announced once on
  the "opgen" logger. A cache that cannot take an entry follows that module's one policy: a folder
  another user could change, or one that cannot be a writable folder (a file in its place, read-only),
  is a ``CudaCacheError``; a full disk or a folder where the entry should be costs the cache, not the
  kernel (compiled and used, with a warning saying what to fix).
* Cubins are stored whole, as NVRTC made them (``full_cubin``; CuPy's ``getCUBIN`` drops the last
  byte), so cuobjdump and other ELF tools read cached entries.

Environment: ``OPGEN_CACHE_DIR`` (cache root; else ``$XDG_CACHE_HOME/opgen``, else
``~/.cache/opgen``), ``OPGEN_CUDA_LINEINFO=1`` (compile with ``--generate-line-info`` so
compute-sanitizer reports source lines; part of the key).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import struct
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from codegen.runtime import diskcache
from codegen.runtime.artifacts import ArtifactCache, CannotKeep, disk_full
from codegen.runtime.settings import CUDA_LINEINFO
from codegen.runtime.stats import counters

CACHE_SUBDIR = "cuda"
STD_OPTION = "-std=c++17"
LINEINFO_OPTION = "--generate-line-info"
LINEINFO_ENV = CUDA_LINEINFO.name
INSTALL_HINT = "pip install 'opgen[cuda13]' for CUDA 13 drivers, 'opgen[cuda12]' for CUDA 12"

# The headers every generated kernel includes: their content is part of the compiler id, so a
# toolkit whose headers changed while NVRTC's version did not still misses the cache.
_KEY_HEADERS = ("cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp")

stats = counters("cuda", ("nvrtc_compiles", "disk_hits", "disk_misses", "disk_corrupt", "disk_writes",
                          "disk_write_errors", "memory_hits", "module_loads"))
"""Counters for tests and diagnostics (this process): stats.py's "cuda"; cuda.py counts the last two."""

_LOCK = threading.RLock()


class CudaBackendError(RuntimeError):
    """Base class of the cuda backend's errors."""


class CudaCacheError(CudaBackendError):
    """The kernel cache folder cannot be used: not a folder, not writable, or writable by other users."""


CACHE = ArtifactCache("cuda", CACHE_SUBDIR, CudaCacheError)


class CudaCompileError(CudaBackendError):
    """NVRTC rejected a kernel source; the message holds NVRTC's log."""

    def __init__(self, message: str, log: str = "", options: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.log = log
        self.options = tuple(options)


def cuda_cache_key(source: str, options: Sequence[str], nvrtc_version: str, arch: str) -> str:
    """THE key of one cuda build: rendered source, every compile option, the compiler id (NVRTC
    version, with the header digest `compiler_id` adds) and the target arch ("sm_90")."""
    return diskcache.cache_key(source, tuple(options), f"nvrtc {nvrtc_version}", arch)


def cache_dir() -> Path:
    return CACHE.folder()


def entry_path(key: str) -> Path:
    return cache_dir() / f"{key}.cubin"


# ----------------------------------------------------------------------------- NVRTC --

def _nvrtc() -> Any:
    """CuPy's NVRTC binding (imported here, never at module import)."""
    try:
        from cupy.cuda import nvrtc
    except ImportError as exc:
        raise CudaBackendError(f"the cuda backend needs CuPy ({INSTALL_HINT}): {exc}") from exc
    return nvrtc


@functools.cache
def nvrtc_version() -> tuple[int, int]:
    try:
        major, minor = _nvrtc().getVersion()
    except CudaBackendError:
        raise
    except Exception as exc:  # a missing libnvrtc shows up as any of several errors
        raise CudaBackendError(f"NVRTC is not usable (is the CUDA runtime compiler installed? CuPy's "
                               f"'[ctk]' extra or the nvidia-cuda-nvrtc wheel provides it): {exc}") from exc
    return int(major), int(minor)


@functools.cache
def supported_archs() -> tuple[int, ...]:
    """The sm_XX values this NVRTC can emit a cubin for (empty if NVRTC cannot say)."""
    nvrtc = _nvrtc()
    try:
        return tuple(int(a) for a in nvrtc.getSupportedArchs())
    except Exception:  # noqa: BLE001 -- old NVRTC or binding: assume the device's arch works
        return ()


@dataclass(frozen=True)
class Target:
    """What NVRTC emits: a cubin for "sm_XX", or PTX for "compute_XX" (a GPU newer than NVRTC)."""

    arch: str
    kind: str  # "cubin" | "ptx"

    @property
    def option(self) -> str:
        return f"--gpu-architecture={self.arch}"


def target_for(compute_capability: str | int) -> Target:
    """The build target for a device of this compute capability ("90" → sm_90, a cubin)."""
    cc = int(compute_capability)
    archs = supported_archs()
    if not archs or cc in archs:
        return Target(f"sm_{cc}", "cubin")
    older = [a for a in archs if a <= cc]
    if not older:
        raise CudaBackendError(f"NVRTC {'.'.join(map(str, nvrtc_version()))} cannot compile for sm_{cc} "
                               f"(it supports {', '.join(f'sm_{a}' for a in archs)})")
    return Target(f"compute_{max(older)}", "ptx")  # the driver JIT-compiles it for the newer GPU


def _has_header(folder: str) -> bool:
    return (Path(folder) / "cuda_fp16.h").is_file()


def _fallback_include_dirs() -> list[str]:
    """CUDA include folders found without CuPy's helper: CuPy's CUDA path, the NVIDIA wheels on
    sys.path, /usr/local/cuda."""
    found: list[str] = []
    try:
        import cupy

        root = cupy.cuda.get_cuda_path()
        if root:
            found.append(str(Path(root) / "include"))
    except Exception:  # noqa: BLE001 -- best effort: the next candidates may do
        pass
    for base in sys.path:
        nvidia = Path(base or ".") / "nvidia"
        if nvidia.is_dir():
            found += sorted(str(p.parent) for p in nvidia.glob("*/include/cuda_fp16.h"))
    found.append("/usr/local/cuda/include")
    return [d for d in dict.fromkeys(found) if _has_header(d)]


@functools.cache
def include_options() -> tuple[str, ...]:
    """The -I options CuPy's RawModule gives NVRTC, so that <cuda_fp16.h> and <cuda_bf16.h>
    resolve exactly as they do for CuPy's own kernels."""
    options: list[str] = []
    try:
        from cupy._core.core import assemble_cupy_compiler_options

        options = [o for o in assemble_cupy_compiler_options((STD_OPTION,)) if o.startswith("-I")]
    except Exception:  # noqa: BLE001 -- private CuPy helper: fall back to our own search below
        options = []
    if not any(_has_header(o[2:]) for o in options):
        options += [f"-I{d}" for d in _fallback_include_dirs()[:1]]
    if not any(_has_header(o[2:]) for o in options):
        raise CudaBackendError(
            "cuda_fp16.h not found: NVRTC needs the CUDA toolkit headers. Install them (CuPy's '[ctk]' "
            "extra, or the nvidia-cuda-runtime wheel) or set CUDA_PATH to a CUDA toolkit.")
    return tuple(options)


@functools.cache
def header_digest() -> str:
    """sha256 of the fp16/bf16 headers NVRTC will find first (part of the compiler id)."""
    h = hashlib.sha256()
    for option in include_options():
        folder = Path(option[2:])
        if _has_header(str(folder)):
            h.update(str(folder).encode())
            for name in _KEY_HEADERS:
                try:
                    h.update((folder / name).read_bytes())
                except OSError:
                    h.update(b"-")
            break
    return h.hexdigest()[:16]


def compiler_id() -> str:
    major, minor = nvrtc_version()
    return f"{major}.{minor} cuda-headers {header_digest()}"


def lineinfo_requested() -> bool:
    return bool(CUDA_LINEINFO.get())


def compile_options(target: Target, *, lineinfo: bool | None = None,
                    include_dirs: Sequence[str] | None = None) -> tuple[str, ...]:
    """Every option given to NVRTC for `target`, in order (all of them are part of the key).

    `lineinfo` (default: OPGEN_CUDA_LINEINFO) and `include_dirs` (default: the folders CuPy gives
    NVRTC, `include_options`) let a tool build the same list for another NVRTC and its headers
    (scripts/nvrtc_compile.py, which compiles every module with NVRTC releases from pip wheels)."""
    extra = (LINEINFO_OPTION,) if (lineinfo_requested() if lineinfo is None else lineinfo) else ()
    includes = include_options() if include_dirs is None else tuple(f"-I{d}" for d in include_dirs)
    return (STD_OPTION, target.option, *extra, *includes)


def compile_source(source: str, name: str, options: Sequence[str], kind: str) -> bytes:
    """One NVRTC compile: the cubin (or PTX) bytes. Errors carry NVRTC's log."""
    nvrtc = _nvrtc()
    prog = nvrtc.createProgram(source, name, (), ())
    try:
        try:
            nvrtc.compileProgram(prog, list(options))
        except nvrtc.NVRTCError as exc:
            log = nvrtc.getProgramLog(prog)
            lines = log.strip().splitlines()
            shown = "\n".join(lines[:80]) + ("\n..." if len(lines) > 80 else "")
            raise CudaCompileError(f"NVRTC could not compile {name} ({exc}):\n{shown}", log, options) from exc
        data = full_cubin(nvrtc, prog) if kind == "cubin" else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    with _LOCK:
        stats["nvrtc_compiles"] += 1
    return bytes(data)


def full_cubin(nvrtc: Any, prog: int) -> bytes:
    """NVRTC's whole cubin. CuPy's ``getCUBIN`` strips a "trailing NUL" as if the cubin were a C
    string, but NVRTC reports a binary ELF's exact size, so CuPy's bytes are one short: the driver
    tolerates that, cuobjdump and other ELF readers do not. So the size and bytes come from the
    libnvrtc CuPy loaded (the same library that made `prog`); where it cannot be reached, the lost
    byte is restored from the ELF's own header (`restore_elf_tail`)."""
    lib = _loaded_libnvrtc()
    if lib is not None:
        size = ctypes.c_size_t(0)
        if lib.nvrtcGetCUBINSize(ctypes.c_void_p(prog), ctypes.pointer(size)) == 0 and size.value > 1:
            buf = ctypes.create_string_buffer(size.value)
            if lib.nvrtcGetCUBIN(ctypes.c_void_p(prog), buf) == 0:
                return buf.raw
    return restore_elf_tail(bytes(nvrtc.getCUBIN(prog)))


@functools.cache
def _loaded_libnvrtc() -> Any:
    """The libnvrtc already in this process (RTLD_NOLOAD: never a second copy), by soname or by
    the path the process mapped it from; None when there is none."""
    try:
        names = [f"libnvrtc.so.{nvrtc_version()[0]}"]
    except CudaBackendError:  # no CuPy: then no libnvrtc of CuPy's either, but look anyway
        names = []
    names += ["libnvrtc.so.11.2", "libnvrtc.so"]
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            names += sorted({line.split()[-1] for line in maps if "/libnvrtc.so" in line})
    except OSError:
        pass
    for name in names:
        try:
            lib = ctypes.CDLL(name, mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        lib.nvrtcGetCUBINSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        lib.nvrtcGetCUBIN.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.nvrtcGetCUBINSize.restype = lib.nvrtcGetCUBIN.restype = ctypes.c_int
        return lib
    return None


def restore_elf_tail(data: bytes) -> bytes:
    """`data` with the byte CuPy's getCUBIN dropped put back, where the ELF header proves which
    byte it was: the file is then exactly one byte shorter than its program or section header
    table's end, and that byte is the top byte of the table's last 8-byte field (p_align or
    sh_entsize), 0 for any real value. Anything else is returned unchanged."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":  # 64-bit little-endian
        return data
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 0x36)
    table_ends = {phoff + phnum * phentsize: phnum > 0 and phentsize == 0x38,  # Elf64_Phdr, Elf64_Shdr sizes
                  shoff + shnum * shentsize: shnum > 0 and shentsize == 0x40}
    if not table_ends.get(len(data) + 1):
        return data
    for i in range(shnum):  # no section's contents may reach the end instead
        at = shoff + i * shentsize
        if at + 0x28 > len(data):
            return data
        (sh_type,) = struct.unpack_from("<I", data, at + 4)
        offset, size = struct.unpack_from("<QQ", data, at + 0x18)
        if sh_type != 8 and offset + size > len(data):  # (8: SHT_NOBITS, no bytes in the file)
            return data
    return data + b"\0"


# ----------------------------------------------------------------------------- cache --

class Artifact(NamedTuple):
    """A compiled module: its bytes and where they came from ("disk" or "nvrtc")."""

    data: bytes
    kind: str
    key: str
    path: Path
    origin: str
    seconds: float


def build_key(source: str, target: Target) -> str:
    return cuda_cache_key(source, compile_options(target), compiler_id(), target.arch)


def _cached(path: Path, key: str, target: Target, start: float) -> Artifact | None:
    """The entry at `path` if it is intact and is this build (a disk hit), else None."""

    def accept(entry: diskcache.Entry) -> Artifact | None:
        if entry.meta.get("key") != key or entry.meta.get("kind") != target.kind:
            return None
        with _LOCK:
            stats["disk_hits"] += 1
        data = restore_elf_tail(entry.data) if target.kind == "cubin" else entry.data  # (older entries)
        return Artifact(data, target.kind, key, path, "disk", time.perf_counter() - start)

    return CACHE.try_load(path, accept)


def load_or_compile(source: str, name: str, target: Target, *, force: bool = False) -> Artifact:
    """The module for `source` from the disk cache, else compiled by NVRTC and stored there. Processes
    that want the same module at once compile it once: the first holds the entry's lock
    (diskcache.entry_lock) while it compiles, the others then find it cached.

    `force` skips the cache read (the caller found the cached bytes unusable) and overwrites it.
    """
    start = time.perf_counter()
    options = compile_options(target)
    key = cuda_cache_key(source, options, compiler_id(), target.arch)
    path = entry_path(key)
    found = None if force else _cached(path, key, target, start)
    if found is not None:
        return found

    def cached() -> Artifact | None:
        if force:
            return None
        found = _cached(path, key, target, start)  # compiled by another process while this one waited
        if found is None:
            with _LOCK:
                stats["disk_misses"] += 1
                if path.exists():
                    stats["disk_corrupt"] += 1
        return found

    def compiled() -> Artifact:
        data = compile_source(source, name, options, target.kind)
        return Artifact(data, target.kind, key, path, "nvrtc", time.perf_counter() - start)

    def make() -> Artifact:
        artifact = compiled()
        meta = {"key": key, "kind": target.kind, "name": name, "arch": target.arch, "nvrtc": compiler_id(),
                "options": list(options)}
        try:
            diskcache.put(path, artifact.data, meta)
        except OSError as exc:
            with _LOCK:
                stats["disk_write_errors"] += 1
            if disk_full(exc):
                raise CannotKeep(str(exc), artifact) from exc
            raise
        with _LOCK:
            stats["disk_writes"] += 1
        return artifact

    def outside(why: str, fix: str) -> Artifact:  # (kept in memory only)
        with _LOCK:
            stats["disk_write_errors"] += 1
        CACHE.warn_outside(path.parent, name, why, fix)
        return compiled()

    return CACHE.build(path, name, cached, make, outside)


def discard(path: Path) -> None:
    """Remove an entry the driver refused to load (it is rebuilt by the caller)."""
    with _LOCK:
        stats["disk_corrupt"] += 1
    diskcache.remove(path)
