"""A package's JAX handler library (issue 34): its `jax_ffi.cpp` (codegen/jaxgen.py prints it) with
the package's drivers (torch_library.drivers_text: every op's `<op>.driver.cpp`; the cpu plan
runner linked in, torch_library.drivers_link) built with the host C++ compiler the cpu backend uses
against XLA's FFI headers (`jax.ffi.include_dir()`), cached on disk like the other native libraries
(host/libraries.py: keyed by source, flags, compiler and target, here also the JAX version), loaded
once per process, its ops bound to their kernels as the cpu backend loads them
(torch_library.bind_cpu) and its handlers registered with `jax.ffi.register_ffi_target`: the cpu
ones always, the CUDA ones where JAX has a CUDA backend (then the library is handed the native cuda
runtime and each op's module is bound on each of JAX's CUDA devices, as the wrappers' cuda path
binds them: native_cuda.py).

A library remembers the JAX and XLA FFI API it was built for (`opgen_jax_built_for()`); one built
for another (a cache shared between environments) is refused by name and rebuilt."""

from __future__ import annotations

import ctypes
import os
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codegen.runtime import diskcache, native_plan, torch_library
from codegen.runtime.host.libraries import _build_or_load
from codegen.runtime.host.state import _LOCK
from codegen.runtime.host.toolchain import _BASE_FLAGS, EMU_DIR, _compiler_command, _target, compiler_id
from codegen.runtime.jax_abi import handler_symbol

NATIVE_DIR = torch_library.NATIVE_DIR  # jax_ffi.h, driver.h

_LOADED: dict[Path, ctypes.CDLL] = {}
_REGISTER_LOCK = threading.Lock()


class JaxLibraryWarning(UserWarning):
    """A cached handler library built for another JAX (refused; rebuilt)."""


def _jax() -> Any:
    import jax

    return jax


def built_for() -> str:
    """What a library built now is for: this JAX and the XLA FFI API of its headers."""
    jax = _jax()
    api = (Path(jax.ffi.include_dir()) / "xla" / "ffi" / "api" / "c_api.h").read_text()
    major, minor = (re.search(rf"#define XLA_FFI_API_{part}\s+(\d+)", api) for part in ("MAJOR", "MINOR"))
    if major is None or minor is None:
        raise RuntimeError(f"cannot read XLA's FFI API version from {jax.ffi.include_dir()}")
    return f"jax {jax.__version__}, XLA FFI API {major.group(1)}.{minor.group(1)}"


def _flags(for_: str) -> list[str]:
    """Ours, XLA's FFI headers (-isystem: not a dependency to digest on every load), the native
    runtime's and the emulation's headers, and what the library says it was built for."""
    return [*_BASE_FLAGS, "-isystem", _jax().ffi.include_dir(), "-I", str(NATIVE_DIR), "-I", str(EMU_DIR),
            f"-DOPGEN_JAX_BUILT_FOR={_c_string(for_)}"]


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def refusal(lib: Any, name: str, expected: str) -> str | None:
    """Why the loaded library `lib` (file `name`) cannot serve this process (None: it can)."""
    try:
        fn = lib.opgen_jax_built_for
    except AttributeError:
        return f"{name}: not an opgen JAX handler library (no opgen_jax_built_for)"
    fn.restype = ctypes.c_char_p
    got = fn().decode()
    return None if got == expected else f"{name}: built for {got}, this process has {expected}"


def _opener(expected: str) -> Callable[[Path], ctypes.CDLL | None]:
    def open_checked(path: Path) -> ctypes.CDLL | None:
        try:
            lib = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError:
            return None
        why = refusal(lib, path.name, expected)
        if why is not None:
            warnings.warn(JaxLibraryWarning(f"{why}: refused, rebuilt"), stacklevel=2)
            return None
        return lib
    return open_checked


def build(source: Path) -> tuple[ctypes.CDLL, Path]:
    """The handler library of the `jax_ffi.cpp` at `source` with its package's drivers (or a test's
    unit beside it: torch_library.DRIVERS), loaded: from this process, the disk cache, or compiled now."""
    expected = built_for()
    text = source.read_text() + torch_library.drivers_text(source)
    link = torch_library.drivers_link(source)
    cmd = _compiler_command()
    flags = _flags(expected)
    key = diskcache.cache_key(text + native_plan.links(link), flags, compiler_id(cmd), f"{_target()} {expected}")
    with _LOCK:
        lib, path, _ = _build_or_load(f"opgen-jax-{source.stem}-{key[:32]}", text, cmd,
                                      flags + [str(path) for path in link], runtime=True,
                                      what=f"the JAX handler library ({source.name})", opener=_opener(expected))
        return lib, path


def cuda_devices() -> list[Any]:
    """JAX's CUDA devices in this process (none: the CPU wheel, or no GPU; the CUDA handlers are
    then not registered)."""
    try:
        return list(_jax().devices("cuda"))
    except RuntimeError:  # ("Unknown backend cuda")
        return []


def bind_cuda(lib: ctypes.CDLL, modules: Sequence[Any], devices: Sequence[Any]) -> None:
    """Hands the library the native cuda runtime and binds each op module's kernels on each of
    JAX's CUDA `devices` (XLA's device ordinal is the CUDA device index the runtime binds by)."""
    from codegen.runtime import cuda_cache, native_cpu, native_cuda, native_plan

    runner = native_cpu.NativeCpu(native_plan.NativePlans(lib))
    native_cuda.hand_runner(lib)
    for device in devices:
        target = cuda_cache.target_for(str(device.compute_capability).replace(".", ""))
        for module in modules:
            native = getattr(module, "_NATIVE", None)
            if native is not None:
                native_cuda.bind(native.op, device.local_hardware_id, native_cuda.module_image(native.kernels, target),
                                 runner.recorder(native.op).symbols)


def load(source: Path, targets: Sequence[tuple[str, str]], modules: Sequence[Any]) -> ctypes.CDLL:
    """`build(source)`, once per process: each op module of `modules` bound to its kernels
    (torch_library.bind_cpu: the launch settings in force now; on JAX's CUDA devices, bind_cuda)
    and each (target, handler stem) of `targets` registered with XLA for the cpu platform, and for
    CUDA where JAX has CUDA devices."""
    with _REGISTER_LOCK:
        found = _LOADED.get(source)
        if found is not None:
            return found
        jax = _jax()
        lib, path = build(source)
        platforms = ["cpu"]
        if modules and torch_library.has_drivers(source):
            torch_library.bind_cpu(path, modules)
            devices = cuda_devices()
            if devices:
                bind_cuda(lib, modules, devices)
                platforms.append("CUDA")
        for platform in platforms:
            for name, stem in targets:
                handler = jax.ffi.pycapsule(getattr(lib, handler_symbol(stem, platform)))
                jax.ffi.register_ffi_target(name, handler, platform=platform, api_version=1)
        _LOADED[source] = lib
        return lib
