"""Writing generated files: deterministic, only where changed, stale files removed
(PyTorch torchgen's FileManager, ONNX's generated-diff check)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: A file under the output root carries this marker when opgen produced it; only such files are
#: ever removed as stale, so a user's own file in the folder is never deleted.
MARKER = "by opgen — do not edit"
NO_MARKER_FILES = {"py.typed"}


@dataclass
class Plan:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> list[str]:
        return sorted(self.written + self.removed)


def _is_generated(path: Path, rel: str) -> bool:
    if Path(rel).name in NO_MARKER_FILES:
        return True
    try:
        with path.open(encoding="utf-8") as f:
            return MARKER in f.readline()
    except (OSError, UnicodeDecodeError):
        return False


def existing_files(out: Path) -> set[str]:
    if not out.is_dir():
        return set()
    found = set()
    for p in out.rglob("*"):
        if p.is_file() and "__pycache__" not in p.parts:
            rel = p.relative_to(out).as_posix()
            if _is_generated(p, rel):
                found.add(rel)
    return found


def plan(files: dict[str, str], out: Path) -> Plan:
    result = Plan()
    for rel, text in sorted(files.items()):
        target = out / rel
        try:
            same = target.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        (result.unchanged if same else result.written).append(rel)
    result.removed = sorted(existing_files(out) - set(files))
    return result


def apply(files: dict[str, str], out: Path, result: Plan) -> None:
    for rel in result.written:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
        tmp.write_text(files[rel], encoding="utf-8", newline="\n")
        os.replace(tmp, target)
    for rel in result.removed:
        (out / rel).unlink()
        parent = (out / rel).parent
        while parent != out and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
