"""The symbols of an ELF64 little-endian shared library, from its .symtab (the local ones included:
a function's static variables, a hidden kernel-table symbol), with where each one's bytes lie in the
file. Read by the sanitize build (host_sanitize.py: the static __shared__ variables) and by
host/smem_spans.py (which bytes of shared memory each kernel can touch)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import NamedTuple

STT_OBJECT = 1
STT_TLS = 6
_SHT_SYMTAB = 2
_SHT_NOBITS = 8


class Symbol(NamedTuple):
    name: str
    kind: int  # STT_*
    value: int  # an address; for STT_TLS, the offset in the module's TLS block
    size: int
    file_offset: int | None  # where its bytes are in the file (None: undefined, or in no file bytes: .bss)


def symbols(data: bytes) -> list[Symbol]:
    """Every defined .symtab symbol of the library whose bytes are `data`; [] if it is not one we can read."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:  # ELF64 little-endian only
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for sh in sections:
        if sh[1] != _SHT_SYMTAB:
            continue
        offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9]
        strtab = sections[link]
        for k in range(0, size, entsize):
            name_off, info, _other, shndx, value, sym_size = struct.unpack_from("<IBBHQQ", data, offset + k)
            if shndx == 0 or shndx >= len(sections):  # undefined, or absolute/common (no section of ours)
                continue
            start = strtab[4] + name_off
            name = data[start:data.index(b"\0", start)].decode("utf-8", "replace")
            home = sections[shndx]  # (name, type, flags, addr, offset, size, ...)
            inside = home[1] != _SHT_NOBITS and home[3] <= value and value + sym_size <= home[3] + home[5]
            out.append(Symbol(name, info & 0xF, value, sym_size, home[4] + value - home[3] if inside else None))
    return out


def tls_symbols(path: Path) -> list[tuple[int, int, str]]:
    """(offset in the module's TLS block, size, symbol) of every thread_local of the library at
    `path`; [] if the file is not one we can read."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    return [(s.value, s.size, s.name) for s in symbols(data) if s.kind == STT_TLS]
