"""Every `OPGEN_*` environment variable opgen reads, declared once: its name, type, default, what it
does, and its validation (a bad value raises SettingError naming the variable and the value). The
runtime reads these variables only through `Setting.get`/`Setting.raw`;
tests/test_settings.py checks that each name the code or the docs use is declared here and that
each declared one is documented.

Values are read on every use, not at import: a test may set a variable at any time (pytest's
`monkeypatch.setenv`, `os.environ[...] =`) and the next call sees it. Some are read on every call
of a wrapper (OPGEN_POISON_OUTPUTS on each allocation, the launch settings on each batch: about ten
reads per call), so `Setting.raw` reads the dict that os.environ keeps its values in where CPython has one:
os.environ.get costs ~0.5 µs for an unset name (it encodes the key, then raises and catches
KeyError), about 5 µs of a 28 µs call, against ~0.05 µs. os.environ writes that dict on every
change, so both read the same values; `_environ_dict` checks the layout it relies on once and
falls back to os.environ.get on any Python without it (or where the check fails).

That dict is swapped, at import, for a `_CountingEnviron` (a dict that counts its writes, the same
keys and values): `environ_version()` changes with every write through os.environ (setenv,
delenv, `os.environ[...] =`, pop, clear, update), so a caller may keep what it parsed from the
variables until it changes (the native wrappers' route, read on every call: native_driver.py). It
is None where there is no such dict: then read the variables again each time. Both this and `raw`
trust that nothing replaces os.environ's dict after this module is imported."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The rules of a flag. The emulation runtime's C++ parses its variables by these same rules:
# rt/settings.cpp is generated from this module (settings_cxx.py), so the two cannot differ.
FLAG_OFF = ("", "0", "false", "no", "off")
FLAG_ON = ("1", "true", "yes", "on")
FLAG_EXPECTED = "expected 1 or 0 (also true/false, yes/no, on/off)"
BLANK = " \t\n\r\v\f"  # what surrounds a value (ASCII: C's isspace); a value of only these is unset


class SettingError(ValueError):
    """An OPGEN_* environment variable holds a value its setting does not take."""


class _CountingEnviron(dict):  # type: ignore[type-arg]
    """os.environ's own dict, counting every write after it is made (`version`: os.environ's
    methods write through __setitem__ and __delitem__; the rest are counted too)."""

    __slots__ = ("version",)

    def __init__(self, data: dict[bytes, bytes]):
        super().__init__(data)
        self.version = 0

    # (counted after the write: a reader that saw the old count reads again at its next call)
    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.version += 1

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self.version += 1

    def pop(self, *args: Any) -> Any:
        try:
            return super().pop(*args)
        finally:
            self.version += 1

    def popitem(self) -> Any:
        try:
            return super().popitem()
        finally:
            self.version += 1

    def clear(self) -> None:
        super().clear()
        self.version += 1

    def update(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().update(*args, **kwargs)
        finally:
            self.version += 1

    def setdefault(self, key: Any, default: Any = None) -> Any:
        try:
            return super().setdefault(key, default)
        finally:
            self.version += 1

    def __ior__(self, other: Any) -> Any:  # type: ignore[misc]  # (any mapping, as dict takes)
        self.update(other)
        return self


def _environ_dict() -> dict[bytes, bytes] | None:
    """The dict behind os.environ, if it is one keyed and valued as `raw` reads it (POSIX CPython:
    bytes from str with the filesystem encoding), made a _CountingEnviron; None elsewhere (Windows
    keys are upper-cased str)."""
    data = getattr(os.environ, "_data", None)
    encode = getattr(os.environ, "encodekey", None)
    counting = type(data).__name__ == _CountingEnviron.__name__ and hasattr(data, "version")  # (this module reloaded)
    if (type(data) is not dict and not counting) or encode is None or os.name != "posix":
        return None
    try:
        probe_ok = encode("OPGEN_X") == b"OPGEN_X"
    except Exception:  # noqa: BLE001  (any surprise here means: use the supported path)
        return None
    if not probe_ok:
        return None
    if not counting:
        old, data = data, _CountingEnviron(data)  # type: ignore[arg-type]
        os.environ._data = data  # type: ignore[attr-defined]
        environb = getattr(os, "environb", None)  # (POSIX: the same dict behind os.environb; kept shared)
        if environb is not None and getattr(environb, "_data", None) is old:
            environb._data = data
    return data


_ENVIRON = _environ_dict()
_COUNTED = _ENVIRON if _ENVIRON is not None and hasattr(_ENVIRON, "version") else None


def environ_version() -> int | None:
    """A number that changes with every write to os.environ, or None where writes are not counted
    (module doc): then the variables must be read again at each use."""
    return None if _COUNTED is None else _COUNTED.version  # type: ignore[attr-defined,no-any-return]


def parse_flag(name: str, text: str) -> bool:
    word = text.strip(BLANK)
    word = word.lower() if word.isascii() else word  # (ASCII case folding, as C's tolower)
    if word in FLAG_OFF:
        return False
    if word in FLAG_ON:
        return True
    raise SettingError(f"{name}={text!r}: {FLAG_EXPECTED}")


def parse_seed(name: str, text: str) -> int | None:
    word = text.strip()
    if not word:
        return None
    try:
        return int(word, 0)
    except ValueError:
        raise SettingError(f"{name}={text!r}: expected an integer seed (decimal, or 0x... hex)") from None


def int_at_least(minimum: int) -> Callable[[str, str], int]:
    def parse(name: str, text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise SettingError(f"{name}={text!r}: expected an integer >= {minimum}") from None
        if value < minimum:
            raise SettingError(f"{name}={text!r}: expected an integer >= {minimum}")
        return value
    return parse


def parse_text(name: str, text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Setting:
    """One environment variable. `default` is the value when it is unset or blank (a callable:
    computed then). `parse(name, text)` turns a non-blank value into the setting's value or raises
    SettingError. `reader` says who reads it: "python" (this package, through `get`) or
    "runtime.cpp" (the emulation runtime's C++ reads it with getenv, through the parser generated
    from this declaration: rt/settings.cpp; Python checks it before each launch all the same, so a
    bad value is a SettingError here too) or "the PyTorch library" (read only where a package's
    library binds its ops itself, with no Python: self_bind.py hands it the name)."""

    name: str
    type: str
    default: Any
    doc: str
    parse: Callable[[str, str], Any] = parse_text
    reader: str = "python"
    key: bytes = field(default=b"", init=False, repr=False, compare=False)  # os.environ's own key (`raw`)

    computed: bool = field(default=False, init=False, repr=False, compare=False)  # default() is called

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.name.encode())
        object.__setattr__(self, "computed", callable(self.default))

    def raw(self) -> str:
        """The variable's text ("" when unset)."""
        if _ENVIRON is not None:
            value = _ENVIRON.get(self.key)
            return "" if value is None else value.decode(errors="surrogateescape")
        return os.environ.get(self.name, "")

    def is_set(self) -> bool:
        """Whether the variable exists at all (a launch's cheapest test before `get`)."""
        return self.key in _ENVIRON if _ENVIRON is not None else self.name in os.environ

    def set(self, text: str) -> None:
        """The variable set in this process's environment, so the processes it starts inherit it: a
        tool's choice for its own run (opgen verify poisons outputs, gpu-check compiles with line info)."""
        os.environ[self.name] = text

    def get(self) -> Any:
        """The setting's value: the default when unset or blank, else the parsed text."""
        if (_ENVIRON is None or self.key in _ENVIRON) and (text := self.raw()).strip(BLANK):
            return self.parse(self.name, text)
        return self.default() if self.computed else self.default  # unset (the usual case) or blank


def raw_values(*chosen: Setting) -> Callable[[], tuple[Any, ...]]:
    """A function giving the current raw values of `chosen` as one hashable tuple: the cheapest
    test of whether any of them changed (a caller caches what they parse to by it)."""
    if _ENVIRON is not None:
        env_get, keys = _ENVIRON.get, tuple(s.key for s in chosen)
        if len(keys) == 4:  # the launch settings, read on every batch: unrolled, 2.5x faster than map
            a, b, c, d = keys
            return lambda: (env_get(a), env_get(b), env_get(c), env_get(d))
        if len(keys) == 8:  # a native call's route and launch settings, read on every call: likewise
            a, b, c, d, e, f, g, h = keys
            return lambda: (env_get(a), env_get(b), env_get(c), env_get(d), env_get(e), env_get(f), env_get(g),
                            env_get(h))
        return lambda: tuple(map(env_get, keys))
    names = tuple(s.name for s in chosen)
    return lambda: tuple(map(os.environ.get, names))


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))  # CPUs this process may use (containers)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


POISON_OUTPUTS = Setting(
    "OPGEN_POISON_OUTPUTS", "flag", False,
    "outputs start as NaN (integers: all bits set), so an element no kernel writes shows; tests set it",
    parse_flag)
HOST_SANITIZE = Setting(
    "OPGEN_HOST_SANITIZE", "flag", False,
    "run kernels on the cpu backend in its sanitize build (memcheck, racecheck, sync checks): slow",
    parse_flag)
HOST_RANDOM_ORDER = Setting(
    "OPGEN_HOST_RANDOM_ORDER", "int seed", None,
    "the cpu backend runs blocks and threads in a random order drawn from this seed (shows order bugs)",
    parse_seed)
HOST_THREADS = Setting(
    "OPGEN_HOST_THREADS", "int >= 1", _cpus,
    "OS threads the cpu backend runs a launch's blocks on",
    int_at_least(1))
HOST_STACK_KB = Setting(
    "OPGEN_HOST_STACK_KB", "int >= 16", 64,
    "stack KiB of each emulated GPU thread (a fiber) on the cpu backend",
    int_at_least(16))
HOST_ISA = Setting(
    "OPGEN_HOST_ISA", "auto, baseline or x86-64-v3", "auto",
    "the vector ISA the cpu backend compiles kernels for (host_isa.py validates it against the CPU)")
HOST_CATCH_SIGNALS = Setting(
    "OPGEN_HOST_CATCH_SIGNALS", "flag", True,
    "0: the emulation runtime leaves SIGSEGV/SIGBUS/SIGFPE in kernels to the previous handler (read by "
    "the runtime when it first launches a kernel)",
    parse_flag, reader="runtime.cpp")
CACHE_DIR = Setting(
    "OPGEN_CACHE_DIR", "path", "",
    "the kernel caches' folder (unset: `$XDG_CACHE_HOME/opgen`, else `~/.cache/opgen`)")
NVRTC_CACHE = Setting(
    "OPGEN_NVRTC_CACHE", "path", "",
    "the NVRTC releases opgen verify's nvrtc check and the GPU check compile with, unpacked "
    "(`python -m codegen.verify.nvrtc_compile` fetches them; unset: `$XDG_CACHE_HOME/opgen-ci/nvrtc`, else "
    "`~/.cache/opgen-ci/nvrtc`)")
CUDA_LINEINFO = Setting(
    "OPGEN_CUDA_LINEINFO", "flag", False,
    "the cuda backend compiles with line info (--generate-line-info: compute-sanitizer names lines)",
    parse_flag)


def parse_plan(name: str, text: str) -> str:
    word = text.strip().lower()
    if word not in ("data", "loop"):
        raise SettingError(f"{name}={text!r}: expected data or loop")
    return word


PLAN = Setting(
    "OPGEN_PLAN", "data or loop", "data",
    "how generated wrappers run their launch plan: as data, recorded once per sizes and attrs and "
    "replayed (codegen/runtime/plan.py), or `loop`: the same plan as the wrapper's printed Python",
    parse_plan)

NO_REPLAY = Setting(
    "OPGEN_NO_REPLAY", "flag", False,
    "1: a launch plan is recorded afresh on every call and run launch by launch: no recording kept, "
    "no CUDA graph (cuda backend), no native batches (cpu backend); for debugging",
    parse_flag)

NATIVE = Setting(
    "OPGEN_NATIVE", "flag", True,
    "0: generated wrappers run their checks and plan in Python (the reference path) instead of calling "
    "the op's native driver once (docs/native.md)",
    parse_flag)
TORCH_NATIVE = Setting(
    "OPGEN_TORCH_NATIVE", "flag", True,
    "0: a package's torch module (read when it is imported) registers its ops in Python instead of loading "
    "its native library (`library_path()`: the schemas and the CPU and CUDA kernels in C++ through PyTorch's "
    "stable ABI, calling the native drivers; built on the first import and cached; where it cannot be built, "
    "the module warns once and registers them in Python)",
    parse_flag)
TORCH_AUTOGRAD_GATE = Setting(
    "OPGEN_TORCH_AUTOGRAD_GATE", "flag", True,
    "0: with the native library (OPGEN_TORCH_NATIVE), a package's torch module keeps its ops' Autograd "
    "kernels in Python instead of building and loading their C++ one (opgen's gate library, against "
    "PyTorch's own headers; docs/pytorch.md)",
    parse_flag)
TORCH_OUTPUT_POOL = Setting(
    "OPGEN_TORCH_OUTPUT_POOL", "flag", True,
    "0: the native PyTorch library's large cpu outputs (8 MiB and more) come from PyTorch's allocator on every "
    "call instead of a pool of blocks reused across calls (read when a package's torch module loads the library; "
    "the pool keeps at most 128 MiB idle; docs/pytorch.md)",
    parse_flag)
BLAS = Setting(
    "OPGEN_BLAS", "library name or path", "",
    "the BLAS a package's native PyTorch library loads first for the cpu's GEMM steps where it binds its ops "
    "itself (a process without opgen's Python; then libopenblas.so.0, libblas.so.3)",
    parse_text, reader="the PyTorch library")

SETTINGS: dict[str, Setting] = {s.name: s for s in (
    POISON_OUTPUTS, HOST_SANITIZE, HOST_RANDOM_ORDER, HOST_THREADS, HOST_STACK_KB, HOST_ISA,
    HOST_CATCH_SIGNALS, CACHE_DIR, NVRTC_CACHE, CUDA_LINEINFO, PLAN, NO_REPLAY, NATIVE, TORCH_NATIVE,
    TORCH_AUTOGRAD_GATE, TORCH_OUTPUT_POOL, BLAS)}
"""Every setting by its variable's name."""
