"""Runs a check's steps one after the other under a time budget and keeps its evidence on disk as
it goes: every step's output streams into one log, and the summary Markdown is rewritten the moment
a step ends, so a run cut off at any point still leaves what it proved (scripts/gpu_check.py).

A step is a command (run in its own process group, killed with its children at its timeout) or a
Python function returning (ok, note). A failing step never stops the run; a step whose time the
budget no longer holds is listed as not run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# What a step reports: "ok", "FAIL", "skip" (something it needs is missing: named in its note),
# "warn" (advice only), "timeout", "not run" (no budget left).
FAILING = ("FAIL", "timeout")


@dataclass
class Step:
    name: str
    proves: str  # one line: what a pass of this step shows
    timeout: float  # seconds
    command: Sequence[str] | None = None
    function: Callable[[Callable[[str], None]], tuple[str, str]] | None = None  # (emit) -> (status, note)
    env: dict[str, str] = field(default_factory=dict)
    report: Path | None = None  # a Markdown file the step writes, appended to the summary
    advice_only: bool = False  # a failure is reported as "warn"
    skip_reason: str = ""  # set: the step is listed as skipped with this reason, not run


@dataclass
class Result:
    step: Step
    status: str
    seconds: float
    note: str


class CheckRun:
    """The steps of one run, its log and its summary."""

    def __init__(self, title: str, out: Path, budget: float, header: Sequence[str] = ()) -> None:
        self.title = title
        self.out = out
        self.budget = budget
        self.header = list(header)  # lines under the title (the environment line, the mode)
        self.results: list[Result] = []
        self.extra_sections: list[tuple[str, str]] = []
        self.started = time.monotonic()
        out.mkdir(parents=True, exist_ok=True)
        self.log_path = out / "steps.log"
        self.summary_path = out / "summary.md"
        self.log_path.write_text("")
        self.write_summary(pending=[])

    # ------------------------------------------------------------------------- running --

    def remaining(self) -> float:
        return self.budget - (time.monotonic() - self.started)

    def emit(self, line: str) -> None:
        """One line to the terminal and the log, at once."""
        print(line, flush=True)
        with self.log_path.open("a", encoding="utf-8", errors="replace") as log:
            log.write(line + "\n")

    def run(self, steps: Sequence[Step]) -> int:
        """Every step in order; 0 when none failed."""
        for i, step in enumerate(steps):
            self.results.append(self._run_one(step))
            self.write_summary(pending=list(steps[i + 1:]))
        return 1 if any(r.status in FAILING for r in self.results) else 0

    def _run_one(self, step: Step) -> Result:
        if step.skip_reason:
            self.emit(f"==> {step.name}: skipped: {step.skip_reason}")
            return Result(step, "skip", 0.0, step.skip_reason)
        left = self.remaining()
        if left < 5:
            note = f"the run's {self.budget:.0f} s budget was spent before this step"
            self.emit(f"==> {step.name}: not run: {note}")
            return Result(step, "not run", 0.0, note)
        timeout = min(step.timeout, left)
        self.emit(f"==> {step.name} (timeout {timeout:.0f} s): {self._describe(step)}")
        start = time.monotonic()
        if step.function is not None:
            try:
                status, note = step.function(self.emit)
            except Exception as exc:  # noqa: BLE001 -- a step's bug is that step's failure, not the run's end
                status, note = "FAIL", f"{type(exc).__name__}: {exc}"
        else:
            status, note = self._run_command(step, timeout)
        if status == "FAIL" and step.advice_only:
            status = "warn"
        took = time.monotonic() - start
        self.emit(f"==> {step.name}: {status} in {took:.0f} s: {note}")
        return Result(step, status, took, note)

    @staticmethod
    def _describe(step: Step) -> str:
        if step.command is None:
            return step.proves
        return " ".join(str(c) for c in step.command)

    def _run_command(self, step: Step, timeout: float) -> tuple[str, str]:
        assert step.command is not None
        env = {**os.environ, **step.env}
        try:
            proc = subprocess.Popen(list(step.command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    env=env, text=True, errors="replace", start_new_session=True)
        except OSError as exc:
            return "FAIL", f"could not start {step.command[0]}: {exc}"
        timed_out = threading.Event()

        def kill_at_timeout() -> None:
            if proc.poll() is None:
                timed_out.set()
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the step and everything it started
                except ProcessLookupError:
                    pass

        timer = threading.Timer(timeout, kill_at_timeout)
        timer.start()
        last = ""
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.rstrip("\n")
                self.emit(line)
                if line.strip():
                    last = line.strip()
            rc = proc.wait()
        finally:
            timer.cancel()
        if timed_out.is_set():
            return "timeout", f"killed at its {timeout:.0f} s limit; last line: {last[:160]}"
        if rc == 0:
            return "ok", last[:200]
        return "FAIL", f"exit {rc}: {last[:200]}"

    # ------------------------------------------------------------------------- summary --

    def add_section(self, title: str, text: str) -> None:
        self.extra_sections.append((title, text))

    def write_summary(self, pending: Sequence[Step]) -> None:
        """The whole summary, written to a temporary file and renamed over the old one (never half
        written, even when the run is killed)."""
        lines = [f"# {self.title}", "", *self.header, "",
                 f"{time.strftime('%Y-%m-%d %H:%M:%S')}: {time.monotonic() - self.started:.0f} s of a "
                 f"{self.budget:.0f} s budget spent" + (f"; still to run: {', '.join(s.name for s in pending)}"
                                                       if pending else "; finished"), "",
                 "| step | status | seconds | proves | note |", "|---|---|---:|---|---|"]
        for r in self.results:
            lines.append(f"| {r.step.name} | {r.status} | {r.seconds:.0f} | {_cell(r.step.proves)} | {_cell(r.note)} |")
        for step in pending:
            lines.append(f"| {step.name} | pending | | {_cell(step.proves)} | |")
        for title, text in self.extra_sections:
            lines += ["", f"## {title}", "", text.rstrip()]
        for r in self.results:
            if r.step.report is not None and r.step.report.is_file():
                body = r.step.report.read_text(errors="replace").splitlines()
                if body and body[0].startswith("# "):
                    body = body[1:]
                lines += ["", f"## {r.step.name}: {r.step.report.name}", "", *body]
        failed = [r for r in self.results if r.status in FAILING or r.status == "warn"]
        if failed:
            lines += ["", f"## Failures (the last lines of each in {self.log_path.name})"]
            log = self.log_path.read_text(errors="replace").splitlines()
            for r in failed:
                lines += ["", f"### {r.step.name}", "", "```", *_step_tail(log, r.step.name, 40), "```"]
        tmp = self.summary_path.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(self.summary_path)

    def print_table(self) -> None:
        print(f"\n{self.title}: {time.monotonic() - self.started:.0f} s; summary in {self.summary_path}")
        for r in self.results:
            print(f"{r.step.name:24s} {r.status:8s} {r.seconds:6.0f} s  {r.note[:110]}")
        sys.stdout.flush()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _step_tail(log: list[str], name: str, count: int) -> list[str]:
    """The last `count` lines a step wrote into the log (between its start and end markers)."""
    start = max((i for i, line in enumerate(log) if line.startswith(f"==> {name} (timeout")), default=-1)
    if start < 0:
        return []
    end = next((i for i in range(start + 1, len(log)) if log[i].startswith(f"==> {name}: ")), len(log))
    return log[max(start + 1, end - count):end]
