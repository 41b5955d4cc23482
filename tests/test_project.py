"""A project of your own (issue 19): `[tool.opgen]` found from the current directory upward, flags
over it, bad tables as one-line `file:line` errors (exit 2, nothing written), no command writing
inside the installed opgen, `opgen init` (a project in which `opgen generate` then `pytest` pass),
`opgen --version`, and opgen's own package data (templates, the activation library)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import small_specs

import codegen
from codegen import cli
from codegen.project import (
    BUILTIN_TEMPLATES,
    CODEGEN_DIR,
    Overrides,
    Project,
    ProjectError,
    builtin_path,
    find_project,
)
from codegen.runtime.settings import HOST_RANDOM_ORDER, HOST_SANITIZE, POISON_OUTPUTS
from codegen.vocab import builtin_activations_file

REPO = cli.PROJECT

def opgen(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def project_folder(root: Path, table: str, ops: tuple[str, ...] = ("demo/SmallOp",)) -> Path:
    """A folder with a pyproject.toml holding `table` (the [tool.opgen] lines) and small specs."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "mine"\n\n[tool.opgen]\n{table}', encoding="utf-8")
    small_specs(root / "specs", dict.fromkeys(ops, "A small op."))
    return root


# -- finding the project -----------------------------------------------------------------------------
def test_config_is_found_from_a_subfolder_and_flags_override_it(tmp_path: Path) -> None:
    root = project_folder(tmp_path / "proj", 'package = "mine_ops"\n')
    (root / "templates").mkdir()
    (root / "sub" / "deeper").mkdir(parents=True)
    project = find_project(root / "sub" / "deeper")
    assert project == Project(root.resolve(), (root / "specs").resolve(), ((root / "templates").resolve(),),
                              (root / "mine_ops").resolve(), "mine_ops", "mine_ops")
    assert project.config == root / "pyproject.toml" and not project.is_opgen_itself
    assert project.template_roots == [(root / "templates").resolve(), BUILTIN_TEMPLATES]
    # flags: relative to the current directory, each overriding its key only
    flagged = find_project(root / "sub", Overrides(out=Path("gen"), torch_namespace="mine_ns"))
    assert flagged.out == (root / "sub" / "gen").resolve() and flagged.package == "mine_ops"
    assert flagged.torch_namespace == "mine_ns" and flagged.specs == (root / "specs").resolve()


def test_every_key(tmp_path: Path) -> None:
    root = project_folder(tmp_path / "proj", 'specs = "ops"\ntemplates = "kern"\nout = "src/pkg_x"\n'
                                             'package = "pkg_x"\ntorch-namespace = "px"\n', ops=())
    (root / "ops").mkdir()
    (root / "kern").mkdir()
    project = find_project(root)
    assert (project.specs, project.templates, project.out) == (root / "ops", (root / "kern",), root / "src" / "pkg_x")
    assert (project.package, project.torch_namespace) == ("pkg_x", "px")
    # the package defaults to the out folder's name
    root2 = project_folder(tmp_path / "proj2", 'out = "build/made"\n')
    assert find_project(root2).package == "made" and find_project(root2).torch_namespace == "made"


@pytest.mark.parametrize("table", [
    '[tool]\nopgen = {package = "child_ops"}\n',
    '[tool]\nopgen.package = "child_ops"\n',
    'tool.opgen.package = "child_ops"\n[project]\nname = "child"\n',
    '[ tool . "opgen" ]\npackage = "child_ops"\n',
])
def test_the_table_is_found_as_toml_data(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch, table: str) -> None:
    """`[tool]` with `opgen = {...}` or `opgen.key = ...` is the same data as `[tool.opgen]`: inside
    another project, the child's table is the one read (not the parent's, whose package is not
    touched)."""
    parent = project_folder(tmp_path / "parent", 'package = "parent_ops"\n')
    child = parent / "child"
    small_specs(child / "specs", {"demo/ChildOp": "The child's op."})
    (child / "pyproject.toml").write_text(table, encoding="utf-8")
    monkeypatch.chdir(child)
    status, out, err = opgen(capsys, "generate")
    assert status == 0, err
    assert "  wrote   child_ops/demo/child_op.py" in out
    assert not (parent / "parent_ops").exists()
    assert find_project(child).config == child / "pyproject.toml"


def test_a_table_in_a_file_that_is_not_toml_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A child's pyproject.toml that is not valid TOML: when its text holds the table in any form, its
    error is reported (not the parent's project taken); when it does not, the parent's project is."""
    parent = project_folder(tmp_path / "parent", 'package = "parent_ops"\n')
    child = parent / "child"
    child.mkdir()
    monkeypatch.chdir(child)
    for text in ('[tool]\nopgen = {package = "child_ops"\n', '[tool]\nopgen.package = "child_ops\n'):
        (child / "pyproject.toml").write_text(text, encoding="utf-8")
        status, _, err = opgen(capsys, "generate")
        assert status == 2 and err.startswith(f"opgen: error: {child / 'pyproject.toml'}:2: not valid TOML"), err
    (child / "pyproject.toml").write_text('[project]\ndependencies = [\n  "opgen==1.0",\n', encoding="utf-8")
    assert find_project(child).config == parent / "pyproject.toml"
    assert not (parent / "parent_ops").exists()


@pytest.mark.parametrize("table,line", [
    ('[tool]\nname = 1\nopgen = {package = "mine", colour = "red"}\n', 3),
    ('[tool]\nopgen.package = "mine"\nopgen.colour = "red"\n', 3),
    ('[tool.opgen]\npackage = "mine"\n\n[tool.opgen.colour]\nx = 1\n', 4),
    ('text = """\n[tool.opgen]\ncolour = 1\n"""\n[tool.opgen]\npackage = "mine"\ncolour = "red"\n', 7),
])
def test_bad_keys_are_found_at_their_line_however_the_table_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, table: str,
        line: int) -> None:
    root = tmp_path / "proj"
    small_specs(root / "specs", {"demo/SmallOp": "A small op."})
    (root / "pyproject.toml").write_text(table, encoding="utf-8")
    monkeypatch.chdir(root)
    status, _, err = opgen(capsys, "generate")
    assert status == 2
    assert err.splitlines()[0] == (f"opgen: error: {root / 'pyproject.toml'}:{line}: [tool.opgen]: unknown key "
                                   f"'colour' (known: specs, templates, out, package, torch-namespace)")
    assert sorted(p.name for p in root.iterdir()) == ["pyproject.toml", "specs"]


def test_opgen_own_repository_is_a_project() -> None:
    project = find_project(REPO / "tests")
    assert project.is_opgen_itself
    assert (project.specs, project.out, project.package, project.torch_namespace) == (
        REPO / "specs", REPO / "generated", "generated", "opgen")
    assert project.templates == (REPO / "codegen" / "templates",)


def test_no_project_and_no_out(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    small_specs(tmp_path / "specs", {"demo/SmallOp": "A small op."})
    for command in ("generate", "check"):
        status, out, err = opgen(capsys, command, "--specs", "specs")
        assert status == 2 and out == ""
        assert "no output folder: no [tool.opgen] in a pyproject.toml in" in err
        assert "run `opgen init DIR`" in err and "pass --out DIR" in err and "nothing was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["specs"]
    # reading commands need no output folder; relative flags are relative to the current directory
    status, out, _ = opgen(capsys, "list")
    assert status == 0 and out.startswith("SmallOp")
    status, out, _ = opgen(capsys, "generate", "--out", "made")
    assert status == 0 and "  wrote   made/demo/small_op.py" in out
    assert (tmp_path / "made" / "demo" / "small_op.py").is_file()


# -- bad tables and flags: one line, file:line, exit 2, nothing written ----------------------------------
@pytest.mark.parametrize("table,line,message", [
    ('package = "mine"\ncolour = "red"\n', 6, "[tool.opgen]: unknown key 'colour' (known: specs, templates, out,"),
    ('package = "mine"\ntorch_namespace = "x"\n', 6, "unknown key 'torch_namespace' (did you mean 'torch-namespace'?"),
    ('package = "mine"\nspecs = "nope"\n', 6, "[tool.opgen] specs: folder 'nope' not found"),
    ('package = "mine"\ntemplates = ["specs", "gone"]\n', 6, "[tool.opgen] templates: folder 'gone' not found"),
    ('package = "my-ops"\n', 5, "[tool.opgen] package: 'my-ops' is not a valid package name"),
    ('package = "class"\n', 5, "'class' is not a valid package name"),
    ('package = "numpy"\n', 5, "package name 'numpy' shadows the installed module numpy"),
    ('package = "codegen"\n', 5, "package name 'codegen' shadows the installed module codegen"),
    ('package = "json"\n', 5, "package name 'json' shadows Python's standard module json"),
    ('out = "numpy"\n', 5, "[tool.opgen] out: package name 'numpy' shadows the installed module"),
    ('package = "mine"\ntorch-namespace = "aten"\n', 6, "torch namespace 'aten' belongs to PyTorch"),
    ('package = "mine"\ntorch-namespace = "prim"\n', 6, "torch namespace 'prim' belongs to PyTorch"),
    ('package = "mine"\ntorch-namespace = "load_library"\n', 6, "'load_library' belongs to PyTorch"),
    ('package = "mine"\ntorch-namespace = "my.ns"\n', 6, "'my.ns' is not a valid torch namespace"),
    ('package = "mine"\ntorch-namespace = "opgen"\n', 6, "torch namespace 'opgen' is opgen's own ops'"),
    ('package = "prims"\n', 5, "the torch namespace (the package name, [tool.opgen] package): torch namespace "
                               "'prims' belongs to PyTorch"),
    ('package = 3\n', 5, "[tool.opgen] package: expected a non-empty string, got 3"),
    ('templates = 3\npackage = "mine"\n', 5, "templates: expected a folder or a list of folders, got 3"),
    ('specs = "specs"\n', 4, "[tool.opgen] needs `package`"),
    ('package = "mine\n', 5, "not valid TOML: "),
    # names as Python and PyTorch see them: torch.library takes only ASCII namespaces, and Python
    # imports a package by its NFKC-normalised name
    ('package = "mine"\ntorch-namespace = "café"\n', 6, "[tool.opgen] torch-namespace: 'café' is not a valid "
                                                          "torch namespace (torch.ops.<namespace> needs an ASCII "
                                                          "identifier"),
    ('package = "mine"\ntorch-namespace = "ｍｉｎｅ"\n', 6, "'ｍｉｎｅ' is not a valid torch namespace"),
    ('package = "café"\n', 5, "the torch namespace (the package name, [tool.opgen] package): 'café' is not a valid "
                               "torch namespace"),
    ('package = "ｐ"\n', 5, "[tool.opgen] package: package name 'ｐ' is not the name Python imports: Python reads "
                            "identifiers NFKC-normalised, so `import ｐ` looks for 'p'; write 'p'"),
    ('out = "ﬁle"\n', 5, "[tool.opgen] out: package name 'ﬁle' is not the name Python imports"),
    # values no file system takes: one line, not a traceback
    ('out = "x\\u0000y"\n', 5, "[tool.opgen] out: 'x\\x00y' holds the control character '\\x00'"),
    ('package = "mine"\nspecs = "s\\u0000"\n', 6, "[tool.opgen] specs: 's\\x00' holds the control character"),
    ('package = "a\\u0000b"\n', 5, "[tool.opgen] package: 'a\\x00b' is not a valid package name"),
    (f'out = "{"a" * 5000}"\n', 5, f"[tool.opgen] out: {'a' * 60!r}... (5000 characters) has a name of 5000 bytes: "
                                    f"a file system takes at most 255"),
    (f'out = "x/{"b" * 300}"\n', 5, f"has a name of 300 bytes ({'b' * 60!r}... (300 characters))"),
    (f'out = "{"ab/" * 2000}"\n', 5, f"[tool.opgen] out: {'ab/' * 20!r}... (6000 characters): "),
    (f'package = "{"a" * 5000}"\n', 5, f"[tool.opgen] package: package name {'a' * 60!r}... (5000 characters) is "
                                        f"5000 bytes long: it names the package's folder"),
], ids=lambda value: value[:40] if isinstance(value, str) else None)
def test_bad_table(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                   table: str, line: int, message: str) -> None:
    root = project_folder(tmp_path / "proj", table)
    before = snapshot(root)
    monkeypatch.chdir(root)
    status, out, err = opgen(capsys, "generate")
    assert status == 2 and out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"opgen: error: {root / 'pyproject.toml'}:{line}: "), err
    assert message in first, err
    assert err.splitlines()[1:] == ["opgen: nothing was written"]
    assert snapshot(root) == before


def test_names_python_and_torch_take_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The other direction: a non-ASCII package name that NFKC keeps (`café`) with an ASCII torch
    namespace generates, imports and registers its ops."""
    root = project_folder(tmp_path / "proj", 'package = "café"\ntorch-namespace = "cafe_ops"\n')
    monkeypatch.chdir(root)
    status, out, err = opgen(capsys, "generate")
    assert status == 0, err
    assert "  wrote   café/torch.py" in out
    code = "import café.torch, torch; print(torch.ops.cafe_ops.small_op.default.name())"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(REPO)])}
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "cafe_ops::small_op"


def test_bad_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_folder(tmp_path / "proj", 'package = "mine"\n')
    monkeypatch.chdir(root)
    for argv, message in [(["--package", "numpy"], "--package: package name 'numpy' shadows the installed module"),
                          (["--torch-namespace", "aten"], "--torch-namespace: torch namespace 'aten' belongs to"),
                          (["--templates", "gone"], "template folder gone not found"),
                          (["--torch-namespace", "ｍｉｎｅ"], "--torch-namespace: 'ｍｉｎｅ' is not a valid torch "
                                                             "namespace"),
                          (["--package", "ｐ"], "--package: package name 'ｐ' is not the name Python imports"),
                          (["--out", "a" * 5000], "--out: 'aaaa"),
                          (["--specs", "ab/" * 2000], "--specs: 'ab/ab")]:
        status, _, err = opgen(capsys, "generate", *argv)
        assert status == 2 and message in err.splitlines()[0], err
        assert len(err.splitlines()) == 2, err
    assert not (root / "mine").exists()
    monkeypatch.chdir(tmp_path)  # no project here: the package is the --out folder's name
    status, _, err = opgen(capsys, "generate", "--specs", root / "specs", "--out", "has-dash")
    assert status == 2 and "--out: 'has-dash' is not a valid package name" in err
    assert not (tmp_path / "has-dash").exists()


# -- nothing written inside the installed opgen -------------------------------------------------------------
def test_no_command_writes_inside_opgen(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_folder(tmp_path / "proj", 'package = "mine"\n')
    monkeypatch.chdir(root)
    before = snapshot(CODEGEN_DIR / "templates")
    status, _, err = opgen(capsys, "generate", "--out", CODEGEN_DIR / "templates" / "mine")
    assert status == 2
    assert f"refusing to write {CODEGEN_DIR / 'templates' / 'mine'}: it is inside the installed opgen" in err
    assert "pass --out DIR" in err
    status, _, err = opgen(capsys, "new", "MyOp", "--templates", BUILTIN_TEMPLATES)
    assert status == 2 and "refusing to write" in err and "inside the installed opgen" in err
    assert not (root / "specs" / "custom").exists()
    status, _, err = opgen(capsys, "init", CODEGEN_DIR / "myproj")
    assert status == 2 and "refusing to write" in err and "opgen init DIR" in err
    assert snapshot(CODEGEN_DIR / "templates") == before and not (CODEGEN_DIR / "myproj").exists()


def test_new_outside_a_project_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = opgen(capsys, "new", "MyOp")
    assert status == 2
    assert "opgen new: no [tool.opgen] in a pyproject.toml in" in err
    assert "`opgen init DIR` makes one" in err and "--specs DIR and --templates DIR" in err
    status, _, err = opgen(capsys, "new", "MyOp", "--specs", "specs")
    assert status == 2 and "no template folder for the kernel: pass --templates DIR" in err
    assert list(tmp_path.iterdir()) == []


# -- opgen init ---------------------------------------------------------------------------------------------
def test_init_writes_a_project_and_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, _ = opgen(capsys, "init", "my-ops")
    assert status == 0
    root = tmp_path / "my-ops"
    assert sorted(snapshot(root)) == ["README.md", "pyproject.toml", "specs/example/scaled_tanh.family.yaml",
                                      "specs/example/scaled_tanh.yaml", "specs/example/scaled_tanh_grad.yaml",
                                      "templates/kernels/example/scaled_tanh.cu", "tests/test_scaled_tanh.py"]
    assert "  wrote   my-ops/pyproject.toml" in out and "cd my-ops && opgen generate && pytest" in out
    project = find_project(root)
    assert (project.package, project.torch_namespace) == ("my_ops", "my_ops")
    assert project.templates == (root / "templates",) and project.out == root / "my_ops"
    # nothing is overwritten: every existing file is named, nothing written
    (root / "README.md").write_text("mine\n", encoding="utf-8")
    before = snapshot(root)
    status, _, err = opgen(capsys, "init", "my-ops", "--package", "other")
    assert status == 2 and "README.md" in err and "pyproject.toml" in err and "nothing was written" in err
    assert snapshot(root) == before
    # bad names
    status, _, err = opgen(capsys, "init", "9lives")
    assert status == 2 and "the package name from the folder's name '9lives' (pass --package NAME)" in err
    status, _, err = opgen(capsys, "init", "x", "--package", "numpy")
    assert status == 2 and "shadows the installed module numpy" in err
    status, _, err = opgen(capsys, "init", "x", "--package", "xx", "--torch-namespace", "aten")
    assert status == 2 and "belongs to PyTorch" in err
    assert not (tmp_path / "9lives").exists() and not (tmp_path / "x").exists()


def test_init_refuses_a_name_its_pyproject_cannot_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The package names the distribution (`[project] name`) and a key of pyproject.toml: a name that
    is not ASCII is refused before anything is written; with an ASCII --package the same folder
    makes a project whose pyproject.toml every later command reads."""
    monkeypatch.chdir(tmp_path)
    for argv, message in [
        (["café"], "opgen init: the package name from the folder's name 'café' (pass --package NAME): package name "
                   "'café' gives the distribution name 'café' (pyproject.toml's [project] name), which must be ASCII"),
        (["café", "--torch-namespace", "cafe"], "gives the distribution name 'café'"),
        (["x", "--package", "_x"], "--package: package name '_x' gives the distribution name '-x'"),
        (["x", "--package", "ｐ"], "--package: package name 'ｐ' is not the name Python imports"),
    ]:
        status, _, err = opgen(capsys, "init", *argv)
        assert status == 2 and message in err.splitlines()[0], err
        assert err.splitlines()[1:] == ["opgen init: nothing was written"], err
    assert list(tmp_path.iterdir()) == []
    status, _, err = opgen(capsys, "init", "café", "--package", "cafe")
    assert status == 0, err
    monkeypatch.chdir(tmp_path / "café")
    assert (find_project(Path.cwd()).package, opgen(capsys, "list")[0]) == ("cafe", 0)


def test_init_then_generate_then_pytest(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's commands for your own ops: opgen init myops, cd myops, opgen generate, pytest."""
    monkeypatch.chdir(tmp_path)
    assert opgen(capsys, "init", "myops")[0] == 0
    root = tmp_path / "myops"
    monkeypatch.chdir(root)
    status, out, err = opgen(capsys, "generate")
    assert status == 0, err
    assert "  wrote   myops/example/scaled_tanh.py" in out and "  wrote   myops/torch.py" in out
    assert "  wrote   myops/jax.py" in out and "  wrote   myops/jax_ffi.cpp" in out
    # (the example pair is a family: its lets are written once, so a new project starts clean; its
    # forward and gradient share one kernel module)
    assert opgen(capsys, "check")[:2] == (0, "opgen check: kernel module myops/example/scaled_tanh.cu holds "
                                             "ScaledTanh, ScaledTanhGrad (one compile for 2 ops)\n"
                                             f"opgen check: {len(snapshot(root / 'myops'))} generated files up to "
                                             f"date\nopgen check: 0 let(s) written twice by ops that could share "
                                             f"them (an op and its gradient, two members of a family)\n")
    status, out, _ = opgen(capsys, "list")
    assert [line.split()[0] for line in out.splitlines()] == ["ScaledTanh", "ScaledTanhGrad"]
    # another op: into the project's own folders
    status, out, _ = opgen(capsys, "new", "MyOp", "--group", "mine")
    assert status == 0 and (root / "specs" / "mine" / "my_op.yaml").is_file()
    assert (root / "templates" / "kernels" / "mine" / "my_op.cu").is_file()
    assert "from myops import Scope, my_op" in (root / "specs" / "mine" / "my_op.yaml").read_text(encoding="utf-8")
    assert opgen(capsys, "generate")[0] == 0
    # its tests, with opgen's pytest plugin (by name: the opgen installed here may predate its entry point)
    for options in [(), ("--opgen-sanitize",), ("--opgen-random-order", "3")]:
        proc = project_pytest(root, *options)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert re.search(r"\b(\d+) passed\b", proc.stdout) and "failed" not in proc.stdout, proc.stdout
        assert {"[cpu-plan-", "[cuda-plan-", "[gpu-form-"} <= set(re.findall(r"\[[a-z-]+-", proc.stdout)), proc.stdout
    # a kernel that reads past its input's end: --opgen-sanitize names the read and the template's line
    kernel = root / "templates" / "kernels" / "example" / "scaled_tanh.cu"
    kernel.write_text(kernel.read_text(encoding="utf-8").replace("to_float(x[i])))", "to_float(x[i + (i == n - 1)])))"))
    assert opgen(capsys, "generate")[0] == 0
    proc = project_pytest(root, "--opgen-sanitize", "-k", "test_scaled_tanh and cpu-plan and shape1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "out-of-bounds read of 4 bytes at byte offset 28 of buffer 'x'" in proc.stdout, proc.stdout
    assert "at line 12 of templates/kernels/example/scaled_tanh.cu" in proc.stdout, proc.stdout


def project_pytest(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """pytest in an `opgen init` project, opgen's pytest plugin named (and only it: plugin autoloading off)."""
    switches = (HOST_SANITIZE.name, HOST_RANDOM_ORDER.name, POISON_OUTPUTS.name)  # (as this run's options set them)
    env = {k: v for k, v in os.environ.items() if k not in switches}
    env.update(PYTHONPATH=str(REPO), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    return subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p",
                           "codegen.pytest_plugin", *options], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


# -- warmup and demo read the project --------------------------------------------------------------------
def test_warmup_gets_the_projects_package(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen import warmup

    seen: list[tuple[list[str], str, str]] = []

    def run_warmup(ops: list[str], device: str, package: str, jobs: int) -> int:
        seen.append((list(ops), device, package))
        return 0

    monkeypatch.setattr(warmup, "run_warmup", run_warmup)
    root = project_folder(tmp_path / "proj", 'package = "mine_pkg"\n')
    monkeypatch.chdir(root)
    assert cli.main(["warmup", "SmallOp", "--device", "cpu"]) == 0
    assert cli.main(["warmup", "--package", "other", "A", "B"]) == 0
    with pytest.raises(SystemExit) as info:  # warmup's own options, parsed by opgen's parser
        cli.main(["warmup", "--help"])
    assert info.value.code == 0 and "--device DEVICE" in capsys.readouterr().out
    monkeypatch.chdir(REPO)
    assert cli.main(["warmup"]) == 0
    assert seen == [(["SmallOp"], "cpu", "mine_pkg"), (["A", "B"], "cuda", "other"), ([], "cuda", "generated")]
    assert str(root) in sys.path
    sys.path.remove(str(root))


def test_warmup_arguments_are_defined_once() -> None:
    """`opgen warmup` and `python -m codegen.warmup` take the same options, from one definition."""
    import argparse

    from codegen import warmup

    def options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
        return [tuple(a.option_strings) or (a.dest,) for a in parser._actions if a.dest != "help"]

    alone = argparse.ArgumentParser()
    warmup.add_arguments(alone)
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert options(sub.choices["warmup"]) == options(alone) == [("ops",), ("--package",), ("--device",),
                                                                   ("--jobs",)]


# -- versions and package data ------------------------------------------------------------------------------
def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"opgen {codegen.__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+(\S*)", codegen.__version__)
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'version = {attr = "codegen._version.__version__"}' in text and 'dynamic = ["version"]' in text


def test_package_data_is_found_through_the_package() -> None:
    assert BUILTIN_TEMPLATES == builtin_path("templates") == Path(codegen.__file__).resolve().parent / "templates"
    for rel in ("python/op.py.j2", "docs/op.md.j2", "kernels/_common.cuh", "scaffold/op.yaml.j2",
                "init/pyproject.toml.j2"):
        assert (BUILTIN_TEMPLATES / rel).is_file(), rel
    assert builtin_activations_file().is_file() and (CODEGEN_DIR / "py.typed").is_file()
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    for pattern in ('"py.typed"', '"_vocab/*.yaml"', '"templates/**/*"'):
        assert pattern in text.split("[tool.setuptools.package-data]")[1].split("\n[")[0], pattern


def test_project_error_is_one_line() -> None:
    err = ProjectError("bad", Path("p/pyproject.toml"), 3)
    assert str(err) == "p/pyproject.toml:3: bad" and str(ProjectError("bad")) == "bad"
