"""tests/background.py: a background job's processes do not outlive the pytest that started it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

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
