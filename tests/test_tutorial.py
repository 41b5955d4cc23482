"""docs/tutorial.md, "Your first op" (issue 33 item 8): its `tutorial` fences are what
scripts/tutorial_check.py runs (tests/test_installed_wheel.py runs it from the installed wheel). Here,
cheaply: every fence parses, the files it writes and the commands it runs are the tutorial's, in its
order; the parser refuses malformed fences; the runner fails on a missing output line."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

PROJECT = Path(__file__).resolve().parent.parent


def _load_tutorial_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tutorial_check", PROJECT / "scripts" / "tutorial_check.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["tutorial_check"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


tc = _load_tutorial_check()
PAGE = (PROJECT / "docs" / "tutorial.md").read_text()


def test_every_tutorial_fence_is_a_step() -> None:
    steps = tc.parse(PAGE)
    fences = [line for line in PAGE.splitlines() if re.match(r"```\S*\s.*\btutorial\b", line)]
    outputs = sum(1 for s in steps if isinstance(s, tc.Commands) and s.expect)
    assert len(fences) == len(steps) + outputs
    run = [s for s in steps if isinstance(s, tc.Commands) and s.skip is None]
    assert all(s.expect for s in run), "every command the page runs is shown with what it prints"


def test_the_files_it_writes_and_shows() -> None:
    steps = tc.parse(PAGE)
    written = [s.path for s in steps if isinstance(s, tc.WriteFile)]
    assert written == ["specs/act/scaled_gelu.yaml", "specs/act/scaled_gelu_grad.yaml",
                       "specs/act/scaled_gelu.family.yaml", "templates/kernels/act/scaled_gelu.cu", "gelu_refs.py",
                       "specs/act/scaled_gelu.cases.yaml", "tests/test_scaled_gelu.py", "use_torch.py", "use_jax.py",
                       "bench.py"]
    assert [s.path for s in steps if isinstance(s, tc.ShowsFile)] == ["templates/kernels/act/scaled_gelu.cu"]
    spec = next(s.text for s in steps if isinstance(s, tc.WriteFile) and s.path == "specs/act/scaled_gelu.yaml")
    assert "reference: gelu_refs:scaled_gelu" in spec and "autograd:" in spec and "gradient: ScaledGeluGrad" in spec


def test_the_commands_in_order() -> None:
    steps = tc.parse(PAGE)
    commands = [(c, s.skip) for s in steps if isinstance(s, tc.Commands) for c in s.commands]
    assert commands == [
        ('pip install "opgen[torch,jax]" pytest', "the check installs the wheel it built from the checkout instead"),
        ("opgen init myops", None), ("cd myops", None), ("opgen new ScaledGelu --group act", None),
        ("opgen generate", None), ("opgen verify ScaledGelu ScaledGeluGrad --no-nvrtc", None),
        ("python -m pytest -q tests/test_scaled_gelu.py", None),
        ("python -m pytest -q tests/test_scaled_gelu.py --opgen-sanitize", None),
        ("python -m pytest -q tests/test_scaled_gelu.py --opgen-random-order 3", None),
        ("python use_torch.py", None), ("python use_jax.py", None),
        ("head -n 4 myops/docs/act/scaled_gelu.md", None), ("python bench.py", None),
        ("opgen gpu-check", "needs an NVIDIA GPU")]
    # each file is written before the command that uses it
    order = [s.path if isinstance(s, tc.WriteFile) else s for s in steps]
    assert order.index("use_torch.py") < next(i for i, s in enumerate(order) if getattr(s, "commands", None)
                                               == ["python use_torch.py"])


@pytest.mark.parametrize(("page", "error"), [
    ("```bash tutorial nope=1\nls\n```\n", r"x\.md:1: unknown fence word\(s\) nope"),
    ("```text tutorial output\nhi\n```\n", r"x\.md:1: an output block must follow a command block"),
    ("```bash tutorial\nls\n```\n```text tutorial output\na\n```\n```text tutorial output\nb\n```\n",
     r"x\.md:7: an output block must follow a command block"),
    ("```yaml tutorial file=../escape.yaml\na: 1\n```\n", r"x\.md:1: file= and shows= take a path inside"),
    ("```python tutorial\nprint(1)\n```\n", r"x\.md:1: a `python tutorial` block needs output, file=PATH"),
    ("```bash tutorial\n# only a comment\n```\n", r"x\.md:1: a command block with no command"),
    ("```bash tutorial\nls\n", r"x\.md:1: the fence is never closed"),
    ('```bash tutorial skip="unclosed\nls\n```\n', r"x\.md:1: No closing quotation"),
])
def test_malformed_fences_are_refused_at_their_line(page: str, error: str) -> None:
    with pytest.raises(tc.TutorialError, match=error):
        tc.parse(page, "x.md")


def test_fences_without_tutorial_are_left_alone() -> None:
    page = "```bash\nrm -rf /\n```\n```python\nprint(1)\n```\n```bash tutorial\nls\n```\n"
    (step,) = tc.parse(page)
    assert step.commands == ["ls"]


def test_shown_lines_match_in_order_with_ellipses() -> None:
    actual = "op   cpu-plan   nvrtc   \nScaledGelu   ok 6   skipped\nopgen verify: 2 op(s) passed (0.1 s)\n"
    assert tc.missing_lines(["op cpu-plan nvrtc", "...", "opgen verify: 2 op(s) passed ..."], actual) == []
    assert tc.missing_lines(["opgen verify: 2 op(s) passed ...", "ScaledGelu ok 6"], actual) == ["ScaledGelu ok 6"]
    assert tc.missing_lines(["ScaledGelu ok 7"], actual) == ["ScaledGelu ok 7"]


def _bash(name: str, argv: list[str], cwd: Path) -> str:
    import subprocess

    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise RuntimeError(f"{name}: exit {proc.returncode}")
    return proc.stdout


def test_the_runner_writes_runs_and_checks(tmp_path: Path) -> None:
    page = ("```bash tutorial\nmkdir p\ncd p\n```\n```sh tutorial file=a/b.txt\nhello\n```\n"
            "```bash tutorial\ncat a/b.txt\necho done\n```\n```text tutorial output\nhello\n...\ndone\n```\n"
            '```bash tutorial skip="not here"\nfalse\n```\n')
    tc.run(tc.parse(page), tmp_path, _bash, RuntimeError)
    assert (tmp_path / "p" / "a" / "b.txt").read_text() == "hello\n"
    with pytest.raises(RuntimeError, match=r"tutorial\.md:1: the output lacks the lines \['bye'\]"):
        tc.run(tc.parse("```bash tutorial\necho hi\n```\n```text tutorial output\nbye\n```\n"), tmp_path, _bash,
               RuntimeError)
    with pytest.raises(RuntimeError, match="exit 1"):
        tc.run(tc.parse("```bash tutorial\nfalse\n```\n"), tmp_path, _bash, RuntimeError)
    with pytest.raises(RuntimeError, match=r"cd nowhere: no such folder"):
        tc.run(tc.parse("```bash tutorial\ncd nowhere\n```\n"), tmp_path, _bash, RuntimeError)
