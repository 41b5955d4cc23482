"""Spec-language features the CudnnRNN ops brought (docs/specs.md): switches on bool attrs, lets
switched on another attr than the shapes, inputs checked only `when` a condition holds,
comparisons in a launch step's `when:`, scratch buffers that alias an output, and
`accepts_python_int` inputs. The valid forms load into the model; each malformed one stops the
loader at its line with the op and the offending value (helpers shared with test_spec_errors)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_spec_errors import BASE, KERNEL, check, line_of, load_error, replace_once, with_kernel, write_spec

from codegen import pygen
from codegen.load import load_specs
from codegen.runtime import api as rt

FLAG = """\
  - name: flag
    type: bool
    default: true
    doc: A switch.
  - name: mode
    type: enum
    values: [fast, exact]
    default: fast
    doc: How.
"""


def with_flag(text: str = BASE) -> str:
    return replace_once(text, "attrs:\n", "attrs:\n" + FLAG)


def _load(tmp_path: Path, text: str):
    root = tmp_path / "specs"
    write_spec(root, text)
    return load_specs(root)[0]


# -- switches on bool attrs; lets on other attrs -----------------------------------------------
def test_bool_switch_and_inline_let_switch(tmp_path: Path) -> None:
    text = with_flag(replace_once(BASE, 'shape: "[N, C]"\n    doc: The input.',
                                  'shape: {by: flag, true: "[N, C]", false: "[C, N]"}\n    doc: The input.'))
    text = replace_once(text, "outputs:", "let:\n  k: {by: mode, fast: N, exact: 2*C}\noutputs:")
    # k is read
    text = replace_once(text, 'shape: "[N, C]"\n    doc: The result.', 'shape: "[k, C]"\n    doc: The result.')
    op = _load(tmp_path, text)
    assert pygen.switch_attr(op) == "flag"
    body = "\n".join(pygen.run_body(op))
    assert "    if flag:\n" in body and "    else:\n" in body
    assert "k = (N if mode == 'fast' else 2*C)" in body


def test_bool_switch_needs_both_cases(tmp_path: Path) -> None:
    text = with_flag(replace_once(BASE, 'shape: "[N, C]"\n    doc: The input.',
                                  'shape: {by: flag, true: "[N, C]"}\n    doc: The input.'))
    check(load_error(tmp_path, text), line_of(text, "by: flag"), "no case for flag = 'false'")


# -- inputs checked only `when` ------------------------------------------------------------------
COND_INPUT = """\
  - name: z
    dtype: T
    shape: "[N, K]"
    when: {mode: exact}
    doc: Only for exact.
"""


def test_conditional_input_is_checked_only_when(tmp_path: Path) -> None:
    text = with_flag(replace_once(BASE, "outputs:", COND_INPUT + "let:\n  w: {by: mode, fast: C, exact: K}\noutputs:"))
    op = _load(tmp_path, text)
    body = "\n".join(pygen.run_body(op))
    assert "    if mode == 'exact':\n        _rt.check_same_dtype(_OP, 'z'" in body
    assert re.search(r"if mode == 'exact':\n +if z\.ndim != 2:", body)  # in every section


def test_conditional_symbol_outside_its_case_is_an_error(tmp_path: Path) -> None:
    text = with_flag(replace_once(BASE, "outputs:", COND_INPUT + "let:\n  w: K + 1\noutputs:"))
    check(load_error(tmp_path, text), line_of(text, "w: K + 1"), "symbol 'K' is bound only when mode = 'exact'")


def test_conditional_symbol_in_an_output_is_an_error(tmp_path: Path) -> None:
    text = with_flag(replace_once(replace_once(BASE, "outputs:", COND_INPUT + "outputs:"),
                                  'shape: "[N, C]"\n    doc: The result.', 'shape: "[N, K]"\n    doc: The result.'))
    check(load_error(tmp_path, text), line_of(text, "name: y"), "symbol 'K' is not bound")


def test_when_on_an_optional_input_is_an_error(tmp_path: Path) -> None:
    text = with_flag(replace_once(BASE, "outputs:", COND_INPUT.replace("    when:", "    optional: true\n    when:")
                                  + "outputs:"))
    check(load_error(tmp_path, text), line_of(text, "when: {mode"), "'when' applies to required, non-list inputs")


# -- comparisons in a launch step's `when:` ------------------------------------------------------
def test_step_when_comparisons(tmp_path: Path) -> None:
    text = with_kernel(BASE).replace("      args: [x, y, N, C, alpha]\n",
                                     '      args: [x, y, N, C, alpha]\n      when: ["N > 1", "C == 2*N"]\n')
    op = _load(tmp_path, text)
    step = op.kernel.launch[0]
    assert step.when.text() == "N > 1, C == 2*N"
    assert "    if N > 1 and C == 2*N:" in "\n".join(pygen.run_body(op))


@pytest.mark.parametrize(("when", "fragment"), [
    ('"Q > 1"', "symbol 'Q' is not bound"),
    ('"N"', "expected a condition (comparisons, bool attrs, boolean lets, variants), got the int expression 'N'"),
    ("[]", "'when' is an empty list"),
    ("{nope: 1}", "'nope' is not a bool, enum, int or string attr"),
])
def test_step_when_errors(tmp_path: Path, when: str, fragment: str) -> None:
    text = with_kernel(BASE).replace("      args: [x, y, N, C, alpha]\n",
                                     f"      args: [x, y, N, C, alpha]\n      when: {when}\n")
    check(load_error(tmp_path, text), line_of(text, "when:"), fragment)


# -- scratch buffers aliasing an output ------------------------------------------------------------
def _with_scratch(entry: str) -> str:
    text = with_flag(with_kernel(BASE))
    return replace_once(text, "  specialize: [T]\n", f"  specialize: [T]\n  scratch:\n    - {entry}\n")


def test_scratch_alias(tmp_path: Path) -> None:
    op = _load(tmp_path, _with_scratch('{name: work, dtype: T, shape: "[N]", alias: y, when: {flag: true}}'))
    assert op.kernel.scratch[0].alias == "y"
    assert ("work = _rt.alias_view(_OP, 'work', y, [N]) if flag else _backend.empty([N], _dtype_T)"
            in "\n".join(pygen.run_body(op)))
    y = np.arange(6.0).reshape(2, 3)
    view = rt.alias_view("Op", "work", y, [4])
    view[:] = -1
    assert y.reshape(-1)[:4].tolist() == [-1] * 4 and y[1, 2] == 5
    with pytest.raises(ValueError, match="Op: scratch buffer work: needs 7 elements"):
        rt.alias_view("Op", "work", y, [7])


@pytest.mark.parametrize(("entry", "fragment"), [
    ('{name: work, dtype: T, shape: "[N]", alias: x}', "alias: 'x' is not an output"),
    ('{name: work, dtype: float32, shape: "[N]", alias: y}', "output 'y' has dtype T, the buffer float32"),
    ('{name: work, dtype: T, shape: "[N]", when: {flag: true}}', "'when' needs an 'alias'"),
])
def test_scratch_alias_errors(tmp_path: Path, entry: str, fragment: str) -> None:
    text = _with_scratch(entry)
    check(load_error(tmp_path, text), line_of(text, "name: work"), fragment)


# -- accepts_python_int --------------------------------------------------------------------------
def test_accepts_python_int_needs_an_integer_input(tmp_path: Path) -> None:
    text = replace_once(BASE, "    dtype: T\n    shape: \"[N, C]\"\n    doc: The input.",
                        "    dtype: T\n    shape: \"[N, C]\"\n    accepts_python_int: true\n    doc: The input.")
    check(load_error(tmp_path, text), line_of(text, "accepts_python_int"), "accepts_python_int needs a required")


def test_python_int_conversion() -> None:
    assert rt.python_int("Op", "n", 3, "int32").dtype == np.int32
    assert rt.python_int("Op", "n", np.int64(3), "int32").shape == ()
    keep = np.zeros(2)
    assert rt.python_int("Op", "n", keep, "int32") is keep
    assert rt.python_int("Op", "n", True, "int32") is True  # bools are left to the dtype check
    with pytest.raises(ValueError, match="Op: n: 2147483648 does not fit in int32"):
        rt.python_int("Op", "n", 2**31, "int32")


def test_kernel_fixture_still_loads(tmp_path: Path) -> None:
    """The shared kernel section is unchanged by these features."""
    assert KERNEL in with_kernel(BASE)
