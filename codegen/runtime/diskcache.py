"""On-disk cache of compiled kernel artifacts, shared by the host (g++) backend
and the CuPy backend.

Rules every user of this module relies on:

* ``cache_key`` is the one place that decides what makes two builds identical.
* Writes are atomic (temp file in the same directory, then ``os.replace``), so
  concurrent processes never see a half-written file.
* Every entry carries a sidecar ``<name>.meta.json`` with the payload's size and
  sha256; ``get`` checks it, so a truncated or corrupt entry is a miss, never a
  crash. Callers then simply rebuild and ``put`` again.
* The cache is a trust boundary: a checksum only proves an entry is intact, not who
  wrote it, and a host entry is a library loaded into this process. So (as ssh does
  with its key files) ``get`` and ``put`` raise ``UnsafeCacheError`` for a cache folder
  that anyone but this user or root could change: one writable by its group or by
  all users, or owned by another user, or inside such a folder (a sticky folder such
  as /tmp is fine above the cache root). An entry file that others could have written
  is ignored with a warning (a miss: the caller's rebuild replaces it).
* A cache root that is not a folder or cannot be written: ``CacheDirError`` (an
  OSError) naming ``$OPGEN_CACHE_DIR``. Reading needs no write access.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from codegen.runtime.settings import CACHE_DIR

CACHE_ENV = CACHE_DIR.name
XDG_ENV = "XDG_CACHE_HOME"
LOCK_TIMEOUT = 900.0  # seconds a process waits for another one's build of the same entry (then builds too)
_SCHEMA = "opgen-cache-v1"  # bump to invalidate every existing key


def cache_root() -> Path:
    """``$OPGEN_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/opgen`` (an absolute XDG_CACHE_HOME, as the
    XDG spec says: a relative one is ignored), else ``~/.cache/opgen`` (read on every call)."""
    env = CACHE_DIR.raw()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get(XDG_ENV, "")
    return Path(xdg) / "opgen" if os.path.isabs(xdg) else Path.home() / ".cache" / "opgen"


class UnsafeCacheError(RuntimeError):
    """A cache folder that someone other than this user (or root) can change: refused."""


class CacheDirError(OSError):
    """The cache folder is not a folder, cannot be created or cannot be written."""


def _named() -> str:
    """How the user chose the cache root, for messages."""
    env = CACHE_DIR.raw()
    if env:
        return f"{CACHE_ENV}={env}"
    xdg = os.environ.get(XDG_ENV, "")
    where = f"{XDG_ENV}={xdg}" if os.path.isabs(xdg) else "the default cache root"
    return f"{where}; set {CACHE_ENV} to use another folder"


def describe_root() -> str:
    """How the user chose the cache root, and how to choose another (for messages)."""
    return _named()


def _untrusted(st: os.stat_result, *, sticky_ok: bool = False) -> str | None:
    """Why a file or folder with this owner and mode could be changed by another user, or None.
    (Decided from the mode, not by trying to write: root may write anything.)"""
    if not hasattr(os, "geteuid"):  # Windows: no POSIX owner and mode bits to judge by (ACLs are not checked)
        return None
    me = os.geteuid()
    if st.st_uid not in (me, 0):
        return f"it is owned by another user (uid {st.st_uid}; this process runs as uid {me})"
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022 and not (sticky_ok and mode & stat.S_ISVTX):
        who = " and ".join(w for bit, w in ((0o020, "its group"), (0o002, "all users")) if mode & bit)
        return f"it is writable by {who} (mode {mode:04o})"
    return None


def check_folder(folder: Path) -> None:
    """Raise UnsafeCacheError unless `folder` and every folder above it (as resolved) can be
    changed only by this user or root. Folders that do not exist yet are skipped."""
    real = Path(os.path.realpath(folder))
    root = Path(os.path.realpath(cache_root()))
    for p in (real, *real.parents):
        try:
            st = os.stat(p)
        except OSError:
            continue  # missing (or under a file): nothing there to trust yet
        # Above the cache root a sticky folder (/tmp) is fine: others cannot rename what is ours in it.
        inside = p == real or p == root or root in p.parents
        why = _untrusted(st, sticky_ok=not inside)
        if why:
            fix = (f"chown {os.geteuid()} {p}" if "owned" in why else f"chmod go-w {p}")
            raise UnsafeCacheError(
                f"opgen: refusing the kernel cache folder {real} ({_named()}): {p} is not safe: {why}, so "
                f"another user could plant a library there that this process would load. Make it yours "
                f"alone ({fix}) or set {CACHE_ENV} to a folder only you can write.")


def ensure_dir(folder: Path) -> Path:
    """Create `folder` (missing parts with mode 0755, whatever the umask) after checking that it
    can be trusted; CacheDirError naming $OPGEN_CACHE_DIR if it cannot be a writable folder."""
    folder = Path(folder)
    check_folder(folder)
    missing: list[Path] = []
    p = folder
    while not p.is_dir():
        if p.exists() or p.is_symlink() or p == p.parent:
            raise CacheDirError(f"cannot use {folder} for the kernel cache ({_named()}): {p} is not a folder")
        missing.append(p)
        p = p.parent
    for p in reversed(missing):  # (mkdir -p would give parents the umask's mode: 0775 under umask 002)
        try:
            p.mkdir(mode=0o755)
        except FileExistsError:
            pass  # another process made it: checked below
        except OSError as exc:
            raise CacheDirError(f"cannot create the kernel cache folder {p} ({_named()}): {exc}") from exc
    if missing:
        check_folder(folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CacheDirError(f"the kernel cache folder {folder} is not writable ({_named()})")
    return folder


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
    ensure_dir(path.parent)
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


class _Untrusted(Exception):
    pass


def _read_trusted(path: Path) -> bytes:
    """The bytes of a regular file that only this user or root can have written (no symlinks)."""
    # (O_NONBLOCK: a FIFO planted under an entry's name must not block the open)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)  # the file opened, not whatever the name points at by now
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(f"{path} is not a regular file")
        why = _untrusted(st)
        if why:
            raise _Untrusted(f"opgen: ignoring kernel cache entry {path}: {why}; it is rebuilt")
        return f.read()


def get(path: Path) -> Entry | None:
    """The verified entry at ``path``, or None if it is missing, unreadable, corrupt or writable by
    others (warned). UnsafeCacheError if its folder is not safe to trust (see the module doc)."""
    path = Path(path)
    check_folder(path.parent)  # before anything read there is believed
    try:
        meta = json.loads(_read_trusted(meta_path(path)))
        data = _read_trusted(path)
    except (OSError, ValueError):
        return None
    except _Untrusted as exc:
        warnings.warn(str(exc), RuntimeWarning, stacklevel=2)
        return None
    if not isinstance(meta, dict) or meta.get("size") != len(data) or meta.get("sha256") != digest(data):
        return None
    return Entry(data, meta)


def remove(path: Path) -> None:
    """Delete an entry and its sidecar; missing files are fine."""
    for p in (Path(path), meta_path(Path(path))):
        with contextlib.suppress(OSError):
            p.unlink()


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextlib.contextmanager
def entry_lock(path: Path, timeout: float | None = None) -> Iterator[bool]:
    """Hold the build lock of the cache entry ``path``: an exclusive ``flock`` on ``<name>.lock``
    beside it. The caller looks the entry up again once it holds the lock (another process may have
    built it meanwhile) and builds it only if it is still missing, so N processes building the same
    entry build it once.

    A crashed holder cannot wedge it (the kernel drops a dead process's flock locks; the lock file
    left behind means nothing). Yields True when held; False where no lock could be taken (no
    fcntl, a folder that cannot be written, a file system without locks, or a holder still busy
    after ``timeout`` seconds, default LOCK_TIMEOUT, which is warned): the caller then builds
    unlocked, as it would without this."""
    try:
        import fcntl
    except ImportError:  # (Windows: no flock; builds race as before, and writes stay atomic)
        yield False
        return
    path = Path(path)
    fd = -1
    try:
        ensure_dir(path.parent)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(lock_path(path), flags, 0o644)
    except OSError:
        pass
    if fd < 0:
        yield False
        return
    try:
        wait = LOCK_TIMEOUT if timeout is None else timeout
        deadline = time.monotonic() + wait
        pause = 0.005
        locked = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    warnings.warn(f"opgen: another process has held the build lock {lock_path(path)} for over "
                                  f"{wait:.0f} s; building {path.name} without waiting for it", RuntimeWarning,
                                  stacklevel=3)
                    break
                time.sleep(pause)
                pause = min(pause * 2, 0.1)
            except OSError:  # ENOLCK (some network file systems): no lock to be had
                break
        yield locked
    finally:
        os.close(fd)  # (releases the lock)


def blocking_folder(path: Path) -> Path | None:
    """A folder standing where the entry ``path`` or its sidecar should be (an os.replace onto it
    fails on every run): an empty one is removed; a non-empty one is returned, for the caller to
    name (it is not ours to delete)."""
    for p in (Path(path), meta_path(Path(path))):
        if p.is_dir() and not p.is_symlink():
            try:
                p.rmdir()
            except OSError:
                return p
    return None
