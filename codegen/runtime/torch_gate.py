"""A package's C++ Autograd kernel (issue 32): its `torch_autograd_gate.cpp`
(codegen/torch_autograd_gate.py prints it) built with the host C++ compiler against the installed
PyTorch's own headers (not the stable ABI: see codegen/runtime/native/torch_autograd_gate.h), cached
on disk like the other native libraries (keyed by source, flags, compiler, target, PyTorch's version
and C++ ABI; built once under the entry's lock), and loaded by the package's torch.py after its stable
library. Where it cannot be (no compiler, no headers, a compile error, OPGEN_TORCH_AUTOGRAD_GATE=0),
`load` says so once and the package keeps its Python Autograd kernels. A compile error is remembered
in the cache (codegen/runtime/torch_build.py): later processes fall back at once."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from codegen.runtime import diskcache, torch_build
from codegen.runtime import settings as _settings
from codegen.runtime.host.errors import HostBackendError
from codegen.runtime.host.state import _LOCK
from codegen.runtime.host.toolchain import _BASE_FLAGS, _compiler_command, _target, compiler_id
from codegen.runtime.torch_library import NATIVE_DIR

_BUILT: dict[str, Path] = {}
_WARNED: set[str] = set()


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


def build(source: Path) -> Path:
    """The built gate of the unit at `source`: from this process's memory, the disk cache, or
    compiled now (raises HostBackendError or TorchGateUnavailable where it cannot be; a compile
    error, now or remembered from an earlier build of the same key, as TorchGateUnavailable)."""
    import torch

    unit = source.read_text()
    text = unit + (NATIVE_DIR / "torch_autograd_gate.h").read_text()  # (the key: the header too)
    cmd = _compiler_command()
    flags = _flags(torch)
    key = diskcache.cache_key(text, flags, compiler_id(cmd), f"{_target()} torch {torch.__version__}")
    stem = f"opgen-torch-gate-{source.stem}-{key[:32]}"
    with _LOCK:
        found = _BUILT.get(key)
        if found is None or not found.is_file():
            found = torch_build.build(stem, unit, cmd, flags, f"the PyTorch Autograd kernel ({source.name})",
                                      TorchGateUnavailable)
            _BUILT[key] = found
        return found


def load(source: Path) -> bool:
    """Whether the gate of the unit at `source` is now loaded (its Autograd kernels and helper
    schemas registered): False where OPGEN_TORCH_AUTOGRAD_GATE=0, or where it cannot be built (one
    warning per unit and process, naming why: the caller keeps its Python Autograd kernels)."""
    if not _settings.TORCH_AUTOGRAD_GATE.get():
        return False
    import torch

    lacking = _lacks_builder(torch)
    if lacking:
        return _unavailable(source, lacking)
    ops: Any = torch.ops  # (load_library is unannotated in torch)
    try:
        ops.load_library(str(build(source)))  # (OSError: built, but its symbols do not match this PyTorch)
    except (HostBackendError, TorchGateUnavailable, OSError) as e:
        return _unavailable(source, str(e).splitlines()[0] if str(e) else type(e).__name__)
    return True


def warm(source: Path) -> str:
    """`opgen warmup`'s step for the gate of the unit at `source`: built into the cache now where a
    torch module would build it on import; what happened, in words ("compiled", "already cached",
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
    return torch_build.warm(lambda: build(source), TorchGateUnavailable)


def _lacks_builder(torch: Any) -> str | None:
    """Why this PyTorch cannot run the gate's helpers (it lacks the Python kernel they hand
    graph-recording calls to), or None."""
    try:
        from torch._library.autograd import make_autograd_impl  # noqa: F401  (the helpers' kernel)
    except ImportError:
        return f"PyTorch {torch.__version__} lacks torch._library.autograd.make_autograd_impl"
    return None


def _unavailable(source: Path, why: str) -> bool:
    if str(source) not in _WARNED:
        _WARNED.add(str(source))
        warnings.warn(f"opgen: the C++ Autograd kernel of {source.parent.name}'s torch ops ({source.name}) is not "
                      f"available ({why}); their Autograd kernels stay in Python (slower grad-mode calls). "
                      "OPGEN_TORCH_AUTOGRAD_GATE=0 keeps them there without this warning.", RuntimeWarning,
                      stacklevel=3)
    return False
