"""The build of a package's PyTorch libraries (issue 32: the stable library, torch_library.py, and the
C++ Autograd kernel, torch_gate.py) into the kernel cache, where a compile error is remembered: the
compiler exiting with an error (not killed by a signal: an OOM kill may pass next time) leaves
`<entry>.failed` beside where the library would be, holding the compiler's message, under the build's
own key. Later processes then fail at once instead of running the compiler again on every import,
until the key changes (source, headers, flags, compiler, PyTorch) or the marker is removed."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from codegen.runtime import diskcache
from codegen.runtime.host.errors import HostBackendError, HostCompileError
from codegen.runtime.host.libraries import _build_or_load, _host_dir, file_present
from codegen.runtime.host.state import _LOCK, stats

_BUILT: dict[str, Path] = {}  # this process's builds, by stem (the stem holds the build's key)


def build(stem: str, unit: str, cmd: list[str], flags: list[str], what: str, unavailable: type[RuntimeError],
          before_compile: Callable[[], None] | None = None) -> Path:
    """`<stem>.so` from this process's memory, the cache, or compiled now (`before_compile()` run
    first: an announcement), under the host backend's lock; a compile error, now or remembered,
    raised as `unavailable` (its cause set when it happened now)."""
    with _LOCK:
        found = _BUILT.get(stem)
        if found is None or not found.is_file():
            if before_compile is not None and not cached(stem):
                before_compile()
            found = _build(stem, unit, cmd, flags, what, unavailable)
            _BUILT[stem] = found
        return found


def _build(stem: str, unit: str, cmd: list[str], flags: list[str], what: str,
           unavailable: type[RuntimeError]) -> Path:
    marker = _host_dir() / f"{stem}.failed"
    try:
        remembered = diskcache.get(marker)
    except diskcache.UnsafeCacheError:  # (the build below reports the folder)
        remembered = None
    if remembered is not None:
        raise unavailable(_failed(remembered.data.decode(errors="replace"), marker, "remembered from an earlier build"))
    try:
        found, _, _ = _build_or_load(stem, unit, cmd, flags, runtime=True, what=what, opener=file_present)
    except HostCompileError as e:  # the same source, flags and compiler would fail again
        if e.returncode is None or e.returncode <= 0:  # (killed, by the OOM killer say: may pass next time)
            raise
        with contextlib.suppress(OSError):  # (a cache that cannot take it: retried next time)
            diskcache.put(marker, str(e).encode())
        raise unavailable(_failed(str(e), marker, "remembered in the cache")) from e
    return Path(found)


def warm(build_now: Callable[[], object], unavailable: type[RuntimeError]) -> str:
    """`opgen warmup`'s outcome of `build_now()` (the library's or the gate's build), in words:
    "compiled", "already cached", "skipped: why" where there is nothing to build here (no headers, a
    PyTorch too old, a failure remembered), "not built: why" where the compiler failed now."""
    before = stats["runtime_compiles"]
    try:
        build_now()
    except unavailable as e:  # (raised from a compile error now: its cause is set)
        return f"{'not built' if e.__cause__ else 'skipped'}: {str(e).splitlines()[0]}"
    except HostBackendError as e:
        return f"not built: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
    return "compiled" if stats["runtime_compiles"] > before else "already cached"


def cached(stem: str) -> bool:
    """Whether the cache holds `<stem>.so` already (a build would only check and load it)."""
    return (_host_dir() / f"{stem}.so").is_file()


def _failed(message: str, marker: Path, when: str) -> str:
    """A compile error's one line: its first line, the compiler's first error (what is missing, say),
    and how to make the next import retry."""
    lines = message.splitlines()
    first = lines[0] if lines else "the compiler failed"
    error = next((line.strip() for line in lines[1:] if "error" in line and not line.startswith("command: ")), None)
    if error:
        first += f" ({error})"
    return (f"{first}; {when}: later imports do not compile it again until its source, headers, flags, compiler or "
            f"PyTorch change, or {marker} is removed")
