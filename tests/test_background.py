"""tests/background.py: a background job's processes do not outlive the pytest that started it; under
pytest-xdist a job runs once per run, whichever worker needs its outcome."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def test_an_unfinished_jobs_processes_are_killed_at_exit(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = textwrap.dedent(f"""
        import subprocess, sys, time
        sys.path.insert(0, {str(TESTS)!r})
        import background

        def job():
            with subprocess.Popen(["sleep", "120"]) as proc:
                open({str(pid_file)!r}, "w").write(str(proc.pid))
                proc.wait()

        background.register("sleeper", "module.py", job)
        background.start_for({{"module.py"}})
        while not __import__("os").path.exists({str(pid_file)!r}):
            time.sleep(0.05)
        # the interpreter exits here, the job unfinished (as pytest does after -x)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), f"the job's `sleep 120` (pid {pid}) outlived the process that started it"
    assert os.getpid() != pid


# -- under pytest-xdist: each job once per run (tests/background_shared.py) ----------------------------------------

COUNTED_JOB = """
import os, time
from pathlib import Path
import background

def _count():
    with open(os.environ["COUNT_FILE"], "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(1)  # (long enough that the other worker's test waits for it)
    return "the outcome"

background.register("counted", __file__, _count)

def test_{name}_gets_the_outcome():
    assert background.result("counted") == "the outcome"
"""


def test_under_xdist_a_job_runs_once_and_each_worker_gets_its_outcome(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    for name in ("background.py", "background_shared.py", "conftest.py", "worker_threads.py"):
        shutil.copy(TESTS / name, tmp_path / name)
    for name in ("a", "b"):  # (one module each worker: --dist loadfile)
        (tmp_path / f"test_{name}.py").write_text(COUNTED_JOB.replace("{name}", name))
    count = tmp_path / "count"
    env = {**os.environ, "COUNT_FILE": str(count), "PYTHONPATH": str(TESTS.parent)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
                           "loadfile", "test_a.py", "test_b.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0 and "2 passed" in proc.stdout, proc.stdout + proc.stderr
    assert len(count.read_text().split()) == 1, f"the job ran in each worker:\n{proc.stdout}"


def _worker(folder: Path, count: Path, fails: bool = False) -> str:
    """A stand-in for a pytest-xdist worker: shares `folder`, asks for the job, prints its outcome."""
    return textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        sys.path.insert(0, {str(TESTS)!r})
        import background

        def job():
            open({str(count)!r}, "a").write(f"{{os.getpid()}}\\n")
            if {fails}:
                raise ValueError("the job's own error")
            return "the outcome"

        background.register("counted", "module.py", job)
        background.share(Path({str(folder)!r}))
        try:
            print(background.result("counted"))
        except ValueError as exc:
            print("raised", exc, getattr(exc, "__notes__", ""))
    """)


def test_a_worker_whose_claimant_exited_without_an_outcome_runs_the_job_itself(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    (tmp_path / "counted.claim").write_text(str(dead.pid))  # claimed by a worker that is gone
    count = tmp_path / "count"
    out = subprocess.run([sys.executable, "-c", _worker(tmp_path, count)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip() == "the outcome"
    assert len(count.read_text().split()) == 1


def test_a_jobs_error_reaches_the_waiting_worker_with_its_traceback(tmp_path: Path) -> None:
    count = tmp_path / "count"
    first = subprocess.run([sys.executable, "-c", _worker(tmp_path, count, fails=True)], capture_output=True,
                           text=True, check=True, timeout=60).stdout
    second = subprocess.run([sys.executable, "-c", _worker(tmp_path, count, fails=True)], capture_output=True,
                            text=True, check=True, timeout=60).stdout
    assert first.startswith("raised the job's own error") and second.startswith("raised the job's own error")
    assert "in job" in second  # the traceback, as a note
    assert len(count.read_text().split()) == 1, "the second worker ran the job again"


def test_collect_only_starts_no_job(tmp_path: Path) -> None:
    for name in ("background.py", "background_shared.py", "conftest.py", "worker_threads.py"):
        shutil.copy(TESTS / name, tmp_path / name)
    (tmp_path / "test_a.py").write_text(COUNTED_JOB.replace("{name}", "a"))
    count = tmp_path / "count"
    env = {**os.environ, "COUNT_FILE": str(count), "PYTHONPATH": str(TESTS.parent)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
                           "test_a.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0 and "1 test collected" in proc.stdout, proc.stdout + proc.stderr
    assert not count.exists(), "--collect-only started the background job"
