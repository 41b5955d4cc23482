"""The spec language's last edges (issue 20 item 5): each refused by the loader with `file:line`,
and by `opgen generate` with exit status 2 and nothing written, where each was accepted before (and
the op failed at import or at its first call) or crashed the generator:

- an int attr's default, allowed value or bound outside int64 (the torch schema's `stoll`);
- names C++ or the kernels' headers take (`new`, `template`, `double`, `blockDim`, `INFINITY`, the
  step's own device function): every argument, symbol and let may become a kernel parameter;
- text that cannot be encoded (a lone surrogate), and a write that fails for any reason, which
  leaves the output folder as it was;
- nesting the parser would recurse into without end (10,000-deep YAML, 3,000 parentheses);
- an `autograd:` gradient whose rank cannot match its input's;
- a chained comparison (`1 < N < 3`) in a launch step's `when:` or in `where:`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_spec_autograd import FORWARD, GRADIENT
from test_spec_autograd import _error as autograd_error
from test_spec_errors import (
    BASE,
    _snapshot,
    check,
    line_of,
    load_error,
    replace_once,
    with_kernel,
    write_spec,
)

from codegen import cli
from codegen import files as filesmod
from codegen.load import load_specs
from codegen.load_cxx import cxx_taken

INT_ATTR = "  - {name: n, type: int, default: 1, doc: A count.}\n"


def with_int_attr(attr: str = INT_ATTR, text: str = BASE) -> str:
    return replace_once(text, "attrs:\n", "attrs:\n" + attr)


# -- int attrs beyond int64 --------------------------------------------------------------------------
@pytest.mark.parametrize(("attr", "fragment"), [
    ("{name: n, type: int, default: 9223372036854775808, doc: A count.}",
     "attr 'n': default: 9223372036854775808 is outside int64"),
    ("{name: n, type: int, default: -9223372036854775809, doc: A count.}",
     "attr 'n': default: -9223372036854775809 is outside int64"),
    ("{name: n, type: int, default: 1, max: 99999999999999999999, doc: A count.}",
     "attr 'n': bound 99999999999999999999 is outside int64"),
    ("{name: n, type: int, default: 1, min: -1.0e+19, doc: A count.}", "attr 'n': bound -1e+19 is outside int64"),
    ("{name: n, type: int, allowed: [1, 18446744073709551616], doc: A count.}",
     "attr 'n': 18446744073709551616 is outside int64"),
    ("{name: n, type: list(int), default: [1, 9223372036854775808], doc: Counts.}",
     "attr 'n': default: 9223372036854775808 is outside int64"),
    ("{name: f, type: float, default: 1" + "0" * 400 + ", doc: A factor.}", "is not a valid float"),
])
def test_int_attr_values_outside_int64_are_refused(tmp_path: Path, attr: str, fragment: str) -> None:
    text = with_int_attr(f"  - {attr}\n")
    check(load_error(tmp_path, text), line_of(text, "- {name: n" if "name: n" in attr else "- {name: f"), fragment)


def test_int_attr_at_the_int64_limits_loads(tmp_path: Path) -> None:
    text = with_int_attr("  - {name: n, type: int, default: 9223372036854775807, min: -9223372036854775808, "
                         "doc: A count.}\n")
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    attr = op.attr("n")
    assert attr is not None and attr.default == 2**63 - 1 and attr.minimum == -(2**63)


@pytest.mark.parametrize("value", ["9223372036854775808", '"N + 9223372036854775808"'])
def test_an_int_literal_beyond_int64_in_an_expression_is_refused(tmp_path: Path, value: str) -> None:
    text = BASE + f"let:\n  big: {value}\n"
    check(load_error(tmp_path, text), line_of(text, "big:"), "outside int64")


# -- names C++ and the kernels' headers take ------------------------------------------------------------
CXX_NAMES = ["new", "template", "double", "int", "auto", "this", "delete", "namespace", "xor", "assert",
             "opgen"]
MACRO_NAMES = ["blockDim", "threadIdx", "gridDim", "blockIdx", "warpSize", "INFINITY", "NAN", "M_PI", "INT32_MAX",
               "CUDART_INF_F", "OPGEN_HOST_EMU", "FLT_MAX", "NULL", "EOF"]


#: names Python (the wrapper) already refuses, with a message of its own
PYTHON_TAKEN = {"assert", "int", "opgen"}


@pytest.mark.parametrize("name", [n for n in CXX_NAMES if n not in PYTHON_TAKEN])
@pytest.mark.parametrize("old", ["  - name: x\n", "  - name: y\n", "  - name: alpha\n"],
                         ids=["input", "output", "attr"])
def test_input_output_and_attr_names_cxx_takes_are_refused(tmp_path: Path, name: str, old: str) -> None:
    text = replace_once(BASE, old, f"  - name: {name}\n")
    err = load_error(tmp_path, text)
    check(err, line_of(text, f"- name: {name}"), f"name {name!r} is a C++ keyword")


@pytest.mark.parametrize("name", [n for n in CXX_NAMES + MACRO_NAMES if n not in PYTHON_TAKEN - {"opgen"}])
def test_symbol_and_let_names_cxx_or_the_kernel_headers_take_are_refused(tmp_path: Path, name: str) -> None:
    text = replace_once(BASE, 'shape: "[N, C]"\n    doc: The input.', f'shape: "[N, {name}]"\n    doc: The input.')
    err = load_error(tmp_path / "symbol", text)
    check(err, line_of(text, "- name: x"), f"input 'x': name {name!r} is ")
    assert "C++" in err.message, err.message
    text = BASE + f"let:\n  {name}: N*C\n"
    err = load_error(tmp_path / "let", text)
    check(err, line_of(text, f"  {name}: N*C"), f"{name!r}")
    assert "C++" in err.message, err.message


DEVICE_FUNCTION_ATTR = with_kernel().replace("args: [x, y, N, C, alpha]", "args: [x, y, N, C, scale]") \
    .replace("  - name: alpha\n", "  - name: scale\n")


def test_group_names_cxx_takes_are_refused(tmp_path: Path) -> None:
    text = BASE.replace('"[N, C]"', '"[*INFINITY, C]"')
    check(load_error(tmp_path, text), line_of(text, "- name: x"), "group *INFINITY: name 'INFINITY' is a macro")


def test_a_kernel_parameter_may_not_take_the_name_of_the_steps_device_function(tmp_path: Path) -> None:
    """The entry point calls `scale<float>(x, y, ...)`: a parameter named scale hides the function."""
    text = DEVICE_FUNCTION_ATTR
    check(load_error(tmp_path / "attr", text), line_of(text, "args: [x, y, N, C, scale]"),
          "launch step 'scale': argument 'scale' has the name of the step's device function")
    text = with_kernel().replace('"[N, C]"', '"[N, scale]"').replace("N*C", "N*scale") \
        .replace("args: [x, y, N, C, alpha]", "args: [x, y, N, scale, alpha]")
    check(load_error(tmp_path / "symbol", text), line_of(text, "args: [x, y, N, scale, alpha]"),
          "launch step 'scale': argument 'scale' has the name of the step's device function")


def test_repeat_variables_that_cxx_takes_are_refused(tmp_path: Path) -> None:
    text = with_kernel() + ("    - repeat: {var: i, count: N, let: {threadIdx: i + 1}, steps: "
                            "[{kernel: scale, grid: [1], block: [32], args: [x]}]}\n")
    check(load_error(tmp_path, text), line_of(text, "- repeat:"), "'threadIdx'")


def test_every_macro_of_the_kernels_headers_is_refused() -> None:
    """codegen/load_cxx.py against the preprocessor: every macro a spec name could spell that the
    headers define (the emulation's, CUDA's half types, and those kernels add: math constants,
    float.h, limits.h) is refused."""
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++")
    from codegen.runtime.host import EMU_HEADER, EMU_INCLUDE

    headers = ["cuda_fp16.h", "cuda_bf16.h", "math_constants.h", "float.h", "limits.h", "stdint.h", "math.h"]
    source = "".join(f"#include <{h}>\n" for h in headers)
    proc = subprocess.run([compiler, "-std=c++17", "-x", "c++", "-dM", "-E", "-include", str(EMU_HEADER), "-I",
                           str(EMU_INCLUDE), "-"], input=source, capture_output=True, text=True, check=True,
                          timeout=120)
    names = {line.split()[1].split("(")[0] for line in proc.stdout.splitlines() if line.startswith("#define ")}
    spellable = sorted(n for n in names if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", n))
    assert len(spellable) > 300 and "INFINITY" in spellable and "threadIdx" in spellable
    assert [n for n in spellable if cxx_taken(n) is None] == []


def test_the_opgen_specs_use_no_name_cxx_takes() -> None:
    load_specs(cli.PROJECT / "specs")


# -- text that cannot be encoded ------------------------------------------------------------------------
@pytest.mark.parametrize(("old", "new", "needle"), [
    ("doc: The input.", 'doc: "The \\ud800 input."', "The \\ud800 input"),
    ("summary: Scales x and adds one.", 'summary: "Scales \\udfff x."', "Scales \\udfff"),
    ("    doc: The factor.", '    doc: The factor.\n    "\\ud800": 1', '"\\ud800": 1'),
], ids=["doc", "summary", "key"])
def test_a_lone_surrogate_is_refused(tmp_path: Path, old: str, new: str, needle: str) -> None:
    text = replace_once(BASE, old, new)
    err = load_error(tmp_path, text)
    check(err, line_of(text, needle), "lone surrogate", op=None)
    str(err).encode("utf-8")  # the message itself can be printed


def _output_folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "old.py").write_text("# x by opgen — do not edit\nOLD = 1\n", encoding="utf-8")
    (out / "gone").mkdir()
    (out / "gone" / "stale.py").write_text("# x by opgen — do not edit\n", encoding="utf-8")
    (out / "mine.txt").write_text("a user's own file\n", encoding="utf-8")
    for p in out.rglob("*"):
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    return out


GOOD = {"a/old.py": "# x by opgen — do not edit\nNEW = 1\n", "a/new.py": "# x by opgen — do not edit\n",
        "b/c/deep.py": "# x by opgen — do not edit\n"}


def test_a_write_that_fails_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    """Any failure while writing (text that cannot be encoded, a folder where a file goes) writes
    nothing and leaves no temporary file: files that changed are restored, new ones removed."""
    out = _output_folder(tmp_path)
    (out / "z_dir.py").mkdir()  # a folder where a generated file goes
    before = _snapshot(out)
    for bad in ({"m.py": "# by opgen — do not edit\n\ud800\n"}, {"z_dir.py": "# by opgen — do not edit\n"}):
        files = {**GOOD, **bad}
        plan = filesmod.plan(files, out)
        plan.in_the_way.clear()  # the folder as if made after the plan (which refuses one already there)
        with pytest.raises((UnicodeError, OSError)):
            filesmod.apply(files, out, plan)
        assert _snapshot(out) == before


def test_a_write_that_fails_at_any_step_leaves_the_folder_as_it_was(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk at each rename in turn (targets set aside, new files put in place, stale files
    set aside): the folder is as it was every time; then the write succeeds."""
    out = _output_folder(tmp_path)
    before = _snapshot(out)
    plan = filesmod.plan(GOOD, out)
    assert plan.removed == ["gone/stale.py"]
    real = os.replace
    step = 1
    while True:  # fail the 1st rename, then the 2nd, ... until none is left to fail
        calls = 0

        def failing(src: object, dst: object, fail_at: int = step) -> None:
            nonlocal calls
            calls += 1
            if calls == fail_at:
                raise OSError(28, "No space left on device")
            real(src, dst)  # type: ignore[arg-type]

        monkeypatch.setattr(filesmod.os, "replace", failing)
        try:
            filesmod.apply(GOOD, out, plan)
        except OSError:
            assert _snapshot(out) == before, f"failure at rename {step}"
            step += 1
            continue
        break
    monkeypatch.setattr(filesmod.os, "replace", real)
    assert step == 6  # 3 renames into place, 1 target and 1 stale file set aside, then no failure
    assert (out / "a" / "old.py").read_text(encoding="utf-8").endswith("NEW = 1\n")
    assert not (out / "gone").exists() and (out / "mine.txt").exists() and (out / "b" / "c" / "deep.py").exists()
    assert not [p for p in out.rglob("*") if ".tmp" in p.name or ".old" in p.name]


# -- nesting ----------------------------------------------------------------------------------------------
def test_deeply_nested_yaml_is_refused(tmp_path: Path) -> None:
    for name, value in (("flow", "[" * 10000 + "]" * 10000), ("block", "- " * 10000 + "x")):
        text = BASE + f"examples:\n  - {value}\n"
        err = load_error(tmp_path / name, text)
        assert err.file == "specs/demo/scale_add.yaml" and "nested deeper than" in err.message, str(err)


INPUT_SHAPE = 'shape: "[N, C]"\n    doc: The input.'


@pytest.mark.parametrize(("old", "new"), [
    (INPUT_SHAPE, 'shape: "[N, ' + "(" * 3000 + "C" + ")" * 3000 + ']"\n    doc: The input.'),
    (INPUT_SHAPE, 'shape: "[N, ' + "-" * 3000 + 'C]"\n    doc: The input.'),
    (INPUT_SHAPE, 'shape: "[N, ' + "C + " * 5000 + 'C]"\n    doc: The input.'),
    (INPUT_SHAPE, 'shape: "[N, ' + "max(" * 3000 + "C" + ", 1)" * 3000 + ']"\n    doc: The input.'),
], ids=["parentheses", "minus", "sum", "calls"])
def test_deeply_nested_expressions_are_refused(tmp_path: Path, old: str, new: str) -> None:
    text = replace_once(BASE, old, new)
    err = load_error(tmp_path, text)
    check(err, line_of(text, new[:20]), "nested deeper than")


def test_nesting_within_the_limits_loads(tmp_path: Path) -> None:
    text = replace_once(BASE, 'shape: "[N, C]"\n    doc: The input.',
                        'shape: "[N, ' + "(" * 30 + "C" + ")" * 30 + ']"\n    doc: The input.')
    write_spec(tmp_path / "specs", text)
    load_specs(tmp_path / "specs")


# -- autograd ranks -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("x_shape", "dx_shape", "section", "fragment"), [
    ("[N, C, *rest]", "[N]", "grads", "autograd: grads: x: x has rank >= 2, ScaleGrad's dx has rank 1"),
    ("[N, C, K, *rest]", "[N, C]", "call", "autograd: call: dy: y has rank >= 3, ScaleGrad's dy has rank 2"),
])
def test_a_gradient_whose_rank_cannot_match_its_input_is_refused(tmp_path: Path, x_shape: str, dx_shape: str,
                                                                section: str, fragment: str) -> None:
    forward = FORWARD.replace('{name: x, dtype: T, shape: "[N, C]"', f'{{name: x, dtype: T, shape: "{x_shape}"')
    forward = forward.replace('{name: y, dtype: T, shape: "[N, C]"', f'{{name: y, dtype: T, shape: "{x_shape}"')
    forward = forward.replace("call: {dy: grad(y), x: x}", "call: {dy: grad(y)}")
    gradient = GRADIENT.replace('{name: dx, dtype: T, shape: "[N, C]"', f'{{name: dx, dtype: T, shape: "{dx_shape}"')
    gradient = gradient.replace("{name: x, dtype: T,", "{name: x, optional: true, dtype: T,")
    err = autograd_error(tmp_path, forward, gradient)
    assert fragment in err.message, str(err)
    assert err.line == line_of(forward, f"  {section}:"), str(err)


def test_ranks_that_can_match_load(tmp_path: Path) -> None:
    from test_spec_autograd import _load

    forward = FORWARD.replace('{name: x, dtype: T, shape: "[N, C]"', '{name: x, dtype: T, shape: "[N, ...]"')
    _load(tmp_path, forward)  # rank >= 1 and rank 2 can be the same


# -- chained comparisons ----------------------------------------------------------------------------------
@pytest.mark.parametrize("comparison", ["1 < N < 3", "N < C == 1", "1 < N < C < 3", "(1 < N) < 3", "1 < (N < 3)"])
def test_a_chained_comparison_in_a_steps_when_is_refused(tmp_path: Path, comparison: str) -> None:
    text = with_kernel(BASE).replace("      args: [x, y, N, C, alpha]\n",
                                     f'      args: [x, y, N, C, alpha]\n      when: ["{comparison}"]\n')
    check(load_error(tmp_path, text), line_of(text, "when:"), "comparisons do not chain")


@pytest.mark.parametrize("comparison", ["1 < N < 3", "N <= C == 1"])
def test_a_chained_comparison_in_where_is_refused(tmp_path: Path, comparison: str) -> None:
    text = BASE + f'where:\n  - "{comparison}"\n'
    check(load_error(tmp_path, text), line_of(text, comparison), "comparisons do not chain")


def test_single_comparisons_still_load(tmp_path: Path) -> None:
    text = with_kernel(BASE).replace("      args: [x, y, N, C, alpha]\n",
                                     '      args: [x, y, N, C, alpha]\n      when: ["N + 1 >= 2*C", "C == 3"]\n')
    text += 'where:\n  - "N <= 2*C"\n  - {check: "C != 0", message: C is never 0}\n'
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    assert op.kernel is not None and op.kernel.launch[0].when.text() == "N + 1 >= 2*C, C == 3"
    assert [c.text for c in op.where] == ["N <= 2*C", "C != 0"]


# -- the CLI: exit 2, nothing written -------------------------------------------------------------------
CLI_CASES = {
    "int64": with_int_attr("  - {name: n, type: int, default: 9223372036854775808, doc: A count.}\n"),
    "keyword": replace_once(BASE, "  - name: x\n", "  - name: new\n"),
    "macro": BASE + "let:\n  INFINITY: N*C\n",
    "device-function": DEVICE_FUNCTION_ATTR,
    "surrogate": replace_once(BASE, "doc: The input.", 'doc: "The \\ud800 input."'),
    "yaml-depth": BASE + "examples:\n  - " + "[" * 10000 + "]" * 10000 + "\n",
    "parentheses": replace_once(BASE, 'shape: "[N, C]"\n    doc: The input.',
                                'shape: "[N, ' + "(" * 3000 + "C" + ")" * 3000 + ']"\n    doc: The input.'),
    "chained-when": with_kernel(BASE).replace("      args: [x, y, N, C, alpha]\n",
                                              '      args: [x, y, N, C, alpha]\n      when: ["1 < N < 3"]\n'),
}


KERNEL_SOURCE = """\
template <typename T>
__device__ void scale(const T* x, T* y, long long n, long long c, float alpha) {}
"""


def _project(tmp_path: Path, text: str) -> tuple[list[str], Path]:
    """`opgen generate` arguments for a spec folder holding `text` (its kernel template beside it)
    and an output folder holding a user's file."""
    specs, out, templates = tmp_path / "specs", tmp_path / "out", tmp_path / "templates"
    write_spec(specs, text)
    (templates / "kernels" / "demo").mkdir(parents=True)
    (templates / "kernels" / "demo" / "scale_add.cu").write_text(KERNEL_SOURCE)
    out.mkdir()
    (out / "sentinel.txt").write_text("a user's own file\n")
    os.utime(out / "sentinel.txt", ns=(1_000_000_000, 1_000_000_000))
    return ["generate", "--specs", str(specs), "--templates", str(templates), "--out", str(out)], out


def test_cli_generates_the_unchanged_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, out = _project(tmp_path, with_kernel())
    assert cli.main(argv) == 0, capsys.readouterr().err
    assert (out / "demo" / "scale_add.cu").is_file()


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_cli_refuses_with_file_line_exit_2_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              case: str) -> None:
    argv, out = _project(tmp_path, CLI_CASES[case])
    before = _snapshot(out)
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert "opgen: error: specs/demo/scale_add.yaml:" in err and "nothing was written" in err, err
    assert _snapshot(out) == before
