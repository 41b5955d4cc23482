"""The host runtime's struct layouts against Python's mirrors of them.

Python fills in C structs the runtime reads (``opgen_launch_cfg`` as a ctypes structure, each
``opgen_batch_record`` with a struct format, ``opgen_san_range``). The runtime states how it laid
them out, ``opgen_rt_abi_layout()`` (format in ``emu/opgen_emu_abi.h``: one line per struct,
``NAME=SIZEOF;FIELD=OFFSETOF;...``, computed with sizeof/offsetof); ``check`` compares that with
the layouts Python packs (``ctypes_layout``, ``struct_layout``) and names the first difference.

A layout is ``{"sizeof": bytes, field: offset, ...}`` (``sizeof`` is no C field name); the
runtime's text parses into ``{struct name: layout}``.

Likewise the constants Python mirrors (``opgen_rt_constants()``: ``NAME=VALUE;...``, the limits of
``host/limits.py`` as the runtime was compiled): ``check_constants`` names the first that differs.
Runtime-only: ctypes and struct."""
from __future__ import annotations

import ctypes
import re
import struct
from collections.abc import Iterable, Mapping
from typing import Any

SIZE = "sizeof"

Layout = dict[str, int]


class AbiLayoutError(RuntimeError):
    """Python and the runtime lay out an ABI struct differently (or the layout text is malformed)."""


def parse(text: str) -> dict[str, Layout]:
    """``{struct: {"sizeof": n, field: offset, ...}}`` from the runtime's layout text."""
    layouts: dict[str, Layout] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        (name, size), *fields = (_name_number(item, number, line) for item in line.strip().split(";"))
        if name in layouts:
            raise AbiLayoutError(f"the runtime's ABI layout text, line {number}: struct {name} twice")
        layout = layouts[name] = {SIZE: size}
        for field, offset in fields:
            if field in layout:
                raise AbiLayoutError(f"the runtime's ABI layout text, line {number}: {name}.{field} twice")
            layout[field] = offset
    return layouts


def _name_number(item: str, number: int, line: str) -> tuple[str, int]:
    name, eq, value = item.partition("=")
    if not (eq and name.isidentifier() and value.isdigit()):
        raise AbiLayoutError(f"the runtime's ABI layout text, line {number}: {item!r} is not NAME=NUMBER (in {line!r})")
    return name, int(value)


def check(text: str, expected: Mapping[str, Mapping[str, int]]) -> None:
    """Raise AbiLayoutError naming the struct and field where the runtime's layout text differs
    from what Python packs (``expected``: struct -> layout; fields Python does not name are not
    compared, but every struct's size is)."""
    runtime = parse(text)
    for name, layout in expected.items():
        if name not in runtime:
            raise AbiLayoutError(f"the runtime does not describe struct {name} (it describes "
                                 f"{', '.join(runtime) or 'none'}): {_FIX}")
        have = runtime[name]
        for field, offset in layout.items():
            if field not in have:
                raise AbiLayoutError(f"the runtime's {name} has no field {field}, which Python packs at offset "
                                     f"{offset}: {_FIX}")
            if have[field] != offset:
                if field == SIZE:
                    raise AbiLayoutError(f"the runtime's {name} is {have[field]} bytes, Python packs {offset}: {_FIX}")
                raise AbiLayoutError(f"the runtime's {name}.{field} is at offset {have[field]}, Python packs it at "
                                     f"{offset}: {_FIX}")


def check_constants(text: str, expected: Mapping[str, int]) -> None:
    """Raise AbiLayoutError naming the constant where the runtime's constants text differs from
    Python's value of it (``expected``: name -> value)."""
    have = dict(_name_number(item, 1, text) for item in text.strip().split(";") if item)
    for name, value in expected.items():
        if name not in have:
            raise AbiLayoutError(f"the runtime does not state the constant {name} (it states "
                                 f"{', '.join(have) or 'none'}): {_FIX_CONSTANT}")
        if have[name] != value:
            raise AbiLayoutError(f"the runtime's {name} is {have[name]}, Python's is {value}: {_FIX_CONSTANT}")


_REBUILD = ("a runtime library built from other sources is rebuilt once opgen-emu-rt-* in the cache folder "
            "(OPGEN_CACHE_DIR) is removed")
_FIX = (f"Python's mirror of the struct and codegen/runtime/emu/opgen_emu_abi.h disagree: change them together; "
        f"{_REBUILD}")
_FIX_CONSTANT = (f"codegen/runtime/host/limits.py and codegen/runtime/emu/opgen_emu_abi.h disagree: change them "
                 f"together; {_REBUILD}")


def ctypes_layout(struct_cls: type[ctypes.Structure]) -> Layout:
    """The layout of a ctypes structure: its size and each field's offset."""
    layout: Layout = {SIZE: ctypes.sizeof(struct_cls)}
    for field in struct_cls._fields_:
        layout[field[0]] = getattr(struct_cls, field[0]).offset
    return layout


_ITEM = re.compile(r"\s*(\d*)([xcbB?hHiIlLqQnNefdspP])")


def struct_layout(fmt: str, names: Iterable[str]) -> Layout:
    """The layout a struct format packs: its size and the offset of each item but pad bytes
    (``x``), named in order by ``names`` (a repeat count is that many items; ``s``/``p`` one)."""
    order = fmt[:1] if fmt[:1] in ("@", "=", "<", ">", "!") else ""
    body = fmt[len(order):]
    order = order or "@"
    items: list[str] = []
    pos = 0
    for m in _ITEM.finditer(body):
        if m.start() != pos:
            break
        pos = m.end()
        count, code = m.groups()
        if code in "spx":
            items.append(count + code)
        else:
            items.extend([code] * int(count or 1))
    if body[pos:].strip():
        raise ValueError(f"struct format {fmt!r}: cannot read {body[pos:]!r}")
    names = list(names)
    fields = [item for item in items if not item.endswith("x")]
    if len(names) != len(fields):
        raise ValueError(f"struct format {fmt!r} packs {len(fields)} fields, {len(names)} names given")
    layout: Layout = {SIZE: struct.calcsize(fmt)}
    prefix = order
    named = iter(names)
    for item in items:
        if not item.endswith("x"):  # (alignment, where the order has it, comes before the item)
            layout[next(named)] = struct.calcsize(prefix + item) - struct.calcsize(order + item)
        prefix += item
    return layout


def runtime_text(lib: Any, function: str = "opgen_rt_abi_layout") -> str:
    """The layout text of a loaded runtime library (a ctypes.CDLL with opgen_rt_abi_layout), or
    with `function` "opgen_rt_constants" its constants text."""
    fn = getattr(lib, function)
    fn.restype = ctypes.c_char_p
    fn.argtypes = []
    return str(fn().decode("ascii"))
