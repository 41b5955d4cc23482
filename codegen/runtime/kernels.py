"""The kernel source of a generated op, loaded once per backend on first launch, and the rule that
names its entry points (`Op__kernel__dtype...`), in this one place for the generator
(naming.kernel_symbol) and the runtime (launches.py reads a symbol back). Ops that share a kernel
template share one generated module (codegen/modules.py): their KernelSources hold the same
ModuleFile, which the backends key their loaded modules by, so the second op reuses the first's."""

from __future__ import annotations

import re
import threading
from pathlib import Path


class ModuleFile:
    """One generated `.cu`, read on first use (never at import), shared by every op naming it."""

    def __init__(self, path: Path, text: str | None = None):
        self.path = path
        self._text = text
        self.read_as: tuple[int, int] | None = None  # the file's (mtime, size) when read

    @property
    def text(self) -> str:
        if self._text is None:
            self.read_as = _stamp(self.path)
            self._text = self.path.read_text(encoding="utf-8")
        return self._text

    def __repr__(self) -> str:
        return f"ModuleFile({self.path.name!r})"


_FILES: dict[Path, ModuleFile] = {}  # by absolute path: the wrappers of one module's ops find one object
_LOCK = threading.Lock()


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def module_file(path: Path) -> ModuleFile:
    """The process's one ModuleFile for the module at `path`: a new one where the file changed since
    it was read (a package regenerated and its wrappers imported again in one process)."""
    key = path.absolute()
    with _LOCK:
        found = _FILES.get(key)
        if found is None or (found.read_as is not None and found.read_as != _stamp(key)):
            found = _FILES[key] = ModuleFile(key)
        return found


class KernelSource:
    """An op's kernels: its name (for messages) and the generated module that holds them."""

    def __init__(self, op: str, path: Path, text: str | None = None):
        """`text`: a module the runtime makes itself (`path` then only names it: never read)."""
        self.op = op
        self.module = ModuleFile(path, text) if text is not None else module_file(path)

    @property
    def path(self) -> Path:
        return self.module.path

    @property
    def text(self) -> str:
        return self.module.text

    def __repr__(self) -> str:
        return f"KernelSource({self.op!r}, {self.path.name!r})"


def kernel_symbol(op: str, kernel: str, specialization: tuple[str, ...]) -> str:
    """The extern "C" entry point of one kernel instantiation, the same on every backend:
    FusedBatchNormGradV3__channel_sums__float32."""
    return "__".join((op, kernel, *specialization))


def c_name(op: str) -> str:
    """The op's part of its native C function names (opgen_plan_<Op>, opgen_call_<Op>: drivergen and
    torch_native print them, the loaders find them)."""
    return re.sub(r"\W", "_", op, flags=re.ASCII)


def symbol_parts(symbol: str) -> tuple[str, str, tuple[str, ...]]:
    """(op, kernel, dtype names) of an entry point `kernel_symbol` named; a symbol of another form
    (the runtime's own kernels): (it, it, ())."""
    parts = symbol.split("__")
    return (parts[0], parts[1], tuple(parts[2:])) if len(parts) > 1 else (symbol, symbol, ())
