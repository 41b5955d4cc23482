"""codegen/verify/gpu_check.py (what `bash scripts/gpu-check.sh` and `opgen gpu-check` run), tested where
there is no GPU: its rehearsal runs every step's plumbing on the CuPy stand-in; its runner keeps the summary current
after every step, survives failing, hanging and over-budget steps, and names what is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegen.verify.check_runner import CheckRun, Step
from codegen.verify.gpu_env import find_sanitizer, probe

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"

STEP_NAMES = ["environment", "compile", "parity", "memcheck", "shared-memory ops", "racecheck", "racecheck rnn",
              "synccheck",
              "resources", "bench norms", "bench batch norm", "bench cudnn rnn", "bench gru cell", "bench dml rnn",
              "bench fused step", "gpu tests"]


def _table(summary: str) -> dict[str, str]:
    """step → status, from the summary's table."""
    lines = summary.splitlines()
    start = lines.index("| step | status | seconds | proves | note |") + 2
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("| ")), len(lines))
    return {cells[1].strip(): cells[2].strip() for cells in (line.split("|") for line in lines[start:end])}


def test_the_rehearsal_runs_every_step_and_writes_the_summary(tmp_path: Path) -> None:
    proc = subprocess.run(["bash", str(SCRIPTS / "gpu-check.sh"), "--rehearsal", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, check=False)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    assert proc.returncode == 0, out
    summary = (tmp_path / "summary.md").read_text()
    table = _table(summary)
    assert list(table) == STEP_NAMES, summary
    skipped = {name for name, status in table.items() if status == "skip"}
    assert skipped == {"bench batch norm", "bench cudnn rnn", "bench gru cell", "bench dml rnn"}, summary
    assert all(status == "ok" for name, status in table.items() if name not in skipped), summary
    assert "; finished" in summary
    assert "## parity: parity.md" in summary and "## resources: resources.md" in summary
    assert "| LayerNorm [256, 1024] float32 |" in summary  # the benchmark's report, embedded
    # the step-form benchmark ran the forms against the GEMM steps, forward and backward (and the persistent
    # form where the batch allows it)
    assert "fused vs GEMM steps: dh" in summary and "persistent vs GEMM steps: dh" in summary
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["parity.md", "resources.md", "steps.log", "summary.md"]  # at most 8 come back from a lease
    log = (tmp_path / "steps.log").read_text()
    assert "==> parity: ok" in log and "BiasAdd" in log


def test_without_a_gpu_the_check_fails_naming_why_and_runs_nothing_for_the_gpu(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": os.environ["PATH"]}
    proc = subprocess.run([sys.executable, str(SCRIPTS / "gpu_check.py"), "--out", str(tmp_path), "--ops", "BiasAdd"],
                          capture_output=True, text=True, timeout=600, check=False, env=env)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    assert proc.returncode == 1, out
    table = _table((tmp_path / "summary.md").read_text())
    assert table["environment"] == "FAIL"
    assert table["compile"] == table["parity"] == table["gpu tests"] == "skip"
    summary = (tmp_path / "summary.md").read_text()
    assert "no usable GPU" in summary or "CuPy: not installed" in summary


def test_a_failing_a_hanging_and_an_over_budget_step_leave_the_rest_running(tmp_path: Path) -> None:
    seen: list[str] = []

    def reads_the_summary(emit):  # type: ignore[no-untyped-def]
        seen.append((tmp_path / "summary.md").read_text())
        return "ok", "read it"

    steps = [
        Step("fails", "a failure", 30, command=[sys.executable, "-c", "print('boom'); raise SystemExit(3)"]),
        Step("hangs", "a timeout", 1, command=["bash", "-c", "echo started; sleep 30 & sleep 30; echo never"]),
        Step("after", "runs anyway", 30, function=reads_the_summary),
        Step("raises", "a step's bug", 30, function=lambda emit: 1 / 0),  # type: ignore[arg-type,return-value]
        Step("skipped", "a missing tool", 30, skip_reason="the tool is not installed"),
        Step("late", "over budget", 30, command=["bash", "-c", "sleep 30"]),
    ]
    run = CheckRun("t", tmp_path, budget=12)
    start = time.monotonic()
    steps[5:5] = [Step("spends", "the budget", 30, command=["bash", "-c", "sleep 8"])]
    status = run.run(steps)
    assert time.monotonic() - start < 20  # the hanging step and its children were killed at 1 s
    assert status == 1
    table = _table((tmp_path / "summary.md").read_text())
    assert table == {"fails": "FAIL", "hangs": "timeout", "after": "ok", "spends": "ok", "raises": "FAIL",
                     "skipped": "skip", "late": "not run"}
    # the summary was current when "after" ran: the two earlier steps' results were in it already
    assert "| fails | FAIL |" in seen[0] and "| hangs | timeout |" in seen[0] and "| after | pending |" in seen[0]
    summary = (tmp_path / "summary.md").read_text()
    assert "boom" in summary  # a failure's tail is in the summary
    assert "ZeroDivisionError" in summary
    assert "budget was spent" in summary


def test_the_environment_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/g++ -O2")
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi, no compute-sanitizer on it
    monkeypatch.setattr("codegen.verify.gpu_env.find_sanitizer", lambda: None)
    env = probe()
    missing = "\n".join(env.missing)
    assert "/nonexistent/g++: not found" in missing and "apt-get install g++" in missing
    assert "compute-sanitizer: not found" in missing
    assert not env.gpu
    assert "CuPy: not installed" in missing or "GPU: none usable" in missing


@pytest.mark.parametrize("folder", ["nvidia/cu13/bin", "nvidia/cu12/bin"])
def test_find_sanitizer_finds_the_pip_wheels_copy(tmp_path: Path, folder: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "site" / folder / "compute-sanitizer"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site"), *sys.path])
    monkeypatch.setattr("site.getsitepackages", lambda: [])
    assert find_sanitizer() == str(tool)


# Makes `import ml_dtypes` fail in every process of a run, as where it is not installed (a
# sitecustomize on PYTHONPATH: the check's steps inherit it).
_NO_ML_DTYPES = '''
import sys

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "ml_dtypes":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
'''


def test_a_missing_module_is_named_and_the_steps_that_import_it_are_skipped(tmp_path: Path) -> None:
    """Without ml_dtypes the environment step fails naming it with what to install; parity, the
    sanitizers and the gpu tests say "skipped: needs ml_dtypes" instead of each failing on the
    import. (A short budget: the steps that need nothing missing are not what this checks.)"""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(_NO_ML_DTYPES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(hide), os.environ.get("PYTHONPATH")]))}
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(SCRIPTS / "gpu_check.py"), "--rehearsal", "--budget", "20", "--out",
                           str(out)], capture_output=True, text=True, timeout=600, check=False, env=env)
    log = proc.stdout + proc.stderr
    assert "ModuleNotFoundError" not in log and "Traceback" not in log, log
    assert proc.returncode == 1, log
    summary = (out / "summary.md").read_text()
    table = _table(summary)
    assert table["environment"] == "FAIL", summary
    assert "- missing: ml_dtypes: not installed (pip install ml_dtypes" in summary
    needing = ["parity", "memcheck", "racecheck", "racecheck rnn", "synccheck", "gpu tests"]
    assert {name: table[name] for name in needing} == dict.fromkeys(needing, "skip"), summary
    for name in needing:
        assert f"==> {name}: skipped: needs ml_dtypes" in log, log
    assert {name for name, status in table.items() if status == "skip"} == set(needing) | {
        "bench batch norm", "bench cudnn rnn", "bench gru cell", "bench dml rnn"}  # (these: no GPU)


def test_every_module_a_step_needs_says_what_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.verify import gpu_check, gpu_env

    steps = [Step(name, "", 1) for name in STEP_NAMES]
    assert {m for step in steps for m in gpu_check.needs(step)} <= set(gpu_env.MODULES)
    assert gpu_env.missing_modules() == {}  # this environment has them all: nothing named wrongly
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # as if not installed
    assert gpu_env.missing_modules() == {"hypothesis": "not installed (pip install hypothesis)"}
    gpu_check.skip_without_modules(steps, gpu_env.missing_modules())
    assert {s.name: s.skip_reason for s in steps if s.skip_reason} == {
        "gpu tests": "needs hypothesis (the environment step says what to install)"}


def test_the_steps_estimates_fit_the_budget_and_its_table_states_their_limits(tmp_path: Path) -> None:
    """gpu_check's table (its docstring: the one place the estimates are) sums to at most the default
    budget, 8 minutes, and states each step's limit as the GPU run sets it (racecheck over the RNN
    modules and the fused-step benchmark with limits of their own)."""
    import argparse

    from codegen.verify import gpu_check
    from codegen.verify.names import DEFAULT_BUDGET

    doc = gpu_check.__doc__ or ""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in doc.splitlines()
            if line.startswith("| ") and not line.startswith("| step ")]
    estimates = {row[0]: float(row[2].rstrip(" s")) for row in rows}
    limits = {row[0]: row[3] for row in rows}
    assert sum(estimates.values()) <= DEFAULT_BUDGET == 480, estimates
    args = argparse.Namespace(rehearsal=False, ops=[], package="generated", specs=None)
    steps = {s.name: s for s in gpu_check.steps(args, tmp_path, tmp_path, "compute-sanitizer", True, {})}
    stated = [name for name in limits if name in steps]
    assert {"racecheck", "racecheck rnn", "bench fused step", "memcheck", "synccheck"} <= set(stated)
    for name in stated:
        assert limits[name] == f"{steps[name].timeout:.0f} s", name
    assert not steps["racecheck rnn"].skip_reason
    assert "--group rnn" in " ".join(steps["shared-memory ops"].command or ())
    assert "shared-ops-rnn" in " ".join(steps["racecheck rnn"].command or ())
    assert "shared-ops-rnn" not in " ".join(steps["racecheck"].command or ())
