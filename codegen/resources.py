"""Kernel resources: registers, static shared memory and local memory (stack frame, spills) of each
kernel entry point, the largest block its op's launch plan can give it, and the limits it must keep
to launch with that block.

* `read_cubin(data)`: the entry points of a cubin as NVRTC (or ptxas) wrote it, read from the ELF
  itself, so no CUDA tool is needed: registers (EIATTR_REGCOUNT of the `.nv.info` section), local
  memory per thread (EIATTR_MIN_STACK_SIZE: the stack the kernel's whole call tree needs, what the
  driver calls LOCAL_SIZE_BYTES; its own frame where that is missing), static shared memory (the
  size of `.nv.shared.<kernel>`, less the 1 KiB that sm_90 cubins reserve there per block, so the
  number is ptxas's "bytes smem"; cuobjdump's SHARED includes it), barriers (EIATTR_NUM_BARRIERS;
  CUDA 12 cubins keep them in bits 20-26 of the `.text.<kernel>` section's flags) and
  `__launch_bounds__` (EIATTR_MAX_THREADS). A cubin does not say how much of the local memory
  is spills: `parse_ptxas` reads that from ptxas's `-v` report, needed only where local memory is
  not 0 (no local memory, no spills).
* `launch_blocks(op)`: the largest block (threads) each entry point can be launched with on the cuda
  backend, from the spec's launch plan (`codegen.launch_space`: its block expressions over
  intervals, lets switched `by: backend` taking their cuda case, at most CUDA's 1024 threads).
* `KernelResources.problems()`: what would fail or spill: any spill, registers for the largest
  block above the 65,536 an SM gives one block (allocated per warp in units of 256), static shared
  memory above 48 KiB, a block above the kernel's own thread limit.

Used by scripts/nvrtc_compile.py (every module compiled by NVRTC releases from pip, in CI) and
bench/gpu_resources.py (the kernels as the cuda backend loads them on a GPU).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from codegen.model import OpSpec

REGISTERS_PER_BLOCK = 65536  # what one block may hold (sm_50 to sm_120)
REGISTER_UNIT = 8  # registers are allocated per warp in units of 256: 8 per thread
STATIC_SHARED_LIMIT = 48 * 1024  # static __shared__ per block (more needs dynamic shared memory)
RESERVED_SHARED = 1024  # counted in .nv.shared.<kernel> by sm_90+ cubins (they have .nv.shared.reserved.*)


@dataclass
class KernelResources:
    op: str
    kernel: str
    registers: int
    shared_bytes: int  # static shared memory
    local_bytes: int  # local memory per thread (stack frame, spills)
    spill_stores: int = -1  # -1: not known (a GPU's report has no spill counts)
    spill_loads: int = -1
    max_threads: int = -1  # the kernel's own limit: the driver's on a GPU, __launch_bounds__ in a cubin
    barriers: int = -1
    max_block: int = -1  # the largest block the op's launch plan can launch it with; -1: not known

    def problems(self) -> list[str]:
        """Why this kernel would spill or fail to launch with the largest block its spec can ask for."""
        found = []
        if self.spill_stores > 0 or self.spill_loads > 0:
            found.append(f"spills registers ({self.spill_stores} B stores, {self.spill_loads} B loads)")
        if self.max_block > 0 and block_registers(self.registers, self.max_block) > REGISTERS_PER_BLOCK:
            found.append(f"{self.registers} registers × a block of {self.max_block} threads (the largest its "
                         f"launch plan can ask for) need {block_registers(self.registers, self.max_block)} "
                         f"registers > {REGISTERS_PER_BLOCK}")
        if self.shared_bytes > STATIC_SHARED_LIMIT:
            found.append(f"{self.shared_bytes} B of static shared memory > {STATIC_SHARED_LIMIT}")
        if self.max_block > 0 and 0 <= self.max_threads < self.max_block:
            found.append(f"its launch plan can ask for {self.max_block} threads per block, the kernel allows "
                         f"{self.max_threads}")
        return found


def block_registers(registers: int, threads: int) -> int:
    """The registers a block of `threads` takes: per warp, in units of 256 (8 per thread)."""
    return math.ceil(registers / REGISTER_UNIT) * REGISTER_UNIT * math.ceil(threads / 32) * 32


# ----------------------------------------------------------------------------- cubin --

_EIATTR_MAX_THREADS = 0x05
_EIATTR_FRAME_SIZE = 0x11
_EIATTR_MIN_STACK_SIZE = 0x12
_EIATTR_REGCOUNT = 0x2F
_EIATTR_NUM_BARRIERS = 0x4C
_EIFMT_SVAL = 0x04
_STO_CUDA_ENTRY = 0x10
_SHT_SYMTAB = 2


class CubinError(ValueError):
    """Not a cubin this reader understands."""


def _attributes(data: bytes, offset: int, size: int) -> Iterator[tuple[int, bytes]]:
    """(attribute, value) of an .nv.info section: [format:1][attribute:1] then 2 bytes (formats 1-3)
    or [size:2][size bytes] (format 4, SVAL). Stops at anything else."""
    at, end = offset, offset + size
    while at + 4 <= end:
        fmt, attr = data[at], data[at + 1]
        if fmt == _EIFMT_SVAL:
            (length,) = struct.unpack_from("<H", data, at + 2)
            yield attr, data[at + 4:at + 4 + length]
            at += 4 + length
        elif fmt in (1, 2, 3):
            yield attr, data[at + 2:at + 4]
            at += 4
        else:
            return


def read_cubin(data: bytes, op: str = "") -> list[KernelResources]:
    """The kernel entry points of a cubin (a 64-bit little-endian CUDA ELF), in symbol order."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
        raise CubinError("not a 64-bit little-endian ELF file")
    try:
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        names_at = sections[shstrndx][4]

        def text(at: int) -> str:
            return data[at:data.index(b"\0", at)].decode("utf-8", "replace")

        named = {text(names_at + s[0]): s for s in sections}
        symtab = next(s for s in sections if s[1] == _SHT_SYMTAB)
        strings = sections[symtab[6]][4]
        symbols = [struct.unpack_from("<IBBHQQ", data, symtab[4] + at) for at in range(0, symtab[5], 24)]
    except (struct.error, IndexError, ValueError, StopIteration) as exc:
        raise CubinError(f"unreadable ELF: {exc}") from exc
    per_symbol: dict[int, dict[int, int]] = {}
    info = named.get(".nv.info")
    for attr, value in _attributes(data, info[4], info[5]) if info else ():
        if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE, _EIATTR_MIN_STACK_SIZE) and len(value) >= 8:
            index, amount = struct.unpack_from("<II", value)
            per_symbol.setdefault(index, {})[attr] = amount
    reserved = RESERVED_SHARED if any(n.startswith(".nv.shared.reserved.") for n in named) else 0
    rows = []
    for index, (name_at, _info, other, _shndx, _value, _size) in enumerate(symbols):
        if not other & _STO_CUDA_ENTRY:
            continue
        name = text(strings + name_at)
        attrs = per_symbol.get(index, {})
        shared = named.get(f".nv.shared.{name}")
        code = named.get(f".text.{name}")
        row = KernelResources(op, name, attrs.get(_EIATTR_REGCOUNT, 0),
                              max(0, shared[5] - reserved) if shared else 0,
                              attrs.get(_EIATTR_MIN_STACK_SIZE, attrs.get(_EIATTR_FRAME_SIZE, 0)),
                              barriers=(code[2] >> 20) & 0x7F if code else 0)  # CUDA 12: in the flags
        kernel_info = named.get(f".nv.info.{name}")
        for attr, value in _attributes(data, kernel_info[4], kernel_info[5]) if kernel_info else ():
            if attr == _EIATTR_NUM_BARRIERS:
                row.barriers = value[0]
            elif attr == _EIATTR_MAX_THREADS and len(value) >= 12:
                row.max_threads = math.prod(struct.unpack_from("<III", value))
        if row.local_bytes == 0:  # no local memory: nothing spilled
            row.spill_stores = row.spill_loads = 0
        rows.append(row)
    return rows


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
# a kernel with a stack frame also reports "N bytes cumulative stack size" before its smem
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, \d+ bytes cumulative stack size)?"
                   r"(?:, (\d+) bytes smem)?")


def parse_ptxas(op: str, text: str) -> list[KernelResources]:
    """ptxas's -v report (nvcc -Xptxas -v, NVRTC --ptxas-options=-v), one entry per kernel entry
    point. A device function's spills (a call ptxas did not inline) count for the entry point
    compiled just before it."""
    found: list[KernelResources] = []
    current: KernelResources | None = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = KernelResources(op, m.group(1), 0, 0, 0, 0, 0)
            found.append(current)
            continue
        if current is None:
            continue
        m = _PROPS.search(line)
        if m:
            frame, stores, loads = map(int, m.groups())
            current.local_bytes = max(current.local_bytes, frame)
            current.spill_stores += stores
            current.spill_loads += loads
            continue
        m = _USED.search(line)
        if m:
            current.registers = int(m.group(1))
            current.barriers = int(m.group(2) or 0)
            current.shared_bytes = int(m.group(3) or 0)
    return found


# ----------------------------------------------------------------------- launch plan --

def launch_blocks(op: OpSpec, plan: str = "cuda") -> dict[str, int]:
    """Entry point → the largest block (threads) `op`'s launch plan `plan` can launch it with:
    the largest block-size class of `codegen.launch_space` (a power of two at or above the largest
    block its block expression can yield, at most 1024: exact for block sizes that are powers of
    two, as today's specs' are, an over-estimate otherwise). An entry point the plan never launches
    (a `when: {backend: cpu}` step's kernel, say) is left out."""
    if op.kernel is None:
        return {}
    from codegen.lower import largest_blocks, lower

    symbols = lower(op).symbols
    return {symbol: block for kernel, block in largest_blocks(op)[plan].items() for symbol in symbols[kernel].values()}


def attach_blocks(rows: Iterable[KernelResources], specs: Iterable[OpSpec]) -> None:
    """Set each row's max_block from its op's spec (rows of ops or kernels not found keep -1)."""
    by_op = {op.name: op for op in specs}
    cache: dict[str, dict[str, int]] = {}  # op → its blocks: computed once per op (seconds for the RNN ops)
    for row in rows:
        if row.op in by_op:
            if row.op not in cache:
                cache[row.op] = launch_blocks(by_op[row.op])
            row.max_block = cache[row.op].get(row.kernel, -1)


# ----------------------------------------------------------------------------- table --

def table(rows: Iterable[KernelResources]) -> str:
    """A markdown table, one row per kernel (empty cells: not known)."""
    def opt(v: int) -> str:
        return "" if v < 0 else str(v)

    lines = ["| op | kernel | registers | static smem B | local B (stack+spill) | spill st/ld B | barriers | "
             "largest block | registers per block | max threads |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        spills = "" if r.spill_stores < 0 else f"{r.spill_stores}/{r.spill_loads}"
        per_block = "" if r.max_block <= 0 else str(block_registers(r.registers, r.max_block))
        lines.append(f"| {r.op} | {r.kernel} | {r.registers} | {r.shared_bytes} | {r.local_bytes} | {spills} | "
                     f"{opt(r.barriers)} | {opt(r.max_block)} | {per_block} | {opt(r.max_threads)} |")
    return "\n".join(lines)


def summary(rows: list[KernelResources]) -> str:
    """One line: how many kernels, the most registers, local memory and spills, problems."""
    if not rows:
        return "no kernels"
    top = max(rows, key=lambda r: r.registers)
    local = [r.kernel for r in rows if r.local_bytes > 0]
    spilling = [r.kernel for r in rows if r.spill_stores > 0 or r.spill_loads > 0]
    failing = [r.kernel for r in rows if r.problems()]
    return (f"{len(rows)} kernels; most registers {top.registers} ({top.kernel}); largest static smem "
            f"{max(r.shared_bytes for r in rows)} B; local memory in {len(local)}"
            + (f" ({', '.join(local)})" if local else "") + f"; spills in {len(spilling)}"
            + (f" ({', '.join(spilling)})" if spilling else "") + f"; over a limit: {len(failing)}"
            + (f" ({', '.join(failing)})" if failing else ""))
