"""The kernel source of one generated op, loaded once per backend on first launch; and the rule
that names its entry points (`Op__kernel__dtype...`), in this one place for the generator
(naming.kernel_symbol) and the runtime (launches.py reads a symbol back)."""

from __future__ import annotations

from pathlib import Path


class KernelSource:
    """A generated `.cu` file. Reading and compiling happen on first use, never at import."""

    def __init__(self, op: str, path: Path, text: str | None = None):
        """`text`: a module the runtime makes itself (`path` then only names it: never read)."""
        self.op, self.path = op, path
        self._text: str | None = text

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.path.read_text(encoding="utf-8")
        return self._text

    def __repr__(self) -> str:
        return f"KernelSource({self.op!r}, {self.path.name!r})"


def kernel_symbol(op: str, kernel: str, specialization: tuple[str, ...]) -> str:
    """The extern "C" entry point of one kernel instantiation, the same on every backend:
    FusedBatchNormGradV3__channel_sums__float32."""
    return "__".join((op, kernel, *specialization))


def symbol_parts(symbol: str) -> tuple[str, str, tuple[str, ...]]:
    """(op, kernel, dtype names) of an entry point `kernel_symbol` named; a symbol of another form
    (the runtime's own kernels): (it, it, ())."""
    parts = symbol.split("__")
    return (parts[0], parts[1], tuple(parts[2:])) if len(parts) > 1 else (symbol, symbol, ())
