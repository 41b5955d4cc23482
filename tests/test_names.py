"""Names (codegen/naming.py): one set of rules for the loader, the activation library and `opgen new`;
no two ops may share a derived name; no two generated files may share a path or a Python module; a
translation error found while rendering is reported at the spec's line of the construct."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import SMALL_SPEC
from test_spec_errors import BASE, line_of, replace_once, write_spec

from codegen import cli
from codegen.load import load_specs
from codegen.model import Loc
from codegen.naming import snake_case
from codegen.project import template_roots
from codegen.render import OutputFiles, render_all
from codegen.yamlnodes import SpecError


def specs_of(root: Path, ops: dict[str, str]) -> Path:
    """A spec folder: `ops` maps "group/OpName" (the group may be nested) to a summary."""
    for key, summary in ops.items():
        group, op = key.rsplit("/", 1)
        path = root / group / f"{snake_case(op)}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SMALL_SPEC.format(op=op, summary=summary), encoding="utf-8")
    return root


def opgen(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str]:
    status = cli.main([str(a) for a in argv])
    return status, capsys.readouterr().err


def generate_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, ops: dict[str, str]) -> str:
    """`opgen generate` of the ops: exit 2, its one error line, and no output folder."""
    specs = specs_of(tmp_path / "specs", ops)
    status, err = opgen(capsys, "generate", "--specs", specs, "--out", tmp_path / "out")
    assert status == 2 and "nothing was written" in err, err
    assert not (tmp_path / "out").exists()
    return err.splitlines()[0].removeprefix("opgen: error: ")


# -- names two ops derive ------------------------------------------------------------------------------
def test_foobar_and_foobar_in_two_groups_are_refused_naming_both(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    error = generate_error(capsys, tmp_path, {"a/FooBar": "One.", "b/FooBAR": "Two."})
    assert error == ("specs/b/foo_bar.yaml:1: op FooBAR: function name 'foo_bar' is also FooBar's "
                     "(specs/a/foo_bar.yaml:1): the package would export two functions foo_bar and register two "
                     "torch ops foo_bar; give one of them another with function_name:")


def test_an_outputs_class_that_is_another_ops_class_is_refused(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    error = generate_error(capsys, tmp_path, {"a/Foo": "One.", "b/FooOutputs": "Two."})
    assert error == ("specs/b/foo_outputs.yaml:1: op FooOutputs: its class 'FooOutputs' is also the outputs class "
                     "of Foo (specs/a/foo.yaml:1): the package exports one FooOutputs; rename one of them")


@pytest.mark.parametrize("group", ["a/b", "a/b/c"])  # a/b/ holding only a folder is still the module a.b
def test_a_module_that_is_also_a_group_folder_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                         group: str) -> None:
    error = generate_error(capsys, tmp_path, {"a/B": "One.", f"{group}/X": "Two."})
    assert error.startswith("specs/a/b.yaml:1: op B: module a.b (its function name 'b' in group a) is also the "
                            "group folder a/b's package"), error


def test_a_function_name_that_is_a_keyword_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """While → while: `def while(...)` would not even compile."""
    error = generate_error(capsys, tmp_path, {"demo/While": "One."})
    assert error == ("specs/demo/while.yaml:1: op While: op: its function name 'while' is a Python keyword; give "
                     "another with function_name:")


def test_a_group_named_torch_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """torch/ beside the package's torch.py: `import pkg.torch` would find the group, not the registration."""
    error = generate_error(capsys, tmp_path, {"torch/Foo": "One."})
    assert error == "specs/torch/foo.yaml:1: group folder 'torch' is reserved (the generated package's torch.py, " \
                    "the PyTorch registration)"


def test_a_group_named_jax_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """jax/ beside the package's jax.py: `import pkg.jax` would find the group, not the JAX functions."""
    error = generate_error(capsys, tmp_path, {"jax/Foo": "One."})
    assert error == "specs/jax/foo.yaml:1: group folder 'jax' is reserved (the generated package's jax.py, " \
                    "the JAX functions)"


# -- opgen new: the rules opgen generate applies, before writing ---------------------------------------
@pytest.mark.parametrize(("op", "group"), [
    ("Foo", "docs"),  # the package's docs/ folder
    ("Foo", "torch"),  # the package's torch.py
    ("Scope", "custom"),  # a name the package exports
    ("While", "custom"),  # a function named by a keyword
    ("Torch", "custom"),  # the function torch: the package's module
    ("Jax", "custom"),  # the function jax: the package's module
    ("Foo", "class"),  # a group folder named by a keyword
])
def test_new_refuses_what_generate_would_refuse_with_its_message(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                 op: str, group: str) -> None:
    specs, templates = tmp_path / "specs", tmp_path / "templates"
    status, err = opgen(capsys, "new", op, "--group", group, "--specs", specs, "--templates", templates)
    assert status == 2, err
    assert not specs.exists() and not templates.exists()
    first, last = err.strip().splitlines()
    assert last == "opgen new: nothing was written", err
    said = first.removeprefix("opgen new: ")
    # the same spec written by hand: opgen generate's message is the same, with the spec's file:line
    specs_of(tmp_path / "by_hand", {f"{group}/{op}": "By hand."})
    with pytest.raises(SpecError) as info:
        load_specs(tmp_path / "by_hand")
    assert str(info.value).endswith(said) and info.value.line == 1, (str(info.value), said)


def test_new_refuses_a_name_an_existing_op_derives(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    specs, templates = specs_of(tmp_path / "specs", {"a/FooBar": "One."}), tmp_path / "templates"
    status, err = opgen(capsys, "new", "FooBAR", "--group", "b", "--specs", specs, "--templates", templates)
    assert status == 2 and "nothing was written" in err
    assert "specs/b/foo_bar.yaml:1: op FooBAR: function name 'foo_bar' is also FooBar's (specs/a/foo_bar.yaml:1)" \
        in err, err
    assert sorted(p.relative_to(specs).as_posix() for p in specs.rglob("*.yaml")) == ["a/foo_bar.yaml"]
    assert not templates.exists()
    # a spec folder that does not load is opgen generate's to report: new still writes its op
    (specs / "a" / "foo_bar.yaml").write_text("op: [broken\n", encoding="utf-8")
    assert opgen(capsys, "new", "Other", "--group", "b", "--specs", specs, "--templates", templates)[0] == 0
    assert (specs / "b" / "other.yaml").is_file()


# -- translation errors: at the construct's line ------------------------------------------------------
@pytest.mark.parametrize(("change", "needle", "fragment"), [
    (("  T: [float32, float16]\n", "  T: [float32, float16]\n  U: [float32, float16]\n"), "  U: [",
     "type variable U is bound by no input"),
    (("    doc: The input.\n", "    doc: The input.\n  - name: b\n    dtype: T\n    shape: \"[M]\"\n"
      "    optional: true\n"), "- name: b", "optional input 'b' cannot bind symbol 'M'"),
])
def test_a_translation_error_names_the_line_of_its_construct(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                             change: tuple[str, str], needle: str,
                                                             fragment: str) -> None:
    text = replace_once(BASE, *change)
    if needle == "  U: [":
        text = text.replace("outputs:\n  - name: y\n    dtype: T", "outputs:\n  - name: y\n    dtype: U")
    write_spec(tmp_path / "specs", text)
    ops = load_specs(tmp_path / "specs")  # the loader accepts it: the renderer finds it
    with pytest.raises(SpecError) as info:
        render_all(ops, template_roots(None))
    line = line_of(text, needle)
    assert line > 1 and (info.value.file, info.value.line) == ("specs/demo/scale_add.yaml", line), str(info.value)
    assert str(info.value) == f"specs/demo/scale_add.yaml:{line}: op ScaleAdd: {fragment}"
    status, err = opgen(capsys, "generate", "--specs", tmp_path / "specs", "--out", tmp_path / "out")
    assert status == 2 and f"specs/demo/scale_add.yaml:{line}: op ScaleAdd: {fragment}" in err
    assert not (tmp_path / "out").exists()


# -- generated files: one path, one module each ----------------------------------------------------------
def test_output_files_refuse_a_path_twice_also_up_to_case_and_a_module_twice() -> None:
    files = OutputFiles()
    files.add("a/x.py", "1", "X's wrapper")
    files.add("a/x.cu", "2", "X's kernels")
    files.add("a/y.py", "3", "Y's wrapper")
    for path, same in (("a/x.py", "one file"), ("A/X.py", "one file on a case-insensitive file system"),
                       ("a/x/__init__.py", "one Python module")):
        with pytest.raises(AssertionError, match=f"generated {path} \\(Z\\) and a/x.py \\(X's wrapper\\) would be "
                                                 f"{same}"):
            files.add(path, "4", "Z")
    assert dict(files) == {"a/x.py": "1", "a/x.cu": "2", "a/y.py": "3"}


def test_render_refuses_two_files_of_one_module_naming_both_sources(tmp_path: Path) -> None:
    """Ops that did not come through the loader (which refuses the group torch) are checked again
    when rendering: the group torch's __init__ and the package's torch.py are one module."""
    write_spec(tmp_path / "specs", BASE)
    op = load_specs(tmp_path / "specs")[0]
    with pytest.raises(SpecError) as info:
        render_all([dataclasses.replace(op, group="torch")], template_roots(None))
    assert str(info.value) == ("specs/demo/scale_add.yaml:1: op ScaleAdd: generated torch/__init__.py (group "
                               "torch's __init__, for ScaleAdd) and torch.py (the package's PyTorch registration) "
                               "would be one Python module: rename one of them")
    other = dataclasses.replace(op, name="Other", group="Demo", function_name="other",
                                loc=Loc("specs/Demo/other.yaml", 1))
    with pytest.raises(SpecError) as info:  # demo/ and Demo/: one folder on macOS and Windows
        render_all([op, other], template_roots(None))
    assert str(info.value) == ("specs/demo/scale_add.yaml:1: op ScaleAdd: generated demo/__init__.py (group demo's "
                               "__init__, for ScaleAdd) and Demo/__init__.py (group Demo's __init__, for Other, "
                               "specs/Demo/other.yaml:1) would be one file on a case-insensitive file system (macOS, "
                               "Windows): rename one of them")
    with pytest.raises(SpecError, match="function name 'scale_add' is also ScaleAdd's"):
        render_all([op, dataclasses.replace(op, name="SCALEAdd", group="b")], template_roots(None))


# -- module structure ----------------------------------------------------------------------------------
def test_cli_and_demo_do_not_import_each_other() -> None:
    """What both need (opgen's own folder, the project) is codegen/project.py's; `opgen demo`
    imports the demo only when it runs."""
    code = ("import sys; import codegen.demo; assert 'codegen.cli' not in sys.modules, 'demo imports cli'; "
            "import codegen.cli; assert sys.modules['codegen.cli'].PROJECT.is_dir()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          cwd=cli.PROJECT)
    assert proc.returncode == 0, proc.stderr
    code = "import sys; import codegen.cli; assert 'codegen.demo' not in sys.modules, 'cli imports demo'"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          cwd=cli.PROJECT)
    assert proc.returncode == 0, proc.stderr
