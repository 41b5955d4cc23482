"""The emulation runtime's parts (codegen/runtime/emu/rt/): runtime.cpp, one translation unit,
includes each exactly once; each says its job; and editing a part rebuilds the cached runtime (the
cache key hashes every file under emu/)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EMU = REPO / "codegen" / "runtime" / "emu"


def test_runtime_cpp_includes_every_part_once() -> None:
    included = re.findall(r'^#include "rt/([^"]+)"', (EMU / "runtime.cpp").read_text(), re.M)
    parts = sorted(p.name for p in (EMU / "rt").iterdir() if p.suffix in (".cpp", ".h"))
    assert sorted(included) == parts
    assert included[0] == "state.h"  # first: what the parts share


def test_each_part_starts_with_its_job() -> None:
    for part in (EMU / "rt").iterdir():
        if part.suffix in (".cpp", ".h"):
            assert part.read_text().startswith(f"// rt/{part.name}: "), part.name


def test_editing_a_part_rebuilds_the_runtime(tmp_path: Path) -> None:
    """A copy of codegen/ whose rt/fibers.cpp is edited: the runtime's cache key changes with it."""
    shutil.copytree(REPO / "codegen", tmp_path / "codegen", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "cache").mkdir(mode=0o700)
    env = dict(os.environ, PYTHONPATH=str(tmp_path), OPGEN_CACHE_DIR=str(tmp_path / "cache"))
    code = ("import json; from codegen.runtime import host; host.load_runtime(); "
            "print(json.dumps(host.stats['runtime_compiles']))")

    def runtime_compiles() -> int:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        return int(json.loads(proc.stdout.strip().splitlines()[-1]))

    assert runtime_compiles() == 1
    assert runtime_compiles() == 0  # cached
    part = tmp_path / "codegen" / "runtime" / "emu" / "rt" / "fibers.cpp"
    part.write_text(part.read_text() + "// edited\n")
    assert runtime_compiles() == 1
