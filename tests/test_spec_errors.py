"""Malformed specs: every one stops the loader with `file:line: op Name: message`, and the CLI with
exit status 2 without touching the output folder (docs/specs.md, "Every key is checked").

Each test starts from BASE, a minimal valid spec, changes one thing, and pins the `file:line`
prefix (the line computed from the mutated text), the op and the key fragment of the message,
including the bad value.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from codegen import cli
from codegen.load import load_specs
from codegen.shapes import to_text
from codegen.yamlnodes import SpecError

OP = "ScaleAdd"
FILE = "specs/demo/scale_add.yaml"  # as errors show it: <spec folder name>/<path inside it>

BASE = """\
op: ScaleAdd
summary: Scales x and adds one.
type_vars:
  T: [float32, float16]
attrs:
  - name: alpha
    type: float
    default: 1.0
    min: 0
    doc: The factor.
inputs:
  - name: x
    dtype: T
    shape: "[N, C]"
    doc: The input.
outputs:
  - name: y
    dtype: T
    shape: "[N, C]"
    doc: The result.
"""

#: An enum attr, inserted as the first attr by `with_enum` (for `by:` and `when:` tests).
ENUM_ATTR = """\
  - name: mode
    type: enum
    values: [fast, exact]
    default: fast
    doc: How.
"""

#: A kernel section appended by `with_kernel`.
KERNEL = """\
kernel:
  source: demo/scale_add.cu
  specialize: [T]
  launch:
    - kernel: scale
      grid: ["ceildiv(N*C, 256)"]
      block: [256]
      args: [x, y, N, C, alpha]
"""


# -- helpers ---------------------------------------------------------------------------------------
def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} must occur exactly once in the spec text"
    return text.replace(old, new)


def with_enum(text: str = BASE) -> str:
    return replace_once(text, "attrs:\n", "attrs:\n" + ENUM_ATTR)


def with_kernel(text: str = BASE) -> str:
    return text + KERNEL


def line_of(text: str, needle: str) -> int:
    """1-based number of the one line of `text` that contains `needle`."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} must be on exactly one line, found on {hits}"
    return hits[0]


def write_spec(root: Path, text: str, name: str = "scale_add", group: str = "demo") -> Path:
    path = root / group / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str, name: str = "scale_add") -> SpecError:
    root = tmp_path / "specs"
    write_spec(root, text, name)
    with pytest.raises(SpecError) as info:
        load_specs(root)
    return info.value


def check(err: SpecError, line: int, fragment: str, op: str | None = OP, file: str = FILE) -> None:
    """The error is `file:line: op NAME: ...fragment...` (or `file:line: ...` when op is None)."""
    text = str(err)
    assert (err.file, err.line) == (file, line), text
    assert text.startswith(f"{file}:{line}: "), text
    if op is None:
        assert err.op is None, text
        assert text == f"{file}:{line}: {err.message}"
    else:
        assert err.op == op, text
        assert text.startswith(f"{file}:{line}: op {op}: "), text
    assert fragment in err.message, f"{fragment!r} not in {text!r}"


# -- the base texts are valid ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [BASE, with_enum(), with_kernel(), with_kernel(with_enum())],
    ids=["base", "enum", "kernel", "enum+kernel"],
)
def test_base_specs_load(tmp_path: Path, text: str) -> None:
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    assert op.name == OP and op.summary == "Scales x and adds one."
    assert [a.name for a in op.inputs] == ["x"] and [o.name for o in op.outputs] == ["y"]


# -- YAML level ------------------------------------------------------------------------------------
def test_invalid_yaml(tmp_path: Path) -> None:
    text = replace_once(BASE, "summary: Scales x and adds one.", "summary: Scales x: and: adds one.")
    err = load_error(tmp_path, text)
    check(err, line_of(text, "summary:"), "invalid YAML: mapping values are not allowed here", op=None)


def test_invalid_yaml_unclosed_flow_list(tmp_path: Path) -> None:
    text = replace_once(BASE, "  T: [float32, float16]\n", "  T: [float32, float16\n")
    err = load_error(tmp_path, text)
    # PyYAML notices on the next line, where the list would have to go on
    check(err, line_of(text, "attrs:"), "invalid YAML: expected ',' or ']', but got ':'", op=None)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"], ids=["empty", "blank", "comment"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    check(load_error(tmp_path, text), 1, "empty spec file", op=None)


def test_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "specs"
    path = write_spec(root, BASE)
    path.write_bytes(BASE.encode().replace(b"Scales", b"Scal\xe9s"))
    with pytest.raises(SpecError) as info:
        load_specs(root)
    check(info.value, 1, "not UTF-8 text", op=None)


def test_duplicate_key(tmp_path: Path) -> None:
    text = replace_once(
        BASE, "summary: Scales x and adds one.\n", "summary: Scales x and adds one.\nsummary: Again.\n"
    )
    err = load_error(tmp_path, text)
    # found while reading the YAML, before the op's name is known
    check(err, line_of(text, "summary: Again."), "duplicate key 'summary' (first at line 2)", op=None)


def test_duplicate_key_nested(tmp_path: Path) -> None:
    text = replace_once(BASE, "    doc: The input.\n", "    doc: The input.\n    dtype: float32\n")
    err = load_error(tmp_path, text)
    first = line_of(text, "- name: x") + 1
    check(err, line_of(text, "dtype: float32"), f"duplicate key 'dtype' (first at line {first})", op=None)


def test_unknown_top_level_key_lists_allowed_keys(tmp_path: Path) -> None:
    text = BASE + "colour: red\n"
    err = load_error(tmp_path, text)
    allowed = (
        "attrs, autograd, deprecated, description, examples, family, function_name, gradient, gradient_of, inputs, "
        "kernel, let, op, outputs, param_overrides, params, reference, runtime, shapes, summary, torch, type_vars, "
        "variants, where"
    )
    check(err, line_of(text, "colour:"), f"spec: unknown key 'colour' (allowed: {allowed})")


def test_unknown_key_in_input_lists_allowed_keys(tmp_path: Path) -> None:
    text = replace_once(BASE, "    doc: The input.\n", "    doc: The input.\n    optinal: true\n")
    err = load_error(tmp_path, text)
    check(
        err,
        line_of(text, "optinal"),
        "input 'x': unknown key 'optinal' (allowed: accepts_dtypes, accepts_python_int, "
        "axis, doc, dtype, list, name, optional, shape, values, when)",
    )


BLOCK_INPUT = "  - name: x\n    dtype: T\n    shape: \"[N, C]\"\n    doc: The input.\n"
FLOW_INPUT = '  - {name: x, dtype: T, shape: "[N, C]", doc: DOC}\n'


@pytest.mark.parametrize("doc", ["The input, scaled", "The input, scaled: twice"])
def test_comma_in_unquoted_flow_value_hints_to_quote(tmp_path: Path, doc: str) -> None:
    text = replace_once(BASE, BLOCK_INPUT, FLOW_INPUT.replace("DOC", doc))
    err = load_error(tmp_path, text)
    check(err, line_of(text, "{name: x"), "input 'x': unknown key 'scaled' (allowed: ")
    assert err.message.endswith("(a comma inside an unquoted value ends it in a {...} mapping: quote the value)")


@pytest.mark.parametrize("doc", ['"The input", scaled', "The input\n      , scaled"], ids=["quoted", "next-line"])
def test_unknown_flow_key_after_quoted_or_on_another_line_has_no_hint(tmp_path: Path, doc: str) -> None:
    text = replace_once(BASE, BLOCK_INPUT, FLOW_INPUT.replace("DOC", doc))
    err = load_error(tmp_path, text)
    check(err, line_of(text, "scaled"), "input 'x': unknown key 'scaled' (allowed: ")
    assert "quote" not in err.message


# -- op and summary --------------------------------------------------------------------------------
def test_missing_op(tmp_path: Path) -> None:
    text = replace_once(BASE, "op: ScaleAdd\n", "")
    check(load_error(tmp_path, text), line_of(text, "summary:"), "spec: missing required key 'op'", op=None)


def test_missing_summary(tmp_path: Path) -> None:
    text = replace_once(BASE, "summary: Scales x and adds one.\n", "")
    check(load_error(tmp_path, text), line_of(text, "op: ScaleAdd"), "spec: missing required key 'summary'")


def test_empty_summary(tmp_path: Path) -> None:
    text = replace_once(BASE, "summary: Scales x and adds one.", 'summary: "   "')
    check(load_error(tmp_path, text), line_of(text, "summary:"), "summary: must not be empty")


@pytest.mark.parametrize("name", ["scaleAdd", "scale_add", "Scale_Add", "9Scale"])
def test_bad_op_name(tmp_path: Path, name: str) -> None:
    text = replace_once(BASE, "op: ScaleAdd", f"op: {name}")
    err = load_error(tmp_path, text)
    check(err, line_of(text, "op:"), f"op: name {name!r} is not valid (expected CamelCase", op=None)


def test_op_name_not_a_string(tmp_path: Path) -> None:
    text = replace_once(BASE, "op: ScaleAdd", "op: 42")
    check(load_error(tmp_path, text), 1, "op: name 42 is not valid", op=None)


def test_file_name_must_match_op(tmp_path: Path) -> None:
    text = replace_once(BASE, "op: ScaleAdd", "op: ScaleAddV2")
    err = load_error(tmp_path, text)
    check(
        err,
        line_of(text, "op:"),
        "op: the file must be named scale_add_v2.yaml (got scale_add.yaml)",
        op="ScaleAddV2",
    )


def test_summary_not_a_string(tmp_path: Path) -> None:
    text = replace_once(BASE, "summary: Scales x and adds one.", "summary: 42")
    check(load_error(tmp_path, text), line_of(text, "summary:"), "summary: expected a string, got int 42")


def test_summary_is_a_list(tmp_path: Path) -> None:
    text = replace_once(BASE, "summary: Scales x and adds one.", "summary: [a, b]")
    check(load_error(tmp_path, text), line_of(text, "summary:"), "summary: expected a string, got a list")


def test_multi_line_summary(tmp_path: Path) -> None:
    text = replace_once(BASE, "summary: Scales x and adds one.\n", "summary: |\n  Line one.\n  Line two.\n")
    check(load_error(tmp_path, text), line_of(text, "summary:"), "summary: must be a single line")


@pytest.mark.parametrize("char", ["\x07", "\x1b", "\r", "\x00"])
def test_control_character_in_doc(tmp_path: Path, char: str) -> None:
    escaped = {"\x07": "\\a", "\x1b": "\\e", "\r": "\\r", "\x00": "\\0"}[char]
    text = replace_once(BASE, "    doc: The input.", f'    doc: "The {escaped}input."')
    err = load_error(tmp_path, text)
    check(err, line_of(text, "The \\"), f"input 'x': doc: contains control character {char!r}")


def test_control_character_in_description(tmp_path: Path) -> None:
    text = replace_once(BASE, "type_vars:", 'description: "ring \\a the bell"\ntype_vars:')
    check(
        load_error(tmp_path, text),
        line_of(text, "description:"),
        "description: contains control character '\\x07'",
    )


# -- type variables and dtypes ---------------------------------------------------------------------
def test_unknown_dtype_in_type_var(tmp_path: Path) -> None:
    text = replace_once(BASE, "T: [float32, float16]", "T: [float32, float128]")
    check(
        load_error(tmp_path, text),
        line_of(text, "float128"),
        "type_vars.T: unknown dtype 'float128' (known: float16, bfloat16, float32, float64,",
    )


def test_empty_type_var(tmp_path: Path) -> None:
    text = replace_once(BASE, "T: [float32, float16]", "T: []")
    check(load_error(tmp_path, text), line_of(text, "T: []"), "type_vars.T: needs at least one dtype")


def test_dtype_neither_type_var_nor_dtype(tmp_path: Path) -> None:
    text = replace_once(
        BASE,
        '    dtype: T\n    shape: "[N, C]"\n    doc: The input.',
        '    dtype: Q\n    shape: "[N, C]"\n    doc: The input.',
    )
    check(
        load_error(tmp_path, text),
        line_of(text, "dtype: Q"),
        "input 'x': dtype 'Q' is neither a type variable nor a dtype (known: T, float16, bfloat16,",
    )


def test_output_dtype_unknown(tmp_path: Path) -> None:
    text = replace_once(
        BASE,
        '    dtype: T\n    shape: "[N, C]"\n    doc: The result.',
        '    dtype: float8\n    shape: "[N, C]"\n    doc: The result.',
    )
    check(
        load_error(tmp_path, text),
        line_of(text, "float8"),
        "output 'y': dtype 'float8' is neither a type variable nor a dtype",
    )


# -- attrs -----------------------------------------------------------------------------------------
def test_attr_unknown_type(tmp_path: Path) -> None:
    text = replace_once(BASE, "type: float", "type: double")
    check(
        load_error(tmp_path, text),
        line_of(text, "double"),
        "attr 'alpha': unknown type 'double' (known: int, float, bool, string, enum, list(int), type, activation, "
        "list(activation))",
    )


def test_enum_without_values(tmp_path: Path) -> None:
    text = with_enum().replace("    values: [fast, exact]\n", "").replace("    default: fast\n", "")
    check(load_error(tmp_path, text), line_of(text, "name: mode"), "attr 'mode': an enum needs 'values'")


def test_enum_with_empty_values(tmp_path: Path) -> None:
    text = replace_once(with_enum(), "values: [fast, exact]", "values: []").replace("    default: fast\n", "")
    check(load_error(tmp_path, text), line_of(text, "values: []"), "attr 'mode': the list of values is empty")


def test_enum_duplicate_values(tmp_path: Path) -> None:
    text = replace_once(with_enum(), "values: [fast, exact]", "values: [fast, exact, fast]")
    check(
        load_error(tmp_path, text),
        line_of(text, "values:"),
        "attr 'mode': duplicate values in ['fast', 'exact', 'fast']",
    )


def test_default_not_in_enum_values(tmp_path: Path) -> None:
    text = replace_once(with_enum(), "default: fast", "default: slow")
    check(
        load_error(tmp_path, text),
        line_of(text, "default: slow"),
        "attr 'mode': default 'slow' is not one of ['fast', 'exact']",
    )


def test_default_of_wrong_type(tmp_path: Path) -> None:
    text = replace_once(BASE, "default: 1.0", "default: big")
    check(
        load_error(tmp_path, text),
        line_of(text, "default: big"),
        "attr 'alpha': default: str 'big' is not a valid float",
    )


def test_bool_default_for_float(tmp_path: Path) -> None:
    text = replace_once(BASE, "default: 1.0", "default: true")
    check(
        load_error(tmp_path, text),
        line_of(text, "default: true"),
        "attr 'alpha': default: bool True is not a valid float",
    )


def test_default_below_min(tmp_path: Path) -> None:
    text = replace_once(BASE, "default: 1.0", "default: -0.5")
    check(
        load_error(tmp_path, text),
        line_of(text, "default: -0.5"),
        "attr 'alpha': default -0.5 is below the minimum 0",
    )


def test_default_above_max(tmp_path: Path) -> None:
    text = replace_once(BASE, "    min: 0\n", "    min: 0\n    max: 0.5\n")
    check(
        load_error(tmp_path, text),
        line_of(text, "default: 1.0"),
        "attr 'alpha': default 1.0 is above the maximum 0.5",
    )


def test_min_on_a_bool_attr(tmp_path: Path) -> None:
    text = replace_once(BASE, "type: float\n    default: 1.0", "type: bool\n    default: true")
    check(
        load_error(tmp_path, text),
        line_of(text, "min: 0"),
        "attr 'alpha': min/max only apply to int, float and list(int) attrs",
    )


def test_unknown_attr_key(tmp_path: Path) -> None:
    text = replace_once(BASE, "    min: 0\n", "    minimum: 0\n")
    check(load_error(tmp_path, text), line_of(text, "minimum"), "attr 'alpha': unknown key 'minimum'")


# -- names -----------------------------------------------------------------------------------------
def test_duplicate_input_name(tmp_path: Path) -> None:
    text = replace_once(BASE, "outputs:\n", '  - {name: x, dtype: T, shape: "[N, C]"}\noutputs:\n')
    check(
        load_error(tmp_path, text),
        line_of(text, "{name: x"),
        f"input/attr name 'x' is used twice (first at line {line_of(text, '- name: x')})",
    )


def test_input_and_attr_share_a_name(tmp_path: Path) -> None:
    text = replace_once(BASE, "name: alpha", "name: x")
    attr_line, input_line = [i for i, line in enumerate(text.splitlines(), 1) if line == "  - name: x"]
    assert attr_line < input_line
    # inputs are registered before attrs, so the attr is reported as the second use
    check(
        load_error(tmp_path, text),
        attr_line,
        f"input/attr name 'x' is used twice (first at line {input_line})",
    )


def test_duplicate_output_name(tmp_path: Path) -> None:
    text = BASE + '  - {name: y, dtype: T, shape: "[N]"}\n'
    check(
        load_error(tmp_path, text),
        line_of(text, "{name: y"),
        f"output name 'y' is used twice (first at line {line_of(text, '- name: y')})",
    )


@pytest.mark.parametrize("name", ["scope", "options", "self", "cls", "create", "outputs", "op_name"])
def test_reserved_input_name(tmp_path: Path, name: str) -> None:
    text = replace_once(BASE, "name: x", f"name: {name}")
    check(load_error(tmp_path, text), line_of(text, f"name: {name}"), f"input: name {name!r} is reserved")


@pytest.mark.parametrize("name", ["lambda", "class", "def", "import", "return"])
def test_python_keyword_as_attr_name(tmp_path: Path, name: str) -> None:
    text = replace_once(BASE, "name: alpha", f"name: {name}")
    check(load_error(tmp_path, text), line_of(text, f"name: {name}"), f"attr: name {name!r} is reserved")


def test_python_keyword_as_output_name(tmp_path: Path) -> None:
    text = replace_once(BASE, "name: y", "name: lambda")
    check(load_error(tmp_path, text), line_of(text, "name: lambda"), "output: name 'lambda' is reserved")


@pytest.mark.parametrize("name", ["X", "x-1", "x.y", "x y", "_x", "1x", "'x'"])
def test_invalid_input_name(tmp_path: Path, name: str) -> None:
    text = replace_once(BASE, "- name: x", f'- name: "{name}"')
    check(
        load_error(tmp_path, text),
        line_of(text, '- name: "'),
        f"input: name {name!r} is not valid (expected ^[a-z][a-z0-9_]*$)",
    )


# -- shapes ----------------------------------------------------------------------------------------
def _input_shape(shape: str, text: str = BASE) -> str:
    return replace_once(
        text, '    shape: "[N, C]"\n    doc: The input.', f"    shape: {shape}\n    doc: The input."
    )


def _output_shape(shape: str, text: str = BASE) -> str:
    return replace_once(
        text, '    shape: "[N, C]"\n    doc: The result.', f"    shape: {shape}\n    doc: The result."
    )


def test_bad_shape_syntax_with_column(tmp_path: Path) -> None:
    text = _input_shape('"[N, C +]"')
    col = "[N, C +]".index("]") + 1
    check(
        load_error(tmp_path, text),
        line_of(text, "C +"),
        f"input 'x': shape: bad shape '[N, C +]': expected a number, a symbol or '(', "
        f"got ']' at column {col}",
    )


def test_shape_with_slash_instead_of_floor_division(tmp_path: Path) -> None:
    text = _input_shape('"[N, C/2]"')
    col = "[N, C/2]".index("/") + 1
    check(
        load_error(tmp_path, text),
        line_of(text, "C/2"),
        f"bad shape '[N, C/2]': '/' is not supported; use '//' for floor division at column {col}",
    )


def test_ellipsis_beside_a_group(tmp_path: Path) -> None:
    text = _input_shape('"[..., *rest, C]"')
    check(
        load_error(tmp_path, text),
        line_of(text, "[..., *rest"),
        "input 'x': shape: bad shape '[..., *rest, C]': '...' beside another group cannot be told apart from it "
        "at column 7",
    )


def test_ellipsis_beside_a_group_in_yaml_list(tmp_path: Path) -> None:
    text = _input_shape('[N, "...", "...", C]')
    check(
        load_error(tmp_path, text), line_of(text, '"...", "..."'), "'...' beside another group cannot be told apart"
    )


def test_unknown_function_in_shape(tmp_path: Path) -> None:
    text = _input_shape('"[N, pow(C, 2)]"')
    check(load_error(tmp_path, text), line_of(text, "pow("), "unknown function 'pow'")


def test_unknown_named_shape(tmp_path: Path) -> None:
    text = _input_shape("matrix")
    check(
        load_error(tmp_path, text),
        line_of(text, "shape: matrix"),
        "input 'x': shape: no shape named 'matrix' under 'shapes' (known: [])",
    )


def test_output_shape_with_ellipsis(tmp_path: Path) -> None:
    text = _output_shape('"[N, ...]"')
    check(
        load_error(tmp_path, text),
        line_of(text, "[N, ...]"),
        "output 'y': an output shape must be fully known: '...' is not",
    )


def test_output_missing_shape(tmp_path: Path) -> None:
    text = replace_once(BASE, '    shape: "[N, C]"\n    doc: The result.', "    doc: The result.")
    check(load_error(tmp_path, text), line_of(text, "name: y"), "output 'y': missing required key 'shape'")


def test_output_uses_unbound_symbol(tmp_path: Path) -> None:
    text = _output_shape('"[N, D]"')
    check(
        load_error(tmp_path, text),
        line_of(text, "name: y"),
        "output 'y': shape: symbol 'D' is not bound by any input shape, int attr, earlier let or enclosing repeat",
    )


def test_let_uses_unbound_symbol(tmp_path: Path) -> None:
    text = BASE + "let:\n  total: N*C*K\n"
    check(load_error(tmp_path, text), line_of(text, "total:"), "let total: symbol 'K' is not bound")


def test_no_outputs(tmp_path: Path) -> None:
    text = BASE.split("outputs:")[0] + "outputs: []\n"
    check(load_error(tmp_path, text), line_of(text, "outputs:"), "outputs: an op needs at least one output")


def test_missing_outputs_key(tmp_path: Path) -> None:
    text = BASE.split("outputs:")[0]
    check(load_error(tmp_path, text), 1, "spec: missing required key 'outputs'")


# -- by: switches ----------------------------------------------------------------------------------
def test_by_names_a_non_enum_attr(tmp_path: Path) -> None:
    text = _input_shape('{by: alpha, fast: "[N, C]", exact: "[C, N]"}', with_enum())
    check(
        load_error(tmp_path, text),
        line_of(text, "by: alpha"),
        "by: 'alpha' is not an enum, bool, or int/string attr with allowed: values (those here: ['mode'])",
    )


def test_by_names_an_unknown_attr(tmp_path: Path) -> None:
    text = _input_shape('{by: layout, fast: "[N, C]", exact: "[C, N]"}', with_enum())
    check(load_error(tmp_path, text), line_of(text, "by: layout"),
          "by: 'layout' is not an enum, bool, or int/string attr")


def test_by_missing_a_case(tmp_path: Path) -> None:
    text = _input_shape('{by: mode, fast: "[N, C]"}', with_enum())
    check(
        load_error(tmp_path, text), line_of(text, "by: mode"), "input 'x': shape: no case for mode = 'exact'"
    )


def test_by_with_an_extra_case(tmp_path: Path) -> None:
    text = _input_shape('{by: mode, fast: "[N, C]", exact: "[C, N]", turbo: "[N]"}', with_enum())
    check(
        load_error(tmp_path, text),
        line_of(text, "turbo"),
        "input 'x': shape: 'turbo' is not a value of mode (['fast', 'exact'])",
    )


def test_by_in_let_missing_a_case(tmp_path: Path) -> None:
    text = with_enum() + "let:\n  total:\n    by: mode\n    fast: N*C\n"
    check(load_error(tmp_path, text), line_of(text, "by: mode"), "let.total: no case for mode = 'exact'")


def test_by_with_bad_case_shape(tmp_path: Path) -> None:
    text = _input_shape('{by: mode, fast: "[N, C]", exact: "[C N]"}', with_enum())
    check(
        load_error(tmp_path, text), line_of(text, "by: mode"), "input 'x': shape (exact): bad shape '[C N]'"
    )


# -- where -----------------------------------------------------------------------------------------
def test_where_without_comparison(tmp_path: Path) -> None:
    text = BASE + 'where:\n  - "N + C"\n'
    check(
        load_error(tmp_path, text),
        line_of(text, '"N + C"'),
        "where: 'N + C' has no comparison (== != <= >= < >)",
    )


def test_where_single_equals(tmp_path: Path) -> None:
    text = BASE + 'where:\n  - {check: "N = C", message: must be square}\n'
    check(load_error(tmp_path, text), line_of(text, "N = C"), "where: 'N = C' has no comparison")


def test_where_with_unbound_symbol(tmp_path: Path) -> None:
    text = BASE + 'where:\n  - "N <= K"\n'
    check(
        load_error(tmp_path, text),
        line_of(text, "N <= K"),
        "where 'N <= K': symbol 'K' is not bound by any input shape",
    )


def test_where_when_names_unknown_attr(tmp_path: Path) -> None:
    text = BASE + "where:\n  - check: N <= 4\n    when: {nope: true}\n"
    check(
        load_error(tmp_path, text),
        line_of(text, "nope"),
        "where: when: 'nope' is not a bool, enum, int or string attr",
    )


# -- kernel ----------------------------------------------------------------------------------------
def test_launch_arg_that_names_nothing(tmp_path: Path) -> None:
    text = replace_once(with_kernel(), "args: [x, y, N, C, alpha]", "args: [x, y, N, C, alpha, bogus]")
    check(
        load_error(tmp_path, text),
        line_of(text, "bogus"),
        "launch step 'scale': argument 'bogus' is not an input, output, scratch buffer, attr, let or shape "
        "symbol of this op",
    )


@pytest.mark.parametrize(
    "source",
    [
        "../evil.cu",
        "demo/../../evil.cu",
        "/etc/evil.cu",
        "demo/Evil.cu",
        "demo/evil.h",
        "demo\\\\evil.cu",
        "demo//evil.cu",
    ],
)
def test_kernel_source_must_be_a_plain_relative_path(tmp_path: Path, source: str) -> None:
    text = replace_once(with_kernel(), "source: demo/scale_add.cu", f'source: "{source}"')
    shown = source.replace("\\\\", "\\")
    check(
        load_error(tmp_path, text),
        line_of(text, "source:"),
        f"kernel: source {shown!r} must be a relative path like nn/name.cu (lower_case parts, no '..')",
    )


def test_launch_when_names_unknown_attr(tmp_path: Path) -> None:
    text = with_kernel() + "      when: {nope: true}\n"
    check(
        load_error(tmp_path, text),
        line_of(text, "nope"),
        "launch step 'scale': when: 'nope' is not a bool, enum, int or string attr",
    )


def test_launch_when_value_not_an_enum_value(tmp_path: Path) -> None:
    text = with_kernel(with_enum()) + "      when: {mode: turbo}\n"
    check(
        load_error(tmp_path, text),
        line_of(text, "turbo"),
        "launch step 'scale': when mode: value 'turbo' is not one of ['fast', 'exact']",
    )


def test_launch_when_on_a_float_attr(tmp_path: Path) -> None:
    text = with_kernel() + "      when: {alpha: 1.0}\n"
    check(
        load_error(tmp_path, text),
        line_of(text, "when:"),
        "launch step 'scale': when: 'alpha' is not a bool, enum, int or string attr",
    )


def test_specialize_names_no_type_var(tmp_path: Path) -> None:
    text = replace_once(with_kernel(), "specialize: [T]", "specialize: [T, U]")
    check(
        load_error(tmp_path, text),
        line_of(text, "specialize"),
        "kernel: specialize: 'U' is not a type variable",
    )


def test_launch_step_without_grid(tmp_path: Path) -> None:
    text = replace_once(with_kernel(), '      grid: ["ceildiv(N*C, 256)"]\n', "")
    check(
        load_error(tmp_path, text),
        line_of(text, "kernel: scale"),
        "launch step 'scale': missing required key 'grid'",
    )


def test_launch_block_with_four_dimensions(tmp_path: Path) -> None:
    text = replace_once(with_kernel(), "block: [256]", "block: [4, 4, 4, 4]")
    check(
        load_error(tmp_path, text),
        line_of(text, "block:"),
        "launch step 'scale': block needs 1 to 3 dimensions",
    )


def test_empty_launch_plan(tmp_path: Path) -> None:
    text = with_kernel().split("  launch:")[0] + "  launch: []\n"
    check(load_error(tmp_path, text), line_of(text, "  launch: []"), "kernel: launch: needs at least one step")


# -- across specs ----------------------------------------------------------------------------------
def test_gradient_names_a_missing_op(tmp_path: Path) -> None:
    text = replace_once(BASE, "type_vars:", "gradient: ScaleAddGrad\ntype_vars:")
    check(
        load_error(tmp_path, text),
        line_of(text, "gradient:"),
        "gradient: no op named 'ScaleAddGrad' (known: ScaleAdd)",
    )


def test_gradient_of_names_a_missing_op(tmp_path: Path) -> None:
    text = replace_once(BASE, "type_vars:", "gradient_of: ScaleAddForward\ntype_vars:")
    check(
        load_error(tmp_path, text),
        line_of(text, "gradient_of:"),
        "gradient_of: no op named 'ScaleAddForward' (known: ScaleAdd)",
    )


def test_gradient_not_an_op_name(tmp_path: Path) -> None:
    text = replace_once(BASE, "type_vars:", "gradient: scale_add_grad\ntype_vars:")
    check(
        load_error(tmp_path, text), line_of(text, "gradient:"), "gradient: 'scale_add_grad' is not an op name"
    )


def test_two_specs_with_the_same_op_name(tmp_path: Path) -> None:
    root = tmp_path / "specs"
    write_spec(root, BASE, group="demo")
    write_spec(root, BASE, group="other")
    with pytest.raises(SpecError) as info:
        load_specs(root)
    check(
        info.value,
        1,
        "op name 'ScaleAdd' is also declared in specs/demo/scale_add.yaml:1",
        file="specs/other/scale_add.yaml",
    )


def test_underscore_folders_are_not_ops(tmp_path: Path) -> None:
    root = tmp_path / "specs"
    write_spec(root, BASE)
    write_spec(root, "not: [an op spec", group="_vocab", name="whatever")
    assert [op.name for op in load_specs(root)] == [OP]


# -- the CLI: exit 2, message on stderr, nothing written -------------------------------------------
def _snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every path under `folder`: its content hash (or "dir") and mtime."""
    return {
        p.relative_to(folder).as_posix(): (
            "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize("command", ["generate", "check"])
def test_cli_spec_error_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    specs = tmp_path / "specs"
    text = replace_once(BASE, "default: 1.0", "default: big")
    write_spec(specs, text)
    out = tmp_path / "out"
    (out / "demo").mkdir(parents=True)
    (out / "sentinel.txt").write_text("a user's own file\n")
    # an existing generated file (a stale one, with the header): it must be neither rewritten nor removed
    (out / "demo" / "scale_add.py").write_text(
        "# generated from specs/demo/scale_add.yaml by opgen — do not edit\nOLD = 1\n"
    )
    (out / "demo" / "gone.py").write_text("# generated from specs/demo/gone.yaml by opgen — do not edit\n")
    for p in out.rglob("*"):  # old mtimes, so that any rewrite shows even on a coarse clock
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    before = _snapshot(out)

    status = cli.main(
        [command, "--specs", str(specs), "--templates", str(cli.PROJECT / "codegen" / "templates"), "--out", str(out)]
    )
    captured = capsys.readouterr()
    assert status == 2
    line = line_of(text, "default: big")
    assert (
        f"specs/demo/scale_add.yaml:{line}: op ScaleAdd: attr 'alpha': default: str 'big' "
        "is not a valid float" in captured.err
    )
    assert "nothing was written" in captured.err
    assert captured.out == ""
    assert _snapshot(out) == before


def test_cli_spec_error_in_a_subprocess(tmp_path: Path) -> None:
    """The real entry point (`python -m codegen`): exit status 2, the message on stderr."""
    import subprocess
    import sys

    specs = tmp_path / "specs"
    text = replace_once(BASE, "T: [float32, float16]", "T: [float32, float128]")
    write_spec(specs, text)
    out = tmp_path / "out"
    out.mkdir()
    (out / "sentinel.txt").write_text("keep me\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "codegen",
            "generate",
            "--specs",
            str(specs),
            "--templates",
            str(cli.PROJECT / "codegen" / "templates"),
            "--out",
            str(out),
        ],
        cwd=cli.PROJECT,
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"specs/demo/scale_add.yaml:{line_of(text, 'float128')}: op ScaleAdd: type_vars.T: unknown dtype "
        f"'float128'" in proc.stderr
    )
    assert "nothing was written" in proc.stderr
    assert [p.name for p in out.iterdir()] == ["sentinel.txt"]
    assert (out / "sentinel.txt").read_text() == "keep me\n"


def test_cli_missing_spec_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    status = cli.main(["generate", "--specs", str(tmp_path / "nope"), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert "spec folder not found" in err and "nothing was written" in err
    assert not out.exists()


# -- GEMM steps and scratch buffers ------------------------------------------------------------------
def with_gemm(step: str, scratch: str = "") -> str:
    kernel = KERNEL.replace("  launch:\n", scratch + "  launch:\n") + step
    return BASE + kernel


def test_gemm_step_loads(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: y, m: N, n: C, k: C, trans_b: true, beta: 1}\n")
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    gemm = op.kernel.launch[1]
    assert (gemm.a, gemm.b, gemm.out, gemm.trans_a, gemm.trans_b, gemm.beta) == ("x", "x", "y", False, True, 1)


def test_a_strided_batch_gemm_step_loads(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: y, m: 1, n: C, k: C, batch: N, a_stride: C, out_stride: C}\n")
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    gemm = op.kernel.launch[1]
    strides = (to_text(gemm.a_stride), gemm.b_stride, to_text(gemm.out_stride))
    assert (to_text(gemm.batch), strides) == ("N", ("C", None, "C"))


def test_a_gemm_stride_needs_batch(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: y, m: N, n: C, k: C,\n             out_stride: C}\n")
    check(load_error(tmp_path, text), line_of(text, "out_stride: C}"),
          "gemm step: out_stride needs batch (the number of strided products)")


def test_gemm_output_must_be_writable(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: x, m: N, n: C, k: C}\n")
    check(load_error(tmp_path, text), line_of(text, "- gemm:"),
          "gemm step: out: 'x' is not an output or scratch buffer of this op")


def test_gemm_unknown_key(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: y, m: N, n: C, k: C, alpha: 2}\n")
    check(load_error(tmp_path, text), line_of(text, "- gemm:"), "gemm step: unknown key 'alpha'")


def test_gemm_beta_must_be_0_or_1(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: y, m: N, n: C, k: C, beta: 2}\n")
    check(load_error(tmp_path, text), line_of(text, "- gemm:"), "gemm step: beta must be 0 or 1, got int 2")


def test_gemm_operands_share_a_dtype(tmp_path: Path) -> None:
    scratch = "  scratch:\n    - {name: acc, dtype: float64, shape: \"[N, C]\"}\n"
    text = with_gemm("    - gemm: {a: x, b: x, out: acc, m: N, n: C, k: C}\n", scratch)
    check(load_error(tmp_path, text), line_of(text, "- gemm:"), "gemm step: a, b and out must have one dtype")


def test_scratch_shape_needs_bound_symbols(tmp_path: Path) -> None:
    scratch = "  scratch:\n    - {name: acc, dtype: float32, shape: \"[Q]\"}\n"
    text = with_gemm("", scratch)
    check(load_error(tmp_path, text), line_of(text, "- {name: acc"),
          "scratch buffer 'acc': shape: symbol 'Q' is not bound")


def test_scratch_name_must_be_new(tmp_path: Path) -> None:
    scratch = "  scratch:\n    - {name: y, dtype: float32, shape: \"[N]\"}\n"
    text = with_gemm("", scratch)
    check(load_error(tmp_path, text), line_of(text, "- {name: y"),
          "scratch buffer 'y': the name is already used by an input, output, attr or let")


# -- repeat steps (loops of the launch plan) ------------------------------------------------------
SCALE_STEP = "{kernel: scale, grid: [1], block: [32], args: [x]}"

def test_repeat_step_loads(tmp_path: Path) -> None:
    text = with_gemm("    - repeat:\n        var: i\n        count: N\n        let: {j: N - 1 - i}\n        steps:\n"
                     "          - gemm: {a: x, b: x, out: y, m: 1, n: C, k: 1, a_offset: j*C, out_offset: i*C}\n")
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    loop = op.kernel.launch[1]
    assert (loop.var, loop.symbols(), len(loop.steps)) == ("i", ("i", "j"), 1)
    assert [type(s).__name__ for s in op.kernel.launches()] == ["LaunchStep", "GemmStep"]


def test_launch_expression_symbols_must_be_bound(tmp_path: Path) -> None:
    text = with_gemm("    - gemm: {a: x, b: x, out: y, m: N, n: C, k: C, a_offset: i*C}\n")
    check(load_error(tmp_path, text), line_of(text, "- gemm:"),
          "gemm step: a_offset: symbol 'i' is not bound by any input shape, int attr, earlier let or enclosing repeat")


def test_repeat_variable_is_local_to_its_steps(tmp_path: Path) -> None:
    text = with_gemm("    - repeat: {var: i, count: N, steps: [{kernel: scale, grid: [1], block: [32], args: [x]}]}\n"
                     "    - {kernel: scale, grid: [1], block: [32], args: [x, i]}\n")
    check(load_error(tmp_path, text), line_of(text, "args: [x, i]"),
          "launch step 'scale': argument 'i' is not an input, output, scratch buffer, attr, let or shape symbol")


def test_repeat_variable_may_not_shadow_a_symbol(tmp_path: Path) -> None:
    text = with_gemm(f"    - repeat: {{var: alpha, count: N, steps: [{SCALE_STEP}]}}\n")
    check(load_error(tmp_path, text), line_of(text, "var: alpha"),
          "repeat step 'alpha': symbol 'alpha' is also an input, output or non-int attr")


def test_nested_repeat_variables_must_differ(tmp_path: Path) -> None:
    inner = "{repeat: {var: i, count: C, steps: [{kernel: scale, grid: [1], block: [32], args: [x, i]}]}}"
    text = with_gemm(f"    - repeat: {{var: i, count: N, steps: [{inner}]}}\n")
    check(load_error(tmp_path, text), line_of(text, "count: C"), "repeat step 'i': 'i' is already")


@pytest.mark.parametrize("body, fragment", [
    (f"{{var: i, steps: [{SCALE_STEP}]}}", "repeat step 'i': missing required key 'count'"),
    ("{var: i, count: N, steps: []}", "repeat step 'i': steps: needs at least one step"),
    ("{var: i, count: K, steps: [{kernel: scale, grid: [1], block: [32], args: [x]}]}",
     "repeat step 'i': count: symbol 'K' is not bound"),
    ("{var: i, count: N, let: [j], steps: [{kernel: scale, grid: [1], block: [32], args: [x]}]}",
     "repeat step 'i': let: expected a mapping of names to expressions, got a list"),
    ("{var: i, count: N, times: 2, steps: [{kernel: scale, grid: [1], block: [32], args: [x]}]}",
     "repeat step 'i': unknown key 'times'"),
    ("{var: I2, count: N, steps: [{kernel: scale, grid: [1], block: [32], args: [x]}]}",
     "repeat step: var: name 'I2' is not valid"),
])
def test_bad_repeat_step(tmp_path: Path, body: str, fragment: str) -> None:
    text = with_gemm(f"    - repeat: {body}\n")
    check(load_error(tmp_path, text), line_of(text, "- repeat:"), fragment)


# -- lanes: a loop's independent parts side by side on the cpu ----------------------------------
LANE_GEMM = "{gemm: {a: x, b: x, out: y, m: 1, n: C, k: 1, batch: C, a_stride: 1, out_stride: C}}"
LANE_LAUNCH = "{kernel: scale, grid: [N, C], block: [32], args: [x]}"


def test_lanes_load(tmp_path: Path) -> None:
    text = with_gemm(f"    - repeat: {{var: i, count: N, lanes: C, steps: [{LANE_GEMM}, {LANE_LAUNCH}]}}\n")
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    loop = op.kernel.launch[1]
    assert to_text(loop.lanes) == "C" and loop.text().endswith("(C lanes)")


@pytest.mark.parametrize("steps, marker, fragment", [
    ("{gemm: {a: x, b: x, out: y, m: 1, n: C, k: 1}}", "{gemm:",
     "repeat step 'i': lanes: 'C': a gemm step inside needs batch: C (product i is lane i), got none"),
    ("{gemm: {a: x, b: x, out: y, m: 1, n: C, k: 1, batch: N}}", "{gemm:",
     "repeat step 'i': lanes: 'C': a gemm step inside needs batch: C (product i is lane i), got 'N'"),
    ("{kernel: scale, grid: [C, N], block: [32], args: [x]}", "{kernel:",
     "repeat step 'i': lanes: 'C': launch step 'scale' needs C as its last grid dimension"),
    (f"{{repeat: {{var: j, count: N, steps: [{LANE_LAUNCH}, {{kernel: scale, grid: [1], block: [32], args: [x]}}]}}}}",
     "grid: [1]", "repeat step 'i': lanes: 'C': launch step 'scale' needs C as its last grid dimension"),
    (f"{{repeat: {{var: j, count: N, lanes: C, steps: [{LANE_LAUNCH}]}}}}", "{repeat:",
     "repeat step 'i': lanes: a loop inside a loop with lanes has none of its own"),
])
def test_bad_lanes(tmp_path: Path, steps: str, marker: str, fragment: str) -> None:
    text = with_gemm(f"    - repeat: {{var: i, count: N, lanes: C, steps: [\n        {steps}]}}\n")
    check(load_error(tmp_path, text), line_of(text, marker), fragment)


def test_lanes_need_bound_symbols(tmp_path: Path) -> None:
    text = with_gemm(f"    - repeat: {{var: i, count: N, lanes: K, steps: [{LANE_LAUNCH}]}}\n")
    check(load_error(tmp_path, text), line_of(text, "- repeat:"), "repeat step 'i': lanes: symbol 'K' is not bound")


# -- lets switched by the backend ----------------------------------------------------------------
def test_let_by_backend_loads(tmp_path: Path) -> None:
    text = BASE + "let:\n  threads: {by: backend, cpu: 32, cuda: 256}\n"
    write_spec(tmp_path / "specs", text)
    (op,) = load_specs(tmp_path / "specs")
    assert op.lets[0].value.by == "backend" and [k for k, _ in op.lets[0].value.cases] == ["cpu", "cuda"]


@pytest.mark.parametrize(("let", "fragment"), [
    ("{by: backend, cpu: 32}", "let.threads: no case for backend = 'cuda'"),
    ("{by: backend, cpu: 32, cuda: 64, rocm: 64}", "let.threads: 'rocm' is not a value of backend (['cpu', 'cuda'])"),
])
def test_bad_let_by_backend(tmp_path: Path, let: str, fragment: str) -> None:
    text = BASE + f"let:\n  threads: {let}\n"
    err = load_error(tmp_path, text)
    assert fragment in err.message, err.message


def test_only_lets_switch_by_backend(tmp_path: Path) -> None:
    text = replace_once(BASE, 'shape: "[N, C]"\n    doc: The result.',
                        'shape: {by: backend, cpu: "[N, C]", cuda: "[N, C]"}\n    doc: The result.')
    check(load_error(tmp_path, text), line_of(text, "by: backend"),
          "output 'y': shape: only a let may switch by backend")
