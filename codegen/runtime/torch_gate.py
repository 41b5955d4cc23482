"""The packages' C++ Autograd kernel (issue 32): ONE gate library per installed PyTorch
(codegen/runtime/native/torch_autograd_gate.cpp, op-agnostic: no package's content in it) built with
the host C++ compiler against PyTorch's own headers (not the stable ABI: see
codegen/runtime/native/torch_autograd_gate.h), cached on disk like the other native libraries (keyed
by source, flags, compiler, target, PyTorch's version and C++ ABI; built once under the entry's
lock). A package's torch.py, after its stable library, loads it and registers its ops through the
library's `opgen_gate_register` (their helpers' schemas, the gate as their Autograd kernel). Where it
cannot (no compiler, no headers, a compile error, a registration refused, OPGEN_TORCH_AUTOGRAD_GATE=0),
`load` says so once per package and the package keeps its Python Autograd kernels. A compile error is remembered
in the cache (codegen/runtime/torch_build.py): later processes fall back at once."""

from __future__ import annotations

import ctypes
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codegen.runtime import diskcache, torch_build
from codegen.runtime import settings as _settings
from codegen.runtime.host.errors import HostBackendError
from codegen.runtime.host.state import _LOCK
from codegen.runtime.host.toolchain import _BASE_FLAGS, _compiler_command, _target, compiler_id
from codegen.runtime.torch_library import NATIVE_DIR

#: The gate's unit, shared by every package.
SOURCE = NATIVE_DIR / "torch_autograd_gate.cpp"

_WARNED: set[str] = set()
#: (namespace, op) pairs this process has registered: a package's torch module run again (imported
#: under a second name, reloaded) registers nothing twice, as the loaded library did before.
_REGISTERED: set[tuple[str, str]] = set()
_ERROR_SIZE = 2048


class TorchGateUnavailable(RuntimeError):
    """The gate cannot be built here (no PyTorch headers, or torch lacks the Python kernel it hands
    graph-recording calls to)."""


def _flags(torch: Any) -> list[str]:
    root = Path(torch.__file__).resolve().parent
    include = root / "include"
    if not (include / "torch" / "library.h").is_file():
        raise TorchGateUnavailable(f"PyTorch {torch.__version__} has no C++ headers ({include / 'torch'})")
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return [*_BASE_FLAGS, f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-isystem", str(include), "-isystem",
            str(include / "torch" / "csrc" / "api" / "include"), "-I", str(NATIVE_DIR), "-L", str(root / "lib"),
            "-Wl,--no-as-needed", "-ltorch_cpu", "-lc10"]


def build() -> Path:
    """The built gate library: from this process's memory, the disk cache, or compiled now (raises
    HostBackendError or TorchGateUnavailable where it cannot be; a compile error, now or remembered
    from an earlier build of the same key, as TorchGateUnavailable)."""
    import torch

    unit = SOURCE.read_text()
    text = unit + (NATIVE_DIR / "torch_autograd_gate.h").read_text()  # (the key: the header too)
    cmd = _compiler_command()
    flags = _flags(torch)
    key = diskcache.cache_key(text, flags, compiler_id(cmd), f"{_target()} torch {torch.__version__}")
    return torch_build.build(f"opgen-torch-gate-{SOURCE.stem}-{key[:32]}", unit, cmd, flags,
                             f"the PyTorch Autograd kernel ({SOURCE.name})", TorchGateUnavailable)


def load(package: str, namespace: str, helpers: Mapping[str, str]) -> bool:
    """Whether the ops of `package` (`namespace`'s, each op's name mapped to its helper's schema)
    now have the gate as their Autograd kernel (and their helpers' schemas defined): False where
    OPGEN_TORCH_AUTOGRAD_GATE=0, or where the gate cannot be built or registered (one warning per
    package and process, naming why: the caller keeps its Python Autograd kernels)."""
    if not _settings.TORCH_AUTOGRAD_GATE.get():
        return False
    import torch

    lacking = _lacks_builder(torch)
    if lacking:
        return _unavailable(package, lacking)
    ops: Any = torch.ops  # (load_library is unannotated in torch)
    try:
        path = build()
        ops.load_library(str(path))  # (OSError: built, but its symbols do not match this PyTorch)
        _register(path, namespace, helpers)
    except (HostBackendError, TorchGateUnavailable, OSError) as e:
        return _unavailable(package, str(e).splitlines()[0] if str(e) else type(e).__name__)
    return True


def _register(path: Path, namespace: str, helpers: Mapping[str, str]) -> None:
    """The library's `opgen_gate_register` for the ops of `helpers` this process has not registered
    yet (all or none of them; a refusal, a helper defined already say, as TorchGateUnavailable)."""
    with _LOCK:  # (the check too: two threads registering one package would define its helpers twice)
        new = {op: schema for op, schema in helpers.items() if (namespace, op) not in _REGISTERED}
        if not new:
            return
        try:
            register = ctypes.CDLL(str(path)).opgen_gate_register  # (the handle load_library opened)
        except AttributeError as e:  # (a library that is not this gate: refused, not a crash of the import)
            raise TorchGateUnavailable(f"{path.name} lacks opgen_gate_register") from e
        register.restype = ctypes.c_int
        names = (ctypes.c_char_p * len(new))(*(op.encode() for op in new))
        schemas = (ctypes.c_char_p * len(new))(*(schema.encode() for schema in new.values()))
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        if register(namespace.encode(), names, schemas, ctypes.c_size_t(len(new)), error,
                    ctypes.c_size_t(_ERROR_SIZE)) != 0:
            why = error.value.decode(errors="replace").strip().splitlines()
            raise TorchGateUnavailable(f"registering {namespace}'s ops failed: {why[0] if why else 'no message'}")
        _REGISTERED.update((namespace, op) for op in new)


def warm() -> str:
    """`opgen warmup`'s step for the gate library: built into the cache now where a torch module
    would build it on import; what happened, in words ("compiled", "already cached",
    "skipped: why" where there is nothing to build here, "not built: why" where the build failed)."""
    if not _settings.TORCH_AUTOGRAD_GATE.get():
        return "skipped: OPGEN_TORCH_AUTOGRAD_GATE=0 (the Autograd kernels stay in Python)"
    if not _settings.TORCH_NATIVE.get():  # (the Python registration never loads it: ~5 s of compiler spared)
        return "skipped: OPGEN_TORCH_NATIVE=0 (the torch module registers its ops in Python; by default it loads this)"
    try:
        import torch
    except ImportError as e:
        return f"skipped: PyTorch is not installed here ({e})"
    lacking = _lacks_builder(torch)
    if lacking:
        return f"skipped: {lacking}"
    return torch_build.warm(build, TorchGateUnavailable)


def _lacks_builder(torch: Any) -> str | None:
    """Why this PyTorch cannot run the gate's helpers (it lacks the Python kernel they hand
    graph-recording calls to), or None."""
    try:
        from torch._library.autograd import make_autograd_impl  # noqa: F401  (the helpers' kernel)
    except ImportError:
        return f"PyTorch {torch.__version__} lacks torch._library.autograd.make_autograd_impl"
    return None


def _unavailable(package: str, why: str) -> bool:
    if package not in _WARNED:
        _WARNED.add(package)
        warnings.warn(f"opgen: the C++ Autograd kernel of {package}'s torch ops ({SOURCE.name}) is not "
                      f"available ({why}); their Autograd kernels stay in Python (slower grad-mode calls). "
                      "OPGEN_TORCH_AUTOGRAD_GATE=0 keeps them there without this warning.", RuntimeWarning,
                      stacklevel=3)
    return False
