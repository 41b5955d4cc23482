"""The Python wrappers' front-end to the native drivers: the `opgen_native_front` extension
(codegen/runtime/native/pyentry.cpp), built with the host C++ compiler against this Python's and
NumPy's headers, cached like the other host libraries (keyed by source, flags, compiler, target and
the Python and NumPy it was built for), loaded once per process.

`extension()` returns the loaded module (its `call(driver, inputs, attrs, device, poison)` is what a
wrapper calls), or None when it cannot be built here (no Python headers, no compiler): the
wrappers then run their Python body, warned once."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import sysconfig
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from codegen.runtime import diskcache
from codegen.runtime.host.errors import HostBackendError, HostCompileError, HostCompilerNotFound
from codegen.runtime.host.libraries import _build_or_load
from codegen.runtime.host.state import _LOCK
from codegen.runtime.host.toolchain import _compiler_command, _target, compiler_id

NATIVE_DIR = Path(__file__).resolve().parent / "native"
SOURCE = NATIVE_DIR / "pyentry.cpp"
MODULE_NAME = "opgen_native_front"

#: driver.h's opgen_dtype order: the NumPy dtype names the outputs are made with
DTYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64")
#: driver.h's OPGEN_DRIVER_ABI (the extension states its own; a mismatch is refused)
DRIVER_ABI = 1

# No -Wl,-z,defs: an extension's Python symbols resolve against the interpreter when it is imported.
_FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC", "-fvisibility=hidden", "-Wno-unknown-pragmas")

_LOADED: dict[str, Any] = {}


class NativeFrontError(HostBackendError):
    """The extension could not be built or does not match this runtime."""


def _numpy_dtype(name: str) -> Any:
    if name != "bfloat16":
        return np.dtype(name)
    try:  # bfloat16 is ml_dtypes' where installed (the runtime's dtype for it)
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def _build() -> ModuleType:
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        raise NativeFrontError(f"Python.h is not in {include}: install this Python's development headers "
                               "(e.g. the python3-dev package) for the native call path")
    cmd = _compiler_command()
    flags = [*_FLAGS, "-I", str(NATIVE_DIR), "-I", include, "-I", np.get_include()]
    source = SOURCE.read_text() + f"\n// python {sys.version} numpy {np.__version__}\n"
    key = diskcache.cache_key(source, flags, compiler_id(cmd), _target())
    _, so_path, _ = _build_or_load(f"opgen-front-{key[:32]}", source, cmd, flags, runtime=True,
                                   what="the native call path's Python extension")
    loader = importlib.machinery.ExtensionFileLoader(MODULE_NAME, str(so_path))
    spec = importlib.util.spec_from_file_location(MODULE_NAME, so_path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    if module.abi() != DRIVER_ABI:
        raise NativeFrontError(f"{so_path.name} states driver ABI {module.abi()}, this runtime reads {DRIVER_ABI}")
    module.init(tuple(_numpy_dtype(name) for name in DTYPES))
    return module


def extension() -> Any:
    """The loaded extension, or None where it cannot be built (warned once, with why)."""
    found = _LOADED.get("module", False)
    if found is not False:
        return found
    with _LOCK:
        if "module" not in _LOADED:
            try:
                _LOADED["module"] = _build()
            except (NativeFrontError, HostCompileError, HostCompilerNotFound) as e:
                warnings.warn(f"opgen: the native call path is off ({e}); the wrappers run their Python path",
                              RuntimeWarning, stacklevel=3)
                _LOADED["module"] = None
        return _LOADED["module"]
