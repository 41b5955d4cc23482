"""The host backend's artifacts: shared libraries compiled from a module's translation unit (or from
the emulation runtime), kept in the disk cache's "host" folder through the lifecycle both backends
share (codegen/runtime/artifacts.py: its module doc states the policy for a cache that cannot take
an entry), loaded with ctypes; and the runtime itself, loaded once per process."""

from __future__ import annotations

import atexit
import ctypes
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codegen.runtime import abi_layout, diskcache
from codegen.runtime.artifacts import DISK_FULL_TEXT, ArtifactCache, CannotKeep
from codegen.runtime.host_command import emu_digest

from . import smem_spans
from .errors import HostBackendError, HostCacheError, HostCompileError
from .limits import ABI_VERSION, MAX_SHARED_MEM
from .state import _LOCK, stats
from .toolchain import (
    _BASE_FLAGS,
    EMU_DIR,
    RUNTIME_SOURCE,
    _compiler_command,
    _run_compiler,
    _target,
    compiler_id,
    compiler_version,
)

CACHE = ArtifactCache("cpu", "host", HostCacheError)
_RUNTIME: dict[str, Any] = {}
_PRIVATE_DIRS: list[str] = []  # folders of builds the cache could not take, removed at exit


def _host_dir() -> Path:
    return CACHE.folder()


def cache_dir() -> Path:
    """Where the host-compiled modules are cached (under diskcache.cache_root())."""
    return _host_dir()


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


Opener = Callable[[Path], Any]  # a built library's path -> the loaded library, None when it cannot load


def file_present(path: Path) -> Path | None:
    """The opener of a file that must not be opened here (a PyTorch library, whose opening registers
    its ops; an object file that libraries link): "loaded" means the file is there."""
    return path if path.is_file() else None


def _load_cached(so_path: Path, runtime: bool, opener: Opener = _dlopen) -> Any:
    """The cached library at `so_path` if it is intact, current and loads (`opener`); else None."""

    def accept(entry: diskcache.Entry) -> ctypes.CDLL | None:
        if not _deps_unchanged(entry.meta):
            return None
        lib = opener(so_path)
        if lib is None:
            diskcache.remove(so_path)  # checksum fine yet unloadable: drop it
        elif not runtime:
            stats["disk_hits"] += 1
        return lib

    return CACHE.try_load(so_path, accept)


def _build_or_load(stem: str, tu: str, cmd: list[str], flags: list[str], *, runtime: bool, what: str | None = None,
                   opener: Opener = _dlopen, suffix: str = ".so") -> tuple[Any, Path, Path]:
    """``<stem>.so`` from the disk cache if intact, else compiled (once, when several processes want
    it at the same time: the entry's lock); returns the library, its path and its source's path.
    `runtime`: a plain C++ library (the emulation runtime, the native plans: `.cpp`, no kernel-module
    statistics); `what` names it in the first-compile message. `opener`: what "loaded" means (ctypes by
    default; a library that must not be opened here, PyTorch's, checks only that the file is there).
    `suffix`: the built file's (".o" with `-c` in `flags`: an object that libraries link in)."""
    folder = _host_dir()
    so_path = folder / f"{stem}{suffix}"
    src_path = folder / (f"{stem}.cpp" if runtime else f"{stem}.cu")

    def cached() -> tuple[Any, Path, Path] | None:
        lib = _load_cached(so_path, runtime, opener)
        return None if lib is None else (lib, so_path, src_path)

    def make() -> tuple[Any, Path, Path]:
        try:
            return _build_in_cache(stem, tu, cmd, flags, runtime, so_path, src_path, opener), so_path, src_path
        except HostCompileError as e:  # the compiler could not write its output: the disk is full
            full = next((text for text in DISK_FULL_TEXT if text in e.stderr), None)
            if full is None:
                raise
            raise CannotKeep(full.lower()) from e

    def outside(why: str, fix: str) -> tuple[Any, Path, Path]:
        return _build_private(stem, tu, cmd, flags, runtime, folder, why, fix, opener, suffix)

    found = cached()
    if found is not None:
        return found
    what = what or ("the emulation runtime" if runtime else stem.rsplit("-", 1)[0])
    return CACHE.build(so_path, what, cached, make, outside, also=(src_path,))


def _compile(cmd: list[str], flags: list[str], src: Path, out: Path, dep: Path | None, runtime: bool) -> None:
    """The compiler's run; for a kernel module, then the shared memory each kernel can touch written
    into it (smem_spans.py, from the compiler's dump)."""
    if runtime:
        _run_compiler(cmd, flags, src, out, dep)
        return
    dump = out.with_name(out.name + ".gimple")
    _run_compiler(cmd, flags, src, out, dep, smem_spans.dump_flags(compiler_version(cmd), dump))
    smem_spans.patch(out, dump)


def _build_in_cache(stem: str, tu: str, cmd: list[str], flags: list[str], runtime: bool, so_path: Path,
                    src_path: Path, opener: Opener = _dlopen) -> Any:
    """Compile into the cache (missing, corrupt or stale: rebuilt and overwritten) and load it."""
    folder = so_path.parent
    diskcache.write_atomic(src_path, tu.encode())
    with tempfile.TemporaryDirectory(dir=folder, prefix=f".{stem}.") as tmp:
        out = Path(tmp) / "out.so"
        dep = Path(tmp) / "out.d"
        stats["runtime_compiles" if runtime else "compiles"] += 1
        _compile(cmd, flags, src_path, out, dep, runtime)
        data = out.read_bytes()
        deps = _read_deps(dep, src_path)
    diskcache.put(so_path, data, {"deps": deps, "compiler": shlex.join(cmd), "flags": flags})
    lib = opener(so_path)
    if lib is None:  # another process replaced or removed it meanwhile: load a private copy
        fd, private = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".so")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            lib = opener(Path(private))
        finally:
            os.unlink(private)  # the mapping stays valid
        if lib is None:
            raise HostBackendError(f"freshly built {so_path} cannot be loaded")
    return lib


def _build_private(stem: str, tu: str, cmd: list[str], flags: list[str], runtime: bool, folder: Path, why: str,
                   fix: str, opener: Opener = _dlopen, suffix: str = ".so") -> tuple[Any, Path, Path]:
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
    CACHE.warn_outside(folder, stem, why, fix, where=str(tmp))
    so_path = tmp / f"{stem}{suffix}"
    src_path = tmp / (f"{stem}.cpp" if runtime else f"{stem}.cu")
    try:
        src_path.write_bytes(tu.encode())
    except OSError as e:
        raise HostCacheError(f"cannot compile {stem}: the kernel cache at {folder} cannot take it ({why}), nor "
                             f"can the temporary folder {tmp} ({e}). {fix}") from e
    stats["runtime_compiles" if runtime else "compiles"] += 1
    _compile(cmd, flags, src_path, so_path, None, runtime)
    lib = opener(so_path)
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
        src = RUNTIME_SOURCE.read_text() + "\n// emu " + emu_digest() + "\n"
        key = diskcache.cache_key(src, flags, compiler_id(cmd), _target())
        lib, _, _ = _build_or_load(f"opgen-emu-rt-{key[:32]}", src, cmd, flags, runtime=True)
        lib.opgen_rt_get_api.restype = ctypes.c_void_p
        lib.opgen_rt_get_api.argtypes = []
        _check_layouts(lib)
        _RUNTIME["lib"] = lib
        _RUNTIME["api"] = lib.opgen_rt_get_api()
        return _RUNTIME["api"]


def _check_layouts(lib: Any) -> None:
    """The structs Python fills in, as the runtime itself lays them out (sizeof/offsetof, from
    opgen_rt_abi_layout), and the limits Python enforces for it (opgen_rt_constants): a struct or
    limit changed on one side only is an error naming the field or limit, not arguments read from
    the wrong place or shared memory that Python allows past the runtime's."""
    from codegen.runtime.host_sanitize import SanRange

    from .blas import GemmDesc
    from .pack import BATCH_LANE_RECORD, BATCH_LANE_RECORD_FIELDS, _LaunchCfg

    try:
        abi_layout.check(abi_layout.runtime_text(lib), {
            "opgen_launch_cfg": abi_layout.ctypes_layout(_LaunchCfg),
            "opgen_batch_record": abi_layout.struct_layout(BATCH_LANE_RECORD, BATCH_LANE_RECORD_FIELDS),
            "opgen_san_range": abi_layout.ctypes_layout(SanRange),
            "opgen_gemm_desc": abi_layout.ctypes_layout(GemmDesc)})
        abi_layout.check_constants(abi_layout.runtime_text(lib, "opgen_rt_constants"), {
            "abi_version": ABI_VERSION, "max_shared_mem": MAX_SHARED_MEM})
    except abi_layout.AbiLayoutError as exc:
        raise HostBackendError(f"the emulation runtime does not match this Python: {exc}") from None
