"""On-disk cache of compiled kernel artifacts, shared by the host (g++) backend
and the CuPy backend.

Rules every user of this module relies on:

* ``cache_key`` is the one place that decides what makes two builds identical.
* Writes are atomic (temp file in the same directory, then ``os.replace``), so
  concurrent processes never see a half-written file.
* Every entry carries a sidecar ``<name>.meta.json`` with the payload's size and
  sha256; ``get`` checks it, so a truncated or corrupt entry is a miss, never a
  crash. Callers then simply rebuild and ``put`` again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

CACHE_ENV = "OPGEN_CACHE_DIR"
_SCHEMA = "opgen-cache-v1"  # bump to invalidate every existing key


def cache_root() -> Path:
    """``$OPGEN_CACHE_DIR`` if set, else ``~/.cache/opgen`` (read on every call)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "opgen"


def cache_key(source: str, options: Sequence[str], compiler_version: str, target: str) -> str:
    """sha256 hex digest identifying one build.

    Each field is length-prefixed, so no two different inputs can collide by
    shifting text from one field into the next.
    """
    h = hashlib.sha256()

    def feed(text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)

    feed(_SCHEMA)
    feed(source)
    h.update(len(options).to_bytes(8, "little"))
    for opt in options:
        feed(str(opt))
    feed(compiler_version)
    feed(target)
    return h.hexdigest()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def meta_path(path: Path) -> Path:
    return path.with_name(path.name + ".meta.json")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, nothing else."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide entries from other users of a shared cache
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class Entry(NamedTuple):
    data: bytes
    meta: dict[str, Any]


def put(path: Path, data: bytes, meta: dict[str, Any] | None = None) -> None:
    """Store ``data`` at ``path`` with its checksum (payload first, then the sidecar)."""
    record = dict(meta or {})
    record["size"] = len(data)
    record["sha256"] = digest(data)
    write_atomic(path, data)
    write_atomic(meta_path(path), json.dumps(record, sort_keys=True).encode())


def get(path: Path) -> Entry | None:
    """The verified entry at ``path``, or None if it is missing, unreadable or corrupt."""
    path = Path(path)
    try:
        meta = json.loads(meta_path(path).read_bytes())
        data = path.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("size") != len(data) or meta.get("sha256") != digest(data):
        return None
    return Entry(data, meta)


def remove(path: Path) -> None:
    """Delete an entry and its sidecar; missing files are fine."""
    for p in (Path(path), meta_path(Path(path))):
        with contextlib.suppress(OSError):
            p.unlink()
