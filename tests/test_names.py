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
from codegen.naming import earlier_snake_case, snake_case
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


# -- the snake-case rule ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("camel", "snake"), [
    ("BiasAdd", "bias_add"),  # a word starts at a capital after a lowercase letter
    ("DepthwiseConv2d", "depthwise_conv2d"),  # a digit group stays with the letters before it ...
    ("Conv2D", "conv2d"),  # ... and the letters after it, unless a new word starts
    ("Conv2DBackpropInput", "conv2d_backprop_input"),
    ("Atan2Grad", "atan2_grad"),
    ("Float16x2", "float16x2"),
    ("FusedBatchNormV3", "fused_batch_norm_v3"),  # a trailing version is a word of its own ...
    ("CudnnRNNV3", "cudnn_rnn_v3"),  # ... even after a capital run
    ("CudnnRNNParamsSize", "cudnn_rnn_params_size"),  # a capital run splits before its last capital
    ("GRUBlockCell", "gru_block_cell"),
    ("GELU", "gelu"),
    ("RoPE", "ro_pe"),  # (reads badly: such an op gives function_name: rope)
])
def test_the_snake_case_rule(camel: str, snake: str) -> None:
    assert snake_case(camel) == snake


#: Every op of opgen's own, with the function name its documentation, its generated module and its torch op
#: have had since before the rule changed: none is renamed.
OWN_FUNCTIONS = {
    "Batch": "batch", "Unbatch": "unbatch", "UnbatchGrad": "unbatch_grad",
    "BiasAdd": "bias_add", "BiasAddGrad": "bias_add_grad",
    "FusedBatchNormV3": "fused_batch_norm_v3", "FusedBatchNormGradV3": "fused_batch_norm_grad_v3",
    "LayerNorm": "layer_norm", "LayerNormGrad": "layer_norm_grad", "Softmax": "softmax", "SoftmaxGrad": "softmax_grad",
    "CudnnRNNV3": "cudnn_rnn_v3", "CudnnRNNBackpropV3": "cudnn_rnn_backprop_v3",
    "CudnnRNNCanonicalToParamsV2": "cudnn_rnn_canonical_to_params_v2",
    "CudnnRNNParamsToCanonicalV2": "cudnn_rnn_params_to_canonical_v2", "CudnnRNNParamsSize": "cudnn_rnn_params_size",
    "DmlRnn": "dml_rnn", "GRUBlockCell": "gru_block_cell", "GRUBlockCellGrad": "gru_block_cell_grad",
}


def test_opgens_own_ops_keep_their_function_names() -> None:
    ops = load_specs(cli.PROJECT / "specs")
    assert {op.name: op.snake_name for op in ops} == OWN_FUNCTIONS
    assert not any(op.earlier_rule for op in ops)
    generated = {p.stem for p in (cli.PROJECT / "generated").rglob("*.py")}
    assert set(OWN_FUNCTIONS.values()) <= generated


def test_a_spec_named_by_the_earlier_rule_keeps_its_name_with_a_warning(capsys: pytest.CaptureFixture[str],
                                                                        tmp_path: Path) -> None:
    """DepthwiseConv2d in depthwise_conv_2_d.yaml (the earlier rule's name): it still generates, as
    depthwise_conv_2_d, and `opgen generate` names the spec's line and the function_name: that keeps it."""
    assert earlier_snake_case("DepthwiseConv2d") == "depthwise_conv_2_d"
    specs = tmp_path / "specs"
    (specs / "nn").mkdir(parents=True)
    (specs / "nn" / "depthwise_conv_2_d.yaml").write_text(SMALL_SPEC.format(op="DepthwiseConv2d", summary="Old."))
    (specs / "nn" / "conv2_d.yaml").write_text(SMALL_SPEC.format(op="Conv2D", summary="New.").replace(
        "op: Conv2D\n", "op: Conv2D\nfunction_name: conv2_d\n"))  # given: no warning
    (specs / "nn" / "atan2_grad.yaml").write_text(SMALL_SPEC.format(op="Atan2Grad", summary="New."))  # no warning
    status, err = opgen(capsys, "generate", "--specs", specs, "--out", tmp_path / "out")
    assert status == 0, err
    assert err.splitlines() == [
        "opgen: warning: specs/nn/depthwise_conv_2_d.yaml:1: op DepthwiseConv2d: its function name depthwise_conv_2_d "
        "follows the earlier snake-case rule (the current one gives depthwise_conv2d); it keeps it, but write "
        "`function_name: depthwise_conv_2_d` under `op: DepthwiseConv2d` to keep it for good, or rename the spec "
        "file to depthwise_conv2d.yaml to take the new name"]
    assert sorted(p.name for p in (tmp_path / "out" / "nn").glob("*.py")) == [
        "__init__.py", "atan2_grad.py", "conv2_d.py", "depthwise_conv_2_d.py"]
    # the line it names, written: the warning goes
    spec = specs / "nn" / "depthwise_conv_2_d.yaml"
    spec.write_text(spec.read_text().replace("op: DepthwiseConv2d\n",
                                             "op: DepthwiseConv2d\nfunction_name: depthwise_conv_2_d\n"))
    status, err = opgen(capsys, "generate", "--specs", specs, "--out", tmp_path / "out")
    assert (status, err) == (0, "")


def test_a_spec_named_by_neither_rule_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    (specs / "nn").mkdir(parents=True)
    (specs / "nn" / "depthwiseconv2d.yaml").write_text(SMALL_SPEC.format(op="DepthwiseConv2d", summary="Bad."))
    status, err = opgen(capsys, "generate", "--specs", specs, "--out", tmp_path / "out")
    assert status == 2 and "specs/nn/depthwiseconv2d.yaml:1: op DepthwiseConv2d: op: the file must be named " \
        "depthwise_conv2d.yaml (got depthwiseconv2d.yaml)" in err, err
    assert not (tmp_path / "out").exists()


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


def test_new_writes_the_function_name_given(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    specs, templates = tmp_path / "specs", tmp_path / "templates"
    status, err = opgen(capsys, "new", "RoPE", "--group", "pos", "--function-name", "rope", "--specs", specs,
                        "--templates", templates)
    assert status == 0, err
    text = (specs / "pos" / "rope.yaml").read_text(encoding="utf-8")
    assert text.startswith("op: RoPE\nfunction_name: rope\n"), text
    assert (templates / "kernels" / "pos" / "rope.cu").is_file()
    [op] = load_specs(specs)
    assert (op.function_name, op.snake_name) == ("rope", "rope")
    # without it: the name in snake_case, and no function_name: line
    assert opgen(capsys, "new", "ScaleBy", "--group", "pos", "--specs", specs, "--templates", templates)[0] == 0
    assert "function_name" not in (specs / "pos" / "scale_by.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("function", "said"), [
    ("RoPE", "--function-name: 'RoPE' is not a snake_case name"),
    ("ro__pe", "--function-name: 'ro__pe' is not a snake_case name"),
    ("class", "--function-name: 'class' is not a snake_case name"),
    ("torch", "op: its function name 'torch' is reserved"),
])
def test_new_refuses_a_bad_function_name(capsys: pytest.CaptureFixture[str], tmp_path: Path, function: str,
                                         said: str) -> None:
    specs, templates = tmp_path / "specs", tmp_path / "templates"
    status, err = opgen(capsys, "new", "RoPE", "--function-name", function, "--specs", specs, "--templates",
                        templates)
    assert status == 2 and err.startswith(f"opgen new: {said}") and "nothing was written" in err, err
    assert not specs.exists() and not templates.exists()


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
