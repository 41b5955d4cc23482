"""The one lifecycle of a compiled artifact in the disk cache, shared by the cpu (host) and cuda backends.

Each backend keeps its artifacts in a folder of the cache root (``ArtifactCache``: "host" holds the
cpu backend's shared libraries, "cuda" the cubins) and goes through the same steps::

    found = cache.try_load(path, accept)            # a hit: intact (diskcache's checksum) and accepted
    found = cache.build(path, what, load, make, outside)   # a miss: built once, stored atomically

``build`` makes the folder, takes the entry's lock (``diskcache.entry_lock``: processes that want the
same entry at once build it once), looks again (``load``: another process may have built it
meanwhile), announces the first compile of the process (``announce_compile``), then ``make`` builds
the entry into the cache. Keys are the backends' own (``diskcache.cache_key``); this module never
changes them.

ONE policy for a cache that cannot take an entry, the same on both backends:

* A cache folder that another user could change is refused, on a read as on a write: the backend's
  cache error (``HostCacheError``, ``CudaCacheError``) with diskcache's ``UnsafeCacheError`` text.
* A cache folder that cannot be a writable folder (a file in its place, a read-only folder, one that
  cannot be created) is an error too, the backend's cache error naming ``$OPGEN_CACHE_DIR``, raised
  when an entry must be written: a misconfigured cache is named once, not worked around in every
  process. Entries already there still load (reading needs no write access).
* A usable folder that cannot take this one entry (a full disk or quota, a non-empty folder where
  the entry should be) costs the cache, not the kernel: the artifact is built outside the cache
  (``outside``) and used, and a RuntimeWarning, once per process, backend and cause, says where,
  why and what to fix; every process builds it again until then.
"""

from __future__ import annotations

import errno
import logging
import shlex
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from codegen.runtime import diskcache

T = TypeVar("T")

LOG = logging.getLogger("opgen")
"""opgen's runtime logger: one WARNING record per process and backend when kernels are first compiled
(a first call then takes seconds; later calls and processes load them from the disk cache). Silence
it with ``logging.getLogger("opgen").setLevel(logging.ERROR)``."""

_ANNOUNCED: set[str] = set()
_ANNOUNCE_LOCK = threading.Lock()


def announce(key: str, message: str, *args: object, covers: tuple[str, ...] = ()) -> None:
    """Log `message` % `args` once per process and `key`; `covers`: the keys whose own announcement
    it stands for (not made after it: one message for one compile)."""
    with _ANNOUNCE_LOCK:
        if key in _ANNOUNCED:
            return
        _ANNOUNCED.update((key, *covers))
    LOG.warning(message, *args)


def announce_compile(backend: str, what: str, cache: Path) -> None:
    """Say, once per process and backend ("cpu", "cuda"), that kernels are being compiled."""
    announce(backend, "opgen: compiling kernel modules for the %s backend, starting with %s: a first call can take "
             "seconds; they are cached in %s, so later calls and processes load them. `opgen warmup --device "
             "%s` compiles every op ahead of time; logging.getLogger('opgen').setLevel(logging.ERROR) silences "
             "this message.", backend, what, cache, backend)


DISK_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
DISK_FULL_TEXT = ("No space left on device", "Disk quota exceeded")

_WARNED: set[tuple[str, str]] = set()  # (backend, cause) already warned of in this process
_WARN_LOCK = threading.Lock()


class CannotKeep(Exception):  # (a signal from `make`, not an error the user sees)
    """Raised by a `make` step: the cache cannot take this entry (`why`: a full disk, as a compiler
    reported it). `built`, where given, is the artifact already made outside the cache (a cubin
    in memory whose write failed): it is used as it is, and nothing is built again."""

    def __init__(self, why: str, built: object = None) -> None:
        super().__init__(why)
        self.why = why
        self.built = built


def disk_full(error: OSError) -> bool:
    """True for an OSError that says the disk (or the user's quota) is full."""
    return error.errno in DISK_FULL


class ArtifactCache:
    """One backend's folder of the disk cache and the lifecycle of its entries (see the module doc)."""

    def __init__(self, backend: str, subdir: str, error: type[Exception]) -> None:
        self.backend = backend  # "cpu" or "cuda": named in the announcement
        self.subdir = subdir
        self.error = error  # the backend's cache error, raised where the policy refuses the cache

    def folder(self) -> Path:
        """The backend's cache folder (under diskcache.cache_root(), read on every call)."""
        return diskcache.cache_root() / self.subdir

    def try_load(self, path: Path, accept: Callable[[diskcache.Entry], T | None]) -> T | None:
        """The entry at `path` as `accept` makes it (None: not this build, or it does not load), or
        None where it is missing or corrupt. A folder others could change: the backend's cache error."""
        try:
            entry = diskcache.get(path)  # refuses a folder others can write; ignores such entries
        except diskcache.UnsafeCacheError as e:
            raise self.error(str(e)) from e
        return None if entry is None else accept(entry)

    def build(self, path: Path, what: str, load: Callable[[], T | None], make: Callable[[], T],
              outside: Callable[[str, str], T], *, also: Sequence[Path] = ()) -> T:
        """The entry at `path` (and `also`, files stored beside it), built once: `load()` looks it
        up again under the entry's lock, `make()` builds it into the cache (OSError of a full disk,
        or CannotKeep: the cache cannot take it), `outside(why, fix)` builds it elsewhere when the
        cache cannot take it (after `warn_outside`)."""
        folder = path.parent
        try:
            diskcache.ensure_dir(folder)
        except (OSError, diskcache.UnsafeCacheError) as e:
            raise self.error(str(e)) from e
        with diskcache.entry_lock(path):
            found = load()  # built by another process while this one waited
            if found is not None:
                return found
            announce_compile(self.backend, what, folder)
            blocker = next((b for b in map(diskcache.blocking_folder, (path, *also)) if b is not None), None)
            if blocker is not None:
                why, fix = (f"{blocker} is a folder where a cache entry should be",
                            f"Remove it (rm -r {shlex.quote(str(blocker))}); the entry is rebuilt on the next run.")
            else:
                try:
                    return make()
                except OSError as e:
                    if not disk_full(e):
                        raise
                    why, built = str(e), None
                except CannotKeep as e:
                    why, built = e.why, e.built
                fix = f"Free space there, or set {diskcache.CACHE_ENV} to a folder on another disk."
                if built is not None:
                    self.warn_outside(folder, what, why, fix)
                    return built  # type: ignore[return-value]
        return outside(why, fix)

    def warn_outside(self, folder: Path, what: str, why: str, fix: str, where: str = "") -> None:
        """The policy's one warning (once per process, backend and cause): the cache at `folder`
        cannot take `what`, built outside it instead (`where`, if in a folder)."""
        with _WARN_LOCK:
            if (self.backend, why) in _WARNED:
                return
            _WARNED.add((self.backend, why))
        place = f", in {where}" if where else ""
        warnings.warn(f"opgen: cannot use the kernel cache at {folder} ({diskcache.describe_root()}): {why}. "
                      f"Compiling {what} outside the cache instead{place}: every process compiles it again "
                      f"until this is fixed. {fix}", RuntimeWarning, stacklevel=5)
