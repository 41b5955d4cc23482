#!/usr/bin/env python3
"""docs/tutorial.md as a user follows it: its commands and files are taken from its fences marked
`tutorial` and run in order in an empty folder, failing on a non-zero exit or an output line the page
shows that the command did not print (the fences: docs/tutorial.md, "Checking this page").
scripts/installed_wheel_check.py runs it with the venv of the wheel it built; by hand:

    python scripts/tutorial_check.py --list        # what it would run
    python scripts/tutorial_check.py --work DIR    # run it with the opgen on PATH
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\S*)(.*)$")
ELLIPSIS = "..."


class TutorialError(Exception):
    """The page's fences are malformed: `tutorial.md:LINE: what`."""


@dataclass
class Commands:
    line: int
    commands: list[str]
    skip: str | None = None  # why the block is not run
    expect: list[str] = field(default_factory=list)  # the output block after it


@dataclass
class WriteFile:
    line: int
    path: str
    text: str


@dataclass
class ShowsFile:
    line: int
    path: str
    expect: list[str]


Step = Commands | WriteFile | ShowsFile


def _attrs(info: str, where: str) -> dict[str, str]:
    """`tutorial skip="why" file=PATH` → {"tutorial": "", "skip": "why", "file": "PATH"}."""
    try:
        words = shlex.split(info)
    except ValueError as exc:
        raise TutorialError(f"{where}: {exc}") from exc
    attrs = dict(w.partition("=")[::2] for w in words)
    unknown = set(attrs) - {"tutorial", "output", "skip", "file", "shows"}
    if unknown:
        raise TutorialError(f"{where}: unknown fence word(s) {', '.join(sorted(unknown))}; "
                            "expected output, skip=\"why\", file=PATH or shows=PATH")
    return attrs


def parse(text: str, name: str = "tutorial.md") -> list[Step]:
    """The steps of the page's `tutorial` fences, in the page's order."""
    steps: list[Step] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, lang, info = i + 1, match[1], match[2]
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise TutorialError(f"{name}:{start}: the fence is never closed")
        body = lines[i + 1:end]
        i = end + 1
        if "tutorial" not in info.split():
            continue
        where = f"{name}:{start}"
        attrs = _attrs(info, where)
        if "output" in attrs:
            if not steps or not isinstance(steps[-1], Commands) or steps[-1].expect:
                raise TutorialError(f"{where}: an output block must follow a command block")
            steps[-1].expect = _expected(body)
        elif "file" in attrs or "shows" in attrs:
            path = attrs.get("file") or attrs.get("shows")
            if not path or Path(path).is_absolute() or ".." in Path(path).parts:
                raise TutorialError(f"{where}: file= and shows= take a path inside the project, got {path!r}")
            if "file" in attrs:
                steps.append(WriteFile(start, path, "\n".join(body) + "\n"))
            else:
                steps.append(ShowsFile(start, path, _expected(body)))
        elif lang == "bash":
            commands = [c for c in (b.strip() for b in body) if c and not c.startswith("#")]
            if not commands:
                raise TutorialError(f"{where}: a command block with no command")
            steps.append(Commands(start, commands, skip=attrs.get("skip")))
        else:
            raise TutorialError(f"{where}: a `{lang} tutorial` block needs output, file=PATH or shows=PATH "
                                "(only bash blocks run)")
    return steps


def _expected(body: list[str]) -> list[str]:
    return [b.strip() for b in body if b.strip()]


def _pattern(line: str) -> re.Pattern[str]:
    """A shown line as a pattern: `...` stands for anything within the line, any run of spaces for any."""
    parts = [r"\s+".join(re.escape(w) for w in part.split()) for part in line.split(ELLIPSIS)]
    return re.compile(".*".join(parts))


def missing_lines(expect: list[str], actual: str) -> list[str]:
    """The shown lines (in order, `...` lines skipped) that the actual text lacks."""
    lines, at, missing = actual.splitlines(), 0, []
    for want in expect:
        if want == ELLIPSIS:
            continue
        pattern = _pattern(want)
        found = next((k for k in range(at, len(lines)) if pattern.search(lines[k])), None)
        if found is None:
            missing.append(want)
        else:
            at = found + 1
    return missing


Runner = Callable[[str, list[str], Path], str]  # (step name, argv, cwd) → output; raises on failure


def run(steps: list[Step], home: Path, runner: Runner, fail: Callable[[str], Exception]) -> None:
    """Runs the steps in home (an empty folder), as the page's reader would."""
    cwd = home
    for step in steps:
        if isinstance(step, WriteFile):
            target = cwd / step.path
            print(f"== tutorial: write {step.path} (tutorial.md:{step.line})", flush=True)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.text)
        elif isinstance(step, ShowsFile):
            print(f"== tutorial: {step.path} as shown (tutorial.md:{step.line})", flush=True)
            if not (cwd / step.path).is_file():
                raise fail(f"tutorial.md:{step.line}: no file {step.path} in {cwd}")
            missing = missing_lines(step.expect, (cwd / step.path).read_text())
            if missing:
                raise fail(f"tutorial.md:{step.line}: {step.path} lacks the lines {missing}")
        elif step.skip is not None:
            print(f"== tutorial: {'; '.join(step.commands)}  skipped: {step.skip}", flush=True)
        else:
            output = []
            for command in step.commands:
                if command.startswith("cd "):
                    cwd = cwd / command[3:].strip()
                    print(f"== tutorial: {command}", flush=True)
                    if not cwd.is_dir():
                        raise fail(f"tutorial.md:{step.line}: {command}: no such folder")
                    continue
                output.append(runner(f"tutorial: {command}", ["bash", "-c", command], cwd))
            missing = missing_lines(step.expect, "\n".join(output))
            if missing:
                raise fail(f"tutorial.md:{step.line}: the output lacks the lines {missing}")


def _local_runner(env: dict[str, str]) -> Runner:
    def runner(name: str, argv: list[str], cwd: Path) -> str:
        print(f"== {name}  (in {cwd})", flush=True)
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
        out = (proc.stdout + proc.stderr).rstrip()
        print(textwrap.indent(out, "   "), flush=True)
        if proc.returncode != 0:
            raise TutorialError(f"{name}: exit {proc.returncode}")
        return out
    return runner


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the steps and run nothing")
    parser.add_argument("--work", type=Path, help="an empty folder to run the tutorial in")
    args = parser.parse_args(argv)
    try:
        steps = parse(TUTORIAL.read_text())
    except TutorialError as exc:
        print(f"tutorial_check: {exc}", file=sys.stderr)
        return 2
    if args.list or args.work is None:
        for step in steps:
            print(step)
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    if any(args.work.iterdir()):
        print(f"tutorial_check: {args.work} is not empty", file=sys.stderr)
        return 2
    try:
        run(steps, args.work.resolve(), _local_runner(dict(os.environ)), TutorialError)
    except TutorialError as exc:
        print(f"tutorial_check: FAILED at {exc}")
        return 1
    print("tutorial_check: every step passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
