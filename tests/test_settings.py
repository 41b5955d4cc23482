"""codegen/runtime/settings.py (issue 22 item 4): every OPGEN_* environment variable declared once,
validated with errors naming the variable and the value, read only through it; and one registry of
the runtime's counters (codegen/runtime/stats.py)."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from codegen.runtime import cuda_cache, host, settings, stats
from codegen.runtime.settings import SETTINGS, Setting, SettingError

ROOT = Path(__file__).resolve().parent.parent
CODEGEN = ROOT / "codegen"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), CODEGEN / "runtime" / "emu" / "README.md"]
#: Read by opgen's own tools, not by codegen/: documented for their users, declared where read.
TOOL_VARIABLES: dict[str, str] = {}  # a variable only a script or test reads: name → who
# How the docs write an environment variable: `NAME=value` or `$NAME`.
_DOC_VARIABLE = re.compile(r"(?:\$\{?(OPGEN_[A-Z0-9_]+)|\b(OPGEN_[A-Z0-9_]+)=)")


def env_reads_in_python(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, variable or what) for each direct environment read in `tree`: os.environ.get(X),
    os.getenv(X), os.environ[X] with X a string or a module-level name bound to one ("?" when X is
    anything else), and any use of `_data` on os.environ ("_data")."""
    constants = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}

    def name_of(arg: ast.expr) -> str:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        return constants.get(arg.id, "?") if isinstance(arg, ast.Name) else "?"

    found = []
    for node in ast.walk(tree):
        text = ast.unparse(node)
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv") and node.args:
            found.append((node.lineno, name_of(node.args[0])))
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            found.append((node.lineno, name_of(node.slice)))
        elif (isinstance(node, ast.Attribute) and node.attr == "_data" and text.endswith("environ._data")) or (
                isinstance(node, ast.Constant) and node.value == "_data"):  # getattr(os.environ, "_data")
            found.append((node.lineno, "_data"))
    return found


def test_only_settings_reads_opgen_variables_from_the_environment() -> None:
    """Every direct environment read under codegen/ outside settings.py names a variable that is
    not opgen's (CXX, XDG_CACHE_HOME), and only settings.py touches os.environ's `_data`."""
    bad = []
    for path in sorted(CODEGEN.rglob("*.py")):
        if path == CODEGEN / "runtime" / "settings.py":
            continue
        for line, name in env_reads_in_python(ast.parse(path.read_text(), str(path))):
            if name.startswith("OPGEN_") or name in ("_data", "?"):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert bad == []


@pytest.mark.parametrize(("source", "expected"), [
    ('import os\nx = os.environ.get("OPGEN_X", "")', [(2, "OPGEN_X")]),
    ('import os\nN = "OPGEN_Y"\ndef f():\n    return os.getenv(N)', [(4, "OPGEN_Y")]),
    ('import os\nx = os.environ["CXX"]', [(2, "CXX")]),
    ("import os\nx = os.environ.get(name)", [(2, "?")]),
    ('import os\nx = getattr(os.environ, "_data")\ny = os.environ._data', [(2, "_data"), (3, "_data")]),
])
def test_the_scan_sees_each_way_of_reading_the_environment(source: str, expected: list[tuple[int, str]]) -> None:
    assert sorted(env_reads_in_python(ast.parse(source))) == expected


def c_getenv_names() -> set[str]:
    names = set()
    for path in CODEGEN.rglob("*"):
        if path.suffix in (".cpp", ".h", ".cuh", ".cu", ".j2") and path.is_file():
            names |= set(re.findall(r'getenv\("(OPGEN_[A-Z0-9_]+)"\)', path.read_text()))
    return names


def test_every_variable_the_code_reads_is_declared() -> None:
    python_names = set()
    for path in CODEGEN.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Setting":
                python_names.add(node.args[0].value)  # type: ignore[attr-defined]
    assert python_names == set(SETTINGS)  # no Setting outside the registry
    c_names = c_getenv_names()
    assert c_names, "the scan found no getenv in the emulation runtime: it no longer sees it"
    assert c_names <= set(SETTINGS), c_names - set(SETTINGS)
    assert {s.name for s in SETTINGS.values() if s.reader == "runtime.cpp"} == c_names


def documented_variables() -> set[str]:
    return {a or b for doc in DOCS for a, b in _DOC_VARIABLE.findall(doc.read_text())}


def test_every_documented_variable_is_declared_and_every_declared_one_documented() -> None:
    documented = documented_variables()
    assert documented - set(SETTINGS) - set(TOOL_VARIABLES) == set()
    text = "\n".join(doc.read_text() for doc in DOCS)
    assert [name for name in SETTINGS if f"`{name}`" not in text] == []
    for name in TOOL_VARIABLES:  # a tool's variable is not read by codegen/ (else declare it)
        assert not any(name in p.read_text() for p in CODEGEN.rglob("*.py")), name


def test_the_docs_table_is_the_declarations() -> None:
    """docs/specs.md's table of environment variables lists each setting, its type and default."""
    text = (ROOT / "docs" / "specs.md").read_text()
    rows = re.findall(r"^\| `(OPGEN_[A-Z0-9_]+)` \| ([^|]+) \| ([^|]+) \|", text, re.M)
    assert [name for name, _, _ in rows] == list(SETTINGS)
    for name, kind, default in rows:
        setting = SETTINGS[name]
        assert kind.strip() == setting.type, name
        if isinstance(setting.default, bool):
            assert default.strip() == str(int(setting.default)), name
        elif isinstance(setting.default, (int, str)) and setting.default != "":
            assert default.strip() == str(setting.default), name


@pytest.mark.parametrize(("value", "expected"), [
    ("1", True), ("true", True), (" Yes ", True), ("on", True),
    ("0", False), ("", False), ("false", False), ("NO", False), ("off", False)])
def test_flags_take_the_usual_words(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("OPGEN_POISON_OUTPUTS", value)
    assert settings.POISON_OUTPUTS.get() is expected


@pytest.mark.parametrize(("setting", "value", "expected"), [
    (settings.POISON_OUTPUTS, "maybe", r"OPGEN_POISON_OUTPUTS='maybe': expected 1 or 0"),
    (settings.HOST_SANITIZE, "2", r"OPGEN_HOST_SANITIZE='2': expected 1 or 0"),
    (settings.HOST_THREADS, "0", r"OPGEN_HOST_THREADS='0': expected an integer >= 1"),
    (settings.HOST_THREADS, "two", r"OPGEN_HOST_THREADS='two': expected an integer >= 1"),
    (settings.HOST_STACK_KB, "8", r"OPGEN_HOST_STACK_KB='8': expected an integer >= 16"),
    (settings.HOST_RANDOM_ORDER, "seven", r"OPGEN_HOST_RANDOM_ORDER='seven': expected an integer seed"),
    (settings.CUDA_LINEINFO, "yes please", r"OPGEN_CUDA_LINEINFO='yes please': expected 1 or 0"),
])
def test_a_bad_value_names_the_variable_and_the_value(monkeypatch: pytest.MonkeyPatch, setting: Setting,
                                                      value: str, expected: str) -> None:
    monkeypatch.setenv(setting.name, value)
    with pytest.raises(SettingError, match=expected):
        setting.get()


def test_values_are_read_at_each_use_and_defaults_apply_when_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPGEN_HOST_STACK_KB", raising=False)
    monkeypatch.delenv("OPGEN_HOST_RANDOM_ORDER", raising=False)
    assert settings.HOST_STACK_KB.get() == 64 and settings.HOST_RANDOM_ORDER.get() is None
    assert not settings.HOST_STACK_KB.is_set() and settings.HOST_STACK_KB.raw() == ""
    monkeypatch.setenv("OPGEN_HOST_STACK_KB", "128")
    monkeypatch.setenv("OPGEN_HOST_RANDOM_ORDER", "0x10")
    assert settings.HOST_STACK_KB.get() == 128 and settings.HOST_RANDOM_ORDER.get() == 16
    assert settings.HOST_STACK_KB.is_set() and settings.HOST_STACK_KB.raw() == "128"
    monkeypatch.setenv("OPGEN_HOST_STACK_KB", "  ")  # blank: the default
    assert settings.HOST_STACK_KB.get() == 64
    assert settings.HOST_THREADS.get() >= 1  # unset: the CPUs this process may use


def test_the_fast_read_and_os_environ_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path (the dict behind os.environ) and the supported one give the same text."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", "/tmp/caf\u00e9")
    fast = settings.CACHE_DIR.raw()
    monkeypatch.setattr(settings, "_ENVIRON", None)
    assert fast == settings.CACHE_DIR.raw() == "/tmp/caf\u00e9"
    monkeypatch.delenv("OPGEN_CACHE_DIR")
    assert settings.CACHE_DIR.raw() == "" and not settings.CACHE_DIR.is_set()


def test_one_registry_holds_every_backends_counters() -> None:
    groups = stats.snapshot()
    assert groups["host"].keys() == {"compiles", "disk_hits", "memory_hits", "runtime_compiles"}
    assert {"nvrtc_compiles", "disk_hits", "memory_hits", "module_loads"} <= groups["cuda"].keys()
    assert host.stats is stats.counters("host", ()) and cuda_cache.stats is stats.counters("cuda", ())
    before = host.stats["memory_hits"]
    host.stats["memory_hits"] += 1
    try:
        assert stats.snapshot()["host"]["memory_hits"] == before + 1
    finally:
        host.stats["memory_hits"] -= 1


@pytest.mark.parametrize("count", [1, 3, 4, 5, 8, 9])  # (4 and 8 are unrolled: every variable still read)
def test_raw_values_follow_each_variable(count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = list(SETTINGS.values())[:count]
    for setting in chosen:
        monkeypatch.delenv(setting.name, raising=False)
    values = settings.raw_values(*chosen)
    assert len(values()) == count and len(set(map(type, values()))) == 1  # (all unset alike)
    for k, setting in enumerate(chosen):
        before = values()
        monkeypatch.setenv(setting.name, f"v{k}")
        after = values()
        assert [a != b for a, b in zip(before, after, strict=True)] == [j == k for j in range(count)], setting.name


def test_every_write_to_os_environ_changes_the_environ_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the native wrappers' route cache relies on (native_driver.py): each way of writing
    os.environ changes environ_version(), reading does not, and a dict that is not ours gives None."""
    seen = [settings.environ_version()]
    assert seen[0] is not None

    def changed() -> bool:
        seen.append(settings.environ_version())
        return seen[-1] != seen[-2]

    os.environ.get("OPGEN_CACHE_DIR"), settings.CACHE_DIR.get(), dict(os.environ)
    assert not changed()
    writes = [
        lambda: monkeypatch.setenv("OPGEN_X_VERSION", "1"),
        lambda: os.environ.__setitem__("OPGEN_X_VERSION", "1"),  # (the same value: still a write)
        lambda: monkeypatch.delenv("OPGEN_X_VERSION"),
        lambda: os.environ.update(OPGEN_X_VERSION="2"),
        lambda: os.environ.pop("OPGEN_X_VERSION"),
        lambda: os.environ.setdefault("OPGEN_X_VERSION", "3"),
        lambda: os.environ.__ior__({"OPGEN_X_VERSION": "4"}),
        lambda: os.environ.__delitem__("OPGEN_X_VERSION"),
    ]
    for k, write in enumerate(writes):
        write()
        assert changed(), f"write {k}"
    if hasattr(os, "environb"):  # (one dict behind both, as before the swap: a write to either is seen by both)
        assert os.environb._data is os.environ._data  # type: ignore[attr-defined]
        with monkeypatch.context() as patched:
            patched.setitem(os.environb, b"OPGEN_X_VERSION", b"5")
            assert os.environ["OPGEN_X_VERSION"] == "5" and changed()
    monkeypatch.setattr(settings, "_COUNTED", None)  # (a Python without the dict: not counted)
    assert settings.environ_version() is None
