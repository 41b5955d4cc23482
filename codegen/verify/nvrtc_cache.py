"""The disk cache of scripts/nvrtc_compile.py's compiles with an NVRTC pip wheel: a cubin (and its
program log) per source, options and libnvrtc, under the kernel cache's root (diskcache: checksums,
atomic writes, one build per entry however many processes want it at once).

Several runs of one suite compile the same modules with the same NVRTC and options: the CI matrix
(tests/test_gpu_compile.py) and the GPU check rehearsal's resources step both compile every module
with NVRTC 13.0.88 for sm_90, line info off and on. NVRTC is deterministic, so the second gets the
first's cubins and reads the same resources from them. A failed compile is not kept (its log is
always NVRTC's own, from this run).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from codegen.runtime import diskcache

SUBDIR = "nvrtc-wheels"


class Compiler(Protocol):
    def version(self) -> str: ...

    def compile(self, source: str, name: str, options: Sequence[str]) -> tuple[bytes | None, str]: ...


def library_id(library: Path | str) -> str:
    """What identifies a libnvrtc file in a key: its resolved path, size and modification time (an
    unpacked wheel's file, never rewritten in place: a new release unpacks into a folder of its own)."""
    path = os.path.realpath(library)
    st = os.stat(path)
    return f"{path} {st.st_size} {st.st_mtime_ns}"


class CachedCompiler:
    """`compiler` (an Nvrtc of a pip wheel's libnvrtc, `library`), its successful compiles kept in the
    disk cache; `hits` and `compiles` count this process's lookups."""

    def __init__(self, compiler: Compiler, library: Path | str) -> None:
        self.compiler = compiler
        self.id = f"NVRTC {compiler.version()} {library_id(library)}"
        self.hits = self.compiles = 0

    def version(self) -> str:
        return self.compiler.version()

    def compile(self, source: str, name: str, options: Sequence[str]) -> tuple[bytes | None, str]:
        path = diskcache.cache_root() / SUBDIR / (diskcache.cache_key(source, [name, *options], self.id, "cubin")
                                                  + ".cubin")
        found = _load(path)
        if found is not None:
            self.hits += 1
            return found
        with diskcache.entry_lock(path):
            found = _load(path)  # compiled by another process while this one waited
            if found is not None:
                self.hits += 1
                return found
            cubin, log = self.compiler.compile(source, name, options)
            self.compiles += 1
            if cubin is not None:
                try:
                    diskcache.put(path, cubin, {"log": log})
                except OSError:  # (a full disk costs the cache, not the compile)
                    pass
            return cubin, log


def _load(path: Path) -> tuple[bytes, str] | None:
    entry: Any = diskcache.get(path)
    if entry is None or not isinstance(entry.meta.get("log"), str):
        return None
    return entry.data, entry.meta["log"]
