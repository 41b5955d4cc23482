"""Writing generated files: deterministic, only where changed, stale files removed
(PyTorch torchgen's FileManager, ONNX's generated-diff check)."""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codegen.project import ProjectError

#: A file under the output root carries this marker in its first line when opgen produced it; only
#: such files are ever replaced or removed as stale, so a user's own file is never lost.
MARKER = "by opgen — do not edit"
#: The files opgen writes without the marker (a line would change what they mean), by their path in
#: the package and their exact text: a file there with other text is not opgen's.
UNMARKED = {"py.typed": ""}


@dataclass
class Plan:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: What stands where a file is to be written and is not opgen's: (its path, what it is).
    in_the_way: list[tuple[str, str]] = field(default_factory=list)

    @property
    def drifted(self) -> list[str]:
        return sorted(self.written + self.removed)


def _is_generated(path: Path, rel: str) -> bool:
    """Whether opgen wrote the file at `path` (`rel` in the output folder): its marker, or for an
    UNMARKED file its exact text."""
    try:
        if rel in UNMARKED:
            return path.read_text(encoding="utf-8") == UNMARKED[rel]
        with path.open(encoding="utf-8") as f:
            return MARKER in f.readline()
    except (OSError, UnicodeDecodeError):
        return False


def _in_the_way(out: Path, rel: str) -> tuple[str, str] | None:
    """What would be lost by writing `rel`: a file opgen did not write where it goes, a folder
    there, or a file where one of its folders goes (None: nothing)."""
    parts = PurePosixPath(rel).parts
    for i in range(len(parts)):
        path = out.joinpath(*parts[:i])
        if os.path.lexists(path) and not path.is_dir():
            return "/".join(parts[:i]) or ".", "a file where opgen makes a folder"
    target = out / rel
    if target.is_dir():
        return rel, "a folder where opgen writes a file"
    if os.path.lexists(target) and not _is_generated(target, rel):
        return rel, "a file opgen did not write"
    return None


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
        blocked = None if same else _in_the_way(out, rel)
        if blocked is not None and blocked not in result.in_the_way:
            result.in_the_way.append(blocked)
    result.removed = sorted(existing_files(out) - set(files))
    return result


def apply(files: dict[str, str], out: Path, result: Plan) -> None:
    """Writes the plan's files and removes its stale ones, all or nothing. Every text is encoded
    first, then written beside its target (`.NAME.tmpPID`); only when all are written does each
    replace its target, the old file kept aside (`.NAME.oldPID`) until every one has, and the stale
    files are set aside the same way. On any failure (text that cannot be encoded, a full disk, a
    folder where a file goes, an interrupt) the old files come back, the new files and folders go,
    and the error is raised: the output folder is as it was. Nothing is written when a file to write
    would replace something opgen did not write (`Plan.in_the_way`): a ProjectError names each."""
    if result.in_the_way:
        raise ProjectError(refusal(out, result.in_the_way))
    data = {rel: files[rel].encode("utf-8") for rel in result.written}  # fails before anything is written
    suffix = os.getpid()
    made: list[Path] = []  # folders created, parents first
    temps: list[Path] = []
    placed: list[tuple[Path, Path | None]] = []  # (target, its old file set aside, or None: it was new)
    aside: list[tuple[Path, Path]] = []  # (stale file, where it was set aside)
    times = _folder_times(out, [*result.written, *result.removed])
    try:
        for rel in result.written:
            target = out / rel
            _make_folders(target.parent, made)
            tmp = target.with_name(f".{target.name}.tmp{suffix}")
            temps.append(tmp)
            with open(tmp, "wb") as f:
                f.write(data[rel])
        for rel, tmp in zip(result.written, temps, strict=True):
            target = out / rel
            old = None
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(errno.EISDIR, "a folder is where opgen writes a generated file: remove it",
                                        str(target))
            if os.path.lexists(target):
                old = target.with_name(f".{target.name}.old{suffix}")
                os.replace(target, old)
            placed.append((target, old))
            os.replace(tmp, target)
        for rel in result.removed:
            stale = out / rel
            kept = stale.with_name(f".{stale.name}.old{suffix}")
            os.replace(stale, kept)
            aside.append((stale, kept))
    except BaseException:
        _restore(temps, placed, aside, made)
        for folder, (atime, mtime) in times.items():  # their entries are as they were: so are their times
            with contextlib.suppress(OSError):
                os.utime(folder, ns=(atime, mtime))
        raise
    for path in [old for _, old in placed if old is not None] + [kept for _, kept in aside]:
        with contextlib.suppress(OSError):
            path.unlink()
    for rel in result.removed:
        parent = (out / rel).parent
        while parent != out and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent


def refusal(out: Path, in_the_way: list[tuple[str, str]], shown: int = 10) -> str:
    """The one line that refuses to write over what is in the way, and says what to do."""
    listed = "; ".join(f"{(out / rel).as_posix()} ({what})" for rel, what in in_the_way[:shown])
    more = f"; and {len(in_the_way) - shown} more" if len(in_the_way) > shown else ""
    them = "it" if len(in_the_way) == 1 else "them"
    return (f"refusing to replace what opgen did not write (a file of opgen's has `{MARKER}` in its first line): "
            f"{listed}{more}. Move {them} out of the way, or choose another output folder (`out` in [tool.opgen], "
            f"or --out DIR)")


def _folder_times(out: Path, rels: list[str]) -> dict[Path, tuple[int, int]]:
    """The access and modification times of the existing folders that hold the files (for _restore)."""
    times: dict[Path, tuple[int, int]] = {}
    for rel in rels:
        folder = (out / rel).parent
        while True:
            if folder not in times and folder.is_dir():
                stat = folder.stat()
                times[folder] = (stat.st_atime_ns, stat.st_mtime_ns)
            if folder == out or folder == folder.parent:
                break
            folder = folder.parent
    return times


def _make_folders(folder: Path, made: list[Path]) -> None:
    """mkdir -p, recording each folder it creates (for _restore)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        made.append(path)


def _restore(temps: list[Path], placed: list[tuple[Path, Path | None]], aside: list[tuple[Path, Path]],
             made: list[Path]) -> None:
    """Undoes a failed apply: the stale files and the replaced targets come back, the temporary and
    new files and the created folders go. Best effort: a step that fails does not stop the rest."""
    for stale, kept in reversed(aside):
        with contextlib.suppress(OSError):
            os.replace(kept, stale)
    for target, old in reversed(placed):
        with contextlib.suppress(OSError):
            if old is not None:
                os.replace(old, target)
            else:
                target.unlink()
    for tmp in temps:
        with contextlib.suppress(OSError):
            tmp.unlink()
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()
