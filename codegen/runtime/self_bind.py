"""The part of a package's PyTorch library that lets it run without opgen's Python (issue 32, an
AOTInductor package's process): the table native/self_bind_cpu.h declares, printed when the library
is built, and native/self_bind_cpu.cpp, which binds each op from it on its first call.

The kernels' host form cannot share one library: each kernel module's thread-local storage is its
shared memory (emu/include/opgen_emu_glue.h) and every module exports opgen_module_init. So the
library carries them as companions: the emulation runtime and each op's kernel module, built as
the cpu backend builds them (host/module.py load_module: same flags, ISA, glue and manifest) into
the kernel cache beside the library, named by file name and opened from the library's own folder.
`companions` lists them: shipping the library means copying it with them into one folder."""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codegen.runtime import settings
from codegen.runtime.host import blas, limits
from codegen.runtime.host.libraries import _RUNTIME, _host_dir, _runtime_api
from codegen.runtime.plan import Plan

#: The BLAS libraries the library looks for, by the names a system's packages install them under
#: (after the one settings.BLAS names): GEMM steps use the first that exports a pair of _SYMBOLS.
BLAS_LIBRARIES = ("libopenblas.so.0", "libblas.so.3")
#: (sgemm, dgemm, int64): the plain CBLAS names first (a library exporting them takes 32-bit sizes).
BLAS_SYMBOLS = tuple((s, d, int64) for int64 in (False, True) for s, d in reversed(blas._SYMBOLS[int64]))

UNIT = '#include "self_bind_cpu.cpp"\n'


def op_modules(module_files: Sequence[Path]) -> list[Any]:
    """The op modules (generated `<op>.py`) at these paths, imported by their package's dotted name."""
    found = []
    for path in module_files:
        parts = [path.stem]
        folder = path.parent
        while (folder / "__init__.py").is_file():
            parts.insert(0, folder.name)
            folder = folder.parent
        name = ".".join(parts)
        found.append(sys.modules.get(name) or importlib.import_module(name))
    return found


def _c(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _file(path: Path) -> str:
    """A companion as the library names it: its file name where it lies in the library's folder."""
    return path.name if path.parent == _host_dir() else str(path)


def _minimum(setting: settings.Setting) -> int:
    """The least value an `int >= N` setting takes (its type states it)."""
    return int(setting.type.split(">=")[1])


@functools.lru_cache(maxsize=8)
def _table(ops: tuple[Any, ...], isa: str) -> tuple[str, tuple[Path, ...]]:
    from codegen.runtime.scope import Scope, backend_of

    backend = backend_of(Scope("cpu"), "the PyTorch library")
    _runtime_api()
    runtime = Path(_RUNTIME["lib"]._name)
    modules: dict[Path, int] = {}
    kernels = []
    for op in ops:
        host = backend.load(op._KERNELS)
        index = modules.setdefault(host.path, len(modules))
        for name in host.kernel_names:
            fn = host.get_function(name)
            kernels.append(f"{{{_c(op._PLAN.op)}, {_c(name)}, {index}, {fn.max_threads_per_block}}}")
    files = [_c(_file(path)) for path in modules]
    blas_symbols = [f"{{{_c(s)}, {_c(d)}, {int(i)}}}" for s, d, i in BLAS_SYMBOLS]
    dims = ", ".join
    text = f"""
// ---- the library binds itself (codegen/runtime/self_bind.py; isa {isa}) ----
#include "self_bind_cpu.h"
static const char* const opgen_self_modules[] = {{{", ".join(files) or "nullptr"}}};
static const opgen_self_kernel opgen_self_kernels[] = {{{", ".join(kernels) or "{}"}}};
static const char* const opgen_self_blas_libraries[] = {{{", ".join(map(_c, BLAS_LIBRARIES))}}};
static const opgen_self_blas opgen_self_blas_symbols[] = {{{", ".join(blas_symbols)}}};
static const opgen_self_table OPGEN_SELF_TABLE = {{
  {_c(_file(runtime))}, opgen_self_modules, {len(modules)}, opgen_self_kernels, {len(kernels)},
  opgen_self_blas_libraries, {len(BLAS_LIBRARIES)}, opgen_self_blas_symbols, {len(BLAS_SYMBOLS)},
  {{{dims(map(str, limits.MAX_GRID_DIM))}}}, {{{dims(map(str, limits.MAX_BLOCK_DIM))}}}, {limits.MAX_SHARED_MEM},
  {limits.DEFAULT_MAX_DYNAMIC_SMEM},
  {_c(settings.HOST_THREADS.name)}, {_minimum(settings.HOST_THREADS)},
  {_c(settings.HOST_STACK_KB.name)}, {settings.HOST_STACK_KB.default}, {_minimum(settings.HOST_STACK_KB)},
  {_c(settings.HOST_RANDOM_ORDER.name)}, {_c(settings.BLAS.name)}}};
"""
    return text + UNIT, (runtime, *modules)


def _bound(modules: Sequence[Any]) -> tuple[Any, ...]:
    """The op modules with a launch plan (the others have no driver to bind)."""
    return tuple(m for m in modules if isinstance(getattr(m, "_PLAN", None), Plan))


def unit(modules: Sequence[Any]) -> str:
    """The self-binding part of a library with the drivers of the op `modules`: its table (each
    kernel module built or found in the cache now) and native/self_bind_cpu.cpp."""
    from codegen.runtime.host.toolchain import resolve_isa

    return _table(_bound(modules), resolve_isa(None))[0]


def companions(modules: Sequence[Any]) -> list[Path]:
    """The files a library binding the op `modules` itself opens: the runtime, then each module."""
    from codegen.runtime.host.toolchain import resolve_isa

    return list(_table(_bound(modules), resolve_isa(None))[1])
