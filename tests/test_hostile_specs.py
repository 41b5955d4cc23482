"""Hostile specs (docs/specs.md, "What a hostile spec cannot do").

Text from a spec must land in generated code as data: escaped in docstrings, with `*/` broken in C
comments, HTML-escaped on pages, through repr() in code, and never as template code. Names must be
identifiers that cannot break or hijack the generated wrapper. A spec that cannot be generated
safely must be rejected with a SpecError.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from codegen import cli
from codegen.load import load_specs
from codegen.render import render_all
from codegen.yamlnodes import SpecError

PROJECT = cli.PROJECT
TEMPLATES = PROJECT / "codegen" / "templates"

# -- the hostile text ------------------------------------------------------------------------------
SUMMARY = 'Ends """ early, back\\slash \\" \\\\ */ /* {{ 7*7 }} {% raw %} {# c #} and a trailing "'
DESCRIPTION = (
    "First line with ''' and \"\"\" quotes and a {% endraw %} tag.\n"
    "{{ 7*7 }} {% include 'x' %} {{ ''.__class__ }}\n"
    "<script>alert(1)</script> & <b>bold</b>\n"
    "\n"
    "A path C:\\new\\table, \\N{BULLET}, \\x41 and \\u0041 as literal text.\n"
    "Ends with a backslash \\"
)
ATTR_DOC = (
    "The factor.\nimport os; os.system('touch MARKER')\n\"\"\"\n__import__('os').system('touch MARKER')\n'''"
)
STRING_DEFAULT = "it's \"quoted\" \\ {{ 7*7 }} \"\"\" ' + __import__('os').system('touch MARKER') + '"
INPUT_DOC = 'The input, with "" two quotes and \\\\ two backslashes */ and """'
OUTPUT_DOC = 'Result */ with """triple""" quotes, a [a | b] pipe and a trailing "'
DEPRECATED = '"); __import__("os").system("touch MARKER"); ("'
WHERE_MESSAGE = "'); __import__('os').system('touch MARKER') #"


def q(text: str) -> str:
    """`text` as a YAML double-quoted scalar (JSON strings are YAML)."""
    return json.dumps(text)


HOSTILE_SPEC = f"""\
op: HostileOp
summary: {q(SUMMARY)}
description: {q(DESCRIPTION)}
deprecated: {q(DEPRECATED)}
type_vars:
  T: [float32, float16]
attrs:
  - name: alpha
    type: float
    default: 1.0
    doc: {q(ATTR_DOC)}
  - name: label
    type: string
    default: {q(STRING_DEFAULT)}
    doc: {q("A label " + SUMMARY)}
inputs:
  - name: x
    dtype: T
    shape: "[N, C]"
    doc: {q(INPUT_DOC)}
let:
  total: N*C
where:
  - check: N <= 1
    message: {q(WHERE_MESSAGE)}
outputs:
  - name: y
    dtype: T
    shape: "[N, C]"
    doc: {q(OUTPUT_DOC)}
kernel:
  source: demo/scale.cu
  specialize: [T]
  launch:
    - kernel: scale
      grid: ["ceildiv(total, 256)"]
      block: [256]
      args: [x, y, total, alpha]
"""

KERNEL_SOURCE = """\
{% include "kernels/_common.cuh" %}

template <typename T>
__device__ void scale(const T* __restrict__ x, T* __restrict__ y, long long total, float alpha) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < total) y[i] = opgen::from_float<T>(opgen::to_float(x[i]) * alpha);
}
"""


# -- helpers ---------------------------------------------------------------------------------------
def make_templates(root: Path) -> Path:
    """A copy of the project's templates with the test op's kernel source added."""
    templates = root / "templates"
    shutil.copytree(TEMPLATES, templates)
    (templates / "kernels" / "demo").mkdir(exist_ok=True)
    (templates / "kernels" / "demo" / "scale.cu").write_text(KERNEL_SOURCE, encoding="utf-8")
    return templates


def write_spec(root: Path, text: str, name: str, group: str = "demo") -> Path:
    path = root / group / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def import_file(path: Path, name: str) -> ModuleType:
    """Import one generated module from its file, under a unique name (no package __init__ runs)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def compile_strict(text: str, filename: str) -> None:
    """compile() with warnings as errors: an invalid escape sequence in a docstring fails too."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(text, filename, "exec", dont_inherit=True)


def squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The hostile op generated once through the CLI into a package with a unique name."""
    root = tmp_path_factory.mktemp("hostile")
    specs = root / "specs"
    write_spec(specs, HOSTILE_SPEC, "hostile_op")
    templates = make_templates(root)
    package = f"opgen_hostile_{uuid.uuid4().hex[:12]}"
    out = root / package
    status = cli.main(["generate", "--specs", str(specs), "--templates", str(templates), "--out", str(out)])
    assert status == 0
    files = {
        p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }
    return {"root": root, "out": out, "package": package, "files": files}


# -- accepted hostile text -------------------------------------------------------------------------
def test_hostile_text_is_loaded_verbatim(tmp_path: Path) -> None:
    write_spec(tmp_path / "specs", HOSTILE_SPEC, "hostile_op")
    (op,) = load_specs(tmp_path / "specs")
    assert op.summary == SUMMARY
    assert op.description == DESCRIPTION
    assert op.deprecated == DEPRECATED
    alpha, label = op.attrs
    assert alpha.doc == ATTR_DOC and label.default == STRING_DEFAULT
    assert op.inputs[0].doc == INPUT_DOC and op.outputs[0].doc == OUTPUT_DOC
    assert op.where[0].message == WHERE_MESSAGE


def test_every_generated_python_file_compiles(hostile: dict) -> None:
    py = {rel: text for rel, text in hostile["files"].items() if rel.endswith(".py")}
    assert "demo/hostile_op.py" in py
    for rel, text in py.items():
        compile_strict(text, rel)


def test_template_syntax_in_spec_text_is_inert(hostile: dict) -> None:
    files = hostile["files"]
    for rel, text in files.items():
        assert "49" not in text, f"{rel}: spec text was rendered as a template ({{{{ 7*7 }}}} became 49)"
    assert "{{ 7*7 }}" in files["demo/hostile_op.py"]
    assert "{% raw %}" in files["demo/hostile_op.py"]
    assert "{{ 7*7 }}" in files["docs/demo/hostile_op.md"]
    assert "{% include 'x' %}" in files["docs/demo/hostile_op.md"]
    assert "{{ 7*7 }}" in files["demo/scale.cu"]


def test_pages_escape_html(hostile: dict) -> None:
    page = hostile["files"]["docs/demo/hostile_op.md"]
    assert "<script>" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    index = hostile["files"]["docs/index.md"]
    assert "<script>" not in index


def test_table_cells_escape_pipes(hostile: dict) -> None:
    page = hostile["files"]["docs/demo/hostile_op.md"]
    row = next(line for line in page.splitlines() if line.startswith("| `y` |"))
    assert "[a \\| b]" in row
    assert len(re.findall(r"(?<!\\)\|", row)) == 5, row  # 4 columns: the pipe in the doc is escaped


def test_docstrings_carry_the_hostile_text_verbatim(
    hostile: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a successful injection would `touch MARKER` here
    sys.path.insert(0, str(hostile["root"]))  # the folder's parent, as a user would import it
    try:
        mod = import_file(hostile["out"] / "demo" / "hostile_op.py", f"{hostile['package']}.demo.hostile_op")
    finally:
        sys.path.remove(str(hostile["root"]))
    assert mod.__doc__ == f"HostileOp: {SUMMARY}"
    cls, fn = mod.HostileOp, mod.hostile_op
    assert cls.__doc__.split("\n")[0] == SUMMARY
    assert fn.__doc__.split("\n")[0] == SUMMARY
    class_doc = inspect.cleandoc(cls.__doc__)
    assert f"\n\nDeprecated: {DEPRECATED}\n\n" in class_doc
    assert f"\n\n{DESCRIPTION}\n\n" in class_doc
    # texts that are wrapped and indented for an Args section: the same words in the same order
    for text in (ATTR_DOC, INPUT_DOC, "A label " + SUMMARY):
        assert squash(text) in squash(fn.__doc__), text
    assert squash(INPUT_DOC) in squash(cls.create.__doc__)  # create() lists inputs and required attrs
    assert cls.y.__doc__ == OUTPUT_DOC
    assert cls.Options.alpha.__doc__ == f"Sets alpha (default 1.0). {ATTR_DOC}"
    assert cls.Options.label.__doc__ == f"Sets label (default {STRING_DEFAULT!r}). A label {SUMMARY}"
    assert cls.label.__doc__ == f"Options with label set (default {STRING_DEFAULT!r})."
    assert inspect.signature(fn).parameters["label"].default == STRING_DEFAULT
    assert not (tmp_path / "MARKER").exists()


def test_importing_and_calling_runs_nothing_unexpected(
    hostile: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    mod = import_file(hostile["out"] / "demo" / "hostile_op.py", f"{hostile['package']}_call.hostile_op")
    assert not (tmp_path / "MARKER").exists()
    x = np.ones((2, 3), np.float32)  # N = 2 breaks `N <= 1`: the hostile message is raised as data
    with pytest.warns(DeprecationWarning) as record, pytest.raises(ValueError) as info:
        mod.hostile_op(x, alpha=2.0)
    assert str(record[0].message) == f"HostileOp is deprecated: {DEPRECATED}"
    assert str(info.value).endswith(f": {WHERE_MESSAGE}")
    assert "N <= 1" in str(info.value)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError):
        mod.HostileOp.create(None, x, mod.HostileOp.label("plain"))
    assert not (tmp_path / "MARKER").exists()
    assert not (PROJECT / "MARKER").exists()


def test_cuda_comment_cannot_be_closed_early(hostile: dict, tmp_path: Path) -> None:
    cu = hostile["files"]["demo/scale.cu"]
    head, include, _ = cu.partition("#include <cuda_fp16.h>")
    assert include, "the kernel file has no #include <cuda_fp16.h>"
    # one comment opens and closes in the header; the summary, on its op's `//` line above its entry
    # points, has its `*/` broken all the same and ends no line with a backslash (no continuation)
    assert head.count("*/") == 1 and head.rstrip().endswith("*/"), head
    (summary,) = [line for line in cu.splitlines() if line.startswith("// ---- HostileOp: ")]
    assert "*\\/ /* {{ 7*7 }}" in summary and not summary.endswith("\\")
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not on PATH: checked the text only")
    source = tmp_path / "head.cpp"
    source.write_text(head + "\nint main() { return 0; }\n", encoding="utf-8")
    proc = subprocess.run(
        [gxx, "-fsyntax-only", "-x", "c++", str(source)],
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def test_hostile_kernel_file_compiles_with_nvcc(hostile: dict, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not on PATH (tests/test_gpu_compile.py covers the NVRTC fallback)")
    source = tmp_path / "hostile_op.cu"
    source.write_text(hostile["files"]["demo/scale.cu"], encoding="utf-8")
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", "-x", "cu", str(source), "-o", str(tmp_path / "k.o")],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("word", ["cd", "\\N", "\\x41", '"""', '\\"', "\\\\"])  # "cd": the control
def test_long_words_with_escapes_survive_wrapping(tmp_path: Path, word: str) -> None:
    """Docs are wrapped for Args sections; a long word must not be cut inside an escape sequence
    (a `\\` left at a line end becomes a line continuation, a `\\N` a broken escape)."""
    # one input per cut position around the wrap widths (72 and 76 columns)
    docs = {f"x{prefix}": "a" * prefix + word * 3 + "b" * 30 for prefix in range(66, 80)}
    inputs = "".join(
        f'  - {{name: {name}, dtype: T, shape: "[N, C]", doc: {q(doc)}}}\n' for name, doc in docs.items()
    )
    text = BASE.replace("inputs:\n", "inputs:\n" + inputs)
    write_spec(tmp_path / "specs", text, "scale_add")
    source = render_all(load_specs(tmp_path / "specs"), [TEMPLATES])["demo/scale_add.py"]
    try:
        compile_strict(source, "scale_add.py")
    except (SyntaxError, SyntaxWarning, DeprecationWarning) as exc:
        pytest.fail(f"docs with long words containing {word!r} break the generated wrapper: {exc}")
    fn = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == "scale_add"
    )
    fn_doc = "".join(line.strip() for line in (ast.get_docstring(fn, clean=False) or "").splitlines())
    corrupted = [doc for name, doc in docs.items() if f"{name}: T, shape [N, C].{doc}" not in fn_doc]
    assert not corrupted, f"wrapping corrupted these docs: {corrupted}"


# -- rejected names and values ---------------------------------------------------------------------
BASE = """\
op: ScaleAdd
summary: Scales x.
type_vars:
  T: [float32, float16]
attrs:
  - name: alpha
    type: float
    default: 1.0
  - name: mode
    type: enum
    values: [fast, exact]
    default: fast
inputs:
  - name: x
    dtype: T
    shape: "[N, C]"
outputs:
  - name: y
    dtype: T
    shape: "[N, C]"
"""


def load_error(tmp_path: Path, text: str, name: str = "scale_add", group: str = "demo") -> SpecError:
    write_spec(tmp_path / "specs", text, name, group)
    with pytest.raises(SpecError) as info:
        load_specs(tmp_path / "specs")
    return info.value


@pytest.mark.parametrize("value", ["a'b", 'a"b', "a b", "a.b", "1;import os", "turbo\n", "x-y", "ü"])
def test_hostile_enum_value_is_rejected(tmp_path: Path, value: str) -> None:
    text = BASE.replace("values: [fast, exact]", f"values: [fast, {q(value)}]")
    err = load_error(tmp_path, text)
    assert err.line == 11 and err.op == "ScaleAdd"
    assert f"attr 'mode': enum value {value!r} must be letters, digits or _" in err.message


@pytest.mark.parametrize("value", ["ex'act", "exact; import os"])
def test_hostile_when_value_is_rejected(tmp_path: Path, value: str) -> None:
    text = BASE + f'where:\n  - {{check: "N >= 0", when: {{mode: {q(value)}}}}}\n'
    err = load_error(tmp_path, text)
    assert f"where: when mode: value {value!r} is not one of ['fast', 'exact']" in err.message


# "x\n": a trailing newline must not slip through a `^...$` pattern
HOSTILE_NAMES = ["x'", 'x"', "x y", "x.y", "x;y", "x\ny", "x\n", "x(", "ünï"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize("where", ["input", "attr", "output"])
def test_hostile_arg_names_are_rejected(tmp_path: Path, name: str, where: str) -> None:
    old = {"input": "- name: x", "attr": "- name: alpha", "output": "- name: y"}[where]
    text = BASE.replace(old, f"- name: {q(name)}")
    err = load_error(tmp_path, text)
    assert err.message.startswith(f"{where}: name {name!r} is not valid"), str(err)


@pytest.mark.parametrize(
    "name", ["Scale Add", "Scale.Add", "Scale'Add", 'Scale"Add', "Scale\nAdd", "Scale;Add", "ScaleAdd\n"]
)
def test_hostile_op_names_are_rejected(tmp_path: Path, name: str) -> None:
    err = load_error(tmp_path, BASE.replace("op: ScaleAdd", f"op: {q(name)}"))
    assert err.message.startswith(f"op: name {name!r} is not valid"), str(err)


@pytest.mark.parametrize("name", ["T'", "T T", "T.U", "T\nU"])
def test_hostile_type_var_names_are_rejected(tmp_path: Path, name: str) -> None:
    text = BASE.replace("  T: [float32, float16]", f"  {q(name)}: [float32, float16]")
    err = load_error(tmp_path, text)
    assert f"type_vars: name {name!r} is not valid" in err.message


@pytest.mark.parametrize(
    "shape", ["[N', C]", "[N C]", "[N.x, C]", "[N; import os, C]", "[__import__('os'), C]"]
)
def test_hostile_shape_text_is_rejected(tmp_path: Path, shape: str) -> None:
    text = BASE.replace('    shape: "[N, C]"\noutputs:', f"    shape: {q(shape)}\noutputs:")
    assert text != BASE
    err = load_error(tmp_path, text)
    assert "input 'x': shape: bad shape" in err.message, str(err)


@pytest.mark.parametrize("name", ["a b", "a'", "a.b", "a\n"])
def test_hostile_let_names_are_rejected(tmp_path: Path, name: str) -> None:
    err = load_error(tmp_path, BASE + f"let:\n  {q(name)}: N*C\n")
    assert f"let: name {name!r} is not valid" in err.message


@pytest.mark.parametrize("name", ["scale'", "scale()", "Scale", "sc ale", "scale\n"])
def test_hostile_kernel_names_are_rejected(tmp_path: Path, name: str) -> None:
    step = f"{{kernel: {q(name)}, grid: [1], block: [1], args: [x]}}"
    text = BASE + f"kernel:\n  source: demo/scale.cu\n  launch:\n    - {step}\n"
    err = load_error(tmp_path, text)
    assert f"launch step: name {name!r} is not valid" in err.message


def test_yaml_python_tags_are_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = BASE.replace("summary: Scales x.", "summary: !!python/name:os.system")
    err = load_error(tmp_path, text)
    assert err.line == 2 and "invalid YAML value: could not determine a constructor" in err.message, str(err)
    text = BASE.replace("summary: Scales x.", "summary: !!python/object/apply:os.system ['touch MARKER']")
    err = load_error(tmp_path / "2", text)
    assert err.line == 2 and "summary: expected a string, got a list" in err.message, str(err)
    assert not (tmp_path / "MARKER").exists()


def test_yaml_alias_bomb_is_rejected_quickly(tmp_path: Path) -> None:
    """Nested YAML aliases (a "billion laughs" spec) must not make the compiler expand them."""
    lines = ['  a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    write_spec(tmp_path / "specs", BASE + "junk:\n" + "\n".join(lines) + "\n", "scale_add")
    code = (
        "import sys\nfrom pathlib import Path\nfrom codegen.load import load_specs\n"
        "from codegen.yamlnodes import SpecError\n"
        "try:\n    load_specs(Path(sys.argv[1]))\nexcept SpecError as e:\n    print(e)\n"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "specs")],
            cwd=PROJECT,
            capture_output=True,
            check=False,
            text=True,
            timeout=30,  # generous for a loaded machine: expanding 387M nodes would take far longer
        )
    except subprocess.TimeoutExpired:
        pytest.fail(
            "loading a spec with 9 levels of nested YAML aliases (387M nodes) took over 30 s: "
            "aliases are expanded"
        )
    assert proc.returncode == 0, proc.stderr
    assert "specs/demo/scale_add.yaml:" in proc.stdout


# -- names that would break or hijack the generated wrapper ----------------------------------------
# Each must be rejected by the loader, or else generate a wrapper that compiles, imports and works.
def _tv(name: str) -> str:
    return BASE.replace("  T: [float32, float16]", f"  {q(name)}: [float32, float16]").replace(
        "dtype: T", f"dtype: {q(name)}"
    )


COLLISIONS = {
    "op named None": ("none", BASE.replace("op: ScaleAdd", "op: 'None'")),
    "type var named None": ("scale_add", _tv("None")),
    "type var named like the outputs class": ("scale_add", _tv("ScaleAddOutputs")),
    "shape symbol that is a keyword": ("scale_add", BASE.replace('"[N, C]"', '"[lambda, C]"')),
    "shape symbol named like the input": ("scale_add", BASE.replace('"[N, C]"', '"[x, C]"')),
    "shape symbol named like a module global": ("scale_add", BASE.replace('"[N, C]"', '"[_rt, C]"')),
    "shape symbol named like the type var": ("scale_add", BASE.replace('"[N, C]"', '"[T, C]"')),
    "let named like a module global": ("scale_add", BASE + "let:\n  _rt: N*C\n"),
    "let that is a keyword-like builtin": ("scale_add", BASE + "let:\n  None_: N\n  True: N\n"),
    "input named like a local of create()": (
        "scale_add",
        BASE.replace("- name: x", "- name: merged").replace("    default: 1.0\n", ""),
    ),
    "enum attr whose alias shadows NamedTuple": (
        "scale_add",
        BASE.replace("name: mode", "name: named_tuple"),
    ),
    "enum attr whose alias shadows Literal": (
        "scale_add",
        BASE.replace("attrs:\n", "attrs:\n  - {name: literal, type: enum, values: [a, b], default: a}\n"),
    ),
    "input named warnings in a deprecated op": (
        "scale_add",
        BASE.replace("summary: Scales x.", "summary: Scales x.\ndeprecated: Use another op.").replace(
            "- name: x", "- name: warnings"
        ),
    ),
    "int attr named min next to min() in a let": (
        "scale_add",
        BASE.replace("attrs:\n", "attrs:\n  - {name: min, type: int, default: 1}\n")
        + "let:\n  k: min(N, C)\n",
    ),
    "float default inf": ("scale_add", BASE.replace("default: 1.0", "default: .inf")),
    "float default nan": ("scale_add", BASE.replace("default: 1.0", "default: .nan")),
    "float max inf": ("scale_add", BASE.replace("default: 1.0", "default: 1.0\n    max: .inf")),
}


@pytest.mark.parametrize("case", sorted(COLLISIONS))
@pytest.mark.filterwarnings("ignore:ScaleAdd is deprecated:DeprecationWarning")
def test_names_that_would_break_the_wrapper(tmp_path: Path, case: str) -> None:
    stem, text = COLLISIONS[case]
    write_spec(tmp_path / "specs", text, stem)
    try:
        ops = load_specs(tmp_path / "specs")
    except SpecError:
        return  # rejected: fine
    (op,) = ops
    try:
        files = render_all(ops, [TEMPLATES])
    except SpecError:
        return
    for rel, source in files.items():
        if rel.endswith(".py"):
            try:
                compile(source, rel, "exec")
            except SyntaxError as exc:
                pytest.fail(f"{case}: accepted, but {rel} does not compile: {exc}")
    path = tmp_path / "out" / f"demo/{stem}.py"
    path.parent.mkdir(parents=True)
    path.write_text(files[f"demo/{stem}.py"], encoding="utf-8")
    try:
        mod = import_file(path, f"opgen_collision_{uuid.uuid4().hex[:12]}")
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        pytest.fail(f"{case}: accepted, but the wrapper fails on import: {exc!r}")
    fn = getattr(mod, stem)
    cls = getattr(mod, op.name)
    x = np.ones((2, 3), np.float32)
    try:
        if op.required_attrs:
            result = cls.create(None, x, *(1.0 for _ in op.required_attrs)).output_tuple()
        else:
            result = fn(x)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"{case}: accepted, but a valid call fails: {exc!r}")
    assert result.y.shape == (2, 3) and result.y.dtype == np.float32


# -- spec folders: the group name lands in package paths, imports and docstrings -------------------
HOSTILE_GROUPS = {
    "space": "my group",
    "dot": "a.b",
    "quote": "q'uote",
    "upper": "Demo",
    "keyword": "class",
    "docstring breakout": 'g"""\n__import__("os").system("touch MARKER")\n"""',
    "no group folder": "",  # a spec right in the spec folder: its group is "."
}


@pytest.mark.parametrize("case", sorted(HOSTILE_GROUPS))
def test_hostile_group_folder_names(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group folder's name becomes a package name: the loader must reject one that is not a
    lower_case identifier, or else the generated package must import cleanly."""
    group = HOSTILE_GROUPS[case]
    specs = tmp_path / "specs"
    write_spec(specs, BASE, "scale_add", group)
    try:
        ops = load_specs(specs)
    except SpecError:
        return
    files = render_all(ops, [TEMPLATES])
    work = tmp_path / "work"
    out = work / "generated"  # the name the generated __init__.py imports itself by
    for rel, source in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(source, encoding="utf-8")
    monkeypatch.chdir(work)
    # the group's own __init__.py carries the folder name in its docstring
    try:
        import_file(out / group / "__init__.py", f"opgen_group_{uuid.uuid4().hex[:12]}")
    except Exception:  # noqa: BLE001 - a broken file is reported below; here only the injection matters
        pass
    assert not (work / "MARKER").exists(), f"group folder {group!r} injected code into its __init__.py"
    for rel, source in files.items():
        if rel.endswith(".py"):
            try:
                compile(source, rel, "exec")
            except SyntaxError as exc:
                pytest.fail(f"group folder {group!r} accepted, but {rel!r} does not compile: {exc}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), str(PROJECT)])}
    proc = subprocess.run(
        [sys.executable, "-c", "import generated; print(generated.scale_add.__module__)"],
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, (
        f"group folder {group!r} accepted, but the package does not import:\n{proc.stderr}"
    )
    assert not (work / "MARKER").exists()
