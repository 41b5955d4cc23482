"""A package's PyTorch library (issue 32): its `torch_native.cpp` (codegen/torch_native.py prints it)
built with the host C++ compiler the cpu backend uses against PyTorch's stable ABI, on demand, and
cached on disk like the other native libraries (codegen/runtime/host/libraries.py: keyed by source,
flags, compiler and target, here also the installed PyTorch and the ABI the library targets; built
once under the entry's lock). It is built, never opened with ctypes before `torch.ops.load_library`
has loaded it: loading it registers the package's schemas. The package's torch.py loads it by
default (`register`), or registers its ops in Python where it cannot be built.

The library targets the stable ABI of the oldest PyTorch opgen supports (TORCH_TARGET_VERSION), so
one binary serves every tested version; it links libtorch_cpu by its unversioned name and finds
PyTorch's CUDA symbols at run time (a CPU-only PyTorch loads it)."""

from __future__ import annotations

import ctypes
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codegen.runtime import diskcache, native_plan, self_bind, torch_build
from codegen.runtime import settings as _settings
from codegen.runtime.artifacts import announce
from codegen.runtime.host.errors import HostBackendError
from codegen.runtime.host.libraries import cache_dir
from codegen.runtime.host.toolchain import _BASE_FLAGS, EMU_DIR, _compiler_command, _target, compiler_id

#: The oldest PyTorch whose stable ABI the library is built for (major, minor).
TARGET = (2, 11)
NATIVE_DIR = Path(__file__).resolve().parent / "native"  # torch_stable.h, driver.h

#: A package's drivers: its ops' generated `<op>.driver.cpp`, compiled into the library with it.
DRIVER_FILES = "*.driver.cpp"

_WARNED: set[str] = set()


class TorchLibraryError(RuntimeError):
    """A PyTorch that cannot take the library (older than TARGET), or a compile error (now, or
    remembered from an earlier build of the same key: codegen/runtime/torch_build.py)."""


def target_version() -> int:
    """TORCH_TARGET_VERSION as torch/csrc/stable/version.h encodes it: major and minor in the top bytes."""
    return (TARGET[0] << 56) | (TARGET[1] << 48)


def _torch() -> Any:
    import torch

    found = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
    if found < TARGET:
        raise TorchLibraryError(f"opgen's PyTorch library needs PyTorch >= {TARGET[0]}.{TARGET[1]} (its stable ABI); "
                                f"this is PyTorch {torch.__version__}")
    return torch


def _flags(torch: Any) -> list[str]:
    """Ours, the target ABI, PyTorch's headers (-isystem: not a dependency to digest on every load),
    the native runtime's and the emulation's headers, and PyTorch's libraries (--no-as-needed: the
    compiler puts them before the source); TorchLibraryError where PyTorch has no headers."""
    root = Path(torch.__file__).resolve().parent
    if not (root / "include" / "torch" / "csrc" / "stable" / "library.h").is_file():  # (not a compile error)
        raise TorchLibraryError(f"PyTorch {torch.__version__} has no C++ headers ({root / 'include' / 'torch'})")
    return [*_BASE_FLAGS, f"-DTORCH_TARGET_VERSION=0x{target_version():016x}", "-isystem", str(root / "include"),
            "-I", str(NATIVE_DIR), "-I", str(EMU_DIR), "-L", str(root / "lib"), "-Wl,--no-as-needed", "-ltorch_cpu",
            "-lc10"]


def drivers_text(source: Path) -> str:
    """The drivers compiled into the library of the registration at `source`: every op's generated
    `<op>.driver.cpp` in its package; empty where there are none (the plan's runtime: `drivers_link`)."""
    files = sorted(source.parent.rglob(DRIVER_FILES))
    return "".join(f.read_text() + "\n" for f in files)


def drivers_link(source: Path) -> list[Path]:
    """What the library of the registration at `source` links besides its unit: the plan's runtime,
    compiled once (native_cpu.runner_object; the library has its own copy), where it has drivers."""
    from codegen.runtime.native_cpu import runner_object

    return [runner_object()] if has_drivers(source) else []


def has_drivers(source: Path) -> bool:
    return any(source.parent.rglob(DRIVER_FILES))


def package_ops(source: Path) -> list[Any]:
    """The op modules whose generated drivers the library of the registration at `source` carries."""
    files = sorted(source.parent.rglob(DRIVER_FILES))
    return self_bind.op_modules([f.with_name(f.name.removesuffix(".driver.cpp") + ".py") for f in files])


def companions(source: Path) -> list[Path]:
    """The files the library of the registration at `source` opens beside it to bind its ops itself
    (self_bind.py): ship them with it, in its folder."""
    return self_bind.companions(package_ops(source))


def headers_stamp() -> str:
    """The native runtime's and the emulation's headers, for the library's key: a build remembers the
    headers it read, but a remembered compile error (torch_build's `.failed` marker) is found by the
    key alone, so a fixed header must make another key to be retried."""
    from codegen.runtime.host_command import emu_digest

    return f"\n// native {native_plan.folder_digest(NATIVE_DIR)}\n// emu {emu_digest()}"


def build(source: Path) -> Path:
    """The built library of the registration at `source` (with the package's drivers, when it has
    them, and the host form of their kernels, which it binds itself: self_bind.py): from this
    process's memory, the disk cache, or compiled now."""
    torch = _torch()
    ops = package_ops(source)
    text = source.read_text() + drivers_text(source) + (self_bind.unit(ops) if ops else "")
    link = drivers_link(source)
    cmd = _compiler_command()
    flags = _flags(torch)
    key = diskcache.cache_key(text + native_plan.links(link) + headers_stamp(), flags, compiler_id(cmd),
                              f"{_target()} torch {torch.__version__}")
    return torch_build.build(f"opgen-torch-{source.stem}-{key[:32]}", text, cmd, flags + [str(path) for path in link],
                             f"the PyTorch library ({source.name})", TorchLibraryError,
                             before_compile=lambda: _announce(source))


def _announce(source: Path) -> None:
    """Says (on opgen's logger) that the library is compiled now: a first import takes a minute."""
    announce(f"torch library {source}", "opgen: building %s's PyTorch library (%s, with every op's native "
             "driver and kernels): a first import takes about a minute of compiler, once: it is cached in %s. "
             "`opgen warmup --device cpu` builds it ahead; OPGEN_TORCH_NATIVE=0 registers the ops in Python "
             "instead; logging.getLogger('opgen').setLevel(logging.ERROR) silences this message.",
             source.parent.name, source.name, cache_dir(), covers=("cpu",))


def register(source: Path, modules: Sequence[Any] = ()) -> Path | None:
    """`build(source)`, loaded into this process with `torch.ops.load_library` (its schemas and
    kernels registered), its path returned. With the package's drivers in it, each op module of
    `modules` is bound to its kernels as the cpu backend loads them (codegen/runtime/native_cpu.py:
    the settings this process set, the sanitize build, watched launches; the library's own binding,
    self_bind.py, serves a process without opgen's Python), so its calls run natively. None, and the
    caller (the package's torch.py) registers its ops in Python, where OPGEN_TORCH_NATIVE=0 or where
    the library cannot be built or loaded here (no compiler, a PyTorch too old or without its
    headers, a compile error), which warns once, naming what it needs."""
    if not _settings.TORCH_NATIVE.get():
        return None
    try:
        path = build(source)
        ops: Any = _torch().ops  # (load_library is unannotated in torch)
        ops.load_library(str(path))  # (OSError: built, but its symbols do not match this PyTorch)
    except (HostBackendError, TorchLibraryError, OSError) as e:
        _unavailable(source, str(e).splitlines()[0] if str(e) else type(e).__name__)
        return None
    set_output_pool(path, _settings.TORCH_OUTPUT_POOL.get())
    with_drivers = {id(module) for module in package_ops(source)}  # (an op without one: its Python helper runs it)
    bound = [module for module in modules if id(module) in with_drivers]
    if bound:
        bind_cpu(path, bound)
    return path


def _unavailable(source: Path, why: str) -> None:
    if str(source) not in _WARNED:
        _WARNED.add(str(source))
        warnings.warn(f"opgen: the native PyTorch library of {source.parent.name}'s torch ops ({source.name}) cannot "
                      f"be built here ({why}); they are registered in Python instead (the same ops, slower calls). "
                      "It needs a C++ compiler (g++ or clang++, or CXX) and a PyTorch >= "
                      f"{TARGET[0]}.{TARGET[1]} with its C++ headers; OPGEN_TORCH_NATIVE=0 registers them in "
                      "Python without this warning.", RuntimeWarning, stacklevel=3)


def enable_python_path(path: Path) -> None:
    """Tells the loaded library at `path` that the package's torch.py has defined its ops' Python
    helpers: a call a driver hands back (OPGEN_ERR_FALLBACK) now runs there instead of being refused."""
    ctypes.CDLL(str(path)).opgen_torch_enable_python_path()  # (the loaded handle)


def set_output_pool(path: Path, on: bool) -> bool:
    """Turns the output pool of the loaded library at `path` on or off (its large cpu outputs reused
    across calls: native/host_output_pool.h); whether it was on."""
    return bool(ctypes.CDLL(str(path)).opgen_torch_output_pool(int(on)))


def output_pool_bytes(path: Path) -> int:
    """What the output pool of the loaded library at `path` holds idle, in bytes."""
    fn = ctypes.CDLL(str(path)).opgen_torch_output_pool_bytes
    fn.restype = ctypes.c_size_t
    return int(fn())


def warm(source: Path) -> str:
    """`opgen warmup`'s step for the library of the registration at `source`: built into the cache
    now where a torch module would build it on import; what happened, in words."""
    if not _settings.TORCH_NATIVE.get():
        return "skipped: OPGEN_TORCH_NATIVE=0 (the torch module registers its ops in Python)"
    try:
        import torch  # noqa: F401
    except ImportError as e:
        return f"skipped: PyTorch is not installed here ({e})"
    return torch_build.warm(lambda: build(source), TorchLibraryError)


def bind_cpu(path: Path, modules: Sequence[Any]) -> None:
    """Binds the plans of the op `modules` (their `_KERNELS`, `_PLAN`; a module without a launch plan
    has no driver) in the library at `path`."""
    from codegen.runtime import native_cpu, native_plan
    from codegen.runtime.plan import Plan
    from codegen.runtime.scope import Scope, backend_of

    runner = native_cpu.NativeCpu(native_plan.NativePlans(ctypes.CDLL(str(path))))  # (the loaded handle)
    backend = backend_of(Scope("cpu"), "the PyTorch library")
    for module in modules:
        if isinstance(getattr(module, "_PLAN", None), Plan):
            runner.bind(module._KERNELS, module._PLAN, backend)
