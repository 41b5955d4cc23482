"""Which bytes of static shared memory each kernel of a host module can touch, written into the
built library (its `opgen_smem_<kernel>` tables, emu/include/opgen_emu_glue.h), so that a block
poisons only those instead of the module's whole thread-local storage: every kernel's `__shared__`
variables of every instantiation (FusedBatchNormGradV3's module: 165 KiB, poisoned per block).

The facts come from GCC: `-fdump-tree-optimized-asmname` writes each function's final code naming
every variable and function by its symbol, inlined callees' static variables included (a local
static keeps its function's name: `_ZZN5opgen10block_sum2IfE...E7partial`). A kernel can touch the
static thread-locals named in the functions it reaches (by call or by taking an address), from its
own function and its glue's `opgen_run_<kernel>`, plus every one that no kernel's reach names
(reached some way this reading cannot see: a function pointer in global data). A kernel whose reach
holds an indirect call other than to the emulation runtime's table (`opgen_rt_->sync_block`...), or
that the dump does not hold, keeps the placeholder: its blocks poison everything, as before. So does
every kernel where the compiler is not GCC (no dump) or the library's symbols cannot be read."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

from codegen.runtime.elf_symbols import STT_OBJECT, STT_TLS, symbols
from codegen.runtime.host_sanitize import INTERNAL_TLS

RANGES = 16  # OPGEN_SMEM_RANGES: (offset, size) pairs a table holds
ALL = 2**64 - 1  # OPGEN_SMEM_ALL: not known, poison everything
TABLE = "opgen_smem_"
GAP = 256  # ranges closer than this are poisoned as one (one memset instead of two)

_FUNCTION = re.compile(r"^;; Function (.*?) \((\S+), funcdef_no=", re.M)
_WORD = re.compile(r"[A-Za-z_$][\w.$]*")
_CALL = re.compile(r"^\s*(?:[^;=\n]*= )?([A-Za-z_][\w.$]*)(?:\(D\))? \(", re.M)
_SSA = re.compile(r"(?:[\w.$]*_)?\d+")  # GIMPLE's temporaries: `_12`, `fn_3`
_RT_API = Path(__file__).resolve().parent.parent / "emu" / "opgen_emu_abi.h"


def dump_flags(compiler_version: str, dump: Path) -> list[str]:
    """The option that writes the dump this module reads, where the compiler is GCC."""
    return [f"-fdump-tree-optimized-asmname={dump}"] if "Free Software Foundation" in compiler_version else []


def _runtime_calls() -> re.Pattern[str]:
    """A GIMPLE load of one of the runtime table's functions (opgen_rt_api's members, from the ABI
    header): a call through it enters the runtime, which touches no shared memory of the module."""
    text = _RT_API.read_text()
    body = text[text.index("struct opgen_rt_api {"):]
    members = re.findall(r"\(\*(\w+)\)", body[:body.index("\n};")])
    return re.compile(r"^\s*(\S+) = \S*(?:->|\.)(?:" + "|".join(members) + r");", re.M)


class _Function:
    def __init__(self, body: str, runtime_calls: re.Pattern[str]) -> None:
        self.words = set(_WORD.findall(body))
        through_runtime = set(runtime_calls.findall(body))
        self.indirect = "OBJ_TYPE_REF" in body or any(
            _SSA.fullmatch(callee) and callee not in through_runtime for callee in _CALL.findall(body))


def kernel_ranges(dump: str, tls: Iterable[tuple[int, int, str]], kernels: Sequence[str],
                  dyn: tuple[int, int] | None) -> dict[str, list[tuple[int, int]] | None]:
    """Per kernel, the (offset, size) ranges of the module's TLS block it can touch (None: not
    known). `tls`: the library's thread-locals (offset, size, symbol); `dyn`: the dynamic shared
    memory buffer's (offset, size), poisoned on its own by the requested size."""
    runtime_calls = _runtime_calls()
    heads = list(_FUNCTION.finditer(dump))
    functions: dict[str, _Function] = {}
    named: dict[str, list[str]] = {}  # a dump's name → its functions' assembler names
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        body = dump[head.end():after.start() if after else len(dump)]
        functions[head.group(2)] = _Function(body, runtime_calls)
        named.setdefault(head.group(1), []).append(head.group(2))
    shared = {name: (off, size) for off, size, name in tls
              if size > 0 and not INTERNAL_TLS.search(name)
              and not (dyn and dyn[0] <= off < dyn[0] + dyn[1])}

    def reach(kernel: str) -> set[str] | None:
        todo = [f for f in (kernel, *named.get(f"opgen_run_{kernel}", ())) if f in functions]
        seen = set(todo)
        while todo:
            for callee in functions[todo.pop()].words & functions.keys() - seen:
                seen.add(callee)
                todo.append(callee)
        return seen or None

    reached = {k: reach(k) for k in kernels}
    touched: dict[str, set[str] | None] = {
        k: set().union(*(functions[f].words & shared.keys() for f in r)) if r else None for k, r in reached.items()}
    orphans = shared.keys() - set().union(*(t for t in touched.values() if t))
    out: dict[str, list[tuple[int, int]] | None] = {}
    for k in kernels:
        r, t = reached[k], touched[k]
        unknown = r is None or t is None or any(functions[f].indirect for f in r)
        out[k] = None if unknown else _merged([shared[v] for v in (t or set()) | orphans])
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, overlapping and near ranges joined, at most RANGES (the closest joined first)."""
    out: list[list[int]] = []
    for off, size in sorted(spans):
        if out and off <= out[-1][0] + out[-1][1] + GAP:
            out[-1][1] = max(out[-1][1], off + size - out[-1][0])
        else:
            out.append([off, size])
    while len(out) > RANGES:
        i = min(range(len(out) - 1), key=lambda j: out[j + 1][0] - out[j][0] - out[j][1])
        out[i][1] = out[i + 1][0] + out[i + 1][1] - out[i][0]
        del out[i + 1]
    return [(off, size) for off, size in out]


def patch(library: Path, dump: Path) -> None:
    """Writes each kernel's ranges into `library`'s tables, as the dump at `dump` says (then removed);
    leaves the placeholders where there is no dump (not GCC) or nothing readable."""
    try:
        text = dump.read_text(errors="replace")
    except OSError:
        return
    finally:
        dump.unlink(missing_ok=True)
    data = bytearray(library.read_bytes())
    syms = symbols(bytes(data))
    tables = {s.name[len(TABLE):]: s for s in syms
              if s.kind == STT_OBJECT and s.name.startswith(TABLE) and s.file_offset is not None
              and s.size == 8 * (1 + 2 * RANGES)}
    if not tables:
        return
    tls = [(s.value, s.size, s.name) for s in syms if s.kind == STT_TLS]
    dyn = next(((off, size) for off, size, name in tls if name == "opgen_dyn_smem"), None)
    for kernel, spans in kernel_ranges(text, tls, sorted(tables), dyn).items():
        words = [ALL] if spans is None else [len(spans), *(v for span in spans for v in span)]
        offset = tables[kernel].file_offset
        assert offset is not None  # (tables holds only symbols with file bytes)
        struct.pack_into(f"<{len(words)}Q", data, offset, *words)
    library.write_bytes(bytes(data))


def tables(library: Path) -> dict[str, list[tuple[int, int]] | None]:
    """Per kernel, the ranges its table in `library` holds (None: poison everything); for tests and
    for a look at what a build wrote."""
    data = library.read_bytes()
    out = {}
    for s in symbols(data):
        if s.kind == STT_OBJECT and s.name.startswith(TABLE) and s.file_offset is not None:
            words = struct.unpack_from(f"<{1 + 2 * RANGES}Q", data, s.file_offset)
            out[s.name[len(TABLE):]] = None if words[0] > RANGES else [
                (words[1 + 2 * i], words[2 + 2 * i]) for i in range(words[0])]
    return out
