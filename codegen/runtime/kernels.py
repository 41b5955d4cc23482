"""The kernel source of one generated op, loaded once per backend on first launch."""

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
