"""opgen as a user meets it (issue 19): the wheel built from this checkout, installed into a fresh
venv, used outside the repository — `opgen init`, `opgen new`, `opgen generate`, `opgen check`, `opgen verify`, the
project's own tests, the ops on NumPy and through torch (autograd, torch.compile), mypy --strict
and ruff on the generated package, `opgen check` in a copy of the project; then docs/tutorial.md's
commands and files in an empty folder (issue 33 item 8, scripts/tutorial_check.py). The journey is
scripts/installed_wheel_check.py; it runs in the background while the rest of the suite runs
(tests/background.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import background

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "installed_wheel_check.py"


def _journey() -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=900, check=False)


background.register("installed-wheel", __file__, _journey)


def test_the_installed_wheel_works_outside_the_repository() -> None:
    proc = background.result("installed-wheel")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "installed_wheel_check: every step passed" in out
    for step in ("== opgen init", "== opgen new", "== opgen generate", "== opgen check", "== opgen verify",
                 "agree with float64 references", "Success: no issues found", "== opgen check in a copy"):
        assert step in out, f"{step!r} missing:\n{out}"
    for step in ("the project's own tests:", "the project's own tests, --opgen-sanitize:",
                 "the project's own tests, --opgen-random-order 3:"):
        project_tests = out.split(f"== {step}", 1)[1].split("\n== ", 1)[0]
        assert re.search(r"\b[1-9]\d* passed", project_tests) and "failed" not in project_tests, project_tests


def test_the_journey_runs_the_tutorial() -> None:
    proc = background.result("installed-wheel")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    tutorial = out.split("== tutorial: ", 1)[1]
    for step in ("skipped: the check installs the wheel", "== tutorial: opgen init myops:",
                 "== tutorial: write specs/act/scaled_gelu.yaml", "== tutorial: opgen verify ScaledGelu",
                 "== tutorial: python -m pytest -q tests/test_scaled_gelu.py --opgen-random-order 3:",
                 "== tutorial: python use_torch.py:", "torch.compile matches F.gelu: True",
                 "== tutorial: python use_jax.py:", "== tutorial: opgen gpu-check  skipped: needs an NVIDIA GPU"):
        assert step in tutorial, f"{step!r} missing:\n{tutorial}"
