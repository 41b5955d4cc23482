"""The native plan recorders (codegen/drivergen.py prints them) loaded with ctypes: `load(source)`
builds a translation unit with the host C++ compiler the cpu backend uses — cached on disk like the
emulation runtime (codegen/runtime/host/libraries.py: keyed by source, flags, compiler and target;
locked), once per process in memory — and `NativePlans.plan(op)` records an op's plan natively into
the same `Recording` that `Plan.record` returns. Nothing calls this at run time yet (the wrappers run
the Python plan); docs/native.md says what comes next."""

from __future__ import annotations

import ctypes
import functools
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from codegen.runtime import diskcache
from codegen.runtime.host.libraries import _build_or_load, file_present
from codegen.runtime.host.state import _LOCK
from codegen.runtime.host.toolchain import _BASE_FLAGS, _compiler_command, _target, compiler_id
from codegen.runtime.kernels import c_name as c_name  # (drivergen and the loaders import it from here)
from codegen.runtime.plan import GEMM_SIZES, Gemm, Lanes, Launch, PlanError, Recording, Slot, Slots

#: plan_abi.h's OPGEN_PLAN_ABI, kinds, step tags and codes (the library states its ABI; a mismatch is refused)
ABI = 2
V_INT, V_FLOAT, V_STR, V_LIST, V_ACT = range(5)
STEP_LAUNCH, STEP_GEMM, STEP_LANES = 1, 2, 3
T_SLOT, T_SLOTS, T_I32, T_I64, T_F32, T_F64, T_BOOL, T_INT, T_FLOAT = range(9)
E_BUFFER = 2
_TABLES = ("names", "strings", "symbols", "variants")
_INT64 = (-(2**63), 2**63 - 1)
_ERRLEN = 512


class PlanValue(ctypes.Structure):
    pass


PlanValue._fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("i", ctypes.c_int64),
                      ("f", ctypes.c_double), ("items", ctypes.POINTER(PlanValue)), ("len", ctypes.c_int64)]


class NativePlanError(PlanError):
    """A plan the native recorder refused (`code`: plan_abi.h's OPGEN_E_*), its message saying why."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


_LIBRARIES: dict[str, NativePlans] = {}
_OBJECTS: dict[str, Path] = {}


def load(source: str, name_hint: str = "plans", include: Sequence[Path] = (), link: Sequence[Path] = ()) -> NativePlans:
    """The library built from `source` (a drivergen translation unit): from this process's memory,
    else the disk cache, else compiled now. `include`: folders the source #includes from (their
    files' contents are part of the cache key); `link`: objects linked in (`object_file`'s: their
    names, which hold their keys, are part of it)."""
    cmd, flags, key = _keyed(source + links(link), [], include)
    with _LOCK:
        found = _LIBRARIES.get(key)
        if found is None:
            lib, _, _ = _build_or_load(f"opgen-plans-{name_hint}-{key[:32]}", source, cmd,
                                      flags + [str(path) for path in link], runtime=True,
                                      what=f"the native plans ({name_hint})")
            found = _LIBRARIES[key] = NativePlans(lib)
        return found


def object_file(source: str, name_hint: str, include: Sequence[Path] = ()) -> Path:
    """`source` compiled once to an object file for `load(..., link=)`: from this process's memory,
    else the disk cache, else compiled now (keyed as `load` keys a library)."""
    cmd, flags, key = _keyed(source, ["-c"], include)
    with _LOCK:
        found = _OBJECTS.get(key)
        if found is None or not found.is_file():  # (the cache cleared under this process: built again)
            _, found, _ = _build_or_load(f"opgen-{name_hint}-{key[:32]}", source, cmd, flags, runtime=True,
                                        what=f"the native {name_hint}", opener=file_present, suffix=".o")
            _OBJECTS[key] = found
        return found


def links(objects: Sequence[Path]) -> str:
    """The objects a library links, for its cache key: their names (an object's name holds its key;
    its folder, the cache's, is no part of a key)."""
    return "".join(f"\n// links {path.name}" for path in objects)


def _keyed(source: str, extra: list[str], include: Sequence[Path]) -> tuple[list[str], list[str], str]:
    """The compiler command, the flags (ours, `extra`, `include` on the include path) and the cache key."""
    cmd = _compiler_command()
    flags = list(_BASE_FLAGS) + extra + [arg for folder in include for arg in ("-I", str(folder))]
    stamp = "".join(f"\n// {folder.name} {folder_digest(folder)}" for folder in include)
    key = diskcache.cache_key(source + stamp, flags, compiler_id(cmd), _target())
    return cmd, flags, key


@functools.lru_cache(maxsize=8)
def folder_digest(folder: Path) -> str:
    """Of every file in `folder` (a header edited: another cache key); read once per process, not
    once per op's driver library (the runtime's files do not change under a running process)."""
    return diskcache.digest(b"".join(p.name.encode() + b"\0" + diskcache.digest(p.read_bytes()).encode()
                                     for p in sorted(folder.iterdir()) if p.is_file()))


class NativePlans:
    """A loaded library of recorders, one per op."""

    def __init__(self, lib: ctypes.CDLL):
        lib.opgen_plan_abi.restype, lib.opgen_plan_abi.argtypes = ctypes.c_int64, [ctypes.c_int]
        abi, size = lib.opgen_plan_abi(0), lib.opgen_plan_abi(1)
        if (abi, size) != (ABI, ctypes.sizeof(PlanValue)):
            raise PlanError(f"the native plan library states ABI {abi} with {size}-byte values; this Python reads "
                            f"ABI {ABI} with {ctypes.sizeof(PlanValue)}-byte values")
        self.lib = lib
        self._plans: dict[str, NativePlan] = {}

    def plan(self, op: str) -> NativePlan:
        if op not in self._plans:
            self._plans[op] = NativePlan(self.lib, op)
        return self._plans[op]


class NativePlan:
    """One op's native recorder and its tables (names, strings, symbols, variants)."""

    def __init__(self, lib: ctypes.CDLL, op: str):
        self.op = op
        name = c_name(op)
        try:
            self._record = getattr(lib, f"opgen_plan_{name}")
            info = getattr(lib, f"opgen_plan_{name}_info")
        except AttributeError:
            raise PlanError(f"the native plan library has no recorder for op {op!r}") from None
        self._record.restype = ctypes.c_int
        self._record.argtypes = [ctypes.POINTER(PlanValue), ctypes.c_int64, ctypes.c_char_p,
                                 ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                                 ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p, ctypes.c_int64]
        info.restype, info.argtypes = ctypes.c_char_p, [ctypes.c_int, ctypes.c_int64]
        tables: list[tuple[str, ...]] = []
        for k in range(len(_TABLES)):
            entries: list[str] = []
            while (entry := info(k, len(entries))) is not None:
                entries.append(entry.decode())
            tables.append(tuple(entries))
        self.names, self.strings, self.symbols, self.variants = tables
        self._string_ids = {s: i for i, s in enumerate(self.strings)}

    def record(self, backend: str, values: Sequence[Any], capacity: int = 1 << 12) -> Recording:
        """As `Plan.record(backend, values)`; the step buffer grows until the steps fit."""
        while True:
            try:
                return self.record_into(backend, values, capacity)
            except NativePlanError as e:
                if e.code != E_BUFFER or capacity >= 1 << 26:
                    raise
                capacity *= 4

    @property
    def recorder(self) -> int:
        """The recorder's address (what a PlanCall's `record` holds)."""
        return ctypes.cast(self._record, ctypes.c_void_p).value or 0

    def encode(self, values: Sequence[Any]) -> tuple[Any, list[Any]]:
        """The values as the recorder's descriptors, and the arrays they point into (keep both)."""
        if len(values) != len(self.names):
            raise PlanError(f"{self.op}: the plan reads {len(self.names)} names, the call gave {len(values)}")
        keep: list[Any] = []  # the arrays list and activation values point into
        array = (PlanValue * max(len(values), 1))()
        for k, (name, v) in enumerate(zip(self.names, values, strict=True)):
            self._encode(array[k], v, name, keep)
        return array, keep

    def record_into(self, backend: str, values: Sequence[Any], capacity: int) -> Recording:
        """The plan recorded into a step buffer of `capacity` words (too small: NativePlanError)."""
        array, _keep = self.encode(values)  # (_keep: what `array` points into, alive until the call returns)
        words = (ctypes.c_int64 * capacity)()
        used, variant = ctypes.c_int64(0), ctypes.c_int64(-1)
        err = ctypes.create_string_buffer(_ERRLEN)
        code = self._record(array, len(values), backend.encode(), words, capacity, ctypes.byref(used),
                            ctypes.byref(variant), err, _ERRLEN)
        if code:
            raise NativePlanError(code, err.value.decode(errors="replace"))
        return Recording(self._decode(words, used.value), self.variants[variant.value] if variant.value >= 0 else None)

    def _encode(self, slot: PlanValue, v: Any, name: str, keep: list[Any]) -> None:
        if isinstance(v, (bool, int, np.integer, np.bool_)):
            if not _INT64[0] <= int(v) <= _INT64[1]:
                raise NativePlanError(3, f"{self.op}: {name} = {int(v)} does not fit an int64")
            slot.kind, slot.i = V_INT, int(v)
        elif isinstance(v, (float, np.floating)):
            slot.kind, slot.f = V_FLOAT, float(v)
        elif isinstance(v, str):
            slot.kind, slot.i = V_STR, self._string_ids.get(v, -1)
        elif isinstance(v, (list, tuple)):
            self._encode_items(slot, V_LIST, 0, v, name, keep)
        elif callable(getattr(v, "kernel_args", None)):  # an activation: its id, then its parameters
            args = v.kernel_args()
            self._encode_items(slot, V_ACT, int(args[0]), args[1:], name, keep)
        else:
            raise NativePlanError(6, f"{self.op}: {name} = {v!r} ({type(v).__name__}) has no native form")

    def _encode_items(self, slot: PlanValue, kind: int, i: int, items: Sequence[Any], name: str,
                      keep: list[Any]) -> None:
        array = (PlanValue * max(len(items), 1))()
        for k, item in enumerate(items):
            self._encode(array[k], item, name, keep)
        keep.append(array)
        slot.kind, slot.i, slot.items, slot.len = kind, i, ctypes.cast(array, ctypes.POINTER(PlanValue)), len(items)

    def _decode(self, words: Any, used: int) -> tuple[Launch | Gemm | Lanes, ...]:
        w = words[:used]
        steps: list[Launch | Gemm | Lanes] = []
        at = 0

        def take(n: int = 1) -> list[int]:
            nonlocal at
            at += n
            return w[at - n:at]

        while at < used:
            kind, = take()
            if kind == STEP_LAUNCH:
                symbol, ngrid = take(2)
                grid = tuple(take(ngrid))
                block = tuple(take(take()[0]))
                shared, nargs = take(2)
                args = tuple(_tagged(*take(2)) for _ in range(nargs))
                steps.append(Launch(self.symbols[symbol], grid, block, shared, args))
            elif kind == STEP_GEMM:
                a, b, out = take(3)
                steps.append(Gemm(a, b, out, tuple(_tagged(*take(2)) for _ in range(GEMM_SIZES))))
            elif kind == STEP_LANES:
                steps.append(Lanes(take()[0]))
            else:
                raise PlanError(f"{self.op}: the native recorder wrote an unknown step kind {kind}")
        return tuple(steps)


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _tagged(tag: int, payload: int) -> Any:
    """A (tag, payload) pair of the step buffer as the value Plan.record puts there."""
    if tag == T_SLOT:
        return Slot(payload)
    if tag == T_SLOTS:
        return Slots(payload)
    if tag == T_I32:
        return np.int32(payload)
    if tag == T_I64:
        return np.int64(payload)
    if tag == T_F32:
        return np.float32(_double(payload))
    if tag == T_F64:
        return np.float64(_double(payload))
    if tag == T_BOOL:
        return bool(payload)
    if tag == T_INT:
        return payload
    if tag == T_FLOAT:
        return _double(payload)
    raise PlanError(f"the native recorder wrote an unknown argument tag {tag}")
