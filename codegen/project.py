"""A project of opgen ops: where its specs and templates are, where its generated package goes, the
package's import name and its torch namespace. Read from `[tool.opgen]` in the project's
pyproject.toml (see `find_project`), overridden by command-line flags.

Everything that names the generated package (wrappers, the torch registration, docs, `#line`
paths) takes it from here, never from a constant: a user's package is theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    root: Path  # the folder holding the project's pyproject.toml (or the current directory)
    specs: Path  # the spec folder (absolute)
    templates: tuple[Path, ...]  # the project's template folders (absolute), searched before the built-ins
    out: Path  # the generated package's folder (absolute)
    package: str  # its import name ("generated" for opgen's own ops)
    torch_namespace: str  # torch.ops.<namespace>.<op> (default: the package name)

    def relative(self, path: Path) -> str:
        """`path` as the generated files and messages show it: relative to the project's root when it
        lies under it (POSIX separators), else as given."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()
