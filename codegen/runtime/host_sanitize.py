"""The host emulation's sanitize build: what host/ needs besides the launch itself.

``host.set_sanitize(True)`` or ``OPGEN_HOST_SANITIZE=1`` compiles kernel modules with GCC's
``-fsanitize=thread`` instrumentation (a call before every load and store, which the module's glue
hands to the runtime: no libtsan is involved), with the passes that would drop a dead load or a
store of the value already there turned off, and UBSan's checks as traps. The runtime then checks
every access against the launch's buffers (copies set apart by red zones, so an access past one
buffer cannot land in another: BuffersApart; the arrays a pointer_table() argument points at are
copied too, and its copy pointed at theirs) and the block's shared memory, and reports the first
finding with kernel, block, thread and the access's program counter, which this module turns into
a source line.

Racecheck reports every RAW, WAR and WAW on the same bytes of shared memory (elements of a global
buffer) between two threads that nothing orders, whatever the values and whichever access the
scheduler ran first: threads of different warps within one ``__syncthreads()`` interval, lanes of
one warp with no ``__syncwarp()`` of both between them (per-lane vector clocks, so a partial-mask
sync orders only its lanes; a shuffle or vote orders nothing), threads of different blocks. Atomics
are bounds-checked only. See emu/README.md ("Sanitize build").
"""

from __future__ import annotations

import ctypes
import functools
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from codegen.runtime.elf_symbols import tls_symbols

# -g1: line tables for the source line of a finding. shift-exponent, not shift: CUDA defines
# shifts of negative values (and cuda_emu.h's __mul24 uses them); only the amount is checked.
# -fsanitize=thread for its instrumentation alone: a call before every load and store, accesses to
# thread_local (__shared__) variables at constant offsets included, which kernel-address skips.
# -static-libtsan with -shared links no runtime at all (the glue defines the hooks). The passes
# turned off would delete accesses before they are instrumented, whose hazards racecheck reports
# all the same: a load whose value is dead (DCE, and DSE's clean-up after itself) and a store of
# the value already there (DSE, DOM, FRE, PRE and its code hoisting). -O1 (after BASE_FLAGS' -O2, so it
# wins): the instrumented build compiles in about half the CPU (CudnnRNNV3's module 22 -> 11 s), keeps
# every access -O2 keeps, and catches every planted bug (tests/test_host_sanitizer.py, test_racecheck.py).
FLAGS = (
    "-O1", "-DOPGEN_SANITIZE=1", "-g1", "-fsanitize=thread", "-static-libtsan",
    "--param", "tsan-instrument-func-entry-exit=0",
    "-fno-tree-dce", "-fno-tree-dse", "-fno-tree-dominator-opts", "-fno-tree-fre", "-fno-tree-pre",
    "-fno-code-hoisting",
    "-fsanitize=signed-integer-overflow,shift-exponent,alignment", "-fsanitize-undefined-trap-on-error",
    "-fno-crossjumping", "-fno-tree-tail-merge",
)


class SanRange(ctypes.Structure):  # mirrors opgen_san_range
    _fields_ = [("base", ctypes.c_uint64), ("size", ctypes.c_uint64), ("name", ctypes.c_char_p),
                ("granule", ctypes.c_uint64)]


# --------------------------------------------------------- shared memory ----

INTERNAL_TLS = re.compile(r"opgen_(cur|tls|dyn_smem)")  # the emulation's own thread_locals (not shared memory)


def _demangle(names: list[str]) -> list[str]:
    tool = shutil.which("c++filt")
    if not tool or not names:
        return names
    try:
        proc = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return names
    lines = proc.stdout.splitlines()
    return lines if proc.returncode == 0 and len(lines) == len(names) else names


class SharedVars:
    """The module's static __shared__ variables (and its own thread_locals, unchecked), as the
    runtime reads them; kept alive as long as the module."""

    def __init__(self, so_path: Path) -> None:
        syms = sorted({(off, size, name) for off, size, name in tls_symbols(so_path) if size > 0})
        pretty = _demangle([name for _, _, name in syms])
        self._names = [None if INTERNAL_TLS.search(raw) else nice.encode()
                       for (_, _, raw), nice in zip(syms, pretty, strict=True)]
        self.table = (SanRange * max(len(syms), 1))()
        for i, ((off, size, _), name) in enumerate(zip(syms, self._names, strict=True)):
            self.table[i].base, self.table[i].size, self.table[i].name, self.table[i].granule = off, size, name, 1
        self.count = len(syms)  # 0 (unreadable symbols): the runtime leaves shared memory unchecked


# --------------------------------------------------------------- buffers ----

def buffers(param_names: Sequence[str], pointer_params: Sequence[int], args: Sequence[Any],
            targets: Sequence[tuple[str, np.ndarray]] = ()) -> tuple[Any, int]:
    """The launch's global buffers (every array passed for a pointer parameter, and the arrays its
    pointer tables point at, named), sorted by address."""
    named = [(param_names[i], arg) for i in pointer_params if isinstance(arg := args[i], np.ndarray)]
    found = []
    for name, arg in [*named, *targets]:
        # races per element: a kernel moves whole elements (one shadow entry each, not per byte)
        granule = arg.itemsize if arg.itemsize in (1, 2, 4, 8) else 1
        found.append((arg.__array_interface__["data"][0], arg.nbytes, name.encode(), granule))
    found.sort()
    table = (SanRange * max(len(found), 1))()
    for i, (base, size, label, granule) in enumerate(found):
        table[i].base, table[i].size, table[i].name, table[i].granule = base, size, label, granule
    return table, len(found)


class PointerTable(np.ndarray):
    """The data pointers of `targets` (uint64, a null pointer for None), for a kernel parameter
    such as `const T* const*`: the sanitize build checks each read through an entry against the
    array it points into (pointer_table())."""

    targets: tuple[np.ndarray | None, ...]

    def __array_finalize__(self, obj: Any) -> None:
        # a view of a table (table[1:]) points at the same arrays: the entries are looked up by address
        self.targets = getattr(obj, "targets", ())


def pointer_table(arrays: Sequence[np.ndarray | None], op: str = "pointer_table", arg: str = "arrays") -> PointerTable:
    """A table of the arrays' data pointers that keeps the arrays, so that the sanitize build knows
    them: it copies them apart with the launch's own arrays, points the table's copy at the
    copies and names each one `<parameter>[k]` in its reports. A table that is a plain integer
    array instead holds addresses of arrays the launch does not know: every read through it is
    reported as outside every buffer (before it is made)."""
    for k, a in enumerate(arrays):
        if a is not None and not (isinstance(a, np.ndarray) and a.flags.c_contiguous):
            got = f"an array with strides {a.strides}" if isinstance(a, np.ndarray) else f"a {type(a).__name__}"
            raise TypeError(f"{op}: {arg}[{k}]: expected a C-contiguous numpy array or None, got {got}")
    table = np.array([0 if a is None else a.__array_interface__["data"][0] for a in arrays],
                     dtype=np.uint64).view(PointerTable)
    table.targets = tuple(arrays)
    return table


#: Each copy keeps its original's address modulo this (a kernel picks its vector or scalar path by
#: alignment; CUDA allocations are 256-byte aligned), so the sanitized launch takes the same paths.
KEPT_ALIGNMENT = 4096
#: The red zone on each side of a copy: the copy's own size, within these bounds (bytes).
RED_ZONE_MIN, RED_ZONE_MAX = 4096, 1 << 20

_Span = tuple[int, int, int]  # (address, bytes, argument index)


class BuffersApart:
    """The launch's arrays copied apart, for the sanitize build: the runtime accepts an access that
    falls inside any buffer of the launch, so an access just past one buffer that lands in another
    (two slices of one array, or two allocations the heap put side by side) would pass. Arrays that
    share bytes (in-place ops, overlapping views) form one group, copied whole, so they alias as
    before; each group sits in one block with a red zone on each side (memory that is no buffer of
    the launch: an access there is reported, offset from the nearest buffer), whatever the heap's
    layout. `args`: the arguments with views of the copies for the arrays (each address modulo
    KEPT_ALIGNMENT as given); copy_back() writes what the kernel changed back.

    The arrays a PointerTable argument points at are copied too (`targets`: (name, copy), named
    `<parameter>[k]` after `names`), and the table's copy points at the copies: each of its entries
    that lies in an array copied (or at its end) is moved with it, any other is left as it is (a
    read through it lands in no buffer and is reported)."""

    def __init__(self, pointer_params: Sequence[int], args: Sequence[Any], names: Sequence[str] = ()) -> None:
        listed = [(i, arg) for i in pointer_params if isinstance(arg := args[i], np.ndarray)]
        tables = [i for i, arg in listed if isinstance(arg, PointerTable)]
        pointed = [(f"{names[i] if i < len(names) else f'#{i}'}[{k}]", target) for i in tables
                   for k, target in enumerate(args[i].targets) if target is not None]
        arrays = [arg for _, arg in listed] + [target for _, target in pointed]
        groups = _alias_groups([(a.__array_interface__["data"][0], a.nbytes, j) for j, a in enumerate(arrays)])
        places, cursor = [], 0
        for group in groups:
            lo, size = group[0][0], _end(group) - group[0][0]
            cursor += _red_zone(size)
            cursor += (lo - cursor) % KEPT_ALIGNMENT
            places.append(cursor)
            cursor += size + _red_zone(size)
        self._block = np.empty(cursor + KEPT_ALIGNMENT, np.uint8)
        block = self._block.__array_interface__["data"][0]
        origin = -block % KEPT_ALIGNMENT  # the places are offsets from an aligned address
        #: the copies and their red zones (the runtime's apart_lo, apart_hi); (0, 0): no array
        self.bounds = (block + origin, block + origin + cursor) if groups else (0, 0)
        self._copies: list[tuple[int, int, int]] = []  # (original address, copy's address, bytes), by address
        copies: list[Any] = [None] * len(arrays)  # (view, address) of each array's copy
        for group, place in zip(groups, places, strict=True):
            lo, at = group[0][0], origin + place
            size = _end(group) - lo
            ctypes.memmove(block + at, lo, size)
            self._copies.append((lo, block + at, size))
            for base, _, j in group:
                view = np.ndarray(arrays[j].shape, arrays[j].dtype, buffer=self._block, offset=at + base - lo)
                copies[j] = (view, block + at + base - lo)
        self.args = list(args)
        self.moved: list[tuple[int, int]] = []  # (argument index, its copy's address)
        for (i, _), (view, address) in zip(listed, copies, strict=False):
            self.args[i] = view
            self.moved.append((i, address))
        self.targets = [(name, view) for (name, _), (view, _) in zip(pointed, copies[len(listed):], strict=True)]
        self._tables = [self._repoint(self.args[i]) for i in tables]

    def _repoint(self, table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Points the entries of a table's copy that lie in an array copied (or at its end) at the
        copy; returns (the table's copy, its entries as given, as repointed) for copy_back."""
        given = table.copy()
        los = np.array([lo for lo, _, _ in self._copies], np.uint64)
        group = np.searchsorted(los, given, side="right") - 1  # the last group starting at or before each entry
        for g in np.unique(group[group >= 0]):
            lo, copy, size = self._copies[g]
            inside = (group == g) & (given <= np.uint64(lo + size))
            table[inside] = given[inside] - np.uint64(lo) + np.uint64(copy)
        return table, given, table.copy()

    def copy_back(self) -> None:
        """The kernel's writes into the original arrays (a group it left as it was is not written:
        a read-only array stays untouched); a table's entries repointed at the copies (and not
        changed by the kernel) get their own values back first."""
        for table, given, repointed in self._tables:
            kept = table == repointed
            table[kept] = given[kept]
        for original, copy, size in self._copies:
            if size and _memcmp(copy, original, size):
                ctypes.memmove(original, copy, size)


_memcmp = ctypes.CDLL(None).memcmp  # (the process's C library)
_memcmp.argtypes, _memcmp.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t], ctypes.c_int


def _alias_groups(spans: list[_Span]) -> list[list[_Span]]:
    """The spans in groups that share bytes (an empty array at a group's end joins it), by address."""
    groups: list[list[_Span]] = []
    for span in sorted(spans, key=lambda s: (s[0], -s[1])):
        base, size, _ = span
        if groups and (base < _end(groups[-1]) or (size == 0 and base == _end(groups[-1]))):
            groups[-1].append(span)
        else:
            groups.append([span])
    return groups


def _end(group: list[_Span]) -> int:
    return max(base + size for base, size, _ in group)


def _red_zone(size: int) -> int:
    return min(max(size, RED_ZONE_MIN), RED_ZONE_MAX)


# -------------------------------------------------------- source lines ----

_PC = re.compile(r" \[pc (.+?)\+0x([0-9a-f]+)\]")


@functools.lru_cache(maxsize=256)
def _addr2line(so_path: str, offset: int) -> tuple[tuple[str, str, int], ...]:
    """(function, file, line) frames for a code offset, innermost first; () if unknown."""
    tool = shutil.which("addr2line")
    if not tool:
        return ()
    try:
        proc = subprocess.run([tool, "-e", so_path, "-f", "-i", "-C", hex(offset)], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ()
    lines = proc.stdout.splitlines()
    frames = []
    for func, loc in zip(lines[::2], lines[1::2], strict=False):
        file, _, line = loc.rpartition(":")
        line = line.split()[0] if line else ""
        if file and file != "??" and line.isdigit() and int(line) > 0:
            frames.append((func, file, int(line)))
    return tuple(frames)


def explain(message: str, so_path: Path, source_path: Path, source_text: str, label: str) -> str:
    """Replaces the runtime's "[pc FILE+0xOFF]" by the kernel source line(s) it points at."""
    m = _PC.search(message)
    if not m:
        return message
    frames = _addr2line(str(so_path), int(m.group(2), 16)) if Path(m.group(1)).name == so_path.name else ()
    lines = source_text.splitlines()
    from codegen.runtime.line_map import LineMap  # only when a report is explained

    marks = LineMap(label, source_text)  # generated kernels name their template's lines (#line)
    where = []
    for func, file, line in frames:
        named = next((n for n in marks.files if PurePosixPath(file).parts[-len(PurePosixPath(n).parts):]
                      == PurePosixPath(n).parts), None)
        if named is not None:
            physical = marks.physical(named, line)
        elif Path(file).name == source_path.name:
            named, physical = label, line
        else:
            continue  # an emulation header: the kernel's own lines are what helps
        code = lines[physical - 1].strip() if physical is not None and 0 < physical <= len(lines) else ""
        where.append(f"line {line} of {named} ({func}): {code}")
        if len(where) == 3:
            break
    if not where:
        return _PC.sub("", message)
    return _PC.sub("", message) + "\n  at " + "\n  called from ".join(where)
