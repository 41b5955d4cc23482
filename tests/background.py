"""Heavy, independent checks that run beside the rest of the suite: the NVRTC compile matrix and
the installed-wheel journey spend most of their time in child processes (NVRTC workers, pip, a
fresh venv), so starting them when collection ends and collecting their results in their own
tests overlaps them with everything else (CI has 2 cores and a 15-minute goal).

A test module registers a job at import (`register(name, fn)`); tests/conftest.py starts every job
whose module has a selected test once collection is done; a fixture calls `result(name)`, which
waits for it and re-raises what it raised. A job never started (a run that deselected nothing of
its module, or a direct call) runs inline on first use. A job still running when the interpreter
exits (pytest stopped first) has the processes it started killed, rather than left to their own
timeouts.

Under pytest-xdist every worker imports the test modules and ends collection, but each job still runs
once per run: tests/conftest.py calls `share(folder)` in each worker, the first worker to claim a job
runs it, and a worker that needs another's job waits for its outcome (tests/background_shared.py). A
worker that claimed a job waits for it before it exits (`wait_started`), so that its outcome reaches
the worker whose test needs it.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import background_shared

_SHARED: list[Path] = []  # under pytest-xdist: the folder this run's workers share (set by `share`)


def share(folder: Path) -> None:
    """Called in each pytest-xdist worker before jobs start: their claims and outcomes go in `folder`."""
    _SHARED[:] = [folder]


class _Job:
    def __init__(self, name: str, fn: Callable[[], Any]) -> None:
        self.name = name
        self.fn = fn
        self.thread: threading.Thread | None = None
        self.value: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.lock = threading.Lock()

    def _run(self) -> None:
        try:
            self.value = self.fn()
        except BaseException as exc:  # noqa: BLE001 -- handed to the test that asks for the result
            self.error = exc
        finally:
            if _SHARED:
                background_shared.publish(_SHARED[0], self.name, self.value, self.error)
            self.done.set()

    def start(self) -> None:
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="background-check", daemon=True)
                self.thread.start()

    def result(self) -> Any:
        self.start()
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


_JOBS: dict[str, tuple[str, _Job]] = {}  # name → (registering module's file, job)


def register(name: str, module_file: str, fn: Callable[[], Any]) -> None:
    """Called at a test module's import: `fn` is the heavy part, `module_file` its __file__."""
    _JOBS.setdefault(name, (module_file, _Job(name, fn)))


def start_for(selected_files: set[str]) -> list[str]:
    """Start the jobs of the modules that have selected tests; their names."""
    started = []
    for name, (module_file, job) in _JOBS.items():
        if module_file in selected_files and (not _SHARED or background_shared.claim(_SHARED[0], name)):
            job.start()
            started.append(name)
    if started:
        atexit.register(_stop_unfinished)
    return started


def _stop_unfinished() -> None:
    """At exit, while a job is still running (pytest stopped first: -x, a failure, ^C in a test), kill
    the processes it started (NVRTC workers, pip, a venv's pytest), which would otherwise run on to
    their own timeouts after pytest has gone."""
    if all(job.done.is_set() or job.thread is None for _, job in _JOBS.values()):
        return
    for pid in _descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _descendants(pid: int) -> list[int]:
    """The processes below `pid` (Linux /proc; none elsewhere), children before their own children."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def wait_started() -> None:
    """Wait for the jobs this process started (a pytest-xdist worker whose tests are done: another
    worker may need their outcome)."""
    for _, job in _JOBS.values():
        if job.thread is not None:
            job.done.wait()


def result(name: str) -> Any:
    job = _JOBS[name][1]
    if job.thread is None and _SHARED and not background_shared.claim(_SHARED[0], name):
        outcome = background_shared.wait(_SHARED[0], name)  # another worker's
        if outcome is not None:
            value, error = outcome
            if error is not None:
                raise error
            return value
        # (its worker was stopped before the job ended: run it here)
    return job.result()
