"""Op families (docs/specs.md, "Families"): a `<name>.family.yaml` file declares the type variables,
attrs, params, launch variants and lets its members share; a member names it and declares only its
own (and its own value of a family param through `param_overrides:`). The merged model is the one
the member had when it declared everything; bad family input is a SpecError at file:line; opgen's
own forward and gradient specs write no let twice (codegen/shared_lets.py)."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_activation_library import load_error

from codegen import cli
from codegen.load import load_spec, load_specs
from codegen.naming import snake_case
from codegen.shared_lets import shared_lets
from codegen.spec_print import print_spec, same_meaning
from codegen.variants import param_values

SPECS = Path(__file__).resolve().parent.parent / "specs"

FAMILY = """\
family: Scale
doc: Two elementwise ops over the same rows.
type_vars:
  T: [float32, float16]
attrs:
  - {name: alpha, type: float, default: 1.0, doc: The factor.}
let:
  n: N*C
"""

#: A member: what it adds to the family's declarations (`own` goes into the spec as written).
MEMBER = """\
op: {op}
summary: A member of Scale.
family: Scale
{own}inputs:
  - {{name: x, dtype: T, shape: "[N, C]", doc: The input.}}
outputs:
  - {{name: y, dtype: T, shape: "[N, C]", doc: The result.}}
"""

#: The same op declaring everything itself (no family).
SELF_CONTAINED = """\
op: ScaleUp
summary: A member of Scale.
type_vars:
  T: [float32, float16]
  S: {accumulates: T}
attrs:
  - {name: alpha, type: float, default: 1.0, doc: The factor.}
  - {name: beta, type: int, default: 2, doc: Its own.}
inputs:
  - {name: x, dtype: T, shape: "[N, C]", doc: The input.}
let:
  n: N*C
  m: n + beta
outputs:
  - {name: y, dtype: T, shape: "[N, C]", doc: The result.}
"""

OWN = """\
type_vars:
  S: {accumulates: T}
attrs:
  - {name: beta, type: int, default: 2, doc: Its own.}
let:
  m: n + beta
"""


def folder(root: Path, family: str | None = FAMILY, members: dict[str, str] | None = None) -> Path:
    """A spec folder `root/specs` with the family file (demo/scale.family.yaml) and `members`
    (op name -> its `own` declarations)."""
    specs = root / "specs"
    (specs / "demo").mkdir(parents=True, exist_ok=True)
    if family is not None:
        (specs / "demo" / "scale.family.yaml").write_text(family, encoding="utf-8")
    for op, own in (members if members is not None else {"ScaleUp": OWN, "ScaleDown": ""}).items():
        (specs / "demo" / f"{snake_case(op)}.yaml").write_text(MEMBER.format(op=op, own=own), encoding="utf-8")
    return specs


# -- the merge ----------------------------------------------------------------------------------------
def test_a_member_is_the_op_that_declares_everything_itself(tmp_path: Path) -> None:
    specs = folder(tmp_path)
    merged = {op.name: op for op in load_specs(specs)}["ScaleUp"]
    alone = tmp_path / "alone" / "demo" / "scale_up.yaml"
    alone.parent.mkdir(parents=True)
    alone.write_text(SELF_CONTAINED, encoding="utf-8")
    written_out = load_spec(alone, alone.parent.parent)
    # the same declarations, in the same order (family first: the wrapper's signature follows it)
    assert [a.name for a in merged.attrs] == ["alpha", "beta"] and [v.name for v in merged.type_vars] == ["T", "S"]
    assert same_meaning(merged, dataclasses.replace(written_out, family="Scale"))
    assert merged.family == "Scale" and written_out.family is None
    # the family's declarations are located in the family file, the member's own in its spec
    assert str(merged.lets[0].loc) == "specs/demo/scale.family.yaml:8"
    assert merged.own(merged.lets) == (merged.lets[1],)


def test_a_member_prints_back_as_its_own_part(tmp_path: Path) -> None:
    specs = folder(tmp_path)
    op = {op.name: op for op in load_specs(specs)}["ScaleUp"]
    text = print_spec(op)
    assert "family: Scale" in text and "alpha" not in text and "n: N*C" not in text and "m: n + beta" in text
    again = load_spec(specs / op.source, specs, text=text)
    assert same_meaning(op, again) and print_spec(again) == text


def test_opgens_own_members_print_back() -> None:
    """The round trip of tests/test_spec_roundtrip.py covers every spec; here: it covers members."""
    ops = load_specs(SPECS)
    members = [op for op in ops if op.family == "CudnnRNN"]
    assert {op.name for op in members} == {"CudnnRNNV3", "CudnnRNNBackpropV3"}
    for op in members:
        text = print_spec(op)
        assert "family: CudnnRNN" in text and "reserve_len:" not in text
        assert same_meaning(op, load_spec(SPECS / op.source, SPECS, ops.activations, text=text))


# -- lets written twice -------------------------------------------------------------------------------
def test_opgens_own_specs_write_no_let_twice() -> None:
    """68 (69 by this count) at the commit before the families: the same let in a forward spec and its
    gradient spec."""
    assert shared_lets(load_specs(SPECS)) == []


def test_a_let_written_in_two_members_is_counted_and_one_in_the_family_is_not(tmp_path: Path) -> None:
    twice = folder(tmp_path / "a", members={"ScaleUp": "let:\n  k: n + 1\n", "ScaleDown": "let:\n  k: n + 1\n"})
    assert shared_lets(load_specs(twice)) == [("ScaleDown", "ScaleUp", "k")]
    differ = folder(tmp_path / "b", members={"ScaleUp": "let:\n  k: n + 1\n", "ScaleDown": "let:\n  k: n + 2\n"})
    assert shared_lets(load_specs(differ)) == []  # alike in name only
    assert shared_lets(load_specs(folder(tmp_path / "c"))) == []  # `n`: the family's, written once


# -- bad input ----------------------------------------------------------------------------------------
def test_a_family_that_does_not_exist(tmp_path: Path) -> None:
    specs = folder(tmp_path, members={"ScaleUp": ""})
    (specs / "demo" / "scale.family.yaml").unlink()
    err = load_error(specs)
    assert (err.file, err.line) == ("specs/demo/scale_up.yaml", 3), err
    assert "family: no family named 'Scale'" in str(err) and "known: none" in str(err)


@pytest.mark.parametrize("own, fragment, family_line", [
    ("attrs:\n  - {name: alpha, type: float, doc: Again.}\n", "attr 'alpha'", 6),
    ("type_vars:\n  T: [float32]\n", "type variable 'T'", 4),
    ("let:\n  n: N\n", "let 'n'", 8),
])
def test_a_member_redefining_a_family_declaration_names_both_lines(tmp_path: Path, own: str, fragment: str,
                                                                   family_line: int) -> None:
    specs = folder(tmp_path, members={"ScaleUp": own})
    err = load_error(specs)
    assert (err.file, err.line) == ("specs/demo/scale_up.yaml", 5), err
    assert f"{fragment} is already declared by family Scale at specs/demo/scale.family.yaml:{family_line}" in str(err)


@pytest.mark.parametrize("text, line, fragment", [
    (FAMILY + "inputs: []\n", 9, "family file: unknown key 'inputs'"),
    ("- family: Scale\n", 1, "family file must be a mapping"),
    ("doc: No name.\nlet: {n: N}\n", 1, "missing required key 'family'"),
    ("family: scale\nlet: {n: N}\n", 1, "family: name 'scale' is not valid"),
    ("family: Scaling\nlet: {n: N}\n", 1, "the file must be named scaling.family.yaml"),
    ("family: Scale\ndoc: Nothing.\n", 1, "declares nothing to share"),
])
def test_a_malformed_family_file(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    err = load_error(folder(tmp_path, family=text))
    assert (err.file, err.line) == ("specs/demo/scale.family.yaml", line), err
    assert fragment in str(err)


@pytest.mark.parametrize("file, refused", [
    ("scale2d.family.yaml", False),  # the snake-case rule's name (docs/specs.md, Function names)
    ("scale_2_d.family.yaml", False),  # the earlier rule's: a family file's name names nothing else
    ("scale_2d.family.yaml", True),
])
def test_a_family_file_is_named_by_either_snake_case_rule(tmp_path: Path, file: str, refused: bool) -> None:
    specs = folder(tmp_path, family=None)
    (specs / "demo" / file).write_text(FAMILY.replace("family: Scale\n", "family: Scale2D\n"), encoding="utf-8")
    for member in specs.glob("demo/scale_*.yaml"):
        member.write_text(member.read_text(encoding="utf-8").replace("family: Scale\n", "family: Scale2D\n"),
                          encoding="utf-8")
    if refused:
        assert "family: the file must be named scale2d.family.yaml (got scale_2d.family.yaml)" in str(load_error(specs))
    else:
        assert {op.family for op in load_specs(specs)} == {"Scale2D"}


def test_a_family_declaration_is_checked_in_each_member_at_the_family_files_line(tmp_path: Path) -> None:
    """The family's lets are over the member's inputs: a symbol a member does not bind is an error at the
    family file's line, naming the member; a malformed section likewise."""
    unbound = folder(tmp_path / "a", family=FAMILY + "  k: n*Q\n")
    err = load_error(unbound)
    assert (err.file, err.line, err.op) == ("specs/demo/scale.family.yaml", 9, "ScaleDown"), err
    assert "symbol 'Q' is not bound" in str(err)
    err = load_error(folder(tmp_path / "b", family=FAMILY.replace("let:\n  n: N*C\n", "let: [n]\n")))
    assert (err.file, err.line) == ("specs/demo/scale.family.yaml", 7) and "let: expected a mapping" in str(err)


def test_two_files_declaring_one_family(tmp_path: Path) -> None:
    specs = folder(tmp_path)
    (specs / "other").mkdir()
    (specs / "other" / "scale.family.yaml").write_text(FAMILY, encoding="utf-8")
    err = load_error(specs)
    assert (err.file, err.line) == ("specs/other/scale.family.yaml", 1), err
    assert "family 'Scale' is also declared in specs/demo/scale.family.yaml:1" in str(err)


def test_a_family_without_members_is_refused(tmp_path: Path) -> None:
    specs = folder(tmp_path, members={})
    (specs / "demo" / "lone.yaml").write_text(MEMBER.format(op="Lone", own="").replace("family: Scale\n", "")
                                              .replace("dtype: T", "dtype: float32"), encoding="utf-8")
    err = load_error(specs)
    assert (err.file, err.line) == ("specs/demo/scale.family.yaml", 1), err
    assert "family 'Scale' has no member" in str(err)


def test_cli_family_error_exits_2_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = folder(tmp_path, members={"ScaleUp": "let:\n  n: N\n"})
    out = tmp_path / "out"
    status = cli.main(["generate", "--specs", str(specs), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and "specs/demo/scale_up.yaml:5: op ScaleUp: let 'n' is already declared" in err
    assert "nothing was written" in err and not out.exists()


# -- params and variants -----------------------------------------------------------------------------
#: The family with a tunable param and launch variants over it (lines 9-16).
TUNED = FAMILY + """\
params:
  big_rows: {value: 64, doc: Where the wide variant starts.}
variants:
  wide:
    when: backend == cuda and N >= big_rows
    doc: Many rows.
  otherwise: narrow
"""


def test_a_familys_params_and_variants_are_each_members(tmp_path: Path) -> None:
    """The family's params first, then the member's own; the family's variants, located in its file;
    the member prints back without them."""
    specs = folder(tmp_path, family=TUNED, members={
        "ScaleUp": "params:\n  tile: {value: 8, doc: Its own.}\n", "ScaleDown": ""})
    ops = {op.name: op for op in load_specs(specs)}
    up, down = ops["ScaleUp"], ops["ScaleDown"]
    assert [(p.name, p.value, str(p.loc)) for p in up.params] == [
        ("big_rows", 64, "specs/demo/scale.family.yaml:10"), ("tile", 8, "specs/demo/scale_up.yaml:5")]
    assert [p.name for p in down.params] == ["big_rows"]
    for op in (up, down):
        assert op.variants is not None and op.variants.names() == ("wide", "narrow")
        assert str(op.variants.loc) == "specs/demo/scale.family.yaml:12"
        text = print_spec(op)
        assert "variants:" not in text and "big_rows" not in text
        again = load_spec(specs / op.source, specs, text=text)
        assert same_meaning(op, again) and print_spec(again) == text
    assert "tile: {value: 8" in print_spec(up) or "tile:\n" in print_spec(up)


def test_a_member_overrides_a_family_param_explicitly(tmp_path: Path) -> None:
    """`param_overrides:` sets the member's own value (the family's doc stays); it prints back, the
    plan's params and the reference page show it, the other member keeps the family's value."""
    specs = folder(tmp_path, family=TUNED, members={"ScaleUp": "param_overrides: {big_rows: 96}\n", "ScaleDown": ""})
    ops = {op.name: op for op in load_specs(specs)}
    (up,), (down,) = ops["ScaleUp"].params, ops["ScaleDown"].params
    assert (up.value, up.family_value, str(up.loc), up.doc) == (96, 64, "specs/demo/scale_up.yaml:4",
                                                                  "Where the wide variant starts.")
    assert (down.value, down.family_value) == (64, None)
    text = print_spec(ops["ScaleUp"])
    assert "param_overrides:" in text and "96" in text and "params:" not in text
    again = load_spec(specs / ops["ScaleUp"].source, specs, text=text)
    assert same_meaning(ops["ScaleUp"], again) and print_spec(again) == text
    assert param_values(ops["ScaleUp"]) == {"big_rows": 96}  # (the plan's params: plan_data.py)
    assert param_values(ops["ScaleDown"]) == {"big_rows": 64}
    out = tmp_path / "out"
    assert cli.main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    page = (out / "docs" / "demo" / "scale_up.md").read_text(encoding="utf-8")
    assert "| `big_rows` | 96 (this op's own value: `param_overrides:`; family Scale's is 64) |" in page


@pytest.mark.parametrize("family, own, line, fragment", [
    (TUNED, "param_overrides: {tile: 3}\n", 4, "param_overrides: 'tile' is not a param of family Scale "
                                                 "(its params: big_rows)"),
    (TUNED, "params:\n  tile: {value: 8, doc: Own.}\nparam_overrides: {tile: 3}\n", 6,
     "param_overrides: 'tile' is not a param of family Scale"),
    (TUNED, "param_overrides: {big_rows: -1}\n", 4, "param_overrides.big_rows: expected a non-negative int"),
    (TUNED, "params:\n  big_rows: {value: 96, doc: Again.}\n", 5,
     "param 'big_rows' is already declared by family Scale at specs/demo/scale.family.yaml:10: a member "
     "declares only what is its own (remove one of the two; a member sets its own value with param_overrides:)"),
    (TUNED, "variants:\n  tall: {when: N > 1}\n  otherwise: short\n", 5,
     "variants: family Scale declares the variants at specs/demo/scale.family.yaml:12: a member uses them"),
    (FAMILY, "param_overrides: {big_rows: 96}\n", 4, "param_overrides: 'big_rows' is not a param of family Scale "
                                                     "(its params: none)"),
], ids=["unknown", "own-param", "negative", "redeclared", "second-variants", "family-without-params"])
def test_a_bad_param_override_or_second_variants_names_its_lines(tmp_path: Path, family: str, own: str, line: int,
                                                                 fragment: str) -> None:
    err = load_error(folder(tmp_path, family=family, members={"ScaleUp": own, "ScaleDown": ""}))
    assert (err.file, err.line) == ("specs/demo/scale_up.yaml", line), err
    assert fragment in str(err)


def test_param_overrides_needs_a_family(tmp_path: Path) -> None:
    specs = folder(tmp_path, family=None, members={})
    (specs / "demo" / "lone.yaml").write_text(MEMBER.format(op="Lone", own="param_overrides: {big_rows: 9}\n")
                                              .replace("family: Scale\n", "").replace("dtype: T", "dtype: float32"),
                                              encoding="utf-8")
    err = load_error(specs)
    assert (err.file, err.line) == ("specs/demo/lone.yaml", 3), err
    assert "param_overrides: only a family member overrides params" in str(err)


# -- a user's project ---------------------------------------------------------------------------------
def test_a_projects_family_generates_and_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`opgen init`'s example pair is a family (its lets in specs/example/scaled_tanh.family.yaml): it
    generates the wrappers each member declaring the lets itself would, and the project's tests pass."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["init", "myops"]) == 0
    root = tmp_path / "myops"
    monkeypatch.chdir(root)
    assert cli.main(["generate"]) == 0
    before = {p.name: p.read_text(encoding="utf-8") for p in (root / "myops" / "example").glob("*.py")}
    env = {**os.environ, "PYTHONPATH": str(cli.PROJECT)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\b(\d+) passed\b", proc.stdout) and "failed" not in proc.stdout, proc.stdout
    # each member declaring the family's lets itself, no family file: the same wrappers
    example = root / "specs" / "example"
    family = example / "scaled_tanh.family.yaml"
    lets = re.search(r"\nlet:\n(?:  .*\n)+", family.read_text(encoding="utf-8"))
    assert lets is not None
    family.unlink()
    for spec in (example / "scaled_tanh.yaml", example / "scaled_tanh_grad.yaml"):
        text = re.sub(r"family: ScaledTanh.*\n", "", spec.read_text(encoding="utf-8"))
        spec.write_text(text + lets.group(0), encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["generate"]) == 0, capsys.readouterr().err
    after = {p.name: p.read_text(encoding="utf-8") for p in (root / "myops" / "example").glob("*.py")}
    assert after == before


def test_a_members_reference_page_names_its_family_file() -> None:
    page = (SPECS.parent / "generated" / "docs" / "rnn" / "cudnn_rnn_backprop_v3.md").read_text(encoding="utf-8")
    assert "Family: CudnnRNN. What it shares with the family's other members (type variables, attrs, lets; params " \
           "and\nlaunch variants where the family has them) is declared once, in " \
           "`specs/rnn/cudnn_rnn.family.yaml`." in page
    assert "| `fused_max_depth` | 128 | The fused variant's largest fused_depth" in page  # (the family's params)
    assert "| `persistent` | `backend == cuda and proj == 0 and " in page
