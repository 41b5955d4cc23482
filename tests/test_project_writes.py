"""`opgen generate` never replaces what it did not write (issue 30): a file without opgen's marker
where a generated file goes (a package's own `__init__.py`, a project's `docs/index.md` under `out =
"."`), a `py.typed` with other text, a folder where a file goes or a file where a folder goes is
refused by name, exit 2, and nothing is written; opgen's own earlier output is replaced as before.
An `out` in pyproject.toml may not point outside the project's folder; `--out` may."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_project import opgen, project_folder, snapshot

from codegen.files import MARKER

REFUSAL = "opgen: error: refusing to replace what opgen did not write"
WHAT_TO_DO = "Move {} out of the way, or choose another output folder (`out` in [tool.opgen], or --out DIR)"


def refused(capsys: pytest.CaptureFixture[str], root: Path, *items: str, command: str = "generate") -> str:
    """`opgen COMMAND` in the current directory refuses in one line naming `items` (each `path (what
    it is)`), exit 2, and the project's folder `root` is as it was. Its stderr."""
    before = snapshot(root)
    status, out, err = opgen(capsys, command)
    assert status == 2 and out == ""
    first, *rest = err.splitlines()
    assert first.startswith(REFUSAL) and rest == ["opgen: nothing was written"], err
    assert first.endswith(WHAT_TO_DO.format("it" if len(items) == 1 else "them")), err
    for item in items:
        assert item in first, err
    assert snapshot(root) == before
    return err


@pytest.mark.parametrize("command", ["generate", "demo"])
@pytest.mark.parametrize("rel", ["__init__.py", "torch.py", "activations.py", "demo/__init__.py", "docs/index.md"])
def test_a_users_file_where_a_generated_file_goes_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str,
        rel: str) -> None:
    root = project_folder(tmp_path / "proj", 'package = "mine"\n')
    mine = root / "mine" / rel
    mine.parent.mkdir(parents=True)
    mine.write_text("# my own, not generated\n", encoding="utf-8")
    monkeypatch.chdir(root)
    refused(capsys, root, f"{mine} (a file opgen did not write)", command=command)


def test_out_dot_spares_the_projects_own_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`out = "."`: the project's own docs/index.md and __init__.py are named, all in one line."""
    root = project_folder(tmp_path / "proj", 'out = "."\npackage = "mine"\n')
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# My project\n", encoding="utf-8")
    (root / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.chdir(root)
    refused(capsys, root, f"{root / '__init__.py'} (a file opgen did not write)",
            f"{root / 'docs' / 'index.md'} (a file opgen did not write)")
    # moved out of the way: generated, and generated again over its own output
    (root / "docs" / "index.md").unlink()
    (root / "__init__.py").unlink()
    assert opgen(capsys, "generate")[0] == 0
    assert MARKER in (root / "docs" / "index.md").read_text(encoding="utf-8").splitlines()[0]
    status, out, _ = opgen(capsys, "generate")
    assert status == 0 and " 0 written, " in out


def test_folders_in_the_way(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_folder(tmp_path / "proj", 'package = "mine"\n')
    (root / "mine" / "torch.py").mkdir(parents=True)  # a folder where a file goes
    (root / "mine" / "docs").write_text("notes\n", encoding="utf-8")  # a file where a folder goes
    monkeypatch.chdir(root)
    err = refused(capsys, root, f"{root / 'mine' / 'torch.py'} (a folder where opgen writes a file)",
                  f"{root / 'mine' / 'docs'} (a file where opgen makes a folder)")
    assert err.count("mine/docs (") == 1  # named once, though both generated pages go under it


def test_py_typed_is_recognised_by_its_text(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """opgen's py.typed has no marker: it is opgen's when empty (as opgen writes it). One with other
    text is refused; a py.typed elsewhere in the folder is never removed as stale."""
    root = project_folder(tmp_path / "proj", 'package = "mine"\n')
    monkeypatch.chdir(root)
    (root / "mine").mkdir()
    (root / "mine" / "py.typed").write_text("partial\n", encoding="utf-8")
    refused(capsys, root, f"{root / 'mine' / 'py.typed'} (a file opgen did not write)")
    (root / "mine" / "py.typed").write_text("", encoding="utf-8")  # as opgen writes it: taken as opgen's
    status, out, err = opgen(capsys, "generate")
    assert status == 0 and "  wrote   mine/py.typed" not in out, err
    (root / "mine" / "vendored").mkdir()
    (root / "mine" / "vendored" / "py.typed").write_text("", encoding="utf-8")  # the user's, not opgen's
    status, out, _ = opgen(capsys, "generate")
    assert status == 0 and " 0 removed " in out and (root / "mine" / "vendored" / "py.typed").is_file()


def test_out_in_pyproject_stays_inside_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("../elsewhere", str(tmp_path / "elsewhere"), "sub/../../elsewhere"):
        root = project_folder(tmp_path / "proj", f'package = "mine"\nout = "{value}"\n')
        monkeypatch.chdir(root)
        status, _, err = opgen(capsys, "generate")
        assert status == 2
        assert err.splitlines() == [
            f"opgen: error: {root / 'pyproject.toml'}:6: [tool.opgen] out: {value!r} is {tmp_path / 'elsewhere'}, "
            f"outside the project's folder {root}: choose a folder inside it (a folder elsewhere: pass --out DIR)",
            "opgen: nothing was written"]
        assert not (tmp_path / "elsewhere").exists()
        # a flag the user typed may point anywhere
        status, _, err = opgen(capsys, "generate", "--out", tmp_path / "elsewhere" / "mine")
        assert status == 0, err
        assert (tmp_path / "elsewhere" / "mine" / "demo" / "small_op.py").is_file()
        (root / "pyproject.toml").unlink()
        for path in sorted((tmp_path / "elsewhere").rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        (tmp_path / "elsewhere").rmdir()
