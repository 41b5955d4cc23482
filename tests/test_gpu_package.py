"""Verify your ops the way opgen verifies its own (issue 19, item 4): scripts/gpu_parity.py,
scripts/gpu_sanitize.py and scripts/gpu_check.py run the ops of any generated package
(`--package mine`), from the user's folder with nothing on PYTHONPATH for the package (`python -P`:
not even the current directory on sys.path), here on the CuPy stand-in in place of a GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
SCRIPTS = PROJECT / "scripts"
FIXTURES = PROJECT / "tests" / "fixtures"
OPS = ("RowStats", "ScaledSum", "TinyRnn", "GroupOps")  # the fixture specs' ops (no hand-written builder)

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's folder: specs/ and the package my_fixture_ops generated from them."""
    from codegen.cli import main as opgen

    folder = tmp_path_factory.mktemp("project")
    shutil.copytree(FIXTURES / "specs", folder / "specs")
    assert opgen(["generate", "--specs", str(folder / "specs"), "--templates", str(FIXTURES / "templates"),
                  "--out", str(folder / "my_fixture_ops"), "--package", "my_fixture_ops"]) == 0
    return folder


def run(argv: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPGEN_HOST_SANITIZE")}
    return subprocess.run([sys.executable, "-P", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_parity_runs_a_package_from_its_folder(project: Path) -> None:
    proc = run([str(SCRIPTS / "gpu_parity.py"), "--devices", "cpu", "cpu", "--package", "my_fixture_ops"], project)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    rows = {f[0]: int(f[1]) for f in map(str.split, proc.stdout.splitlines()) if f and f[0] in OPS}
    assert set(rows) == set(OPS) and all(n >= 3 for n in rows.values()), out  # derived from ./specs
    assert "BiasAdd" not in proc.stdout  # opgen's own ops are not run
    folder = run([str(SCRIPTS / "gpu_parity.py"), "--devices", "cpu", "cpu", "--package",
                  str(project / "my_fixture_ops"), "--specs", str(project / "specs"), "--ops", "RowStats"],
                 project.parent)
    assert folder.returncode == 0, folder.stdout + folder.stderr
    assert " 0 failed" in folder.stdout and "RowStats" in folder.stdout


def test_parity_names_a_package_it_cannot_import(tmp_path: Path) -> None:
    proc = run([str(SCRIPTS / "gpu_parity.py"), "--devices", "cpu", "cpu", "--package", "no_such_ops"], tmp_path)
    assert proc.returncode == 2
    assert f"--package no_such_ops: cannot import it from {tmp_path}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_sanitize_runs_a_package_on_the_stand_in(project: Path) -> None:
    proc = run([str(SCRIPTS / "fake_gpu.py"), str(SCRIPTS / "gpu_sanitize.py"), "--package", "my_fixture_ops",
                "--ops", "RowStats", "GroupOps"], project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cases ran, 0 raised, 0 ops without inputs" in proc.stdout


def test_the_gpu_check_rehearses_a_package(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run([str(SCRIPTS / "gpu_check.py"), "--rehearsal", "--package", "my_fixture_ops", "--out", str(out)],
               project)
    log = proc.stdout + proc.stderr
    assert "Traceback" not in log, log
    summary = (out / "summary.md").read_text()
    assert proc.returncode == 0, summary
    assert "package: my_fixture_ops" in summary
    status = {cells[1].strip(): cells[2].strip() for cells in (line.split("|") for line in summary.splitlines())
              if len(cells) > 3 and cells[1].strip() and cells[2].strip() in ("ok", "skip", "FAIL", "warn")}
    for step in ("environment", "compile", "parity", "memcheck", "racecheck", "synccheck", "resources"):
        assert status.get(step) == "ok", (step, summary)
    assert status["shared-memory ops"] == "skip" and status["gpu tests"] == "skip"
    assert all(v == "skip" for k, v in status.items() if k.startswith("bench")), summary
    parity = (out / "parity.md").read_text()
    assert all(f"| {op} |" in parity for op in OPS) and "| BiasAdd |" not in parity
    resources = (out / "resources.md").read_text()
    assert "RowStats" in resources and "BiasAdd" not in resources
