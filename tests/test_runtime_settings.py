"""The OPGEN_* variables the emulation runtime's C++ reads itself (OPGEN_HOST_CATCH_SIGNALS): parsed
by the rules of the settings table, through rt/settings.cpp, which codegen/runtime/settings_cxx.py
generates from it. The same cases go through both parsers: Python's (Setting.get) and the
runtime's, in a program built from runtime.cpp with no Python in it (as a process that loads the
runtime natively reads them); and in a Python process a bad value is a SettingError at the launch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codegen.runtime import settings, settings_cxx
from codegen.runtime.host.toolchain import EMU_DIR, RUNTIME_SOURCE, _compiler_command
from codegen.runtime.settings import HOST_CATCH_SIGNALS, SettingError

ROOT = Path(__file__).resolve().parent.parent
UNSET = None
#: (the variable's text, or UNSET) for both parsers: ON/OFF or the same SettingError message.
CASES = [UNSET, "", "  \t", "1", "true", " Yes ", "ON", "on", "0", "false", "no", "Off", "off\n",
         "maybe", "2", "00", "0x", "-0", "yes please", "falsey", "offf", "it's", 'say "no"', "back\\slash",
         "caf\u00e9", "\x1con", "o\x7fff"]

# A program with the runtime compiled in, calling its reader once per argument: "--unset" unsets
# the variable, anything else is its value; each result is one line: "value N" or "error MESSAGE".
_PROGRAM = r"""
#include "runtime.cpp"
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--unset") == 0) unsetenv("OPGEN_HOST_CATCH_SIGNALS");
    else setenv("OPGEN_HOST_CATCH_SIGNALS", argv[i], 1);
    int value = -1;
    char err[512] = {0};
    if (setting_host_catch_signals(&value, err, sizeof err)) printf("error %s\n", err);
    else printf("value %d\n", value);
  }
  return 0;
}
"""


def _python_reads(text: str | None, monkeypatch: pytest.MonkeyPatch) -> str:
    if text is UNSET:
        monkeypatch.delenv(HOST_CATCH_SIGNALS.name, raising=False)
    else:
        monkeypatch.setenv(HOST_CATCH_SIGNALS.name, text)
    try:
        return f"value {int(HOST_CATCH_SIGNALS.get())}"
    except SettingError as e:
        return f"error {e}"


@pytest.fixture(scope="module")
def runtime_reads(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The runtime's results for CASES, one line each (newlines in a message escaped, as repr does)."""
    tmp = tmp_path_factory.mktemp("runtime-settings")
    (tmp / "main.cpp").write_text(_PROGRAM)
    exe = tmp / "reads"
    cmd = [*_compiler_command(), "-std=c++17", "-O1", "-pthread", "-I", str(EMU_DIR), str(tmp / "main.cpp"),
           "-o", str(exe), "-ldl"]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    env = {k: v for k, v in os.environ.items() if k != HOST_CATCH_SIGNALS.name}
    args = ["--unset" if text is UNSET else text for text in CASES]
    run = subprocess.run([str(exe), *args], capture_output=True, env=env, check=True)
    return run.stdout.decode("utf-8", "surrogateescape").splitlines()


def test_the_runtimes_parser_is_generated_from_the_current_table() -> None:
    assert settings_cxx.PATH.read_text() == settings_cxx.render(), (
        "codegen/runtime/emu/rt/settings.cpp is stale: run `python -m codegen.runtime.settings_cxx`")
    assert RUNTIME_SOURCE.read_text().count('#include "rt/settings.cpp"') == 1


def test_the_generator_refuses_a_runtime_setting_it_cannot_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    odd = settings.Setting("OPGEN_X", "int >= 1", 1, "x", settings.int_at_least(1), reader="runtime.cpp")
    monkeypatch.setitem(settings.SETTINGS, odd.name, odd)
    with pytest.raises(ValueError, match=r"OPGEN_X is read by the runtime.*only for flags.*'int >= 1'"):
        settings_cxx.render()


@pytest.mark.parametrize("index", range(len(CASES)), ids=[repr(c) for c in CASES])
def test_python_and_the_runtime_read_a_value_alike(index: int, runtime_reads: list[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(runtime_reads) == len(CASES)
    assert runtime_reads[index] == _python_reads(CASES[index], monkeypatch)


def test_the_cases_cover_both_values_the_default_and_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    results = [_python_reads(text, monkeypatch) for text in CASES]
    assert {"value 0", "value 1"} <= set(results)
    assert results[CASES.index(UNSET)] == results[CASES.index("  \t")] == "value 1"  # the default
    assert results[CASES.index("maybe")] == (
        "error OPGEN_HOST_CATCH_SIGNALS='maybe': expected 1 or 0 (also true/false, yes/no, on/off)")
    assert results[CASES.index("it's")].startswith("error OPGEN_HOST_CATCH_SIGNALS=\"it's\": ")


# A kernel that reads address 8: caught, it is a HostKernelError; not caught, the process dies of SIGSEGV.
_FAULT = textwrap.dedent("""
    import numpy as np
    from codegen.runtime import host
    mod = host.load_module('extern "C" __global__ void load_from(float* out, long long addr) {'
                           '  out[0] = *reinterpret_cast<const float*>(addr); }', name_hint="catch_signals")
    try:
        mod.get_function("load_from")((1,), (1,), (np.zeros(1, np.float32), np.int64(8)))
    except host.HostKernelError as e:
        print("caught:", e)
    """)


@pytest.mark.parametrize(("text", "outcome"), [
    ("false", "died"), ("off", "died"), ("no", "died"), ("0", "died"),
    ("true", "caught"), ("", "caught"),
    ("maybe", "SettingError: OPGEN_HOST_CATCH_SIGNALS='maybe': expected 1 or 0"),
])
def test_catch_signals_takes_each_flag_word(text: str, outcome: str, tmp_path_factory: pytest.TempPathFactory,
                                            ) -> None:
    """The runtime leaves the fault to the previous handler for every word of "off", catches it for
    every word of "on" (and unset), and a Python process refuses a value that is neither."""
    cache = tmp_path_factory.getbasetemp() / "catch-signals-cache"  # one compile for all cases
    cache.mkdir(mode=0o700, exist_ok=True)
    env = dict(os.environ, OPGEN_HOST_CATCH_SIGNALS=text, OPGEN_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _FAULT], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    if outcome == "died":
        assert proc.returncode == -signal.SIGSEGV, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    elif outcome == "caught":
        assert proc.returncode == 0 and "caught:" in proc.stdout and "SIGSEGV" in proc.stdout, proc.stderr[-2000:]
    else:
        assert proc.returncode == 1 and outcome in proc.stderr, proc.stderr[-2000:]
