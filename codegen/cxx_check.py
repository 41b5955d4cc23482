"""`opgen generate`'s C++ check: the host form of each kernel module it is about to write, compiled
with `-fsyntax-only` by the compiler and flags of the cpu backend (codegen/runtime/host_command.py),
so that a template's C++ error stops generation at the template's `file:line` (the module's `#line`
directives name it: codegen/linemarks.py) instead of surfacing at the op's first call. A module
that passed is remembered in the kernel cache folder by its text, the compiler and the emulation
headers, so generating the same kernels again (another output folder, a test's project) compiles
nothing. Only a subprocess runs here: `opgen generate` imports neither NumPy nor the host backend.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codegen.runtime import diskcache
from codegen.runtime.host_command import BASE_FLAGS, EMU_FLAGS, CompilerMissing, compiler_command, emu_digest
from codegen.yamlnodes import SpecError

#: The backend's flags that matter to a syntax check (the language, the pragmas it ignores), then
#: the check itself; LC_ALL=C below keeps the compiler's quotes plain.
_FLAGS = (*(f for f in BASE_FLAGS if f.startswith(("-std=", "-Wno-"))), *EMU_FLAGS, "-fsyntax-only",
          "-fdiagnostics-color=never")
#: An error as g++ and clang++ print it: `file:line:column: error: message`.
_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<message>.*)$", re.MULTILINE)
#: A line quoting the source (`  12 |   y = x;`) or pointing into it (`     |   ^~`): the message has the place.
_QUOTE = re.compile(r"^\s*\d*\s*\|")
#: At most this many lines of the compiler's report follow the first error.
_REPORT_LINES = 20


def check_modules(modules: Mapping[str, str]) -> str | None:
    """Compile each module's text (generated path → text). A SpecError at the first error's
    `file:line` with the compiler's report when one fails; the one line to print when the check
    could not run (no compiler); None when every module compiles."""
    if not modules:
        return None
    try:
        command = compiler_command()
    except CompilerMissing as exc:
        return f"skipped the C++ check: needs g++ ({exc}); or pass --no-compile"
    compiler = _compiler_key(command)
    passed = {path: _passed_marker(compiler, text) for path, text in modules.items()}
    jobs = sorted((path, text) for path, text in modules.items() if not _exists(passed[path]))
    if not jobs:
        return None
    with tempfile.TemporaryDirectory(prefix="opgen-cxx-check-") as folder:
        with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
            reports = list(pool.map(lambda job: _compile(command, Path(folder), *job), jobs))
    for (path, _), report in zip(jobs, reports, strict=True):
        if report is not None:
            raise _error(path, report)
    for path, _ in jobs:
        try:
            diskcache.write_atomic(passed[path], b"")
        except (OSError, diskcache.UnsafeCacheError):  # a cache folder that cannot be used: check again next time
            pass
    return None


def _compiler_key(command: list[str]) -> str:
    """What makes two runs of the check the same besides the module: the compiler (its command and
    `--version`), the flags and the emulation headers."""
    try:
        proc = subprocess.run([*command, "--version"], capture_output=True, text=True, check=False, timeout=60)
        version = proc.stdout + proc.stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        version = f"({exc})"
    return "\n".join((shlex.join(command), version, shlex.join(_FLAGS), emu_digest()))


def _exists(marker: Path) -> bool:
    try:
        return marker.is_file()
    except OSError:  # a cache folder this user cannot read: check again
        return False


def _passed_marker(compiler: str, text: str) -> Path:
    """The empty file that says the module's text passed the check with this compiler."""
    return diskcache.cache_root() / "cxx-check" / diskcache.cache_key(text, (), compiler, "syntax")


def _compile(command: list[str], folder: Path, path: str, text: str) -> str | None:
    """The compiler's report on one module, None if it compiles."""
    source = folder / path.replace("/", "-")  # (the module's path flattened: one folder holds them all)
    source.write_text(text, encoding="utf-8")
    try:
        proc = subprocess.run([*command, *_FLAGS, "-x", "c++", str(source)], capture_output=True, text=True,
                              env={**os.environ, "LC_ALL": "C"}, check=False)
    except OSError as exc:  # found on PATH but cannot run
        return f"{command[0]}: error: cannot run the C++ compiler: {exc}"
    if proc.returncode == 0:
        return None
    return proc.stderr.replace(str(source), path) or f"{command[0]}: error: exit {proc.returncode}, no message"


def _error(path: str, report: str) -> SpecError:
    """The first error of the report, at its place (a template's line), and the report below it."""
    lines = [line for line in report.splitlines() if line.strip() and not _QUOTE.match(line)]
    shown = "\n".join(f"  {line}" for line in lines[:_REPORT_LINES])
    if len(lines) > _REPORT_LINES:
        shown += f"\n  ... ({len(lines) - _REPORT_LINES} more lines)"
    first = _ERROR.search(report)
    if first is None:
        return SpecError(path, 1, f"the C++ compiler refused kernel module {path}:\n{shown}")
    return SpecError(first["file"], int(first["line"]),
                     f"C++ error: {first['message']} (the host form of kernel module {path}; `opgen generate "
                     f"--no-compile` skips this check)\n{shown}")
